"""Rules fixed before the data, over every experiment's claims: the post's own figure passes its claim's rule with
margin (never on the threshold), and no order is read with no margin at all (>= 1 or <= 1: such a rule can never
be decided near no effect)."""

from __future__ import annotations

import math

import pytest

from mechsym import experiments

CLAIMS = [c for name in experiments.names() for c in experiments.get(name).CLAIMS]
WITH_POST_NUMBERS = [c for c in CLAIMS if c.from_post is not None]


def _bounds(rule) -> list[float]:
    return [rule.threshold] + ([rule.upper] if rule.upper is not None else [])


@pytest.mark.parametrize("claim", WITH_POST_NUMBERS, ids=lambda c: c.id)
def test_the_post_passes_its_own_rule_off_the_threshold(claim):
    then = claim.then_value()
    assert then is not None and math.isfinite(then), f"{claim.id}: no statistic from {claim.reference}"
    assert claim.rule.holds_at(then), (f"{claim.id}: the post's own {claim.statistic} = {then:.6g} fails its rule "
                                       f"{claim.rule.text(claim.unit)}")
    for b in _bounds(claim.rule):
        assert not math.isclose(then, b, rel_tol=1e-3), (
            f"{claim.id}: the threshold {b:g} is the post's own figure {then:.6g}: read the words generously so the "
            "post passes with margin")


@pytest.mark.parametrize("claim", CLAIMS, ids=lambda c: c.id)
def test_no_order_without_a_smallest_effect(claim):
    rule = claim.rule
    assert not (rule.op in (">=", "<=") and rule.threshold == 1.0), (
        f"{claim.id}: {rule.op} 1 asks no margin; state the smallest effect that matters (Rule(effect=0.05), "
        "threshold 1.05 or 0.95) in the threshold and the reading")
    if rule.effect:
        want = 1 + rule.effect if rule.op == ">=" else 1 - rule.effect
        assert math.isclose(rule.threshold, want), (
            f"{claim.id}: effect {rule.effect:g} says threshold {want:g}, the rule has {rule.threshold:g}")
        assert f"{round(100 * rule.effect)}%" in rule.reading, f"{claim.id}: the reading does not state the effect"


def test_every_claim_with_post_numbers_is_covered():
    assert len(WITH_POST_NUMBERS) >= 40, len(WITH_POST_NUMBERS)


def test_one_reading_of_a_sentence_is_the_posts_the_others_are_labelled_the_labs():
    """A sentence of a post has one primary verdict: two claims reading the same statistic off the same sentence in
    the same direction cannot both be the post's (falsesharing.java7-drops-padding-pair is the lab's prefetcher
    reading of the sentence java7-drops-padding reads)."""
    seen: dict[tuple, str] = {}
    for c in CLAIMS:
        if c.source == "lab" or not c.quote or c.rule is None:
            continue
        key = (c.post, c.quote, c.statistic, c.rule.op)
        assert key not in seen, f"{c.id} and {seen[key]} read one sentence alike: mark the lab's reading source='lab'"
        seen[key] = c.id
    assert experiments.get("falsesharing").CLAIM["falsesharing.java7-drops-padding-pair"].source == "lab"


def test_every_requirement_is_a_requirement():
    from mechsym.judge.requirements import Requirement

    for c in CLAIMS:
        assert all(isinstance(r, Requirement) for r in c.requires), f"{c.id}: requires holds {c.requires!r}"
    assert sum(bool(c.requires) for c in CLAIMS) >= 20
