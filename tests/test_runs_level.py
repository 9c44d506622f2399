"""Statistics when forks come from several stored runs, or too few forks for the level asked: forks traced by their
(cell, run, fork), never by their value; an interval never labelled with a level its forks do not reach; modes
tested within runs; per-mode rows that can decide; runs that disagree made "unstable". Synthetic forks only."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mechsym.judge import analysis, comparisons, stats, tables
from mechsym.judge.analysis import LAB
from mechsym.judge.estimates import estimate
from mechsym.judge.verdicts import Claim, Rule, Verdict, judge
from mechsym.judge import modes

CLAIM = Claim("runs.ratio", "post.md", "nb", "A beats B.", "-", "ratio of medians", rule=Rule(">=", 1.05), unit="x")


def _frame(values: dict) -> pd.DataFrame:
    """Tidy rows, one measured iteration per fork: {(variant, run): [per-fork values]}."""
    rows = [{"variant": v, "run_id": r, "fork": f, "iteration": 0, "value": float(x)}
            for (v, r), xs in values.items() for f, x in enumerate(xs)]
    return pd.DataFrame(rows)


def test_a_value_two_runs_share_keeps_forks_nested_in_runs():
    """Integer timers repeat values: 12 is fork 2 of run r1 and fork 0 of run r2. Each fork is traced by its cell,
    run and fork, so the two runs stay two runs."""
    df = _frame({("a", "r1"): [10, 11, 12, 13, 14], ("a", "r2"): [12, 15, 16, 17, 18]})
    with stats.nested_runs():
        est = estimate(lambda x: x, analysis.fork_values(df, LAB, variant="a"))
    assert est.runs == 2


def test_a_value_two_cells_of_two_runs_share_is_resolved_by_its_group():
    df = _frame({("a", "r1"): [10, 11, 12, 13, 14], ("a", "r2"): [20, 21, 22, 23, 24],
                 ("b", "r1"): [5, 6, 7, 8, 9], ("b", "r2"): [12, 5.5, 6.5, 7.5, 8.5]})
    with stats.nested_runs():
        est = estimate(lambda x, y: x / y, analysis.fork_values(df, LAB, variant="a"),
                       analysis.fork_values(df, LAB, variant="b"))
    assert est.runs == 2


def test_a_level_out_of_reach_of_the_forks_is_too_few_forks_for_this_level():
    """[min, max] of 5 forks covers 93.75%: at 99.29% (several looks) it is no interval at all."""
    forks = np.array([1.20, 1.30, 1.25, 1.28, 1.31])
    with stats.at_level(1 - 0.05 / 7):
        v = judge(CLAIM, estimate(lambda a: a, forks))
    assert v.outcome == "inconclusive" and "too few forks for this level" in v.why and v.low is None
    assert "93.75%" in v.why


def test_an_interval_is_labelled_with_the_coverage_it_has():
    five = estimate(lambda a: a, np.array([1.20, 1.30, 1.25, 1.28, 1.31]))
    assert five.level == pytest.approx(0.9375) and judge(CLAIM, five).outcome == "holds"
    nine = estimate(lambda a: a, np.linspace(1.2, 1.3, 9))
    assert nine.level >= 0.95


def test_a_shift_between_runs_is_not_two_modes():
    """Each run's forks are one cluster; the second run sits 2x higher. Pooled, a gap rule sees two modes."""
    df = _frame({("a", "r1"): [10.0, 10.1, 10.2, 10.3, 10.4], ("a", "r2"): [20.0, 20.2, 20.4, 20.6, 20.8],
                 ("b", "r1"): [5.0, 5.1, 5.0, 5.1, 5.0], ("b", "r2"): [5.1, 5.0, 5.1, 5.0, 5.1]})
    with stats.nested_runs():
        est = estimate(lambda x, y: x / y, analysis.fork_values(df, LAB, variant="a"),
                       analysis.fork_values(df, LAB, variant="b"))
    assert not est.modes


def test_modes_within_one_run_are_still_found():
    df = _frame({("a", "r1"): [10.0, 10.1, 30.0, 30.2, 10.2, 30.4], ("a", "r2"): [10.3, 30.1, 10.4, 30.3, 10.1]})
    with stats.nested_runs():
        est = estimate(lambda x: x, analysis.fork_values(df, LAB, variant="a"))
    assert est.modes


def test_per_mode_rows_decide_when_both_groups_are_bimodal():
    rng = np.random.default_rng(7)
    a = np.r_[10 * np.exp(0.01 * rng.standard_normal(6)), 30 * np.exp(0.01 * rng.standard_normal(6))]
    b = np.r_[5 * np.exp(0.01 * rng.standard_normal(6)), 15 * np.exp(0.01 * rng.standard_normal(6))]
    v = judge(CLAIM, modes.estimate(lambda x, y: x / y, a, b))
    assert v.outcome == "inconclusive" and "bimodal" in v.why
    outcomes = {label: m.outcome for label, m in v.modes}
    assert len(outcomes) == 4, outcomes
    assert "holds" in outcomes.values() and "does not hold" in outcomes.values()


def _verdict(outcome, value, low, high, run="r"):
    return Verdict(CLAIM, outcome, f"{value:.3g} [{low:.3g}, {high:.3g}], 5 forks", now_value=value, low=low,
                   high=high, forks=5, run_id=run)


def test_runs_decisive_on_opposite_sides_make_the_claim_unstable():
    main = _verdict("holds", 1.8, 1.3, 2.4)
    runs = [[_verdict("holds", 2.20, 1.98, 2.51, "r1")], [_verdict("does not hold", 1.01, 0.98, 1.03, "r2")]]
    out = tables.replicate([main], runs)[0]
    assert out.unstable and out.outcome == "inconclusive" and out.p_value is None
    assert out.runs_total == 2 and out.runs_agree == 0
    assert "2.2 [1.98, 2.51]" in out.why and "1.01 [0.98, 1.03]" in out.why


def test_runs_that_differ_significantly_make_the_claim_unstable():
    main = _verdict("holds", 1.8, 1.3, 2.4)
    runs = [[_verdict("holds", 2.20, 1.98, 2.51, "r1")], [_verdict("holds", 1.31, 1.28, 1.38, "r2")]]
    out = tables.replicate([main], runs)[0]
    assert out.unstable and out.outcome == "inconclusive" and "heterogeneity" in out.why


def test_runs_that_agree_are_counted():
    main = _verdict("holds", 2.1, 1.9, 2.4)
    runs = [[_verdict("holds", 2.15, 1.95, 2.45, "r1")], [_verdict("holds", 2.05, 1.85, 2.3, "r2")]]
    out = tables.replicate([main], runs)[0]
    assert not out.unstable and out.outcome == "holds" and (out.runs_agree, out.runs_total) == (2, 2)


def test_heterogeneity_across_runs():
    assert comparisons.heterogeneity([(2.2, 1.98, 2.51), (1.31, 1.28, 1.38)]) < 0.001
    assert comparisons.heterogeneity([(2.15, 1.95, 2.45), (2.05, 1.85, 2.3)]) > 0.5
    assert comparisons.heterogeneity([(2.15, 1.95, 2.45)]) is None
