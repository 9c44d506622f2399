"""The statistics under every verdict: bootstrap intervals over forks, the intersection-union rule for a claim on
the least (or most) of several comparisons, p-values for the multiplicity line, and the test for bimodal cells.

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
import scipy.stats

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


# ---------------------------------------------------------------- which forks a statistic read

class Trace:
    """While active (`tracing`), every per-fork value analysis.per_fork hands out is noted with its cell and its run,
    and every estimate made is kept: so a verdict's forks can be named after the fact (mechsym.decide finds the
    cells behind an undecided claim) and the run of each fork is known (the run level, `nested_runs`). Values are
    matched exactly: a statistic computed from transformed forks is not traced (its cells are then unknown)."""

    def __init__(self, cell_columns: tuple[str, ...] = ()):
        self.cell_columns = tuple(cell_columns)   # the columns that name a cell (a sweep's Cell.columns())
        self.forks: dict[float, set] = {}
        self.estimates: list = []

    def note(self, values, cells, runs) -> None:
        for v, c, r in zip(values, cells, runs):
            if v == v:   # NaN never matches
                self.forks.setdefault(float(v), set()).add((c, r))

    def lookup(self, values) -> list[set] | None:
        """Each value's (cell, run) pairs, or None when one of them was not handed out by per_fork."""
        out = []
        for v in np.asarray(values, dtype=float).ravel():
            hit = self.forks.get(float(v))
            if not hit:
                return None
            out.append(hit)
        return out


_trace: list[Trace | None] = [None]
_nested = [False]


@contextlib.contextmanager
def tracing(cell_columns: tuple[str, ...] = ()):
    """Note which forks (cells named by `cell_columns`, runs) every statistic inside the block reads (see Trace)."""
    old, _trace[0] = _trace[0], Trace(cell_columns)
    try:
        yield _trace[0]
    finally:
        _trace[0] = old


def current_trace() -> Trace | None:
    return _trace[0]


@contextlib.contextmanager
def nested_runs():
    """Inside the block (and a `tracing` one), a statistic over forks of two or more stored runs resamples runs,
    then forks within each drawn run (a two-stage bootstrap), so the spread between runs enters its interval."""
    old, _nested[0] = _nested[0], True
    try:
        with tracing() if _trace[0] is None else contextlib.nullcontext():
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


def bootstrap(fn: Callable, groups: Sequence, *, of_medians: bool = True, level: float | None = None,
              n_resamples: int | None = None, seed: int | None = None, paired: bool | None = None) -> Boot | None:
    """fn over the groups' per-fork values with a percentile bootstrap interval.

    of_medians=True: fn(median of group 1, median of group 2, ...), evaluated on whole arrays of resampled medians
    when fn allows (a ratio does), else one resample at a time. of_medians=False: fn(group 1, group 2, ...) on the
    per-fork arrays themselves (a mean, a spread). Groups of equal fork count are resampled by rounds (one index
    draw for all); others independently. None when a group is empty; with fewer than MIN_FORKS forks in a group
    the interval is unbounded (the caller's verdict says 'too few forks'). level: current_level() unless given;
    n_resamples: resamples_for(level) unless given. Inside `nested_runs`, groups of medians whose forks come from two
    or more stored runs are resampled runs first, then forks within runs (`_nested_boot`)."""
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
    """Each fork's run (a code per stored run), when the trace knows every fork and they come from 2+ runs."""
    trace = _trace[0]
    if trace is None:
        return None
    found = [trace.lookup(a) for a in arrays]
    if any(f is None for f in found):
        return None
    names: dict[str, int] = {}
    out = []
    for f in found:
        runs = [{r for _, r in hit} for hit in f]
        if any(len(r) != 1 for r in runs):
            return None    # the same number in two runs: which run it came from is unknown
        out.append(np.array([names.setdefault(next(iter(r)), len(names)) for r in runs]))
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


def _one_median(fn: Callable, values: np.ndarray, level: float) -> Boot:
    """One group's median (fn of it, fn monotone: a unit change) with the distribution-free interval between two
    order statistics, exact for any distribution: [x(r), x(n+1-r)] covers the median with probability
    1 - 2 P(Binomial(n, 1/2) < r). r is the largest rank reaching `level`, else 1 ([min, max], which at 5 forks covers
    93.75%: 95% is out of reach of 5 forks). A bootstrap does worse here: at 8 forks its percentile interval covers
    ~92%."""
    x = np.sort(_apply(fn, values))
    n = x.size
    r = median_rank(n, level)
    value = float(fn(np.median(values)))
    return Boot(value, float(min(x[r - 1], value)), float(max(x[n - r], value)), n, True, np.empty(0), x)


def median_rank(n: int, level: float) -> int:
    """r of the median's order-statistic interval [x(r), x(n+1-r)] over n forks: the largest rank whose coverage
    1 - 2 P(Binomial(n, 1/2) < r) reaches level, else 1 ([min, max])."""
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
    if op in ("between", "outside"):
        t = threshold if abs(np.median(x) - threshold) < abs(np.median(x) - upper) else upper
    else:
        t = threshold
    x = x[x != t]
    if x.size == 0:
        return 1.0
    return float(scipy.stats.binomtest(int(np.count_nonzero(x > t)), x.size, 0.5).pvalue)


# ---------------------------------------------------------------- several comparisons at once

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


# ---------------------------------------------------------------- modes

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


# ---------------------------------------------------------------- multiplicity

def benjamini_hochberg(p_values: Sequence[float], q: float = 0.05) -> np.ndarray:
    """Which of the p-values are discoveries under Benjamini-Hochberg at false-discovery rate q (scipy's adjusted
    p-values at or below q)."""
    p = np.asarray(p_values, dtype=float)
    if p.size == 0:
        return np.zeros(0, dtype=bool)
    return scipy.stats.false_discovery_control(np.clip(p, 0, 1), method="bh") <= q
