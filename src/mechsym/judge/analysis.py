"""The one analysis layer every experiment uses.

Everything a table, a figure or a verdict needs from stored rows, written once:

- `measured(df, metric)`: the rows that count (forks that passed their checks, measured iterations, one metric);
- `machines`, `by_machine`: the per-machine split. Every table, verdict list and figure function of an
  experiment is wrapped in `by_machine` (or iterates `split`), so rows of two hosts are never judged or
  tabulated as one;
- `per_fork`: one number per fork (fresh JVM), the unit of replication, under a protocol (the post's "first
  timed run after warm-up", or the lab's "median of the measured runs"); the shared reductions (`first_run`,
  `median_run`, `mean_run`, `best_run`) have NumPy twins in `FAST` that give the same numbers bit for bit, faster;
- `reading`: while one table or verdict list reads a machine's rows (every `by_machine` call), `measured` is
  computed once per metric;
- `summary`: median and spread per group; `ordered`/`sort_by`: category orderings from one list;
- unit formatters (`fmt_ns`, `fmt_rate`, `fmt_mbps`, `fmt_ratio`, `fmt_value`), written in `mechsym.style.units`
  and re-exported here;
- `unavailable`: the cells this machine or JDK could not run, with the reason.

Plot helpers live in `mechsym.style.plots`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

import numpy as np
import pandas as pd

from . import stats
from ..style.units import (
    FORMATTERS, MISSING, fmt_column, fmt_mbps, fmt_ns, fmt_number, fmt_pct, fmt_rate, fmt_ratio, fmt_value, readable,
    si)

TRUE_STRINGS = {"true", "1", "yes"}


# ---------------------------------------------------------------- rows

def as_bool(s: pd.Series) -> pd.Series:
    """A warm-up/flag column as booleans, however it was read (bool, 0/1, "True"/"False")."""
    if s.dtype == bool:
        return s
    return s.astype(str).str.strip().str.lower().isin(TRUE_STRINGS)


def ok_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Rows of forks that passed their checks, with `warmup` as bool and `jdk` as text."""
    m = df[df["status"] == "ok"].copy() if "status" in df else df.copy()
    if "warmup" in m:
        m["warmup"] = as_bool(m["warmup"])
    if "jdk" in m:
        m["jdk"] = m["jdk"].astype(str)
    for col in ("threads", "fork", "iteration"):
        if col in m and len(m):
            num = pd.to_numeric(m[col], errors="coerce")
            m[col] = num.astype(int) if num.notna().all() else num
    if "value" in m:
        m["value"] = pd.to_numeric(m["value"], errors="coerce")
    return m


_READING: dict[int, tuple[pd.DataFrame, dict]] = {}


@contextlib.contextmanager
def reading(df: pd.DataFrame):
    """While one table or verdict list reads these rows: `measured(df, ...)` is computed once per metric and kept (a
    verdict list reads the same rows hundreds of times, once per cell). Each call gets its own shallow copy: with
    pandas' copy-on-write, whatever a caller changes stays in its copy. `by_machine` reads every machine's rows
    this way."""
    mine = df is not None and id(df) not in _READING
    if mine:
        _READING[id(df)] = (df, {})
    try:
        yield
    finally:
        if mine:
            _READING.pop(id(df), None)


def measured(df: pd.DataFrame, metric: str | Iterable[str] | None = None, warmup: bool = False) -> pd.DataFrame:
    """Measured (not warm-up) rows of one metric (or several) from forks that passed their checks.

    warmup=True keeps the warm-up rows too (they stay marked in the `warmup` column)."""
    kept = _READING.get(id(df)) if df is not None else None
    if kept is None or kept[0] is not df:
        return _measured(df, metric, warmup)
    key = (metric if metric is None or isinstance(metric, str) else tuple(metric), warmup)
    if key not in kept[1]:
        kept[1][key] = _measured(df, metric, warmup)
    return kept[1][key].copy(deep=False)


def _measured(df: pd.DataFrame, metric, warmup: bool) -> pd.DataFrame:
    if df is None or df.empty:
        return pd.DataFrame(columns=list(df.columns) if df is not None else [])
    m = ok_rows(df)
    if metric is not None and "metric" in m:
        metrics = [metric] if isinstance(metric, str) else list(metric)
        m = m[m["metric"].isin(metrics)]
    if not warmup and "warmup" in m:
        m = m[~m["warmup"]]
    return m


def where(df: pd.DataFrame, **conditions) -> pd.DataFrame:
    """Rows whose columns equal the given values (compared as text, so 17 == "17"); a list means any of."""
    mask = np.ones(len(df), dtype=bool)
    for k, v in conditions.items():
        if k not in df:
            return df.iloc[0:0]
        values = [str(x) for x in v] if isinstance(v, (list, tuple, set)) else [str(v)]
        # the column's distinct values converted as astype(str) would convert each row, then matched row by row:
        # the same rows as df[k].astype(str).isin(values), without converting every row to text on every call;
        # the conditions' masks are combined and the rows taken once, not once a condition
        distinct = pd.Series(df[k].unique())
        mask &= df[k].isin(distinct[distinct.astype(str).isin(values)]).to_numpy()
    return df[mask]


# ---------------------------------------------------------------- machines

def machines(df: pd.DataFrame) -> list[str]:
    """The machines whose rows these are (MACHINE = "all" gives several), sorted."""
    if df is None or "machine" not in df or df.empty:
        return []
    return sorted(df["machine"].astype(str).unique())


def split(df: pd.DataFrame) -> Iterator[tuple[str, pd.DataFrame]]:
    """(machine, its rows) for every machine in df; ("", df) when the rows name no machine."""
    ms = machines(df)
    if not ms:
        yield "", df
        return
    for m in ms:
        yield m, df[df["machine"].astype(str) == m].reset_index(drop=True)


def by_machine(fn: Callable) -> Callable:
    """Apply a table/verdict function machine by machine when the rows hold several machines.

    - a DataFrame result gets the machine as its first column (a RangeIndex) or first index level;
    - a list result (verdicts) is concatenated, each item tagged with its machine when it has a `machine` field;
    - anything else (a figure) is not split here: figure functions facet with `split` themselves.
    With one machine the function's own result comes back unchanged (verdicts still tagged)."""

    @functools.wraps(fn)
    def wrapper(df, *args, **kwargs):
        parts = list(split(df)) if df is not None else [("", df)]
        results = []
        for m, sub in parts:
            with reading(sub):
                results.append((m, fn(sub, *args, **kwargs)))
        first = results[0][1] if results else None
        if isinstance(first, list) or first is None and not results:
            return [_tag(item, m) for m, r in results for item in (r or [])]
        if len(results) == 1:
            return first
        if isinstance(first, pd.DataFrame):
            frames = {m: r for m, r in results if r is not None and len(r)}
            if not frames:
                return first
            if all(isinstance(r.index, pd.RangeIndex) for r in frames.values()):
                out = pd.concat([r.assign(machine=m) for m, r in frames.items()], ignore_index=True)
                return out[["machine"] + [c for c in out.columns if c != "machine"]]
            return pd.concat(frames, names=["machine"])
        return first

    wrapper.per_machine = True
    return wrapper


def _tag(item, machine: str):
    if machine and dataclasses.is_dataclass(item) and hasattr(item, "machine") and not item.machine:
        return dataclasses.replace(item, machine=machine)
    return item


# ---------------------------------------------------------------- forks and protocols

@dataclass(frozen=True)
class Protocol:
    """How one fork's (fresh JVM's) number is read from its measured iterations.

    The posts time one run after their warm-up (`post`); the lab takes the median of several measured runs in
    each JVM (`lab`). Experiments may define others (e.g. the SPSC post's mean of the last 10 of 20)."""
    name: str
    text: str
    reduce: Callable[[pd.Series], float]

    def __str__(self) -> str:
        return self.name

    def of(self, values: np.ndarray) -> float:
        """The reduction of one fork's values (in order), through its array twin in FAST when it has one."""
        fast = FAST.get(self.reduce)
        if fast is not None and not np.isnan(values).any():
            return float(fast(values))
        return self.reduce(pd.Series(values))


def first_run(values: pd.Series) -> float:
    return float(values.iloc[0])


def median_run(values: pd.Series) -> float:
    return float(values.median())


def mean_run(values: pd.Series) -> float:
    return float(values.mean())


def best_run(values: pd.Series) -> float:
    return float(values.max())


#: The reductions above on a fork's NaN-free values as a float array, bit for bit (np.median is what Series.median
#: computes, ...): per_fork's fast path, which skips a pandas Series per fork. Keyed by the function itself, so a
#: protocol given another reduction (dataclasses.replace) never keeps a fast path that is not its own.
FAST: dict[Callable, Callable[[np.ndarray], float]] = {first_run: lambda v: v[0], median_run: np.median,
                                                       mean_run: np.mean, best_run: np.max}

POST = Protocol("post", "the first timed run after the warm-up in each JVM, as the post timed it", first_run)
LAB = Protocol("lab", "the median of the measured runs in each JVM", median_run)


#: Columns that never name a fork's cell (a trace without a sweep's cell columns names a cell by all the others).
NOT_CELL = {"fork", "iteration", "warmup", "metric", "value", "unit", "status", "note", "run_id", "machine",
            "experiment", "taskset", "fork_key"}


def per_fork(df: pd.DataFrame, protocol: Protocol = LAB, by: Iterable[str] = ()) -> pd.DataFrame:
    """One value per fork (and group): the protocol's reduction of the fork's measured iterations, in order.

    Rows must already be one metric's measured rows (see `measured`). A fork is identified by its run and fork
    number (and machine), so forks of different stored runs stay apart. Returns the groups' columns, `fork_key`
    and `value`."""
    by = [c for c in by if c in df]
    if df.empty:
        return pd.DataFrame(columns=by + ["fork_key", "value"])
    keys = [c for c in ("machine", "run_id", "fork") if c in df]
    trace = stats.current_trace()   # naming which forks a statistic read (mechsym.judge.decide, the run level)
    cell_columns = () if trace is None else trace.cell_columns or tuple(
        c for c in df.columns if c not in NOT_CELL and not str(c).startswith("jit_"))
    traced = [c for c in cell_columns if c in df and c not in by + keys]
    d = df[by + [c for c in keys + traced + ["iteration", "value"] if c not in by]].copy()
    d["fork_key"] = functools.reduce(lambda a, b: a + "/" + b, (d[c].astype(str) for c in keys)) if keys else "0"
    if "iteration" in d:
        d = d.sort_values("iteration", kind="stable")
    # groups in order of first appearance, each fork's values in iteration order
    codes = d.groupby(by + ["fork_key"], sort=False, dropna=False).ngroup().to_numpy()
    rank = np.argsort(codes, kind="stable")
    starts = np.r_[0, np.flatnonzero(np.diff(codes[rank])) + 1]
    values = np.split(pd.to_numeric(d["value"], errors="coerce").to_numpy(dtype=float)[rank], starts[1:])
    firsts = d.iloc[rank[starts]]
    out = firsts[by + ["fork_key"]].reset_index(drop=True)
    out["value"] = [protocol.of(v) for v in values]
    if trace is not None:
        named = [c for c in by + traced if c in cell_columns]
        cells = firsts[named].astype(str)
        trace.note(out["value"].to_numpy(), [tuple(zip(named, r)) for r in cells.itertuples(index=False)],
                   firsts["run_id"].astype(str).tolist() if "run_id" in firsts else [""] * len(out),
                   out["fork_key"].astype(str).tolist())
    return out


def median_of(values) -> float:
    """The median of per-fork values, NaN when there are none (a cell this run lacks), for a table."""
    return float(np.median(values)) if len(values) else float("nan")


def runs_median(rows: pd.DataFrame) -> float | None:
    """The median of the rows' values pooled over every fork's measured runs (a table's "median over the measured
    runs", beside `median_of`'s median of per-fork values), None when there are none."""
    return float(rows["value"].median()) if len(rows) else None


def fork_values(df: pd.DataFrame, protocol: Protocol = LAB, **conditions) -> np.ndarray:
    """The per-fork values of the rows matching `conditions` (one cell), as an array."""
    pf = per_fork(where(df, **conditions), protocol)
    return pf["value"].dropna().to_numpy(dtype=float)


# ---------------------------------------------------------------- summaries and orderings

def summary(df: pd.DataFrame, by: list[str], value: str = "value") -> pd.DataFrame:
    """Median, min, quartiles, max and count per group: the numbers a table quotes."""
    by = [c for c in by if c in df]
    g = df.groupby(by, dropna=False, sort=False)[value]
    out = pd.DataFrame({"median": g.median(), "min": g.min(), "p25": g.quantile(0.25), "p75": g.quantile(0.75),
                        "max": g.max(), "n": g.count()})
    out["spread %"] = (out["p75"] - out["p25"]) / out["median"].abs() * 100
    return out.reset_index()


def cell_table(m: pd.DataFrame, keys: list[str], orders: dict[str, Iterable], fmt: Callable[[float], str],
               labels: tuple[str, str, str] = ("median", "min", "max"), spread: bool = True
               ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The table of every cell most experiments print: the cell's keys, its median, min and max over the measured
    runs (formatted by `fmt`, headed by `labels`), the spread (IQR / median %) when asked, the runs and the forks.
    Returns it with the sorted `summary` it came from, whose rows it follows (for a column of the caller's own)."""
    s = sort_by(summary(m, keys), orders)
    nforks = m.groupby(keys)["fork"].nunique()
    out = s[keys].copy()
    for col, label in zip(("median", "min", "max"), labels):
        out[label] = s[col].map(fmt)
    if spread:
        out["IQR / median %"] = s["spread %"].round(1)
    out["runs"] = s["n"]
    out["forks"] = [int(nforks.get(tuple(k), 0)) for k in s[keys].values]
    return out, s


def ordered(values: Iterable, order: Iterable | None = None) -> list:
    """The distinct values, in the given order first, then any others sorted (numbers numerically)."""
    seen = list(dict.fromkeys(values))
    known = [v for v in (order or []) if v in seen or str(v) in map(str, seen)]
    known = [next(s for s in seen if str(s) == str(v)) for v in known]
    rest = [v for v in seen if v not in known]
    return known + sorted(rest, key=_sort_key)


def _sort_key(v):
    try:
        return (0, float(v), "")
    except (TypeError, ValueError):
        return (1, 0.0, str(v))


def sort_by(df: pd.DataFrame, orders: dict[str, Iterable]) -> pd.DataFrame:
    """Rows sorted by several categorical columns, each in its own order (values not listed go last, sorted)."""
    if df.empty:
        return df
    cols = [c for c in orders if c in df]
    keys = {c: {v: i for i, v in enumerate(ordered(df[c], orders[c]))} for c in cols}
    return df.sort_values(cols, key=lambda s: s.map(keys[s.name]), kind="stable").reset_index(drop=True)


def runtime_label(jdk) -> str:
    """'17' -> 'JDK 17'; 'c' -> 'C (gcc)'."""
    j = str(jdk)
    return "C (gcc)" if j == "c" else f"JDK {j}"


def jdks(df: pd.DataFrame) -> list[str]:
    """The JDK features in these rows, oldest first ('c' and other non-JDK runtimes left out)."""
    if "jdk" not in df or df.empty:
        return []
    return sorted({str(j) for j in df["jdk"].dropna() if str(j).isdigit()}, key=int)


# ---------------------------------------------------------------- unavailable cells

def unavailable(df: pd.DataFrame, keys: Iterable[str] = ("variant", "jdk", "placement")) -> pd.DataFrame:
    """The cells that could not run here: per machine, key columns and reason, how many cells."""
    if df is None or "status" not in df:
        return pd.DataFrame({"note": ["no rows"]})
    u = df[df["status"] == "unavailable"]
    if u.empty:
        return pd.DataFrame({"note": ["every cell of this sweep ran on this machine"]})
    cols = [c for c in ["machine", *keys] if c in u and u[c].notna().any() and (u[c].astype(str) != "").any()]
    if len(machines(u)) <= 1 and "machine" in cols:
        cols.remove("machine")
    return (u.groupby(cols + ["note"], dropna=False).size().rename("cells").reset_index()
            .rename(columns={"note": "why"}))


def unavailable_reasons(df: pd.DataFrame, key: str) -> dict[str, str]:
    """{value of `key` -> reason} for the unavailable cells (e.g. placement -> 'no SMT siblings')."""
    if df is None or "status" not in df or key not in df:
        return {}
    u = df[df["status"] == "unavailable"]
    return {str(k): str(n) for k, n in zip(u[key], u["note"])}


def per_machine_text(df: pd.DataFrame, text_of) -> str:
    """Sentences computed from one machine's rows (`text_of(rows)`, Markdown), for each machine of `df`, each headed
    by its id when there are several; "No measured results." when there are none."""
    parts = []
    for machine, sub in split(df):
        text = text_of(sub)
        parts.append(f"**{machine}**\n\n{text}" if machine and len(machines(df)) > 1 else text)
    return "\n\n".join(parts) or "No measured results."
