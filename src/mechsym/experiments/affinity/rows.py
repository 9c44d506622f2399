"""Per-second rates as tables, figures and verdicts read them, and the two protocols.

The post ran one sender and one receiver per test and charted every second's count. Post protocol: every full
second of the receiver; lab: the same without the first second (class loading, JIT compilation). One number per
fork (one pair of fresh JVMs)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import analysis
from .meta import PLACEMENTS

POST = analysis.Protocol("post", "every full second of the run, as the post charted it", analysis.median_run)
LAB = analysis.Protocol("lab", "every full second after the first (start-up and JIT excluded)",
                        lambda v: float(v.iloc[1:].median()) if len(v) > 1 else float("nan"))
PROTOCOLS = (POST, LAB)
ORDERS = {"placement": PLACEMENTS, "role": ["sender", "receiver"], "protocol": ["post", "lab"]}


def rates(df: pd.DataFrame | None, role: str = "receiver") -> pd.DataFrame:
    """One row per full second of one role: placement, fork, iteration (the second), value (messages/s)."""
    m = analysis.measured(df, "rate")
    if m.empty or "role" not in m:
        return m
    return m[m["role"] == role].sort_values(["placement", "fork", "iteration"])


def _cv(v: pd.Series) -> float:
    return float(v.std(ddof=0) / v.mean()) if len(v) > 1 and v.mean() > 0 else float("nan")


def fork_values(df: pd.DataFrame, protocol, statistic: str = "rate", **cell) -> np.ndarray:
    """One value per fork of the receiver: its median rate, or the spread (cv) of its seconds."""
    m = analysis.where(rates(df), **cell)
    if m.empty:
        return np.array([])
    if statistic == "rate":
        return analysis.fork_values(m, protocol)
    skip = 0 if protocol.name == "post" else 1
    cvs = m.groupby(["run_id", "fork"] if "run_id" in m else ["fork"])["value"].apply(lambda v: _cv(v.iloc[skip:]))
    return cvs.dropna().to_numpy(dtype=float)


def totals(df: pd.DataFrame) -> pd.DataFrame:
    """Per placement and fork: messages sent and received, lost, reordered."""
    m = analysis.measured(df, ["total", "lost", "reordered"])
    if m.empty:
        return pd.DataFrame()
    m = m.assign(what=m["role"] + " " + m["metric"])
    return m.pivot_table(index=["placement", "fork"], columns="what", values="value", aggfunc="first")
