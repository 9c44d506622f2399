"""Simulated coverage and false-decision rates of each kind of statistic the verdicts use (docs/statistics.md has
the table from the larger run: MECHSYM_STATS_REPLICATES=2000).

Forks are log-normal (sd 0.3 on the log scale, the spread of the noisiest stored cells); for the paired ratio a
round effect (sd 0.3) is shared by both cells and each fork adds its own (sd 0.1). Each replicate draws fresh
forks and judges them; coverage is the share of intervals holding the true value, the false-decision rate the share
that decide the wrong way when the truth sits exactly on the threshold. Seeds are fixed: the test is deterministic.
The quick version (make test) runs 60 replicates and asserts with room for its own sampling error (coverage >=
88%, false decisions <= 8%); the larger asserts the targets (>= 93%, <= 5%)."""

from __future__ import annotations

import os

import numpy as np
import pytest

from mechsym.judge import bimodal, comparisons, stats

REPLICATES = int(os.environ.get("MECHSYM_STATS_REPLICATES", "60"))
LARGE = REPLICATES >= 1000
COVERAGE, FALSE = (0.93, 0.05) if LARGE else (0.88, 0.08)
RESAMPLES = 2000 if LARGE else 200
SD = 0.3


def ratio(a, b):
    return a / b


def one_median(rng, n):
    return stats.bootstrap(lambda a: a, [rng.lognormal(0, SD, n)], n_resamples=RESAMPLES), 1.0


def two_groups(rng, n):
    return stats.bootstrap(ratio, [rng.lognormal(0, SD, n), rng.lognormal(0, SD, n)], n_resamples=RESAMPLES), 1.0


def paired(rng, n):
    rounds = rng.normal(0, SD, n)
    a, b = np.exp(rounds + rng.normal(0, 0.1, n)), np.exp(rounds + rng.normal(0, 0.1, n))
    return stats.bootstrap(ratio, [a, b], n_resamples=RESAMPLES), 1.0


def least_of_3(rng, n):
    members = [(ratio, [rng.lognormal(0, SD, n), rng.lognormal(0, SD, n)]) for _ in range(3)]
    return comparisons.extreme("min", members), 1.0


def percentile(rng, n):
    """The 90th percentile of one fork's runs (a latency tail), then the median over forks: one group's median."""
    tails = np.percentile(rng.lognormal(0, SD, (n, 50)), 90, axis=1)
    truth = np.exp(SD * 1.2815516)   # the 90th percentile of the log-normal
    return stats.bootstrap(lambda a: a, [tails / truth], n_resamples=RESAMPLES), P90_MEDIAN / truth


P90_MEDIAN = float(np.median(np.percentile(np.random.default_rng(0).lognormal(0, SD, (4000, 50)), 90, axis=1)))


def share_of_runs(rng, n):
    """The share of runs below 0.8x the median run (the spsc claim), Wilson interval over n runs: truth 22.9%."""
    from scipy.stats import binomtest
    x = rng.lognormal(0, SD, n)
    k = int(np.count_nonzero(x < 0.8))
    ci = binomtest(k, n).proportion_ci(0.95, method="wilson")
    truth = float(__import__("scipy.stats").stats.norm.cdf(np.log(0.8) / SD))
    return stats.Boot(k / n, ci.low, ci.high, n, False, np.empty(0)), truth


KINDS = {"one group median": one_median, "ratio of two groups": two_groups, "paired ratio": paired,
         "least of 3 ratios (IUT)": least_of_3, "percentile (p90 per fork)": percentile,
         "share of runs (Wilson)": share_of_runs}
FORKS = {"share of runs (Wilson)": (10, 30)}


def simulate(kind: str, n: int, replicates: int = REPLICATES) -> tuple[float, float]:
    """(coverage, false-decision rate at the threshold): the threshold is the truth; a '>=' rule is falsely
    decided 'does not hold' when the whole interval lies below it (the one-sided error of a decision)."""
    rng = np.random.default_rng(1000 * n + len(kind))
    cover = below = 0
    for _ in range(replicates):
        b, truth = KINDS[kind](rng, n)
        cover += b.low <= truth <= b.high
        below += b.high < truth
    return cover / replicates, below / replicates


@pytest.mark.parametrize("kind", KINDS)
def test_coverage_and_false_decisions(kind):
    for n in FORKS.get(kind, (5, 8, 10)):
        cover, false = simulate(kind, n)
        assert cover >= COVERAGE and false <= FALSE, (kind, n, cover, false)


def test_the_least_of_three_true_ratios_is_not_called_false():
    """Three ratios truly 1.1 against '>= 1.0': bootstrapping the min said 'does not hold' ~10% of
    the time; member by member it must almost never."""
    rng = np.random.default_rng(11)
    fails = 0
    for _ in range(REPLICATES):
        members = [(ratio, [1.1 * rng.lognormal(0, SD, 5), rng.lognormal(0, SD, 5)]) for _ in range(3)]
        fails += comparisons.extreme("min", members).high < 1.0
    assert fails / REPLICATES <= 0.02


def test_the_gap_rule_flags_two_clusters_and_not_one():
    rng = np.random.default_rng(4)
    two = np.r_[rng.lognormal(np.log(10), 0.02, 4), rng.lognormal(np.log(20), 0.02, 4)]
    m = bimodal.modes(two)
    assert m is not None and m.shares == (0.5, 0.5) and 9 < m.values[0] < 11 and 19 < m.values[1] < 21
    flagged = sum(bimodal.modes(rng.lognormal(0, SD, n)) is not None for n in (5, 8, 10) for _ in range(100))
    assert flagged / 300 <= 0.05
    wide = np.r_[rng.lognormal(np.log(10), 0.02, 12), rng.lognormal(np.log(16), 0.02, 12)]
    assert bimodal.modes(wide) is not None


def test_bootstrap_is_deterministic_and_resamples_rounds_together():
    a, b = [10, 12, 9, 11, 10.5], [20, 24, 18, 22, 21]     # b is 2x a in every round
    one, two = stats.bootstrap(ratio, [a, b]), stats.bootstrap(ratio, [a, b])
    assert (one.low, one.high) == (two.low, two.high) and one.paired
    assert one.low == pytest.approx(0.5) and one.high == pytest.approx(0.5)
    apart = stats.bootstrap(ratio, [a, b], paired=False)
    assert apart.low < 0.5 < apart.high
    with pytest.raises(ValueError, match="same fork count"):
        stats.bootstrap(ratio, [a, b[:4]], paired=True)


def test_benjamini_hochberg():
    assert comparisons.benjamini_hochberg([0.001, 0.01, 0.04, 0.5]).tolist() == [True, True, False, False]


if __name__ == "__main__":   # the table for docs/statistics.md
    for kind in KINDS:
        for n in FORKS.get(kind, (5, 8, 10)):
            c, f = simulate(kind, n)
            print(f"| {kind} | {n} | {100 * c:.1f}% | {100 * f:.1f}% |")
