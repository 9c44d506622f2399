"""The signalling rows as tables, figures and verdicts read them, and the two protocols.

Both posts time ONE run in a fresh JVM and warm nothing up: `main` starts the other thread(s), reads the clock,
runs the whole exchange once, prints and exits (the 2011-11-05 listing even times the threads' start and join).
So the post's protocol here is the first run of each fork, cold. The lab's harness takes the median of the
measured runs after a warm-up run, on threads that stay alive from run to run.

Where the sweep holds cells run with the kernels' own `post` protocol (the listing's structure), the post's
verdicts read those; otherwise they read the first (cold) run of the lab's kernels."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ...judge import analysis
from .sweep import PLACEMENTS, VARIANTS

POST = dataclasses.replace(
    analysis.POST, text="the first run of each fresh JVM, cold: the listings time one run and warm nothing up")
LAB = analysis.LAB
PROTOCOLS = (POST, LAB)
RUNTIMES = ["JDK 17", "JDK 25", "C (gcc)"]
ORDERS = {"variant": list(VARIANTS), "placement": PLACEMENTS, "runtime": RUNTIMES, "protocol": ["post", "lab"]}


def rows(df: pd.DataFrame | None, metric: str | list[str] | None = "ns_per_op", warmup: bool = False) -> pd.DataFrame:
    """Rows of forks that passed their checks (measured runs only unless warmup=True), one metric, with a
    `runtime` ('JDK 17', 'C (gcc)') and a `protocol` ('lab', or 'post' for cells run with the kernels' post
    protocol) column, and one `fork` number per fresh JVM.

    Runs stored before the sweep interleaved forks itself numbered their forks in a `round` column (fork 0 in
    every row): the round is the fork there."""
    m = analysis.measured(df, metric, warmup=warmup)
    if m.empty:
        return m.assign(runtime=pd.Series(dtype=str), protocol=pd.Series(dtype=str))
    m["runtime"] = m["jdk"].map(analysis.runtime_label)
    if "protocol" not in m:
        m["protocol"] = "lab"
    m["protocol"] = m["protocol"].fillna("lab").replace("", "lab").astype(str)
    if "round" in m:
        rnd = pd.to_numeric(m["round"], errors="coerce")
        m["fork"] = rnd.where(rnd.notna(), m["fork"]).astype(int)
    return m


def lab_rows(df: pd.DataFrame, metric: str = "ns_per_op") -> pd.DataFrame:
    """The lab harness's measured runs (warm-up excluded) of the lab's cells."""
    m = rows(df, metric)
    return m[m["protocol"] == "lab"]


def post_rows(df: pd.DataFrame, metric: str = "ns_per_op", **cell) -> tuple[pd.DataFrame, str]:
    """The rows the post's protocol reads for one cell, and where they come from.

    The kernels' post-protocol cells when the results have them for this cell; else the lab kernels' first run
    in each JVM (its warm-up run: cold, as the post's only run was)."""
    m = analysis.where(rows(df, metric, warmup=True), **cell)
    post = m[m["protocol"] == "post"]
    if len(post):
        return post, "the kernels' post protocol (the listing's structure)"
    return m[m["protocol"] == "lab"], "the first (cold) run of each fork of the lab's kernels"


def forks(df: pd.DataFrame, protocol, metric: str = "ns_per_op", **cell) -> np.ndarray:
    """One number per fork (fresh JVM) of one cell under a protocol."""
    if protocol.name == POST.name:
        m, _ = post_rows(df, metric, **cell)
        return analysis.fork_values(m, POST)
    return analysis.fork_values(lab_rows(df, metric), LAB, **cell)


def per_fork_table(df: pd.DataFrame, metric: str = "ns_per_op", by=("variant", "runtime", "placement")) -> pd.DataFrame:
    """Every fork's number under both protocols: the groups' columns, protocol, source (which cells and run it
    was read from), fork_key, value."""
    by = list(by)
    parts = []
    m = rows(df, metric, warmup=True)
    has_post = m["protocol"] == "post"
    post_cells = set(map(tuple, m.loc[has_post, by].astype(str).values))
    fallback = (~has_post) & ~pd.Series([tuple(k) in post_cells for k in m[by].astype(str).values], index=m.index)
    for sub, protocol, source in ((m[has_post], POST, "the kernels' post protocol"),
                                  (m[fallback], POST, "the lab kernel's first run"),
                                  (lab_rows(df, metric), LAB, "the lab's measured runs")):
        if len(sub):
            parts.append(analysis.per_fork(sub, protocol, by).assign(protocol=protocol.name, source=source))
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    return analysis.sort_by(out, ORDERS) if len(out) else out


def median(df: pd.DataFrame, metric: str = "ns_per_op", **cell) -> float | None:
    """The median of the lab's measured runs of one cell (None when there are none)."""
    return analysis.runs_median(analysis.where(lab_rows(df, metric), **cell))
