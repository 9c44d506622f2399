"""Estimates: a statistic over forks with its 95% interval (mechsym.judge.stats: scipy's bootstrap, rounds of forks
resampled as blocks), the least or most of several comparisons decided member by member, and how many more forks
would likely decide an inconclusive one. mechsym.judge.verdicts reads them against a claim's rule."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

import numpy as np

from . import bimodal, comparisons, stats
from .analysis import fmt_value

if TYPE_CHECKING:
    from .rules import Rule

LEVEL = stats.LEVEL
MIN_FORKS = stats.MIN_FORKS


@dataclass(frozen=True)
class Estimate:
    """A statistic over forks: its value from the forks' medians, a 95% interval, how many forks.

    boot: the resampling behind the interval (for the p-value the multiplicity line uses). fact: every fork gave the
    same number (a deterministic quantity: no interval). modes: the groups whose forks form separated clusters."""
    value: float
    low: float
    high: float
    forks: int      # the smallest group's fork count
    boot: stats.Boot | None = field(default=None, compare=False, repr=False)
    fact: bool = False
    modes: tuple = ()
    level: float = LEVEL        # the interval's confidence level (higher after several looks: stats.spent_level)
    distinct: int = 0           # the fewest distinct per-fork values in one group (2: a fork is one of two numbers)
    cells: frozenset | None = field(default=None, compare=False, repr=False)  # the cells read (stats.tracing)
    runs: int = 1               # the stored runs its forks were resampled in (stats.nested_runs), else 1
    reach: float = 0.0          # too few forks for `level`: the most coverage they reach (no interval), else 0

    def text(self, unit: str = "") -> str:
        f = (lambda v: fmt_value(v, unit)) if unit else (lambda v: f"{v:.3g}")
        s = "s" if self.forks != 1 else ""
        if self.fact:
            return f"{f(self.value)} (the same in all {self.forks} fork{s}: a fact, no interval)"
        if self.forks < MIN_FORKS or not (np.isfinite(self.low) and np.isfinite(self.high)):
            return f"{f(self.value)}, {self.forks} fork{s} (no interval)"
        return f"{f(self.value)} [{f(self.low)}, {f(self.high)}], {self.forks} forks"

    def p_value(self, rule: Rule) -> float | None:
        if self.boot is None or self.fact:
            return None
        return self.boot.p_value(rule.op, rule.threshold, rule.upper)


def _modes(forks: np.ndarray) -> bimodal.Modes | None:
    """bimodal.modes within each stored run when the trace knows the forks' runs (the first run whose forks form
    modes), else over the forks as given: a shift between two runs is the run level's (nested_runs, unstable), not
    two modes."""
    trace = stats.current_trace()
    runs = trace.runs_of(forks) if trace is not None and len(forks) else None
    if runs is None or runs.max() < 1:
        return bimodal.modes(forks)
    for k in range(int(runs.max()) + 1):
        found = bimodal.modes(np.asarray(forks)[runs == k])
        if found is not None:
            return dataclasses.replace(found, method=found.method + ", within one run")
    return None


def _from_boot(b: stats.Boot | None, arrays: list[np.ndarray]) -> Estimate | None:
    if b is None:
        return None
    fact = b.n >= 2 and all(np.ptp(np.asarray(a, dtype=float)) == 0 for a in arrays if len(a))
    found = tuple(m for m in (_modes(a) for a in arrays if np.ndim(a) == 1) if m is not None)
    distinct = min((len(np.unique(np.asarray(a, dtype=float), axis=0)) for a in arrays if len(a)), default=0)
    trace = stats.current_trace()
    cells = None
    if trace is not None:
        hits = [trace.lookup(a) for a in arrays]
        if all(h is not None for h in hits):
            cells = frozenset(c for h in hits for pairs in h for c, _ in pairs)
    level = b.coverage if b.coverage is not None and not b.short else stats.current_level()
    est = Estimate(b.value, b.low, b.high, b.n, b, fact, found, level, distinct, cells, getattr(b, "runs", 1) or 1,
                   b.coverage if b.short else 0.0)
    if trace is not None:
        trace.estimates.append(est)
    return est


def estimate(fn: Callable[..., float], *groups, n_boot: int | None = None, level: float | None = None,
             seed: int | None = None) -> Estimate | None:
    """fn(median of group 1, median of group 2, ...) with a 95% interval over forks (stats.bootstrap: one group's
    median by its order statistics, several groups by scipy's bootstrap, by rounds when their fork counts match).

    Each group is an array of per-fork values (see analysis.per_fork). None when a group is empty. With fewer than
    MIN_FORKS forks in some group the interval is unbounded."""
    b = stats.bootstrap(fn, groups, level=level, n_resamples=n_boot, seed=seed)
    return _from_boot(b, stats.finite_groups(groups))


def estimate_with(fn: Callable[..., float], *groups, n_boot: int | None = None, level: float | None = None,
                  seed: int | None = None) -> Estimate | None:
    """fn(group 1, group 2, ...) on the per-fork arrays themselves, with a 95% bootstrap interval over forks.

    For a statistic that is not a function of the groups' medians: a mean where the post averaged its runs, a
    spread (coefficient of variation, a percentile band). Groups of the same fork count are resampled by rounds (one
    draw for all), others independently; a 2-D group keeps each fork's row together (e.g. a fork's summary and its
    within-run spread). None when a group is empty; with fewer than MIN_FORKS forks in some group the interval is
    unbounded."""
    b = stats.bootstrap(fn, groups, of_medians=False, level=level, n_resamples=n_boot, seed=seed)
    return _from_boot(b, stats.finite_groups(groups))


def least(*members: tuple, of_medians: bool = True) -> Estimate | None:
    """The least of several comparisons, each member (fn, group, group, ...) as `estimate` takes them, decided by
    intersection-union (comparisons.extreme): it clears a '>=' threshold only when every member's own interval does, and
    falls below it when one member's interval (at the Bonferroni level) lies wholly below. Replaces
    estimate(lambda a, b, c: min(a / c, b / c), ...), whose bootstrap of a minimum is biased. of_medians=False: each
    member's fn takes the per-fork arrays themselves, as `estimate_with` (a ratio of means)."""
    return _extreme("min", members, of_medians)


def most(*members: tuple, of_medians: bool = True) -> Estimate | None:
    """The most of several comparisons (see `least`, mirrored)."""
    return _extreme("max", members, of_medians)


def _extreme(how: str, members: tuple, of_medians: bool = True) -> Estimate | None:
    b = comparisons.extreme(how, [(m[0], m[1:]) for m in members], of_medians=of_medians)
    if b is None:
        return None
    arrays = [a for m in members for a in stats.finite_groups(m[1:])]
    return _from_boot(b, arrays)


POWER = 0.80


def more_forks(rule: Rule, est: Estimate) -> int | None:
    """Roughly how many more forks would decide an inconclusive verdict with 80% power: the interval narrows as
    1/sqrt(forks), and the distance from the estimate to the nearer boundary (the binding one for a band, inside or
    out) must reach (z + z_power) standard errors, z the interval's own (1.96 at 95%, more after several looks).
    None where more forks cannot decide it (`undecidable` says why)."""
    import scipy.stats  # here, not at import: 0.9 s a process that never resamples
    if undecidable(rule, est):
        return None
    if est.forks < MIN_FORKS:
        return MIN_FORKS - est.forks
    if est.reach:
        return max(1, stats.forks_for(est.level) - est.forks)
    z = float(scipy.stats.norm.ppf(1 - (1 - est.level) / 2))
    se = (est.high - est.low) / (2 * z)
    needed = math.ceil(est.forks * ((z + float(scipy.stats.norm.ppf(POWER))) * se / rule.distance(est.value)) ** 2)
    return max(1, needed - est.forks)


def undecidable(rule: Rule, est: Estimate) -> str:
    """Why more forks cannot decide this estimate against the rule, or "": a fact (every fork the same number),
    bimodal forks (one interval over two clusters), a statistic of forks that each give one of two numbers (its
    median jumps, it does not converge), an estimate on the threshold itself, or no interval to narrow."""
    if est.fact:
        return "a fact: every fork gives the same number"
    if est.modes:
        return "bimodal: more forks sharpen each cluster, not one interval over both"
    if est.forks >= MIN_FORKS and 0 < est.distinct <= 2:
        return "a discrete statistic: each fork gives one of two numbers"
    if est.forks < MIN_FORKS or est.reach:
        return ""
    if rule.distance(est.value) <= 0:
        return "the estimate sits on the threshold: no number of forks decides it"
    if not (np.isfinite(est.low) and np.isfinite(est.high)) or est.high <= est.low:
        return "no interval to narrow"
    return ""
