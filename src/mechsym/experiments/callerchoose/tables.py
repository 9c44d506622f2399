"""Tables: per collector and input size, each method's speed, allocation and garbage collections, and the young
generation the JVM had. Every function that reads results is split per machine (analysis.by_machine)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from ...judge.analysis import fmt_ns, fmt_ratio, fmt_rate, median_of
from .meta import SIZES
from .rows import LAB, ORDERS, collectors, forks, per_jdk, rows
from .sweep import METHODS

LABEL = {"split": "String.split", "list": "reused ArrayList", "set": "reused HashSet"}


def _num(v: float, digits: int = 0) -> str:
    return f"{v:,.{digits}f}" if np.isfinite(v) else analysis.MISSING


def reference_table(ref: pd.DataFrame) -> pd.DataFrame:
    """What the post says, sentence by sentence (it gives no numbers)."""
    return ref[["table", "metric", "note"]].rename(columns={"table": "where", "metric": "about", "note": "the post"})


@analysis.by_machine
def comparison(df: pd.DataFrame) -> pd.DataFrame:
    """Per collector, input size and method: calls/s, ns per call, x String.split's time, bytes allocated per call,
    collections and GC time per run (medians over forks of each fork's median run)."""
    out = []
    for runtime, d in per_jdk(df):
        for g in collectors(d):
            for size in SIZES:
                base = median_of(forks(d, LAB, "ns_per_op", "split", size, g))
                for m in METHODS:
                    ns = median_of(forks(d, LAB, "ns_per_op", m, size, g))
                    if not np.isfinite(ns):
                        continue
                    out.append({"runtime": runtime, "collector": g, "input": size, "words": _words(d, size),
                                "method": LABEL[m], "calls/s": fmt_rate(1e9 / ns, "calls/s"),
                                "ns per call": fmt_ns(ns), "String.split / this": fmt_ratio(base / ns),
                                "bytes per call": _num(median_of(forks(d, LAB, "alloc_bytes_per_op", m, size, g))),
                                "GCs per run": _num(median_of(forks(d, LAB, "gc_count", m, size, g)), 1),
                                "GC ms per run": _num(median_of(forks(d, LAB, "gc_ms", m, size, g))),
                                "forks": len(forks(d, LAB, "ns_per_op", m, size, g))})
    return pd.DataFrame(out)


def _words(df: pd.DataFrame, size: str) -> str:
    w = analysis.where(rows(df), size=size)["words"] if "words" in df else pd.Series(dtype=float)
    return f"{int(w.iloc[0]):,}" if len(w) else ""


@analysis.by_machine
def young_table(df: pd.DataFrame) -> pd.DataFrame:
    """The young generation each collector's JVM had (committed Eden + Survivor, read from the JVM) beside the
    result array String.split allocates per input size."""
    if rows(df, "young_gen_bytes").empty:
        return pd.DataFrame()
    out = []
    for runtime, d in per_jdk(df):
        for g in collectors(d):
            young = analysis.where(rows(d, "young_gen_bytes"), collector=g)["value"].median()
            for size in SIZES:
                arr = analysis.where(rows(d, "result_array_bytes"), collector=g, size=size)["value"]
                if arr.empty:
                    continue
                out.append({"runtime": runtime, "collector": g, "young generation (MB)": f"{young / 2**20:,.1f}",
                            "input": size, "result array (MB)": f"{arr.iloc[0] / 2**20:,.3f}",
                            "fits in the young generation?": "yes" if arr.iloc[0] < young else "no"})
    return pd.DataFrame(out)


@analysis.by_machine
def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Every cell: median ns per call over the measured runs, range, runs and forks."""
    m = rows(df)
    if m.empty:
        return pd.DataFrame()
    m = m.assign(runtime=m["jdk"].map(analysis.runtime_label))
    keys = ["runtime", "collector", "size", "variant"]
    return analysis.cell_table(m, keys, ORDERS, fmt_ns, spread=False)[0]
