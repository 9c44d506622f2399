"""The rows tables, figures and verdicts read, and the two protocols.

The post's numbers came from the Disruptor's perf test of the time: three passes in one JVM, no warm-up, each
pass printed, and the post quotes what it had "seen" (the best). The lab's harness takes the median of measured
runs after a warm-up run. Both are read one number per fork (fresh JVM)."""

from __future__ import annotations


import numpy as np
import pandas as pd

from ...judge import analysis
from .meta import PLACEMENTS
from .sweep import CHANNELS

POST = analysis.Protocol("post", "the best of the perf test's three passes in each fresh JVM, no warm-up "
                         "(the post: \"I've seen over 50 million\")", analysis.best_run)
LAB = analysis.LAB
PROTOCOLS = (POST, LAB)
ORDERS = {"variant": list(CHANNELS), "placement": PLACEMENTS, "runtime": ["JDK 17", "JDK 25"],
          "protocol": ["post", "lab"]}


def rows(df: pd.DataFrame | None, metric: str = "throughput") -> pd.DataFrame:
    """Measured rows of forks that passed their checks, with `runtime` and `protocol` columns."""
    m = analysis.measured(df, metric)
    if m.empty:
        return m.assign(runtime=pd.Series(dtype=str), protocol=pd.Series(dtype=str))
    m["runtime"] = m["jdk"].map(analysis.runtime_label)
    m["protocol"] = m["protocol"].astype(str) if "protocol" in m else "lab"
    return m


def forks(df: pd.DataFrame, protocol, **cell) -> np.ndarray:
    """One events/s per fork of one cell under a protocol (post: the post-protocol cells only)."""
    m = rows(df)
    return analysis.fork_values(m[m["protocol"] == protocol.name], protocol, **cell)


def per_fork_table(df: pd.DataFrame) -> pd.DataFrame:
    """Every fork's events/s under each protocol: variant, runtime, placement, protocol, fork_key, value."""
    m = rows(df)
    parts = [analysis.per_fork(m[m["protocol"] == p.name], p, ["variant", "runtime", "placement"])
             .assign(protocol=p.name) for p in PROTOCOLS if (m["protocol"] == p.name).any()]
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
    return analysis.sort_by(out, ORDERS) if len(out) else out
