"""The rows as tables, figures and verdicts read them, and the two protocols.

The post's plots put one simulation per point: for a fixed number of clients, the item count rising along the x axis,
in one process ("jitter was higher at startup", its sweep's first points), System.gc() between simulations. So the
post's protocol here is the kernel's post sweep: one JVM per (container, clients, capacity) runs one simulation per
item count, in ascending order, and each (fork, item count) is read once. The lab's harness runs one item count per
JVM: warm-up simulations, then the median of the measured ones."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ...judge import analysis
from .sweep import CONTAINERS, DEFAULT_CAPACITY

POST = dataclasses.replace(analysis.POST, text="one simulation per item count, items ascending in one JVM, "
                           "System.gc() between: the post's sweep")
LAB = analysis.LAB
PROTOCOLS = (POST, LAB)
ORDERS = {"variant": list(CONTAINERS), "protocol": ["post", "lab"], "gc": ["isolated", "default"]}
INTS = ("clients", "items", "map_capacity", "cores")


def rows(df: pd.DataFrame | None, metric: str = "bids_per_s", warmup: bool = False) -> pd.DataFrame:
    """Rows of forks that passed their checks (measured simulations unless warmup=True), one metric, with clients,
    items, map_capacity and cores as int, protocol and gc as text."""
    m = analysis.measured(df, metric, warmup=warmup)
    if m.empty:
        return m.assign(protocol=pd.Series(dtype=str), gc=pd.Series(dtype=str),
                        **{c: pd.Series(dtype=int) for c in INTS})
    for c in INTS:
        m[c] = pd.to_numeric(m[c], errors="coerce").astype(int)
    m["protocol"] = m["protocol"].astype(str)
    m["gc"] = m["gc"].astype(str)
    return m


def core_count(df: pd.DataFrame) -> int | None:
    """The machine's logical CPUs as the sweep recorded them (None without rows)."""
    m = rows(df)
    return int(m["cores"].iloc[0]) if len(m) else None


def forks(df: pd.DataFrame, protocol, metric: str = "bids_per_s", capacity: int = DEFAULT_CAPACITY,
          gc: str = "isolated", **cell) -> np.ndarray:
    """One number per fork (fresh JVM) of one cell (variant, clients, items, jdk) under a protocol."""
    m = analysis.where(rows(df, metric), protocol=protocol.name, map_capacity=capacity, gc=gc, **cell)
    return analysis.fork_values(m, protocol)


def judged_items(df: pd.DataFrame) -> int | None:
    """The item count the claims are judged at: the lab cells' (the post's peak, ~45), else the post sweep's last."""
    m = rows(df)
    if m.empty:
        return None
    lab = m[m["protocol"] == "lab"]
    return int((lab if len(lab) else m)["items"].max())


def per_fork_table(df: pd.DataFrame, metric: str = "bids_per_s") -> pd.DataFrame:
    """Every fork's number under its cell's protocol: jdk, variant, clients, items, map_capacity, gc, protocol,
    fork_key, value."""
    by = ["jdk", "variant", "clients", "items", "map_capacity", "gc"]
    m = rows(df, metric)
    parts = [analysis.per_fork(m[m["protocol"] == p.name], p, by).assign(protocol=p.name) for p in PROTOCOLS
             if (m["protocol"] == p.name).any()]
    return analysis.sort_by(pd.concat(parts, ignore_index=True), ORDERS) if parts else pd.DataFrame()
