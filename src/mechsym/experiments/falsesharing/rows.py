"""The false-sharing rows as tables, figures and verdicts read them, and the two protocols.

The posts ran their listing once per JVM, cold (no warm-up; the loop is compiled while it runs), unpinned, and
printed one duration. The post's protocol here reads the kernel's `post` cells (the listing's structure, one run
per fresh JVM, unpinned); the lab's reads the median of the measured runs after a warm-up run, each thread
pinned to its own core (cross-core)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ...judge import analysis
from .sweep import LAB_PLACEMENT, LAYOUTS, PLACEMENTS, POST_PLACEMENT

POST = dataclasses.replace(
    analysis.POST, text="one cold run per fresh JVM, unpinned: the listing's structure, as the posts ran it")
LAB = dataclasses.replace(
    analysis.LAB, text="the median of the measured runs after a warm-up run in each JVM, one thread per core")
PROTOCOLS = (POST, LAB)
PLACEMENT_OF = {"post": POST_PLACEMENT, "lab": LAB_PLACEMENT}
ORDERS = {"variant": list(LAYOUTS), "layout": list(LAYOUTS), "placement": PLACEMENTS,
          "runtime": ["JDK 17", "JDK 25"], "protocol": ["post", "lab"]}


def rows(df: pd.DataFrame | None, metric: str | list[str] | None = "duration", warmup: bool = False,
         kind: str = "time") -> pd.DataFrame:
    """Rows of forks that passed their checks, one kind of cell ('time', 'layout', 'l1d'), with `runtime`
    ('JDK 17') and `threads` as a number."""
    m = analysis.measured(df, metric, warmup=warmup)
    if m.empty or "kind" not in m:
        return m.iloc[0:0].assign(runtime=pd.Series(dtype=str))
    m = m[m["kind"].astype(str) == kind].copy()
    m["runtime"] = m["jdk"].map(analysis.runtime_label)
    if "threads" in m and len(m):
        m["threads"] = pd.to_numeric(m["threads"], errors="coerce").round().astype("Int64")
    return m


def forks(df: pd.DataFrame, protocol, metric: str = "duration", **cell) -> np.ndarray:
    """One number per fork (fresh JVM) of one cell under a protocol: the post's cells' one run, or the median of
    the lab's measured runs."""
    m = analysis.where(rows(df, metric), protocol=protocol.name, placement=PLACEMENT_OF[protocol.name], **cell)
    return analysis.fork_values(m, protocol)


def layout_rows(df: pd.DataFrame) -> pd.DataFrame:
    """JOL's rows (kind 'layout'), with `layout` and `jdk` as text."""
    m = rows(df, None, kind="layout")
    return m.assign(layout=m["layout"].astype(str)) if len(m) else m


def layout_forks(df: pd.DataFrame, layout: str, metric: str = "counter_gap_min", **cell) -> np.ndarray:
    """One number per fork of the layout kernel (a fresh JVM allocates its counters afresh)."""
    m = analysis.where(layout_rows(df), layout=layout, metric=metric, **cell)
    return analysis.fork_values(m, LAB)
