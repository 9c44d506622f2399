"""How much of each timed run the JIT compiler and the garbage collector took: a run whose clock mostly timed
compilation or collection measured the harness, not the code (issue 32; JMH's ``-prof comp`` and ``-prof gc``).

Every Java kernel prints, per timed run, ``jit_ms`` (the compiler threads' summed compilation time), ``gc_ms``
(the pausing collectors' time) and ``gc_count``, read just before its clock starts and just after it stops
(java-src/mechsym/common/JitGc.java); a run with several timed phases names them ``<phase>_jit_ms`` ... beside
``<phase>_duration`` (SequentialIo's ``write_`` and ``read_``). This module divides them by the run's duration:

- :func:`shares`: one row per timed run (and phase): its keys, ``jit_ms``, ``gc_ms``, ``gc_count``,
  ``duration_ms``, ``jit_share`` and ``gc_share`` (fractions, NaN where the duration cannot be derived);
- :func:`flagged`: the same with ``flagged`` (either share over ``limit``, 5% by default) and ``reason``;
- :func:`mark`: the tidy rows with ``harness_flagged`` on every row of a flagged run, to leave them out.

The run's duration, in this order: its ``duration`` metric; else a mean time per operation times the operations
counted (``ns_per_op`` x ``increments``; PingBuffet's ``rtt_mean`` x ``pings``). SmartBatching's runs have no
single clock (latencies of scheduled messages): their shares are NaN, never guessed. jit_ms sums over compiler
threads, so a share can pass 1 on a machine with several of them. The counters tick in whole milliseconds: a run
of a few milliseconds reads 0 or 1 ms, and its share is correspondingly coarse.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: The rows a Java kernel adds to each timed run (common/JitGc.java), after an optional "<phase>_".
JIT, GC, GC_COUNT = "jit_ms", "gc_ms", "gc_count"
HARNESS_METRICS: tuple[str, ...] = (JIT, GC, GC_COUNT)
#: A run with more than this share of its time in compilation or in GC is flagged (issue 32: 5%).
LIMIT = 0.05

#: Columns that are not a run's keys: the measurement itself and the row's own remarks.
NOT_KEYS = ("metric", "value", "unit", "status", "note")
#: Milliseconds per unit of a duration (or of a time per operation, per operation).
MS_PER = {"ns": 1e-6, "ns/op": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3}
#: Where a run has no duration metric: (time per operation, the counts it may be multiplied by).
PER_OPERATION: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ns_per_op", ("increments",)),
    ("rtt_mean", ("pings",)),
)
COLUMNS = ["phase", JIT, GC, GC_COUNT, "duration_ms", "jit_share", "gc_share"]


def _phase(metric: str) -> str | None:
    """'write' for write_jit_ms, '' for jit_ms, None for a metric that is not one of the harness's (or no metric:
    the row of a cell the machine could not run)."""
    if not isinstance(metric, str):
        return None
    for h in HARNESS_METRICS:
        if metric == h:
            return ""
        if metric.endswith("_" + h):
            return metric[: -len(h) - 1]
    return None


def _prefix(phase: str) -> str:
    return f"{phase}_" if phase else ""


def _duration_ms(wide: pd.DataFrame, units: dict, phase: str) -> pd.Series:
    """Each run's duration in ms for ``phase``: its duration metric, else time per operation x operations."""
    p = _prefix(phase)
    out = pd.Series(np.nan, index=wide.index, dtype=float)
    name = p + "duration"
    if name in wide and units.get(name) in MS_PER:
        out = out.fillna(wide[name] * MS_PER[units[name]])
    for per_op, counts in PER_OPERATION:
        if p + per_op not in wide or units.get(p + per_op) not in MS_PER:
            continue
        for count in counts:
            if count in wide:
                out = out.fillna(wide[p + per_op] * MS_PER[units[p + per_op]] * wide[count])
    return out.where(out > 0)


def shares(df: pd.DataFrame) -> pd.DataFrame:
    """One row per timed run and phase that has JIT/GC rows: the run's keys (every column of ``df`` but
    metric, value, unit, status and note), then :data:`COLUMNS`. Empty (with those columns) when no row of
    ``df`` is a JIT/GC row, e.g. runs stored before the kernels recorded them."""
    if "metric" not in df or "value" not in df:
        raise ValueError("harness.shares: expected tidy rows with metric and value columns, got "
                         f"{', '.join(map(str, df.columns)) or 'no columns'}")
    keys = [c for c in df.columns if c not in NOT_KEYS]
    metrics = df["metric"].astype(str)
    phases = [p for p in dict.fromkeys(map(_phase, metrics.unique())) if p is not None]   # in the kernel's order
    if not phases:
        return pd.DataFrame(columns=keys + COLUMNS)
    run = df.groupby(keys, dropna=False, sort=False).ngroup() if keys else pd.Series(0, index=df.index)
    rows = df.assign(_run=run.to_numpy(), metric=metrics)
    wide = rows.pivot_table(index="_run", columns="metric", values="value", aggfunc="first")
    units = dict(zip(rows["metric"], rows["unit"].astype(str))) if "unit" in rows else {}
    first = rows.drop_duplicates("_run").set_index("_run")[keys]
    out = []
    for phase in phases:
        p = _prefix(phase)
        have = [p + h for h in HARNESS_METRICS if p + h in wide]
        timed = wide[have].notna().any(axis=1)
        if not timed.any():
            continue
        part = pd.DataFrame(index=wide.index[timed])
        part["phase"] = phase
        for h in HARNESS_METRICS:
            part[h] = wide.loc[timed, p + h] if p + h in wide else np.nan
        part["duration_ms"] = _duration_ms(wide.loc[timed], units, phase)
        part["jit_share"] = part[JIT] / part["duration_ms"]
        part["gc_share"] = part[GC] / part["duration_ms"]
        out.append(first.loc[part.index].join(part))
    if not out:
        return pd.DataFrame(columns=keys + COLUMNS)
    return pd.concat(out).sort_index(kind="stable").reset_index(drop=True)


def _check_limit(limit: float) -> float:
    if not isinstance(limit, (int, float)) or isinstance(limit, bool) or not 0 < limit < 1:
        raise ValueError(f"harness limit {limit!r}: a fraction of the run's time, between 0 and 1 (5% is 0.05)")
    return float(limit)


def flagged(df: pd.DataFrame, limit: float = LIMIT) -> pd.DataFrame:
    """:func:`shares` with ``flagged``: True where the JIT or the GC took more than ``limit`` of the run (a run
    whose shares are NaN is not flagged: nothing shows it was), and ``reason``, e.g. 'JIT 7.3% of 61.2 ms'."""
    limit = _check_limit(limit)
    s = shares(df)
    jit = s["jit_share"].astype(float) > limit
    gc = s["gc_share"].astype(float) > limit
    s["flagged"] = (jit | gc).astype(bool)
    reasons = []
    for j, g, row in zip(jit, gc, s.itertuples(index=False)):
        parts = ([f"JIT {row.jit_share:.1%}"] if j else []) + ([f"GC {row.gc_share:.1%}"] if g else [])
        reasons.append(f"{' and '.join(parts)} of {row.duration_ms:,.1f} ms" if parts else "")
    s["reason"] = reasons
    return s


def mark(df: pd.DataFrame, limit: float = LIMIT) -> pd.DataFrame:
    """The tidy rows of ``df`` with ``harness_flagged``: True on every row of a run that :func:`flagged` flags
    (in any of its phases), so ``df[~mark(df)["harness_flagged"]]`` keeps the runs that timed the code."""
    f = flagged(df, limit)
    keys = [c for c in df.columns if c not in NOT_KEYS]
    out = df.copy()
    if not keys or not f["flagged"].any():
        out["harness_flagged"] = bool(f["flagged"].any()) if not keys else False
        return out
    bad = f.loc[f["flagged"], keys].drop_duplicates()
    hit = out[keys].merge(bad.assign(_hit=True), on=keys, how="left")["_hit"]
    out["harness_flagged"] = hit.fillna(False).astype(bool).to_numpy()
    return out


def drop_flagged(df: pd.DataFrame, limit: float = LIMIT) -> tuple[pd.DataFrame, int]:
    """The rows of ``df`` without the post-protocol runs that :func:`flagged` flags (more than ``limit`` of the run in
    JIT compilation or GC: the harness, not the code; such a number cannot decide a claim), and how many runs were
    left out. Lab-protocol runs are kept: their warm-up iterations are already left out of every verdict. Rows without
    a protocol column, or without JIT/GC rows (stored before they were recorded, C kernels), are kept as they are."""
    if df.empty or "protocol" not in df or not df["metric"].astype(str).isin(HARNESS_METRICS).any():
        return df, 0
    post = df["protocol"].astype(str) == "post"
    if not post.any():
        return df, 0
    marked = mark(df[post])
    bad = marked["harness_flagged"].to_numpy()
    if not bad.any():
        return df, 0
    keys = [c for c in df.columns if c not in NOT_KEYS]
    runs = len(marked.loc[bad, keys].drop_duplicates()) if keys else 1
    keep = np.ones(len(df), dtype=bool)
    keep[np.flatnonzero(post.to_numpy())[bad]] = False
    return df[keep].reset_index(drop=True), runs
