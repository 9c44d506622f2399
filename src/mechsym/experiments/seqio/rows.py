"""The rows as the tables, figures and verdicts read them: MB/s per pass, direction and kernel protocol, and the
post's own numbers; the two kernel protocols."""

from __future__ import annotations

import pandas as pd

from ...judge import analysis
from ...judge.analysis import Protocol
from .meta import REFERENCE
from .sweep import ALL, DD, MB, METHODS, REGIMES, WARMUP_PASSES

POST = Protocol("post", "the kernel's post protocol (the structure of the post's listing); per JVM the median "
                "of passes 2-5", analysis.median_run)
LAB = Protocol("lab", "the lab's kernel (a data pattern that changes every pass, windows unmapped when done); "
               "per JVM the median of passes 2-5", analysis.median_run)
PROTOCOLS = (POST, LAB)
METRICS = ["write_throughput", "read_throughput"]
PROTOCOL_NAMES = ["post", "lab"]  # the kernel's post protocol (the listing's structure), the lab's kernel
ORDERS = {"regime": list(REGIMES), "direction": ["write", "read"], "protocol": PROTOCOL_NAMES,
          "method": list(METHODS) + list(DD), "variant": list(METHODS) + list(DD)}


def throughput(df: pd.DataFrame, measured_only: bool = False) -> pd.DataFrame:
    """MB/s rows of forks that passed their checks: `direction` (write/read), `pass` (iteration + 1, 1 = first in
    a fresh JVM) and `protocol` (the kernel's: "post" or "lab"; runs before the post protocol existed are "lab")."""
    m = analysis.measured(df, METRICS, warmup=not measured_only)
    if m.empty:
        return m.assign(direction=pd.Series(dtype=str), protocol=pd.Series(dtype=str), **{"pass": pd.Series(dtype=int)})
    m = m.assign(direction=m["metric"].str.split("_").str[0], **{"pass": m["iteration"].astype(int) + 1})
    m["protocol"] = m["protocol"].fillna("lab").astype(str) if "protocol" in m else "lab"
    cases = m["variant"] == ALL  # a post-protocol fork ran the four cases in one JVM: each row's case is its method
    m.loc[cases, "variant"] = m.loc[cases, "method"]
    m.loc[m["variant"].isin(list(DD)), "protocol"] = "-"  # dd is neither
    return m


def reference() -> pd.DataFrame:
    """The post's two tables (data/reference), with MB/s and pass columns."""
    from ...store.reference import load

    ref = load(REFERENCE).copy()
    ref["MB/s"] = ref["value"] / MB
    ref["pass"] = ref["iteration"].astype(int) + 1
    return ref


def reference_medians(ref: pd.DataFrame) -> pd.Series:
    """The post's median MB/s over passes 2-5, by (regime, direction, method): the `then` of every claim.
    ref: the reference rows as data/reference holds them (bytes/s, iteration 0 = the first pass)."""
    r = ref[ref["iteration"].astype(int) >= WARMUP_PASSES]
    return (r["value"] / MB).groupby([r["regime"], r["direction"], r["method"]]).median()
