"""The rows tables, figures and verdicts read, and the two protocols.

The post quotes the best of its runs ("I got a variety of results ... I chose the best for the above summary"):
its protocol here is the best run of each fresh JVM, read from the cells run with the kernel's `post` protocol
(every run measured, none warmed up, 20 runs as the post's IPC test). Cells without post-protocol runs (the
in-heap queue's kernel, mechsym.spsc, has no such protocol; the unaligned variant is not run that way) are read
from the best of their measured runs. The lab's harness takes the median of the measured runs
after the warm-up runs."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from .sweep import PLACEMENTS, VARIANTS

POST = analysis.Protocol("post", "the best run of each fresh JVM, as the post chose its best", analysis.best_run)
LAB = analysis.LAB
PROTOCOLS = (POST, LAB)
ORDERS = {"variant": list(VARIANTS), "placement": PLACEMENTS, "protocol": ["post", "lab"]}


def rows(df: pd.DataFrame | None, metric: str = "throughput") -> pd.DataFrame:
    """Measured rows of forks that passed their checks, one metric, with a `protocol` column ('lab' where the
    kernel printed none)."""
    m = analysis.measured(df, metric)
    if m.empty:
        return m.assign(protocol=pd.Series(dtype=str))
    if "protocol" not in m:
        m["protocol"] = "lab"
    m["protocol"] = m["protocol"].fillna("lab").replace("", "lab").astype(str)
    return m


def cell_rows(df: pd.DataFrame, protocol, **cell) -> pd.DataFrame:
    """The rows a protocol reads for one cell: the post's from the post-protocol cells where the sweep ran them
    (else the cell's measured lab runs), the lab's from the lab cells."""
    m = analysis.where(rows(df), **cell)
    if protocol.name == POST.name:
        post = m[m["protocol"] == "post"]
        return post if len(post) else m[m["protocol"] == "lab"]
    return m[m["protocol"] == "lab"]


def forks(df: pd.DataFrame, protocol, **cell) -> np.ndarray:
    """One number per fork (fresh JVM) of one cell under a protocol."""
    return analysis.fork_values(cell_rows(df, protocol, **cell), protocol)


def per_fork_table(df: pd.DataFrame) -> pd.DataFrame:
    """Every fork's number per variant, placement and protocol."""
    parts = []
    for protocol in PROTOCOLS:
        for (v, pl), _ in rows(df).groupby(["variant", "placement"], sort=False):
            sub = cell_rows(df, protocol, variant=v, placement=pl)
            if len(sub):
                parts.append(analysis.per_fork(sub, protocol, ["variant", "placement"]).assign(protocol=protocol.name))
    if not parts:
        return pd.DataFrame(columns=["variant", "placement", "protocol", "fork_key", "value"])
    return analysis.sort_by(pd.concat(parts, ignore_index=True), ORDERS)


AFFINITY = {"same core": "smt", "cross core": "cross-core", "cross socket": "cross-socket"}


def reference_rates(ref: pd.DataFrame) -> pd.DataFrame:
    """The post's msgs/s figures (this post's rows of the shared reference file), with the lab's `placement` for the
    post's affinity ("same core" -> smt: most likely two hardware threads of one core)."""
    r = ref[ref["table"].astype(str).str.startswith("135M messages a second") & (ref["metric"] == "throughput")]
    return r.assign(placement=r["row"].map(AFFINITY).fillna("not stated"))
