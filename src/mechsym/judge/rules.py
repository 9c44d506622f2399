"""A claim's rule and the four outcomes: the threshold a claim is read against, fixed before the data, and what an
interval says against it (mechsym.judge.verdicts judges claims with them; mechsym.judge.estimates says how many more
forks would decide)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .analysis import fmt_value

HOLDS = "holds"
FAILS = "does not hold"
INCONCLUSIVE = "inconclusive"
UNMEASURABLE = "not measurable here"
OUTCOMES = (HOLDS, FAILS, INCONCLUSIVE, UNMEASURABLE)
DECISIVE = (HOLDS, FAILS)


# ---------------------------------------------------------------- rules

@dataclass(frozen=True)
class Rule:
    """The threshold a claim is read against.

    op: ">=" (at least), "<=" (at most), "between" (threshold..upper, both inclusive), "outside" (not between).
    reading: how the post's words are read, e.g. "'several times' read generously as at least 2x".
    effect: the smallest effect that matters, stated, for a "faster / slower / at least as" reading of a ratio (0.05:
      the threshold is 1.05, or 0.95 for "<="): an order with no margin (>= 1) can never be decided near no effect.

    Fixed before the data: no threshold sits on the post's own figure (the post passes with margin, or the reading
    says that the post itself sits on the edge; tests/test_claims_consistency.py). A "between" rule for
    "comparable / like / similar" is an equivalence band: it holds only when the whole interval lies inside it."""
    op: str
    threshold: float
    upper: float | None = None
    reading: str = ""
    effect: float | None = None

    def __post_init__(self):
        if self.op not in (">=", "<=", "between", "outside"):
            raise ValueError(f"rule op '{self.op}': allowed >=, <=, between, outside")
        if self.op in ("between", "outside") and (self.upper is None or self.upper < self.threshold):
            raise ValueError(f"rule '{self.op}' needs upper >= threshold")
        if self.effect is not None and not 0 < self.effect < 1:
            raise ValueError(f"rule effect {self.effect}: allowed a share between 0 and 1 (0.05 = 5%)")

    def holds_at(self, x: float) -> bool:
        """The rule applied to one number (the post's own statistic, say)."""
        if x is None or not np.isfinite(x):
            return False
        if self.op == ">=":
            return x >= self.threshold
        if self.op == "<=":
            return x <= self.threshold
        inside = self.threshold <= x <= self.upper
        return inside if self.op == "between" else not inside

    def decide(self, low: float, high: float) -> str:
        """holds / does not hold when the whole interval [low, high] is on one side, else inconclusive."""
        t, u = self.threshold, self.upper
        if self.op == ">=":
            return HOLDS if low >= t else FAILS if high < t else INCONCLUSIVE
        if self.op == "<=":
            return HOLDS if high <= t else FAILS if low > t else INCONCLUSIVE
        inside = t <= low and high <= u
        outside = high < t or low > u
        if self.op == "between":
            return HOLDS if inside else FAILS if outside else INCONCLUSIVE
        return HOLDS if outside else FAILS if inside else INCONCLUSIVE

    def distance(self, x: float) -> float:
        """How far a point estimate is from the nearest decision boundary."""
        bounds = [self.threshold] + ([self.upper] if self.upper is not None else [])
        return min(abs(x - b) for b in bounds)

    def text(self, unit: str = "") -> str:
        f = (lambda v: fmt_value(v, unit)) if unit else (lambda v: f"{v:g}")
        effect = f" (smallest effect {100 * self.effect:g}%)" if self.effect else ""
        if self.op == ">=":
            return f">= {f(self.threshold)}{effect}"
        if self.op == "<=":
            return f"<= {f(self.threshold)}{effect}"
        return f"{'within' if self.op == 'between' else 'outside'} {f(self.threshold)}..{f(self.upper)}"
