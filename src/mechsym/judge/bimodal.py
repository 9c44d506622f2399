"""The test for bimodal cells: separated clusters among one cell's forks (a gap rule on a log scale; Hartigan's dip
test from 10 forks). mechsym.judge.modes reports a cell's modes and what the kernel recorded about the forks in each;
estimates.py marks an estimate read from a bimodal cell."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

import numpy as np

GAP_SHARE = 0.6     # the largest gap between neighbouring forks (log scale) is at least 60% of the whole range
GAP_RATIO = 1.3     # and is itself a jump of 30% or more
DIP_P = 0.05


@dataclass(frozen=True)
class Modes:
    """Two or more separated clusters of forks: each cluster's share and median, and how they were found."""
    shares: tuple[float, ...]
    values: tuple[float, ...]
    method: str

    def text(self, fmt: Callable[[float], str] = lambda v: f"{v:.3g}") -> str:
        return "bimodal (" + self.method + "): " + ", ".join(
            f"{round(100 * s)}% of forks near {fmt(v)}" for s, v in zip(self.shares, self.values))


def modes(values, min_cluster: int = 2) -> Modes | None:
    """Separated clusters among one cell's forks, or None.

    Gap rule (any fork count): split at the largest gap between neighbouring forks on a log scale when that gap is
    at least GAP_SHARE of the whole range, a jump of at least GAP_RATIO, and each side holds at least min_cluster
    forks. From 10 forks on, Hartigan's dip test (the diptest package) at p < DIP_P also counts, split at the
    largest gap. Positive values only (a log scale); otherwise None."""
    v = np.sort(np.asarray(values, dtype=float))
    v = v[np.isfinite(v)]
    if v.size < 2 * min_cluster or (v <= 0).any():
        return None
    lv = np.log(v)
    gaps = np.diff(lv)
    span = lv[-1] - lv[0]
    if span <= 0:
        return None
    order = np.argsort(gaps)[::-1]
    cut = next((int(i) + 1 for i in order if min_cluster <= int(i) + 1 <= v.size - min_cluster), None)
    if cut is None:
        return None
    g = gaps[cut - 1]
    method = ""
    if g >= GAP_SHARE * span and math.exp(g) >= GAP_RATIO:
        method = "a gap"
    elif v.size >= 10:
        import diptest
        _, p = diptest.diptest(lv)
        if p < DIP_P and math.exp(g) >= GAP_RATIO:
            method = f"dip test p = {p:.3f}"
    if not method:
        return None
    lo, hi = v[:cut], v[cut:]
    return Modes((lo.size / v.size, hi.size / v.size), (float(np.median(lo)), float(np.median(hi))), method)
