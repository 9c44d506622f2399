"""The statistics under every verdict: bootstrap intervals over forks (one group's median by its order statistics,
runs nested when several stored runs are judged together), their p-values, the seed, and the confidence level and
its split across looks (--until-decided). The least or most of several comparisons and Benjamini-Hochberg are in
comparisons.py; the test for bimodal cells in bimodal.py.

The fork (a fresh JVM) is the unit of replication. Forks are run in interleaved rounds (fork k of every cell, then
fork k+1), so a slow round touches every cell of a comparison: when the groups of a comparison have the same fork
count, fork k of each belongs to round k and the bootstrap draws round indices, the same draw for every group (a
paired bootstrap over rounds; it is valid too when the groups are independent). Numbers read from the same forks
(a mean and a median of one fork's runs) are therefore resampled as pairs. Groups of different fork counts are
resampled independently.

Resampling is scipy.stats.bootstrap's (percentile intervals), drawing fork indices; the statistic is computed from
the groups at those indices, so a 2-D group (a fork's summary beside its within-run spread) keeps each fork's row.
The seed is fixed: the same stored forks always give the same interval. docs/statistics.md has the simulated
coverage and false-decision rates per kind of statistic (tests/test_statistics.py)."""

from __future__ import annotations

import contextlib
import math
import warnings
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

from .trace import Trace, current_trace, tracing  # noqa: F401 (the trace is read through stats by its callers)

LEVEL = 0.95
# Fewer forks than this in a judged cell: no interval means anything (the percentile interval of one group's median
# over n forks is at best [min, max], which covers 1 - 2 / 2^n: 75% at 3 forks, 88% at 4, 94% at 5).
MIN_FORKS = 5
N_RESAMPLES = 2000
SEED = 20111119
_seed = [SEED]
_level = [LEVEL]


@contextlib.contextmanager
def seeded(seed: int):
    """Every bootstrap inside the block draws from `seed` (the seed-stability test judges the stored runs under
    several)."""
    old, _seed[0] = _seed[0], seed
    try:
        yield
    finally:
        _seed[0] = old


def current_seed() -> int:
    """The seed every bootstrap draws from now (SEED, unless inside `seeded`)."""
    return _seed[0]


# ---------------------------------------------------------------- error spent across looks

@contextlib.contextmanager
def at_level(level: float):
    """Every interval inside the block is at `level` instead of LEVEL (a verdict judged after several looks at its
    forks: `spent_level`)."""
    if not 0 < level < 1:
        raise ValueError(f"level {level}: allowed a confidence level between 0 and 1")
    old, _level[0] = _level[0], level
    try:
        yield
    finally:
        _level[0] = old


def current_level() -> float:
    """The confidence level every interval is computed at now (LEVEL, unless inside `at_level`)."""
    return _level[0]


def spent_level(looks: int, alpha: float = 1 - LEVEL) -> float:
    """The confidence level of each of `looks` planned looks at growing data, so that the chance of a false decision
    at any of them stays at most alpha (Bonferroni over the planned looks: each look spends alpha / looks). A look
    that does not decide spends nothing it could get wrong, so stopping early keeps the bound."""
    if int(looks) < 1:
        raise ValueError(f"looks {looks}: allowed 1 or more")
    return 1 - alpha / int(looks)


def resamples_for(level: float) -> int:
    """Bootstrap resamples for a percentile interval at `level`: N_RESAMPLES at 95%, more at higher levels so that
    each tail still holds about 50 resamples."""
    return max(N_RESAMPLES, math.ceil(50 / ((1 - level) / 2)))


# ---------------------------------------------------------------- which forks a statistic read (trace.py)

_nested = [False]


@contextlib.contextmanager
def nested_runs():
    """Inside the block (and a `tracing` one), a statistic over forks of two or more stored runs resamples runs,
    then forks within each drawn run (a two-stage bootstrap), so the spread between runs enters its interval."""
    old, _nested[0] = _nested[0], True
    try:
        with tracing() if current_trace() is None else contextlib.nullcontext():
            yield
    finally:
        _nested[0] = old


@dataclass(frozen=True, eq=False)
class Boot:
    """A statistic, its percentile interval and its bootstrap distribution (finite values only)."""
    value: float
    low: float
    high: float
    n: int              # the smallest group's fork count
    paired: bool        # resampled by rounds (one draw for every group)
    dist: np.ndarray    # the bootstrap statistics
    sample: np.ndarray | None = None    # one group's forks, when the interval is their median's order statistics
    coverage: float | None = None       # an order-statistic interval's exact coverage (its level, not the one asked)
    short: bool = False                 # the forks cannot reach the level asked: no interval (`_one_median`)

    def tail(self, threshold: float, below: bool) -> float:
        """The share of resamples below the threshold (below=True) or above it, with the usual +1 (never 0)."""
        d = self.dist
        hits = np.count_nonzero(d < threshold if below else d > threshold)
        return (1 + int(hits)) / (d.size + 1)

    def p_value(self, op: str, threshold: float, upper: float | None = None) -> float:
        """The one-sided bootstrap p-value of the decision the interval makes against a rule (smaller when the
        distribution lies further on one side): for '>=' holds, the share of resamples below the threshold; for
        does-not-hold, the share at or above it; the smaller of the two, doubled (two-sided), capped at 1."""
        if self.sample is not None:
            return _sign_p(self.sample, op, threshold, upper)
        d = self.dist
        if d.size == 0:
            return 1.0
        share = lambda mask: (1 + int(np.count_nonzero(mask))) / (d.size + 1)
        if op in (">=", "<="):
            return min(1.0, 2 * min(self.tail(threshold, True), self.tail(threshold, False)))
        # between / outside: inside the band vs outside it (two one-sided tests: the larger tail)
        inside = max(share(d < threshold), share(d > upper))
        outside = min(share(d >= threshold), share(d <= upper))
        return min(1.0, 2 * min(inside, outside))


def finite_groups(groups: Sequence) -> list[np.ndarray]:
    """Each group without its non-finite forks (a 2-D group: without the forks with any non-finite number)."""
    out = []
    for g in groups:
        a = np.asarray(g, dtype=float)
        keep = np.isfinite(a).reshape(len(a), -1).all(axis=1) if a.ndim > 1 else np.isfinite(a)
        out.append(a[keep])
    return out


def vectorized(fn: Callable) -> Callable:
    """Marks a per-fork statistic (bootstrap of_medians=False) as reducing the last axis of its arrays, e.g.
    np.mean(a, axis=-1): bootstrap then calls it once on all resamples, not once per resample (a Python call per
    resample was most of a notebook's time: 10 M calls for spsc's mean ratios)."""
    fn.vectorized = True
    return fn


def bootstrap(fn: Callable, groups: Sequence, *, of_medians: bool = True, level: float | None = None,
              n_resamples: int | None = None, seed: int | None = None, paired: bool | None = None) -> Boot | None:
    """fn over the groups' per-fork values with a percentile bootstrap interval.

    of_medians=True: fn(median of group 1, median of group 2, ...), evaluated on whole arrays of resampled medians
    when fn allows (a ratio does), else one resample at a time. of_medians=False: fn(group 1, group 2, ...) on the
    per-fork arrays themselves (a mean, a spread), one resample at a time unless fn is marked `vectorized` (it then
    reduces the last axis of (resamples, forks) arrays): one call per batch, the same numbers. Groups of equal fork
    count are resampled by rounds (one index draw for all); others independently. None when a group is empty;
    with fewer than MIN_FORKS forks in a group the interval is unbounded (the caller's verdict says 'too few
    forks'). level: current_level() unless given; n_resamples: resamples_for(level) unless given. Inside
    `nested_runs`, groups of medians whose forks come from two or more stored runs are resampled runs first, then
    forks within runs (`_nested_boot`)."""
    import scipy.stats  # here, not at import: 0.9 s a process that never resamples
    level = current_level() if level is None else level
    n_resamples = resamples_for(level) if n_resamples is None else n_resamples
    arrays = finite_groups(groups)
    if not arrays or any(len(a) == 0 for a in arrays):
        return None
    point = (lambda gs: fn(*[np.median(g, axis=0) for g in gs])) if of_medians else (lambda gs: fn(*gs))
    value = float(point(arrays))
    n = min(len(a) for a in arrays)
    same = len({len(a) for a in arrays}) == 1
    if paired and not same:
        raise ValueError("paired groups need the same fork count: got " + ", ".join(str(len(a)) for a in arrays))
    paired = same if paired is None else paired
    if n < MIN_FORKS:
        return Boot(value, -math.inf, math.inf, n, paired, np.empty(0))
    if _nested[0] and of_medians and all(a.ndim == 1 for a in arrays):
        runs = _run_labels(arrays)
        if runs is not None:
            return _nested_boot(fn, arrays, runs, value, level, n_resamples, seed)
    if of_medians and len(arrays) == 1 and arrays[0].ndim == 1:
        return _one_median(fn, arrays[0], level)
    if of_medians and all(a.ndim == 1 for a in arrays):
        def batch(idx):
            meds = [np.median(a[i], axis=-1) for a, i in zip(arrays, idx)]
            try:
                out = np.asarray(fn(*meds), dtype=float)
                if out.shape == meds[0].shape:
                    return out
            except (TypeError, ValueError):
                pass
            return np.array([fn(*m) for m in zip(*meds)], dtype=float)
    elif not of_medians and getattr(fn, "vectorized", False) and all(a.ndim == 1 for a in arrays):
        def batch(idx):   # fn takes (resamples, forks) arrays and reduces the last axis: one call for the batch
            return np.asarray(fn(*[a[i] for a, i in zip(arrays, idx)]), dtype=float)
    else:
        def batch(idx):
            return np.array([point([a[i] for a, i in zip(arrays, row)]) for row in zip(*idx)], dtype=float)

    def statistic(*idx, axis=-1):
        idx = [np.asarray(i, dtype=np.intp) for i in idx]
        if paired:
            idx = idx * len(arrays)
        single = idx[0].ndim == 1
        idx = [i[None, :] if single else i for i in idx]
        with np.errstate(divide="ignore", invalid="ignore"):
            out = batch(idx)
        return out[0] if single else out

    data = (np.arange(n),) if paired else tuple(np.arange(len(a)) for a in arrays)
    rng = np.random.default_rng(_seed[0] if seed is None else seed)
    res = scipy.stats.bootstrap(data, statistic, paired=False, vectorized=True, n_resamples=n_resamples,
                                confidence_level=level, method="percentile", rng=rng)
    dist = np.asarray(res.bootstrap_distribution, dtype=float)
    dist = dist[np.isfinite(dist)]
    if dist.size == 0:
        return Boot(value, -math.inf, math.inf, n, paired, dist)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(dist, [tail, 100 - tail])
    return Boot(value, float(min(low, value)), float(max(high, value)), n, paired, dist)


def _run_labels(arrays: list[np.ndarray]) -> list[np.ndarray] | None:
    """Each fork's run (a code per stored run), when the trace knows every fork (trace.Trace.resolve: by cell, run
    and fork, never by value alone) and they come from 2+ runs."""
    trace = current_trace()
    if trace is None:
        return None
    found = [trace.resolve(a) for a in arrays]
    if any(f is None for f in found):
        return None
    names: dict[str, int] = {}
    out = [np.array([names.setdefault(r, len(names)) for _, r, _ in f]) for f in found]
    return out if len(names) >= 2 else None


def _nested_boot(fn: Callable, arrays: list[np.ndarray], runs: list[np.ndarray], value: float, level: float,
                 n_resamples: int, seed: int | None) -> Boot:
    """Forks nested in runs: each resample draws the runs with replacement (one draw for every group, as the runs
    are shared), then, within each drawn run, as many forks as it has, with replacement, group by group. fn of the
    groups' resampled medians; a percentile interval. Vectorised: a resample's forks sit in a padded array."""
    rng = np.random.default_rng(_seed[0] if seed is None else seed)
    n_runs = 1 + max(int(r.max()) for r in runs)
    pick = rng.integers(0, n_runs, size=(n_resamples, n_runs))
    meds = []
    for a, r in zip(arrays, runs):
        members = [a[r == k] for k in range(n_runs)]
        size = max(len(m) for m in members)
        pad = np.full((n_runs, max(size, 1)), np.nan)
        for k, m in enumerate(members):
            pad[k, :len(m)] = m
        counts = np.array([len(m) for m in members])
        c = counts[pick]                                            # (B, R) forks in each drawn run
        j = np.floor(rng.random((n_resamples, n_runs, max(size, 1))) * np.maximum(c, 1)[..., None]).astype(int)
        vals = pad[pick[..., None], j]                              # (B, R, size)
        vals[np.arange(max(size, 1))[None, None, :] >= c[..., None]] = np.nan
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)   # an all-NaN row: a resample of empty runs
            meds.append(np.nanmedian(vals.reshape(n_resamples, -1), axis=1))
    with np.errstate(divide="ignore", invalid="ignore"):
        try:
            dist = np.asarray(fn(*meds), dtype=float)
            if dist.shape != meds[0].shape:
                raise ValueError
        except (TypeError, ValueError):
            dist = np.array([fn(*m) for m in zip(*meds)], dtype=float)
    dist = dist[np.isfinite(dist)]
    n = min(len(a) for a in arrays)
    if dist.size == 0:
        return Boot(value, -math.inf, math.inf, n, False, dist)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(dist, [tail, 100 - tail])
    return Nested(value, float(min(low, value)), float(max(high, value)), n, False, dist, runs=n_runs)


@dataclass(frozen=True, eq=False)
class Nested(Boot):
    """A statistic whose forks were resampled nested in `runs` stored runs."""
    runs: int = 0


def end_bands(boot: Boot, level: float, z: float = 3.0) -> list[tuple[float, float]]:
    """Where each end of a percentile interval could fall under another seed: for the end at quantile q of B
    resamples, the resampled statistics at ranks B*q -/+ z*sqrt(B*q*(1-q)) (the order statistic's binomial spread;
    z = 3 leaves about one seed in 370 outside). Empty when the interval is not a bootstrap percentile one (an
    order-statistic interval of one median does not depend on the seed)."""
    if boot.sample is not None or boot.dist.size < 2:
        return []
    d = np.sort(boot.dist)
    tail = (1 - level) / 2
    out = []
    for q in (tail, 1 - tail):
        spread = z * math.sqrt(d.size * q * (1 - q))
        lo = int(max(0, math.floor(d.size * q - spread)))
        hi = int(min(d.size - 1, math.ceil(d.size * q + spread)))
        out.append((float(d[lo]), float(d[hi])))
    return out


#: An order-statistic interval reaches the level asked when it misses at most SLACK times as often: [min, max] of 5
#: forks misses 6.25% against 95%'s 5% (the documented floor, simulated in docs/statistics.md); 5 forks at 99.17%
#: (a spent level) miss 6.25% against 0.83%: "too few forks for this level", never an interval labelled 99.17%.
SLACK = 1.25


def _one_median(fn: Callable, values: np.ndarray, level: float) -> Boot:
    """One group's median (fn of it, fn monotone: a unit change) with the distribution-free interval between two
    order statistics, exact for any distribution: [x(r), x(n+1-r)] covers the median with probability
    1 - 2 P(Binomial(n, 1/2) < r). r is the largest rank reaching `level`, else 1 ([min, max], which at 5 forks covers
    93.75%). The Boot carries the interval's own coverage; when even [min, max] misses more than SLACK times the
    level's error, it is `short` (no interval). A bootstrap does worse here: at 8 forks its percentile interval
    covers ~92%."""
    x = np.sort(_apply(fn, values))
    n = x.size
    r = median_rank(n, level)
    cover = median_coverage(n, r)
    value = float(fn(np.median(values)))
    if 1 - cover > SLACK * (1 - level) + 1e-12:
        return Boot(value, -math.inf, math.inf, n, True, np.empty(0), None, cover, True)
    return Boot(value, float(min(x[r - 1], value)), float(max(x[n - r], value)), n, True, np.empty(0), x, cover)


def median_coverage(n: int, r: int) -> float:
    """The exact coverage of the median's order-statistic interval [x(r), x(n+1-r)] over n forks."""
    import scipy.stats  # here, not at import: 0.9 s a process that never resamples
    return float(1 - 2 * scipy.stats.binom.cdf(r - 1, n, 0.5))


def forks_for(level: float) -> int:
    """The fewest forks whose [min, max] reaches `level` for one group's median (with SLACK): 5 at 95%."""
    return next(n for n in range(2, 10_000) if 2.0 ** (1 - n) <= SLACK * (1 - level) + 1e-12)


def median_rank(n: int, level: float) -> int:
    """r of the median's order-statistic interval [x(r), x(n+1-r)] over n forks: the largest rank whose coverage
    1 - 2 P(Binomial(n, 1/2) < r) reaches level, else 1 ([min, max])."""
    import scipy.stats  # here, not at import: 0.9 s a process that never resamples
    ranks = [r for r in range(1, n // 2 + 1) if 1 - 2 * scipy.stats.binom.cdf(r - 1, n, 0.5) >= level]
    return max(ranks) if ranks else 1


def _apply(fn: Callable, values: np.ndarray) -> np.ndarray:
    try:
        out = np.asarray(fn(values), dtype=float)
        if out.shape == values.shape:
            return out
    except (TypeError, ValueError):
        pass
    return np.array([fn(v) for v in values], dtype=float)


def _sign_p(x: np.ndarray, op: str, threshold: float, upper: float | None) -> float:
    """The sign test's two-sided p-value of the median against the threshold (the band's nearer end for a band)."""
    import scipy.stats  # here, not at import: 0.9 s a process that never resamples
    if op in ("between", "outside"):
        t = threshold if abs(np.median(x) - threshold) < abs(np.median(x) - upper) else upper
    else:
        t = threshold
    x = x[x != t]
    if x.size == 0:
        return 1.0
    return float(scipy.stats.binomtest(int(np.count_nonzero(x > t)), x.size, 0.5).pvalue)
