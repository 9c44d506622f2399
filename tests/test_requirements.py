"""What a claim needs from the machine: requirements checked against a calibration (synthetic here), stand-ins kept
as sub-rows, and the calibration record read back from a store."""

from __future__ import annotations

import dataclasses
import json

import pandas as pd
import pytest

from mechsym import experiments
from mechsym.judge import requirements, tables, verdicts
from mechsym.judge.requirements import CORES, MIGRATION, REGIME, SMT, WAKEUP, Requirement
from mechsym.judge.verdicts import FAILS, HOLDS, INCONCLUSIVE, UNMEASURABLE, Verdict
from mechsym.machine import calibration

from synthetic import calibration as synthetic_calibration

# the claims issue 48 names as decided by this machine rather than by the post's mechanism, and the words (the
# requirement, this machine's value) their verdict must then carry on the 2-vCPU VM
NAMED = {
    "signalling.unpinned-several-times-slower": ("free CPUs >= 3", "2 free CPUs"),
    "disruptor.pinning-matters": ("free CPUs >= 3", "2 free CPUs"),
    "spsc.i1-helps-same-core": ("SMT siblings", "no SMT siblings (2 logical CPUs on 2 cores)"),
    "signalling.lock-latency-microseconds": ("<= 2.00 µs", "cross-CPU wake-up 27.70 µs"),
    "pingbuffet.block-beats-select": ("<= 2.62 µs", "cross-CPU wake-up 27.70 µs"),
    "locks.reentrant-scales-except-2": ("cores >= 3", "2 cores"),
    "spsc.i4-removes-variance": ("one regime", "3 regimes, 4.20x apart"),
    "spsc.i4-110-120m": ("one regime", "3 regimes, 4.20x apart"),
    "disruptor.order-of-magnitude-over-queue": ("one regime", "3 regimes, 4.20x apart"),
}


def claim(cid: str):
    return experiments.get(cid.split(".")[0]).CLAIM[cid]


def decided(cid: str, outcome: str = HOLDS, scope: dict | None = None, **kw) -> Verdict:
    """A decisive post-protocol verdict of the claim, as a judged cell would give it."""
    return Verdict(claim(cid), outcome, "3.00x [2.5x, 3.5x], 10 forks", scope=scope or {"jdk": "17"},
                   machine="test-machine-a", p_value=0.001, low=2.5, high=3.5, forks=10, now_value=3.0, **kw)


@pytest.mark.parametrize("cid", sorted(NAMED))
def test_on_this_machine_the_named_claims_are_not_measurable_with_the_requirement_and_the_value(cid):
    need, value = NAMED[cid]
    v, = requirements.apply([decided(cid)], synthetic_calibration("this"))
    assert v.outcome == UNMEASURABLE
    assert f"needs " in v.why and need in v.why and f"this machine {value}" in v.why
    assert v.p_value is None and v.now_value == 3.0   # out of the multiplicity line; the figure stays in the row


@pytest.mark.parametrize("cid", sorted(NAMED))
def test_on_a_16_cpu_smt_machine_with_a_1us_wakeup_the_same_claims_are_judged(cid):
    for outcome in (HOLDS, FAILS):
        v, = requirements.apply([decided(cid, outcome)], synthetic_calibration("big"))
        assert v.outcome == outcome and "needs" not in v.why and v.p_value == 0.001


def test_without_a_calibration_the_requirements_are_said_unchecked_never_met():
    v, = requirements.apply([decided("disruptor.pinning-matters")], None)
    assert v.outcome == INCONCLUSIVE and v.p_value is None   # never taken as met: it cannot decide
    assert "not checked: no calibration stored for this machine" in v.why and "free CPUs >= 3" in v.why
    assert "cannot decide here" in v.why
    # a claim with no requirement is left as it was
    plain = decided("signalling.volatile-under-50ns")
    assert requirements.apply([plain], None) == [plain]


def test_a_field_the_calibration_did_not_measure_is_unchecked_not_met():
    cal = synthetic_calibration("this")
    unmeasured = dataclasses.replace(cal, wakeup_cross_ns=None, regimes=None)
    for cid in ("signalling.lock-latency-microseconds", "spsc.i4-110-120m"):
        v, = requirements.apply([decided(cid)], unmeasured)
        assert v.outcome == INCONCLUSIVE and "not checked" in v.why and "not measured" in v.why


def test_each_kind_reads_its_own_field():
    this, big = synthetic_calibration("this"), synthetic_calibration("big")
    assert Requirement(MIGRATION, threads=1).check(this) is None          # 2 free CPUs >= 1 + 1
    assert Requirement(CORES, threads=2).check(this) is None
    assert Requirement(CORES, threads=9).check(big) == "needs a core per thread: cores >= 9; this machine 8 cores"
    assert Requirement(WAKEUP, effect_ns=200_000).check(this) is None     # 27.7 µs <= 40 µs
    assert Requirement(SMT).check(big) is None and Requirement(REGIME).check(big) is None


def test_a_requirement_scope_limits_it_to_the_verdicts_it_concerns():
    req = Requirement(SMT, scope={"placement": "same-core"})
    c = verdicts.Claim("core.scoped", "post.md", "nb", "A.", "2x", "A over B", rule=verdicts.Rule(">=", 2.0),
                       requires=(req,))
    same = Verdict(c, HOLDS, "x", scope={"placement": "same-core"})
    cross = Verdict(c, HOLDS, "x", scope={"placement": "cross-core"})
    out = requirements.apply([same, cross], synthetic_calibration("this"))
    assert [v.outcome for v in out] == [UNMEASURABLE, HOLDS]


@pytest.mark.parametrize("bad,said", [(dict(kind="numa"), "requirement kind 'numa': allowed"),
                                      (dict(kind=WAKEUP), "needs effect_ns > 0"),
                                      (dict(kind=CORES, threads=0), "requirement threads 0: allowed 1 or more")])
def test_a_bad_requirement_is_refused_in_one_line(bad, said):
    with pytest.raises(ValueError, match=said):
        Requirement(**bad)


# ---------------------------------------------------------------- stand-ins

def test_a_stand_in_is_never_primary_its_own_scope_is_or_not_measurable_here():
    cid = "spsc.i1-helps-same-core"
    stand = decided(cid, scope={"jdk": "17", "placement": "same-cpu"}, stand_in=True)
    own = verdicts.unmeasurable(claim(cid), "no SMT siblings", machine="test-machine-a",
                                scope={"placement": "same-core"})
    marked = verdicts.mark_primary([stand, own])
    assert [v.primary for v in marked] == [False, True]
    # with only a stand-in measured, the claim's primary is a 'not measurable here' after it, naming the stand-in
    alone = verdicts.mark_primary([stand])
    assert [v.primary for v in alone] == [False, True]
    assert alone[1].outcome == UNMEASURABLE and "only a stand-in" in alone[1].why and "same-cpu" in alone[1].why
    assert tables.display(alone)["row"].tolist() == ["sub-row (stand-in)", "primary"]
    # a claim measured in its own scope too (I4 cross-core) keeps that as its primary
    cross = decided("spsc.i4-10pct-faster", scope={"jdk": "17", "placement": "cross-core"})
    first = decided("spsc.i4-10pct-faster", scope={"jdk": "17", "placement": "same-cpu"}, stand_in=True)
    assert [v.primary for v in verdicts.mark_primary([first, cross])] == [False, True]


def test_a_stand_in_keeps_its_outcome_under_a_failed_requirement():
    stand = decided("spsc.i1-helps-same-core", scope={"jdk": "17", "placement": "same-cpu"}, stand_in=True)
    assert requirements.apply([stand], synthetic_calibration("this")) == [stand]


def test_judge_labels_a_stand_in():
    c = claim("spsc.i1-helps-same-core")
    est = verdicts.estimate(lambda a, b: a / b, [30, 31, 29, 30, 32], [10, 10.5, 9.8, 10.1, 10])
    v = verdicts.judge(c, est, scope={"placement": "same-cpu"}, stand_in="one logical CPU stands in")
    assert v.stand_in and v.why.startswith("stand-in: ")
    assert not verdicts.judge(c, est, scope={"placement": "same-core"}).stand_in


# ---------------------------------------------------------------- the stored record

def _store_calibration(root, machine, run_id, wakeup):
    """A calibration run as the calibration experiment stores it: one row per measured iteration, `variant` naming
    the measurement, ns in `value`; the regime A/A one value per fork."""
    where = root / machine / calibration.EXPERIMENT
    where.mkdir(parents=True, exist_ok=True)
    rows = pd.DataFrame({"variant": ["wakeup-cross"] * 3 + ["cas"] * 3 + ["aa"] * 4,
                         "fork": [0, 1, 2, 0, 1, 2, 0, 1, 2, 3],
                         "value": [wakeup, wakeup * 0.9, wakeup * 1.2, 4.7, 4.8, 4.9, 3.0, 12.6, 3.1, 6.0]})
    rows.to_csv(where / f"{run_id}.csv", index=False)
    meta = {"run_id": run_id, "rows": len(rows),
            "machine": {"machine_id": machine, "logical_cpus": 2, "physical_cores": 2, "smt": False}}
    (where / f"{run_id}.json").write_text(json.dumps(meta))


def test_load_reads_the_newest_stored_calibration_of_the_machine(tmp_path):
    assert calibration.load("test-machine-a", root=tmp_path) is None
    _store_calibration(tmp_path, "test-machine-a", "20261101T000000Z-calibration-aaaaaa", 30_000.0)
    _store_calibration(tmp_path, "test-machine-a", "20261129T000000Z-calibration-bbbbbb", 27_700.0)
    cal = calibration.load("test-machine-a", root=tmp_path)
    assert cal.source == "measured 20261129T000000Z-calibration-bbbbbb"
    assert cal.wakeup_cross_ns == 27_700.0 and cal.cas_ns == 4.8 and cal.regimes == 3
    assert cal.cores == 2 and not cal.smt_siblings and cal.timer_ns is None
    assert calibration.load("test-machine-b", root=tmp_path) is None
    # what the verdicts then say of the named claims on it
    v, = requirements.apply([decided("spsc.i4-110-120m")], cal)
    assert v.outcome == UNMEASURABLE and "this machine 3 regimes" in v.why


# ---------------------------------------------------------------- mechanism floors

def test_a_cell_faster_than_the_physical_floor_cannot_decide_and_the_isolating_cell_becomes_primary():
    """locks.biased-huge-benefit: C2 coarsens the post's loop, its thin lock runs at 2.6 ns, under this machine's
    uncontended CAS (4.8 ns); the same-thread cell with coarsening off keeps the lock and decides."""
    cid = "locks.biased-huge-benefit"
    main = Verdict(claim(cid), FAILS, "1.00x [0.98x, 1.02x], 10 forks", scope={"jdk": "17", "threads": 1},
                   machine="m", p_value=0.001, now_value=1.0, per_op_ns=2.6)
    same = Verdict(claim(cid), HOLDS, "14.0x [12x, 16x], 10 forks",
                   scope={"jdk": "17", "threads": 1, "coarsening": "off"}, machine="m", p_value=0.001,
                   now_value=14.0, per_op_ns=40.0)
    out = verdicts.mark_primary(requirements.apply([main, same], synthetic_calibration("this")))
    assert out[0].outcome == UNMEASURABLE and not out[0].primary and out[0].p_value is None
    assert "the JIT removed the mechanism: 2.6 ns per thin lock + increment + unlock" in out[0].why
    assert "uncontended CAS (4.8 ns)" in out[0].why and "today's JIT shows 1.00x" in out[0].why
    assert out[1].primary and out[1].outcome == HOLDS and "today's JIT shows 1.00x" in out[1].why
    # a machine whose CAS is faster than the cell: the post's program decides (it did not beat the floor)
    fast = dataclasses.replace(synthetic_calibration("big"), cas_ns=2.0)
    kept = verdicts.mark_primary(requirements.apply([main, same], fast))
    assert kept[0].outcome == FAILS and kept[0].primary and "JIT removed" not in kept[0].why
    # no calibration: the floor is said unchecked, and the verdict cannot decide (the JIT or the mechanism?)
    unchecked = requirements.apply([main], None)[0]
    assert unchecked.outcome == INCONCLUSIVE and "not checked: no calibration stored" in unchecked.why


def test_a_claim_without_a_floor_is_never_flagged():
    v = decided("signalling.volatile-under-50ns", per_op_ns=0.1)
    assert requirements.apply([v], synthetic_calibration("this")) == [v]


def test_without_a_calibration_the_runs_machine_record_still_gives_the_topology():
    """A machine with no calibration stored: its runs' record says 2 CPUs, no SMT, so a migration claim is not
    measurable there (the topology is known); a wake-up claim is not checked, so it cannot decide."""
    cal = calibration.from_record("m", {"logical_cpus": 2, "physical_cores": 2, "smt": False, "sockets": 1})
    v, = requirements.apply([decided("disruptor.pinning-matters")], cal)
    assert v.outcome == UNMEASURABLE and "free CPUs >= 3" in v.why and "2 free CPUs" in v.why
    w, = requirements.apply([decided("signalling.lock-latency-microseconds")], cal)
    assert w.outcome == INCONCLUSIVE and "not checked" in w.why and "cannot decide here" in w.why
    assert calibration.from_record("m", {"cpu_model": "x"}) is None
