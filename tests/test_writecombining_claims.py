"""The write-combining claims as the post states them: one split claim with the post's factor (not the same
statistic counted twice), and the knee judged as the discrete statistic it is (the modal knee and its share of
rounds of forks, no interval, no more-forks estimate). Synthetic rows; no test asserts a timing."""

import numpy as np
import pandas as pd

from mechsym.experiments import writecombining as exp
from mechsym.experiments.writecombining.verdicts import judge_knee, round_knees
from mechsym.judge.verdicts import FAILS, HOLDS, INCONCLUSIVE, LAB

KNEE = exp.CLAIM["writecombining.four-buffers"]


def test_one_split_claim_with_the_posts_factor():
    ids = [c.id for c in exp.CLAIMS]
    assert ids.count("writecombining.split-faster") == 1 and "writecombining.factor-two" not in ids
    claim = exp.CLAIM["writecombining.split-faster"]
    assert "factor of two" in claim.quote and claim.rule.threshold == 1.5
    assert not claim.rule.holds_at(1.4) and claim.rule.holds_at(claim.then_value())


def test_each_round_has_its_own_knee():
    single = pd.DataFrame({1: [1.0, 1.0, 1.0], 3: [1.0, 1.0, np.nan], 4: [1.0, 1.3, 1.0], 5: [1.3, 1.3, 1.3]})
    assert round_knees(single) == [5, 4]   # the third round has no loop of 3: left out


def test_the_knee_is_decided_by_the_share_of_rounds_that_agree():
    scope = {"runtime": "JDK 17"}
    v = judge_knee(KNEE, [5, 5, 5, 5, 9], scope, LAB, "d")
    assert v.outcome == HOLDS and v.now.startswith("5 arrays in 4 of 5 rounds (80%)") and v.p_value is not None
    assert judge_knee(KNEE, [9, 9, 13, 13, 12], scope, LAB, "d").outcome == FAILS
    split = judge_knee(KNEE, [5, 5, 5, 9, 9], scope, LAB, "d")
    assert split.outcome == INCONCLUSIVE and "disagree" in split.why and "more forks" not in split.why
    few = judge_knee(KNEE, [5, 5], scope, LAB, "d")
    assert few.outcome == INCONCLUSIVE and "too few" in few.why
