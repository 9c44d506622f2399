"""How much of each timed run the JIT compiler and the garbage collector took: a run whose clock mostly timed
compilation or collection measured the harness, not the code (issue 32; JMH's ``-prof comp`` and ``-prof gc``).

Every Java kernel prints, per timed run, ``jit_ms`` (the compiler threads' summed compilation time), ``gc_ms``
(the pausing collectors' time) and ``gc_count``, read just before its clock starts and just after it stops
(java-src/mechsym/common/JitGc.java); a run with several timed phases names them ``<phase>_jit_ms`` ... beside
``<phase>_duration`` (SequentialIo's ``write_`` and ``read_``). This module divides them by the run's duration:

- :func:`shares`: one row per timed run (and phase): its keys, ``jit_ms``, ``gc_ms``, ``gc_count``,
  ``duration_ms``, ``jit_share`` and ``gc_share`` (fractions, NaN where the duration cannot be derived);
- :func:`flagged`: the same with ``flagged`` (either share over ``limit``, 5% by default) and ``reason``;
- :func:`mark`: the tidy rows with ``harness_flagged`` on every row of a flagged run, to leave them out;
- :func:`split_runs`, :func:`drop_split`: the runs whose two exchanged counters straddled two cache lines, left
  out the same way; :func:`voting`: the rows left after both, which every verdict reads.

The run's duration, in this order: its ``duration`` metric; else a mean time per operation times the operations
counted (``ns_per_op`` x ``increments``; PingBuffet's ``rtt_mean`` x ``pings``). SmartBatching's runs have no
single clock (latencies of scheduled messages): their shares are NaN, never guessed. jit_ms sums over compiler
threads, so a share can pass 1 on a machine with several of them. The counters tick in whole milliseconds: a run
of a few milliseconds reads 0 or 1 ms, and its share is correspondingly coarse.

Which code a timed run ran, not only how long the compiler took: a fork launched with :data:`JIT_LOG`
(``-Xlog:jit+compilation=debug:stderr:uptimemillis``, JDK 17 and later; the ``-XX:+PrintCompilation`` lines with
the JVM's uptime) prints one stderr line per compilation and per invalidation, e.g.
``[428ms]  112 %     3       mechsym.writecombining.WriteCombining::loop6 @ 2 (58 bytes)   made not entrant: OSR
invalidation of lower level``. :func:`parse_jit_line` reads one such line, :func:`jit_events` a fork's stderr, and
:func:`jit_event_rows` turns the events into tidy rows of the fork (metric ``jit_event``, value the uptime in ms,
the event in ``jit_*`` columns), each placed in the timed run whose ``uptime_start``/``uptime_end`` rows (the
kernel's, ms since JVM start, read outside its clock) surround it.
"""

from __future__ import annotations

import re

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
    out["harness_flagged"] = _rows_of(out, f.loc[f["flagged"], keys].drop_duplicates())
    return out


def _rows_of(df: pd.DataFrame, runs: pd.DataFrame) -> np.ndarray:
    """True on every row of ``df`` that belongs to one of ``runs`` (their key columns, one row per run)."""
    keys = list(runs.columns)
    hit = df[keys].merge(runs.assign(_hit=True), on=keys, how="left")["_hit"]
    return hit.fillna(False).astype(bool).to_numpy()


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


#: A kernel that can tell whether the two counters it exchanges share one 64-byte cache line adds this row to each
#: timed run: 1 yes, 0 no, -1 not read (VolatilePingPong: java-src/mechsym/signalling/CounterLine.java).
SHARE_LINE = "counters_share_line"


def split_runs(df: pd.DataFrame) -> pd.DataFrame:
    """The keys (every column but metric, value, unit, status and note) of the runs whose two exchanged counters
    straddled two cache lines (``SHARE_LINE`` = 0), one row per run; empty when there are none."""
    if df.empty or "metric" not in df or "value" not in df:
        return pd.DataFrame()
    keys = [c for c in df.columns if c not in NOT_KEYS]
    split = (df["metric"].astype(str) == SHARE_LINE) & (pd.to_numeric(df["value"], errors="coerce") == 0)
    return df.loc[split, keys].drop_duplicates().reset_index(drop=True)


def drop_split(df: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    """The rows of ``df`` without the runs of :func:`split_runs`, and how many runs were left out. Such a run timed
    two lines passed between the cores where the post times one: a placement the JVM chose for the class's statics,
    not the mechanism, so it cannot decide a claim (issue 32). Both protocols; rows without the metric (other
    kernels, runs stored before it) are kept."""
    bad = split_runs(df)
    return _without(df, bad), len(bad)


def voting(df: pd.DataFrame) -> tuple[pd.DataFrame, int, pd.DataFrame]:
    """The rows that may decide a claim, for every caller that judges (the notebooks' verdicts, --until-decided's
    looks): ``df`` without the post runs :func:`drop_flagged` leaves out and without the runs of :func:`split_runs`;
    with how many runs the first left out, and the second's runs (their keys)."""
    kept, flagged_runs = drop_flagged(df)
    split = split_runs(kept)
    return _without(kept, split), flagged_runs, split


def _without(df: pd.DataFrame, runs: pd.DataFrame) -> pd.DataFrame:
    """``df`` without the rows of ``runs`` (:func:`_rows_of`); ``df`` itself when there are none."""
    return df[~_rows_of(df, runs)].reset_index(drop=True) if len(runs) else df


# --- compilation events ------------------------------------------------------------------------------------------

#: The JVM flag that logs every compilation and invalidation to stderr with the JVM's uptime in ms (JDK 9+).
JIT_LOG = "-Xlog:jit+compilation=debug:stderr:uptimemillis"
#: The kernel's rows bounding a timed run, in ms since JVM start (the clock -Xlog's uptime decorators read).
UPTIME_START, UPTIME_END = "uptime_start", "uptime_end"
#: The metric of a compilation event's row (its value: the uptime at which the JVM logged it, ms).
JIT_EVENT = "jit_event"
#: The columns of an event's row: the compile task's id, the method (Class::name, package left out), its tier
#: (0: native wrapper, 1-3: C1, 4: C2; NaN when the JVM is not tiered), the OSR entry's bytecode index (NaN: a
#: normal compilation), what happened ("compile": the compiler starts on it, as the JVM logs it; "made not
#: entrant": that code is no longer entered; "made zombie"), the JVM's reason (JDK 25 gives one) and whether the
#: event fell inside a timed run (jit_timed).
JIT_COLUMNS = ("jit_compile_id", "jit_method", "jit_tier", "jit_osr_bci", "jit_kind", "jit_reason", "jit_timed")
COMPILE = "compile"

_JIT_LINE = re.compile(
    r"^\[(?P<t>\d+(?:\.\d+)?)(?P<u>ms|s)\]\s+(?P<id>\d+)\s(?P<attrs>[ %sbn!0-4]*?)\s*"
    r"(?P<method>[^\s:]+::[^\s(]+(?:\([^)\s]*\)\S*)?)(?:\s+@\s+(?P<bci>\d+))?\s+"
    r"\((?P<size>\d+ bytes|native|intrinsic)\)(?P<rest>.*)$")


def parse_jit_line(line: str) -> dict | None:
    """One ``-Xlog:jit+compilation`` (uptime-decorated) line as a dict: uptime_ms, compile_id, method (fully
    qualified, as logged), tier, osr_bci, kind, reason; None for a line that is not one (a kernel's own message)."""
    m = _JIT_LINE.match(line.rstrip("\n"))
    if not m:
        return None
    tiers = [c for c in m["attrs"] if c.isdigit()]
    rest = m["rest"].strip()
    kind, reason = COMPILE, ""
    for event in ("made not entrant", "made zombie"):
        if rest.startswith(event):
            kind, reason = event, rest[len(event):].lstrip(": ").strip()
    t = float(m["t"]) * (1000.0 if m["u"] == "s" else 1.0)
    return {"uptime_ms": t, "compile_id": int(m["id"]), "method": m["method"],
            "tier": int(tiers[-1]) if tiers else np.nan, "osr_bci": int(m["bci"]) if m["bci"] else np.nan,
            "kind": kind, "reason": reason}


def short_method(method: str) -> str:
    """'WriteCombining::splitLoop' for 'mechsym.writecombining.WriteCombining::splitLoop' (the package left out)."""
    cls, sep, name = method.partition("::")
    return cls.rsplit(".", 1)[-1] + sep + name


def jit_events(lines, prefix: str | None = None) -> pd.DataFrame:
    """The compilation events among ``lines`` (other lines skipped), of methods starting with ``prefix`` when given
    (e.g. "mechsym.writecombining."), in the order logged."""
    cols = ["uptime_ms", "compile_id", "method", "tier", "osr_bci", "kind", "reason"]
    if isinstance(lines, str):
        lines = lines.splitlines()
    events = [e for e in map(parse_jit_line, lines) if e and (prefix is None or e["method"].startswith(prefix))]
    return pd.DataFrame(events, columns=cols)


def jit_event_rows(events: pd.DataFrame, kernel_rows: pd.DataFrame) -> pd.DataFrame:
    """The events as tidy rows of the fork that printed ``kernel_rows``: metric jit_event, value the uptime (ms),
    unit ms, the :data:`JIT_COLUMNS`. Each event takes the iteration and warmup of the last timed run that had
    started by then (the first run's before any did); inside a timed run (uptime_start <= t <= uptime_end: the ms
    clock cannot order an event within the millisecond its clock started or stopped) it also takes that run's
    columns (e.g. which loop was timed) and jit_timed is True. ValueError when the kernel printed no uptime rows."""
    keys = [c for c in kernel_rows.columns if c not in ("metric", "value", "unit")]
    metric = kernel_rows["metric"].astype(str)
    if not metric.isin([UPTIME_START, UPTIME_END]).any():
        raise ValueError("harness.jit_event_rows: the kernel printed no uptime_start/uptime_end rows to place "
                         "compilation events in")
    start = kernel_rows[metric == UPTIME_START].rename(columns={"value": "_start"})
    end = kernel_rows[metric == UPTIME_END].rename(columns={"value": "_end"})
    spans = start[keys + ["_start"]].merge(end[keys + ["_end"]], on=keys, how="left")
    spans = spans.sort_values("_start", kind="stable").reset_index(drop=True)
    constant = {c: kernel_rows[c].iloc[0] for c in keys if kernel_rows[c].nunique(dropna=False) == 1}
    out = []
    for e in events.itertuples(index=False):
        before = spans[spans["_start"] <= e.uptime_ms]
        span = before.iloc[-1] if len(before) else spans.iloc[0]
        timed = bool(len(before)) and e.uptime_ms <= span["_end"]
        row = dict(span[keys]) if timed else {**constant, "iteration": span["iteration"], "warmup": span["warmup"]}
        row.update(metric=JIT_EVENT, value=float(e.uptime_ms), unit="ms", jit_compile_id=int(e.compile_id),
                   jit_method=short_method(e.method),
                   jit_tier=e.tier, jit_osr_bci=e.osr_bci, jit_kind=e.kind, jit_reason=e.reason, jit_timed=timed)
        out.append(row)
    rows = pd.DataFrame(out, columns=keys + ["metric", "value", "unit", *JIT_COLUMNS])
    whole = [c for c in keys if pd.api.types.is_integer_dtype(kernel_rows[c])]   # stay whole where an event has none
    return rows.astype({c: "Int64" for c in [*whole, "jit_compile_id", "jit_tier", "jit_osr_bci"]})
