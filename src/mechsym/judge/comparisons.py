"""Several comparisons at once: a claim on the least (or most) of several comparisons, decided member by member
(intersection-union, Bonferroni on the side one member decides: `extreme`), and the Benjamini-Hochberg count over
the decisive claims of a machine (`benjamini_hochberg`, the overview's multiplicity line), and whether stored runs
of one claim differ more than their intervals allow (`heterogeneity`). The intervals themselves are
stats.bootstrap's."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from .stats import Boot, bootstrap, current_level


def extreme(how: str, members: Sequence[tuple[Callable, Sequence]], *, of_medians: bool = True,
            level: float | None = None) -> Boot | None:
    """The least ('min') or the most ('max') of several comparisons (each member: fn and its groups, as
    `bootstrap` takes them), decided member by member, never by bootstrapping the min itself (that is biased: the
    least of three ratios all truly 1.0 falls below 1 in most resamples).

    For the least: it is above a threshold only when every member is, so each member's own interval at `level`
    must clear it (intersection-union: no correction needed). It is below as soon as one member is, which any of
    k members could show by chance: that side takes each member's end at level 1 - (1 - level) / k (Bonferroni),
    from a bootstrap that resamples the member's groups independently (a draw by rounds is too narrow at 5 forks to
    reach that level). The combined interval is [least low, least Bonferroni high], so a rule reads it as any
    interval. The most mirrors it. None when a member has an empty group."""
    if how not in ("min", "max"):
        raise ValueError(f"extreme how '{how}': allowed min, max")
    if not members:
        raise ValueError("extreme needs one or more members")
    level = current_level() if level is None else level
    k = len(members)
    boots = [bootstrap(fn, gs, of_medians=of_medians, level=level) for fn, gs in members]
    if any(b is None for b in boots):
        return None
    wides = [bootstrap(fn, gs, of_medians=of_medians, level=1 - (1 - level) / k, paired=False) if k > 1 else b
             for (fn, gs), b in zip(members, boots)]
    if how == "min":
        value = min(b.value for b in boots)
        low, high = min(b.low for b in boots), min(max(b.high, w.high) for b, w in zip(boots, wides))
    else:
        value = max(b.value for b in boots)
        low, high = max(min(b.low, w.low) for b, w in zip(boots, wides)), max(b.high for b in boots)
    return Members(value, low, high, min(b.n for b in boots), all(b.paired for b in boots), np.empty(0),
                   members=tuple(boots), wides=tuple(wides), how=how)


@dataclass(frozen=True, eq=False)
class Members(Boot):
    """The least or most of several members (see `extreme`): each member's Boot, and its independent-resampling
    twin at the Bonferroni level."""
    members: tuple = ()
    wides: tuple = ()
    how: str = "min"

    def p_value(self, op: str, threshold: float, upper: float | None = None) -> float:
        """The decision's p-value: the side that needs every member (intersection-union) takes the largest member
        p-value; the side one member decides pays Bonferroni (the smallest times k). Doubled, as Boot's."""
        if op not in (">=", "<="):
            return 1.0
        k = len(self.members)
        if self.how == "min":     # above: every member above; below: one member below
            p_above = max(m.tail(threshold, below=True) for m in self.members)
            p_below = min(1.0, k * min(w.tail(threshold, below=False) for w in self.wides))
        else:                     # above: one member above; below: every member below
            p_above = min(1.0, k * min(w.tail(threshold, below=True) for w in self.wides))
            p_below = max(m.tail(threshold, below=False) for m in self.members)
        return min(1.0, 2 * min(p_above, p_below))


# ---------------------------------------------------------------- multiplicity

def benjamini_hochberg(p_values: Sequence[float], q: float = 0.05) -> np.ndarray:
    """Which of the p-values are discoveries under Benjamini-Hochberg at false-discovery rate q (scipy's adjusted
    p-values at or below q)."""
    import scipy.stats  # here, not at import: 0.9 s a process that never resamples
    p = np.asarray(p_values, dtype=float)
    if p.size == 0:
        return np.zeros(0, dtype=bool)
    return scipy.stats.false_discovery_control(np.clip(p, 0, 1), method="bh") <= q


def heterogeneity(runs: Sequence[tuple[float, float, float]], level: float = 0.95) -> float | None:
    """Cochran's Q test that several runs' estimates (value, low, high: each run's own interval at `level`) share one
    true value: the standard error read from each interval's width (on the log scale when every number is positive:
    ratios and times), Q = sum of w (x - weighted mean)^2 against chi-squared with runs - 1 degrees of freedom. Its
    p-value, or None with fewer than two runs with an interval of positive width (a fact, one run)."""
    import scipy.stats  # here, not at import: 0.9 s a process that never resamples
    rows = [(float(v), float(lo), float(hi)) for v, lo, hi in runs
            if all(x is not None and np.isfinite(x) for x in (v, lo, hi)) and hi > lo]
    if len(rows) < 2:
        return None
    a = np.array(rows)
    if (a > 0).all():
        a = np.log(a)
    z = float(scipy.stats.norm.ppf(1 - (1 - level) / 2))
    w = (2 * z / (a[:, 2] - a[:, 1])) ** 2
    mean = float(np.sum(w * a[:, 0]) / np.sum(w))
    q = float(np.sum(w * (a[:, 0] - mean) ** 2))
    return float(scipy.stats.chi2.sf(q, len(rows) - 1))
