"""Per-second rates as tables, figures and verdicts read them, and the one protocol.

The post ran one sender and one receiver per test and charted every second's count. One protocol, one verdict per
claim: every full second of the receiver after the first (the first holds both JVMs' start-up and JIT compilation,
in either placement: it is no second of the steady rate the claims describe), one number per fork (one pair of
fresh JVMs). An earlier "post" and "lab" read the same runs with and without the first second: one data set, two
verdicts; they are merged."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from .meta import PLACEMENTS


def after_first(v: pd.Series) -> float:
    """The median of a fork's full seconds after the first."""
    return float(v.iloc[1:].median()) if len(v) > 1 else float("nan")


POST = analysis.Protocol("post", "every full second of the receiver after the first (start-up and JIT excluded), "
                         "one pair of fresh JVMs a fork, as the post ran its pair", after_first)
PROTOCOLS = (POST,)
ORDERS = {"placement": PLACEMENTS, "role": ["sender", "receiver"]}


def rates(df: pd.DataFrame | None, role: str = "receiver") -> pd.DataFrame:
    """One row per full second of one role: placement, fork, iteration (the second), value (messages/s)."""
    m = analysis.measured(df, "rate")
    if m.empty or "role" not in m:
        return m
    return m[m["role"] == role].sort_values(["placement", "fork", "iteration"])


def _cv(v: pd.Series) -> float:
    return float(v.std(ddof=0) / v.mean()) if len(v) > 1 and v.mean() > 0 else float("nan")


def fork_values(df: pd.DataFrame, protocol=POST, statistic: str = "rate", **cell) -> np.ndarray:
    """One value per fork of the receiver, its seconds after the first: their median rate, or their spread (cv)."""
    m = analysis.where(rates(df), **cell)
    if m.empty:
        return np.array([])
    if statistic == "rate":
        return analysis.fork_values(m, protocol)
    cvs = m.groupby(["run_id", "fork"] if "run_id" in m else ["fork"])["value"].apply(lambda v: _cv(v.iloc[1:]))
    return cvs.dropna().to_numpy(dtype=float)


def totals(df: pd.DataFrame) -> pd.DataFrame:
    """Per placement and fork: messages sent and received, lost, reordered."""
    m = analysis.measured(df, ["total", "lost", "reordered"])
    if m.empty:
        return pd.DataFrame()
    m = m.assign(what=m["role"] + " " + m["metric"])
    return m.pivot_table(index=["placement", "fork"], columns="what", values="value", aggfunc="first")


def trace(df: pd.DataFrame, placement: str, fork: int) -> pd.DataFrame:
    """One fork's seconds: the sender's and the receiver's messages/s side by side (the receiver can only follow
    what was sent: where both step together, the sender's rate stepped)."""
    m = analysis.measured(df, "rate")
    if m.empty:
        return pd.DataFrame()
    m = m[(m["placement"] == placement) & (pd.to_numeric(m["fork"]) == fork)]
    t = m.pivot_table(index="iteration", columns="role", values="value", aggfunc="first")
    return t.reindex(columns=[c for c in ("sender", "receiver") if c in t]).rename_axis(None, axis=1)
