"""One check of a run's rows, for everything that writes or reads them.

A stored run's CSV holds the agreed columns (CORE, each once, named as the
bench names them) and the sweep's parameter columns (lower-case identifiers),
every row with exactly as many fields as the header, and, in every measured
row (status "ok"), a metric, a known unit and a finite value within what the
unit allows (UNITS: a rate > 0, a duration > 0, a count >= 0 and whole, ns/op
below a day, ...). A cell the machine could not run is one "unavailable" row
with its reason and no value.

The same rules apply to a kernel's output before the sweep keeps it
(kernel_problem: a fork whose output breaks them fails with the reason, and
nothing of it is stored) and to every read of the store (problem: a run that
breaks them is skipped with one warning naming the file and its first bad
line), to bundles and to imports.

The ranges come from the units the stored runs and the kernels use
(data/results: MB/s bids/s bool bytes bytes/op count fraction messages ms
msg/s ns ns/op ops/s pings ratio); the ceilings are far above anything a
2-CPU fork can measure within the bench's longest timeout (a day).
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: The columns every stored run has, whatever its experiment: the sweep adds them to every row.
CORE = ("run_id", "experiment", "variant", "fork", "iteration", "warmup", "metric", "value", "unit", "status", "note")
#: The columns a kernel prints (launch.REQUIRED_COLUMNS), and those the bench adds itself and a kernel may not print.
KERNEL = ("iteration", "warmup", "metric", "value", "unit")
BENCH_ADDS = ("run_id", "experiment", "fork", "taskset", "status", "note")
STATUSES = ("ok", "unavailable")
NL = b"\n"
COLUMN = re.compile(r"^[a-z][a-z0-9_]*$")

DAY_NS = 86400e9   # the longest fork the bench allows (launch.MAX_TIMEOUT), in ns
BIG = 2.0 ** 63    # a count or a size beyond a signed 64-bit number is not one a kernel counted


@dataclass(frozen=True)
class Range:
    """What a unit allows: lo < value (lo <= value when lo_open is False) and value <= hi; whole: an integer; floor:
    the smallest magnitude a value other than 0 can physically have (1e-300 ns is no duration a CPU can time, and
    a ratio of two such numbers "holds" at 1e299x)."""
    what: str
    lo: float
    lo_open: bool
    hi: float
    whole: bool = False
    floor: float = 0.0


RATE = 1e12  # per second: a thousand events a nanosecond is beyond any CPU this lab runs on
SLOW = 1e-6  # per second: a fork lasts at most a day, so it cannot see a rate below one event in it (1.2e-5/s)
# ns: the timer's 1 ns spread over 1e15 operations, more than a fork counts in a day at 1e10/s. A loop the JIT
# removed gives a real 2e-08 ns/op (singlewriter, 74cfa7): tiny is a finding about the kernel, not a corrupt row.
FEMTO = 1e-15
UNITS: dict[str, Range] = {
    "ops/s": Range("a rate", 0, True, RATE, floor=SLOW),
    "msg/s": Range("a rate", 0, True, RATE, floor=SLOW),
    "bids/s": Range("a rate", 0, True, RATE, floor=SLOW),
    "MB/s": Range("a rate", 0, True, 1e7, floor=SLOW * 1e-6),
    "ns": Range("a duration", 0, True, DAY_NS, floor=FEMTO),
    "ns/op": Range("a duration per operation", 0, True, DAY_NS, floor=FEMTO),
    "ms": Range("a time", 0, False, DAY_NS / 1e6, floor=FEMTO / 1e6),   # time in GC may be zero
    "count": Range("a count", 0, False, BIG, whole=True),
    "messages": Range("a count", 0, False, BIG, whole=True),
    "pings": Range("a count", 0, False, BIG, whole=True),
    "bytes": Range("a size", 0, False, BIG, whole=True),
    "bytes/op": Range("a size per operation", 0, False, BIG),
    "bool": Range("a yes/no (0 or 1)", 0, False, 1, whole=True),
    "fraction": Range("a fraction", 0, False, 1),
    "ratio": Range("a ratio", 0, False, 1e6),
}


#: A lateness or delay in ns (batching's wakeup_late_median: how long after its due time a send left) may be 0: a
#: send on time. Every other duration is > 0.
LATE = r"(?:^|_)(?:late|delay)(?:_|$)"


def _per(metric: str) -> bool:
    """A count per something (packets_per_burst) is an average: not whole."""
    return "_per_" in metric


def _line(i: int) -> str:
    return f"line {i + 2}"   # a data row's line in its file: the header is line 1


def _fmt(v) -> str:
    return repr(str(v))[:40]


def _first(masks: list[tuple[np.ndarray, object]]) -> tuple[int, object] | None:
    """The first row any mask flags, and the reason of the first mask that flags it."""
    best = None
    for mask, why in masks:
        hits = np.flatnonzero(mask)
        if len(hits) and (best is None or hits[0] < best[0]):
            best = (int(hits[0]), why)
    return best


def values_problem(metric: pd.Series, unit: pd.Series, raw: pd.Series, value: pd.Series | None = None,
                   where=_line) -> str | None:
    """The first measured row whose metric, unit or value breaks the rules, as "<where>: <reason>", or None.

    metric, unit: text ("" where missing); raw: the value as written (for the message); value: as a float (NaN where
    it is not a number; parsed from raw when not given)."""
    hit = _values_hit(metric, unit, raw, value)
    return None if hit is None else f"{where(hit[0])}: {hit[1]}"


def _values_hit(metric: pd.Series, unit: pd.Series, raw: pd.Series, value: pd.Series | None) -> tuple[int, str] | None:
    metric = metric.reset_index(drop=True).astype(str)
    unit = unit.reset_index(drop=True).astype(str)
    raw = raw.reset_index(drop=True)
    value = pd.to_numeric(raw, errors="coerce") if value is None else value.reset_index(drop=True)
    v = value.to_numpy(dtype=float)
    known = unit.isin(list(UNITS)).to_numpy()
    lo = unit.map({u: r.lo for u, r in UNITS.items()}).to_numpy(dtype=float)
    hi = unit.map({u: r.hi for u, r in UNITS.items()}).to_numpy(dtype=float)
    lo_open = unit.isin([u for u, r in UNITS.items() if r.lo_open]).to_numpy()
    lo_open = lo_open & ~metric.str.contains(LATE).to_numpy(dtype=bool)   # a lateness may be zero
    whole = unit.isin([u for u, r in UNITS.items() if r.whole]).to_numpy()
    whole = whole & ~metric.map(_per).to_numpy(dtype=bool)
    floor = unit.map({u: r.floor for u, r in UNITS.items()}).fillna(0.0).to_numpy(dtype=float)
    finite = np.isfinite(v)
    with np.errstate(invalid="ignore"):
        low = np.where(lo_open, v <= lo, v < lo) | ((v != 0) & (np.abs(v) < floor))
        high = v > hi
        frac = whole & finite & (np.floor(v) != v)
    hit = _first([
        (metric.eq("").to_numpy(), "metric"),
        (unit.eq("").to_numpy(), "unit"),
        (~known & unit.ne("").to_numpy(), "unknown"),
        (np.isnan(v) & ~raw.astype(str).str.lower().isin(["nan", "-nan", "+nan"]).to_numpy(), "number"),
        (~finite, "finite"),
        (known & finite & (low | high | frac), "range"),
    ])
    if hit is None:
        return None
    i, why = hit
    m, u, r = metric.iloc[i], unit.iloc[i], raw.iloc[i]
    if why == "metric":
        return i, "a measured row without a metric"
    if why == "unit":
        return i, f"{m} has no unit"
    if why == "unknown":
        return i, f"unit {_fmt(u)} of {m} is not one the lab writes (allowed: {', '.join(UNITS)})"
    if why == "number":
        return i, f"value {_fmt(r)} of {m} is not a number"
    if why == "finite":
        return i, f"value {_fmt(r)} of {m} is not a finite number"
    rule = UNITS[u]
    low = f"> {rule.lo:g}" if rule.lo_open else f">= {rule.lo:g}"
    low += f" (and at least {rule.floor:g} when not 0)" if rule.floor else ""
    return i, f"value {r} of {m} ({u}) is impossible: {rule.what} is {low} and <= {rule.hi:.3g}" + \
        (", a whole number" if rule.whole and not _per(m) else "")


def _header(data: bytes) -> tuple[list[str], str | None]:
    first = data.split(b"\n", 1)[0].decode("utf-8")
    try:
        names = next(csv.reader([first]), [])
    except csv.Error as e:
        return [], f"line 1: not a CSV header ({e})"
    return names, None


def _columns_problem(names: list[str], core=CORE) -> str | None:
    if not names or names == [""]:
        return "line 1: no header"
    seen = set()
    for n in names:
        if n in seen:
            return f"line 1: column {_fmt(n)} appears twice"
        seen.add(n)
        if not COLUMN.match(n):
            return f"line 1: column {_fmt(n)} is not one the bench writes (columns are lower-case names: a-z 0-9 _)"
    missing = [c for c in core if c not in seen]
    if missing:
        return f"line 1: missing columns {', '.join(missing)} (every run has {', '.join(core)})"
    return None


def _fields_problem(data: bytes, width: int) -> str | None:
    """The first line whose field count is not the header's (quoted fields may hold commas and newlines)."""
    arr = np.frombuffer(data, dtype=np.uint8)
    commas = np.flatnonzero(arr == 44)
    newlines = np.flatnonzero(arr == 10)
    if b'"' in data:
        inside = np.bitwise_xor.accumulate((arr == 34).astype(np.uint8)).astype(bool)
        if inside[-1]:
            return "a quoted field is never closed"
        commas = commas[~inside[commas]]
        newlines = newlines[~inside[newlines]]
    per_line = np.bincount(np.searchsorted(newlines, commas), minlength=len(newlines))
    bad = np.flatnonzero(per_line != width - 1)
    if len(bad):
        i = int(bad[0])
        return f"line {i + 1}: {per_line[i] + 1} fields where the header has {width}"
    return None


def problem(data: bytes, run_id: str | None = None, experiment: str | None = None) -> str | None:
    """Why a stored run's CSV bytes break the rules (one line: "line N: ..."), or None when they hold."""
    if not data:
        return "empty (no header, no rows)"
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        return f"not UTF-8 text (byte {e.start})"
    if not data.endswith(b"\n"):
        return f"line {data.count(NL) + 1}: cut mid-line (no final newline)"
    names, bad = _header(data)
    bad = bad or _columns_problem(names) or _fields_problem(data, len(names))
    if bad:
        return bad
    try:
        df = pd.read_csv(io.BytesIO(data), dtype=str, keep_default_na=False, na_filter=False, low_memory=False,
                         usecols=list(CORE))
    except Exception as e:  # pandas raises several types; the field count above makes this rare
        text = str(e).strip().splitlines()
        return f"not CSV ({(text[0] if text else type(e).__name__)[:120]})"
    if df.empty:
        return "a header and no rows"
    return frame_problem(df, run_id, experiment)


def frame_problem(df: pd.DataFrame, run_id: str | None = None, experiment: str | None = None) -> str | None:
    """The rules on a run's rows read as text (every cell a string, "" where empty)."""
    status = df["status"].astype(str)
    ok = status.eq("ok").to_numpy()
    checks = [(~status.isin(STATUSES).to_numpy(), "status")]
    if run_id is not None:
        checks.append((df["run_id"].astype(str).ne(run_id).to_numpy(), "run_id"))
    if experiment is not None:
        checks.append((df["experiment"].astype(str).ne(experiment).to_numpy(), "experiment"))
    fork = pd.to_numeric(df["fork"], errors="coerce").to_numpy(dtype=float)
    iteration = pd.to_numeric(df["iteration"], errors="coerce").to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        checks += [
            (ok & df["variant"].astype(str).eq("").to_numpy(), "variant"),
            (ok & ~(np.isfinite(fork) & (fork >= 0) & (np.floor(fork) == fork)), "fork"),
            (ok & ~(np.isfinite(iteration) & (iteration >= 0) & (np.floor(iteration) == iteration)), "iteration"),
            (ok & ~df["warmup"].astype(str).isin(["True", "False", "true", "false"]).to_numpy(), "warmup"),
        ]
    hit = _first(checks)
    measured = np.flatnonzero(ok)
    if len(measured):
        rows = df.iloc[measured]
        vh = _values_hit(rows["metric"], rows["unit"], rows["value"], None)
        if vh is not None and (hit is None or int(measured[vh[0]]) < hit[0]):
            return f"{_line(int(measured[vh[0]]))}: {vh[1]}"
    if hit is None:
        return None
    i, col = hit
    v = df[col].iloc[i]
    if col == "status":
        return f"{_line(i)}: status {_fmt(v)} (allowed: {', '.join(STATUSES)})"
    if col in ("run_id", "experiment"):
        want = run_id if col == "run_id" else experiment
        return f"{_line(i)}: {col} {_fmt(v)} is not the run's own ({want})"
    if col == "variant":
        return f"{_line(i)}: a measured row without a variant"
    if col == "warmup":
        return f"{_line(i)}: warmup {_fmt(v)} is not True or False"
    return f"{_line(i)}: {col} {_fmt(v)} is not a whole number >= 0"


def kernel_problem(df: pd.DataFrame) -> str | None:
    """Why a fork's rows (as launch.parse_csv or a runner gives them, before the bench tags them) cannot be kept:
    a column the bench adds itself, a row missing a field, a value the unit does not allow. None when they can."""
    names = [str(c) for c in df.columns]
    for n in names:
        if n in BENCH_ADDS:
            return f"its output has a column {n!r}, which the bench adds itself"
    bad = _columns_problem(names, core=KERNEL)
    if bad:
        return "output " + bad.replace("line 1: ", "header: ")
    if df.empty:
        return "output has a header and no rows"

    def where(i: int) -> str:
        return f"output row {i + 1}"

    missing = df[list(KERNEL)].isna().to_numpy() | df[list(KERNEL)].astype(str).apply(
        lambda s: s.str.strip().eq("")).to_numpy()
    if missing.any():
        i, j = np.argwhere(missing)[0]
        return f"{where(int(i))}: no {KERNEL[int(j)]} (a short or incomplete row)"
    it = pd.to_numeric(df["iteration"], errors="coerce").to_numpy(dtype=float)
    with np.errstate(invalid="ignore"):
        wrong = ~(np.isfinite(it) & (np.floor(it) == it) & (it >= 0))
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        return f"{where(i)}: iteration {_fmt(df['iteration'].iloc[i])} is not a whole number >= 0"
    raw = df["value"].map(lambda x: repr(x) if isinstance(x, float) and not math.isnan(x) else str(x))
    value = pd.to_numeric(df["value"], errors="coerce")
    return values_problem(df["metric"].astype(str), df["unit"].astype(str), raw, value, where=where)
