"""Bimodal cells as a reader sees them: which forks fell in which mode, what the kernel recorded about each fork, and a
claim on a bimodal cell judged mode by mode.

A cell's forks form modes when bimodal.modes finds separated clusters (a gap rule; Hartigan's dip test from 10 forks).
Two things are built on it:

- per-mode estimates: `estimate`, `estimate_with`, `least` and `most` (what the experiments' verdicts call, through
  mechsym.judge.verdicts) return the same Estimate as mechsym.judge.estimates, and when a group is bimodal a ModalEstimate that
  also holds the statistic recomputed with that group cut to each mode's forks (the other groups whole); judge()
  shows them as sub-rows, each with its own interval (a mode of 2 or 3 forks has none: too few forks);
- the cells of a run whose forks form modes (`bimodal_cells`): each fork's value and mode beside the other numbers
  the kernel recorded for that fork (JIT and GC time, CAS failures, array offset, wake-up delay, ...), and the
  recorded number that best separates the modes (`separation`: a point-biserial correlation with a permutation
  p-value; a column is named only when |r| >= R_NAMED).

A cell's headline metric is read from the units: the rates (a unit per second) when the cell has any, else a time
per operation, else a median latency (`*_p50`). Numbers that follow from the headline (the run's duration, the work
done, the other percentiles of the same latency) are not "recorded about the fork": they separate the modes by
construction.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, fields
from typing import Callable

import numpy as np
import pandas as pd

from . import analysis, bimodal, estimates, stats
from .estimates import Estimate
from ..style.units import si

R_NAMED = 0.8   # a recorded column is named as separating the modes from |point-biserial r| >= 0.8
# the work a fork did or how long it took: fixed by the cell or a function of its speed, never an explanation
WORK = {"duration", "increments", "exchanges", "bids", "pings", "messages", "stores", "packets", "total",
        "round_trip_samples", "count", "ops", "iterations"}
_NOT_PARAMS = {"fork", "iteration", "warmup", "metric", "value", "unit", "status", "note", "run_id", "machine",
               "experiment"}


# ---------------------------------------------------------------- one group's modes

def split(values) -> tuple[bimodal.Modes, float] | None:
    """bimodal.modes of one group and the cut between its two modes (the geometric mean of the forks either side of
    the gap): forks below the cut are the low mode. None when the group is not bimodal."""
    found = bimodal.modes(values)
    if found is None:
        return None
    v = np.sort(np.asarray(values, dtype=float))
    v = v[np.isfinite(v)]
    k = int(round(found.shares[0] * v.size))
    return found, math.sqrt(v[k - 1] * v[k])


@dataclass(frozen=True)
class ModeEstimate:
    """The statistic with one group cut to one of its modes."""
    label: str       # "low mode: 40% of forks near 10.9" (one per bimodal group, comma-separated)
    share: float     # the share of forks (a product over the bimodal groups)
    value: float     # the first cut group's mode's median (that group's own unit)
    est: Estimate | None


@dataclass(frozen=True)
class ModalEstimate(Estimate):
    """An Estimate over a bimodal group, with the statistic recomputed per mode (per_mode: ModeEstimate tuple)."""
    per_mode: tuple = ()


def with_modes(est: Estimate | None, groups, rebuild: Callable[[list], Estimate | None]) -> Estimate | None:
    """est, or when one of its 1-D groups is bimodal a ModalEstimate holding rebuild(groups) with every bimodal
    group cut to one of its modes, for each combination of modes (two bimodal groups: low/low, low/high, high/low,
    high/high). Cutting only one group at a time would leave the other bimodal, and such a row could never decide."""
    if est is None or not est.modes:
        return est
    arrays = stats.finite_groups(groups)
    found = [(i, s) for i, g in enumerate(arrays) if g.ndim == 1 and (s := split(g)) is not None]
    sides = []
    for i, (m, cut) in found:
        g = arrays[i]
        whose = f"group {i + 1}'s " if len(arrays) > 1 else ""
        sides.append([(i, f"{whose}{side} mode: {round(100 * share)}% of forks near {si(value)}", share, value, mask)
                      for side, share, value, mask in zip(("low", "high"), m.shares, m.values, (g < cut, g > cut))])
    if not sides:   # modes seen within a run (estimates._modes) that the pooled forks do not split: no cut to make
        return est
    per = []
    for combo in itertools.product(*sides):
        cut_groups = list(arrays)
        for i, _, _, _, mask in combo:
            cut_groups[i] = arrays[i][mask]
        per.append(ModeEstimate(", ".join(c[1] for c in combo), math.prod(c[2] for c in combo), combo[0][3],
                                rebuild(cut_groups)))
    base = {f.name: getattr(est, f.name) for f in fields(Estimate)}
    return ModalEstimate(**base, per_mode=tuple(per))


def estimate(fn, *groups, **kw) -> Estimate | None:
    """estimates.estimate, judged per mode when a group is bimodal (with_modes)."""
    return with_modes(estimates.estimate(fn, *groups, **kw), groups,
                      lambda gs: estimates.estimate(fn, *gs, **kw))


def estimate_with(fn, *groups, **kw) -> Estimate | None:
    """estimates.estimate_with, judged per mode when a group is bimodal (with_modes)."""
    return with_modes(estimates.estimate_with(fn, *groups, **kw), groups,
                      lambda gs: estimates.estimate_with(fn, *gs, **kw))


def _members(how: Callable, members: tuple, of_medians: bool) -> Estimate | None:
    sizes = [len(m) - 1 for m in members]
    flat = [g for m in members for g in m[1:]]

    def rebuild(gs):
        out, at = [], 0
        for m, n in zip(members, sizes):
            out.append((m[0], *gs[at:at + n]))
            at += n
        return how(*out, of_medians=of_medians)
    return with_modes(how(*members, of_medians=of_medians), flat, rebuild)


def least(*members, of_medians: bool = True) -> Estimate | None:
    """estimates.least, judged per mode when a member's group is bimodal."""
    return _members(estimates.least, members, of_medians)


def most(*members, of_medians: bool = True) -> Estimate | None:
    """estimates.most, judged per mode when a member's group is bimodal."""
    return _members(estimates.most, members, of_medians)


# ---------------------------------------------------------------- which recorded number separates the modes

@dataclass(frozen=True)
class Separation:
    column: str
    r: float            # point-biserial correlation of the column with "in the high mode"
    p: float            # its permutation p-value (exact for small cells)
    perfect: bool       # every fork of one mode lies below every fork of the other in this column
    tested: int         # how many recorded columns were compared

    def short(self) -> str:
        return f"{self.column} goes with the mode: r = {self.r:+.2f}, permutation p = {self.p:.2g}"

    def text(self) -> str:
        clean = "; it splits the forks exactly" if self.perfect else ""
        return (f"{self.column} separates the modes (r = {self.r:+.2f}, permutation p = {self.p:.2g}, the best of "
                f"{self.tested} recorded column{'s' if self.tested != 1 else ''}{clean})")


def separation(recorded: pd.DataFrame, high: np.ndarray) -> Separation | None:
    """The recorded column (one row per fork) whose values go with the mode best, by |point-biserial r| with the
    high-mode indicator, when |r| >= R_NAMED; None when none does. A text column is read as its most telling level
    (an indicator per level). Columns with one value over the forks say nothing and are skipped."""
    import scipy.stats  # here, not at import: 0.9 s a process that never resamples
    high = np.asarray(high, dtype=bool)
    if high.all() or not high.any():
        return None
    candidates: list[tuple[str, np.ndarray]] = []
    for col in recorded.columns:
        s = recorded[col]
        num = pd.to_numeric(s, errors="coerce")
        if num.notna().all():
            candidates.append((str(col), num.to_numpy(dtype=float)))
        else:
            text = s.astype(str)
            levels = text.unique()
            if len(levels) > 1:
                candidates += [(f"{col} = {lv}", (text == lv).to_numpy(dtype=float)) for lv in levels[:-1]]
    tested, best = 0, None
    for name, x in candidates:
        if np.ptp(x) == 0:
            continue
        tested += 1
        r = float(scipy.stats.pointbiserialr(high, x).statistic)
        if np.isfinite(r) and (best is None or abs(r) > abs(best[1])):
            best = (name, r, x)
    if best is None or abs(best[1]) < R_NAMED:
        return None
    name, r, x = best
    lo, hi = x[~high], x[high]
    perfect = lo.max() < hi.min() or hi.max() < lo.min()
    res = scipy.stats.permutation_test((hi, lo), lambda a, b, axis=-1: np.mean(a, axis=axis) - np.mean(b, axis=axis),
                                       permutation_type="independent", n_resamples=9999, alternative="two-sided",
                                       vectorized=True, rng=np.random.default_rng(stats.SEED))
    return Separation(name, r, float(res.pvalue), bool(perfect), tested)


# ---------------------------------------------------------------- the cells of a run whose forks form modes

@dataclass(frozen=True)
class ModalCell:
    machine: str
    label: str              # the parameters that tell this cell from the others: "variant cas, threads 2, ..."
    metric: str
    unit: str
    modes: bimodal.Modes
    forks: pd.DataFrame     # fork, value, mode ("low"/"high"), and every recorded column
    separation: Separation | None

    @property
    def gap(self) -> float:
        """The high mode's median over the low mode's."""
        return self.modes.values[1] / self.modes.values[0]


def headline_metrics(units: dict[str, str]) -> list[str]:
    """The metrics a cell is measured by: its rates, else its times per operation, else its median latencies."""
    rules = (lambda m, u: str(u).endswith("/s"),
             lambda m, u: u == "ns/op" or m.startswith("ns_per"),
             lambda m, u: m.endswith("_p50"))
    for rule in rules:
        hit = [m for m, u in units.items() if rule(m, u)]
        if hit:
            return sorted(hit)
    return []


def recorded_metrics(units: dict[str, str], heads: list[str]) -> list[str]:
    """The other numbers a kernel recorded per fork (JIT, GC, CAS failures, offsets, wake-up delays, ...): not a
    headline, not the work done or its duration, not another percentile of a headline latency."""
    families = [h[: -len("_p50")] + "_" for h in heads if h.endswith("_p50")]
    out = []
    for m, u in units.items():
        if m in heads or str(u).endswith("/s") or u == "ns/op" or m.startswith("ns_per"):
            continue
        if m in WORK or "duration" in m or any(m.startswith(f) for f in families):
            continue
        out.append(m)
    return sorted(out)


LABEL_FIRST = ("variant", "protocol", "threads", "placement", "jdk", "language", "runtime")


def _label_columns(keys: pd.DataFrame) -> list[str]:
    """The fewest parameters that tell the cells apart, the usual ones first: a column is kept only when it splits
    cells the ones before it do not."""
    cols = [c for c in LABEL_FIRST if c in keys] + [c for c in keys.columns if c not in LABEL_FIRST]
    chosen: list[str] = []
    seen = 1
    for c in cols:
        n = len(keys[chosen + [c]].drop_duplicates())
        if n > seen:
            chosen.append(c)
            seen = n
    return chosen


def bimodal_cells(df: pd.DataFrame) -> list[ModalCell]:
    """Every cell (machine, parameters, headline metric) of these rows whose forks form modes, with each fork's
    value (its protocol's reading: the first measured run for `post` cells, else the median) and mode beside the
    numbers the kernel recorded for the same fork."""
    m = analysis.measured(df)
    if m.empty or "metric" not in m:
        return []
    names = [c for c in m.columns if c not in _NOT_PARAMS]
    params = [f"\0{c}" for c in names]    # kept apart from the metric columns (a kernel may record 'array_offset')
    m = m.rename(columns=dict(zip(names, params)))
    out: list[ModalCell] = []
    for machine, sub in analysis.split(m):
        units = sub.groupby("metric")["unit"].first().astype(str).to_dict() if "unit" in sub else {}
        heads = headline_metrics(units)
        wanted = heads + recorded_metrics(units, heads)
        sub = sub[sub["metric"].isin(wanted)].copy()
        for c in params:   # parameters as text, a missing one as "", so a cell's key has no NaN
            sub[c] = _text(sub[c])
        proto = sub["\0protocol"] if "\0protocol" in sub else pd.Series("", index=sub.index)
        parts = [analysis.per_fork(rows, analysis.POST if name == analysis.POST.name else analysis.LAB,
                                   by=params + ["metric"])
                 for name, rows in sub.groupby(proto, sort=False)]
        if not parts:
            continue
        pf = pd.concat(parts, ignore_index=True)
        wide = pf.pivot_table(index=params + ["fork_key"], columns="metric", values="value", aggfunc="first")
        wide.columns = [str(c) for c in wide.columns]
        wide = wide.reset_index()
        label_cols = _label_columns(wide[params].drop_duplicates())
        for head in heads:
            if head not in wide:
                continue
            rec = [c for c in wanted if c not in heads and c in wide]
            for key, cell in wide[wide[head].notna()].groupby(params, sort=False):
                found = split(cell[head].to_numpy(dtype=float))
                if found is None:
                    continue
                modes, cut = found
                forks = cell[["fork_key", head] + rec].rename(columns={head: "value", "fork_key": "fork"})
                forks = forks.dropna(axis=1, how="all").sort_values("value").reset_index(drop=True)
                forks.insert(2, "mode", np.where(forks["value"] > cut, "high", "low"))
                forks["fork"] = forks["fork"].map(_fork_label)
                extra = forks.drop(columns=["fork", "value", "mode"])
                sep = separation(extra, (forks["mode"] == "high").to_numpy())
                values = dict(zip(params, key if isinstance(key, tuple) else (key,)))
                label = ", ".join(f"{c[1:]} {values[c]}" for c in label_cols if values.get(c, "") != "")
                out.append(ModalCell(machine, label, head, units.get(head, ""), modes, forks, sep))
    return out


def _text(col: pd.Series) -> np.ndarray:
    """A parameter column as text: '' when missing, a whole float without its '.0' (threads 2, not 2.0)."""
    codes, uniques = pd.factorize(col, use_na_sentinel=True)
    fmt = lambda v: (str(int(v)) if isinstance(v, (float, np.floating)) and float(v).is_integer() else str(v))
    return np.array([fmt(u) for u in uniques] + [""], dtype=object)[codes]


def _fork_label(key: str) -> str:
    """machine/run/fork -> 'run …-34fee1 fork 3' (the run's short id and the fork)."""
    parts = str(key).split("/")
    fork = parts[-1]
    run = parts[-2] if len(parts) >= 2 else ""
    return (f"{run.rsplit('-', 1)[-1]} fork {fork}" if run else f"fork {fork}")


def table(cells: list[ModalCell]) -> pd.DataFrame:
    """One row per bimodal cell: cell | metric | forks | low mode (share) | high mode (share) | gap | what separates
    them (machine first when the cells come from several)."""
    from ..style.units import fmt_value

    rows = []
    for c in cells:
        f = lambda v: fmt_value(v, c.unit)
        rows.append({"machine": c.machine, "cell": c.label, "metric": c.metric, "forks": len(c.forks),
                     "low mode (share)": f"{f(c.modes.values[0])} ({round(100 * c.modes.shares[0])}%)",
                     "high mode (share)": f"{f(c.modes.values[1])} ({round(100 * c.modes.shares[1])}%)",
                     "gap": f"{c.gap:.2f}x",
                     "recorded column that separates them": c.separation.text() if c.separation else "none"})
    out = pd.DataFrame(rows)
    if len(out) and out["machine"].nunique() <= 1:
        out = out.drop(columns="machine")
    return out


def fork_table(cells: list[ModalCell]) -> pd.DataFrame:
    """Every fork of the bimodal cells: cell, fork, value, mode, and what the kernel recorded for it."""
    parts = []
    for c in cells:
        f = c.forks.copy()
        several = len({x.machine for x in cells}) > 1
        f.insert(0, "cell", c.label + (f" ({c.machine})" if several and c.machine else ""))
        f["value"] = f["value"].map(lambda v, u=c.unit: analysis.fmt_value(v, u))
        parts.append(f)
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame()
