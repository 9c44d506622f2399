"""The locks verdicts on synthetic forks (each claim holds, does not hold, or is inconclusive with the numbers; the
post's protocol and the lab's disagree where the first timed run differs), machines kept apart in every table,
figure and verdict, cycles at the clock of the run judged; and the one source behind 00-overview,
`mechsym verdicts` and reports/index.html."""

from __future__ import annotations

import functools

import matplotlib
import pandas as pd
import pytest

from conftest import ROOT, java_kernel, mechsym
from mechsym.judge import analysis
from mechsym.run import bridge
from mechsym.view import overview
from mechsym.store import reference, runs as store
from mechsym.experiments import locks
from mechsym.judge.verdicts import FAILS, HOLDS, INCONCLUSIVE, UNMEASURABLE
from synthetic import THREADS, save_synthetic, synthetic_locks

matplotlib.use("Agg")


def by_id(vs, cid, jdk="17", protocol="post"):
    found = [v for v in vs if v.claim.id == cid and v.scope.get("jdk", "") in (jdk, "") and v.protocol == protocol]
    if len(found) > 1:   # the post's cell, not the sub-row that isolates the mechanism (coarsening off)
        found = [v for v in found if "coarsening" not in v.scope]
    assert len(found) == 1, f"{len(found)} verdicts for {cid} JDK {jdk} {protocol}"
    return found[0]


MONITORS_FIRST_SLOW = {(v, t, "single"): 12e6 for v in locks.MONITORS for t in THREADS}

# claim -> (numbers where it holds, numbers where it does not), the same under both protocols
CASES = {
    "locks.biased-costs-10pct": ({("monitor-thin", 1): 110e6, ("monitor-biased-delayed", 1): 100e6},
                                 {("monitor-thin", 1): 100e6, ("monitor-biased-delayed", 1): 100e6}),
    "locks.monitor-throughput-limit": ({("monitor-thin", 2): 20e6, ("monitor-thin", 3): 21e6, ("monitor-thin", 4): 22e6},
                                       {("monitor-thin", 2): 20e6, ("monitor-thin", 3): 40e6, ("monitor-thin", 4): 80e6}),
    "locks.reentrant-best-uncontended": ({("reentrant", 1): 90e6}, {("reentrant", 1): 10e6}),
    "locks.reentrant-scales-better": ({("reentrant", 3): 30e6, ("reentrant", 4): 30e6, ("monitor-thin", 3): 10e6,
                                       ("monitor-thin", 4): 10e6},
                                      {("reentrant", 3): 10e6, ("reentrant", 4): 10e6, ("monitor-thin", 3): 30e6,
                                       ("monitor-thin", 4): 30e6}),
    "locks.reentrant-dip-at-2": ({("reentrant", 2): 10e6, ("reentrant", 3): 14e6},
                                 {("reentrant", 2): 14e6, ("reentrant", 3): 14e6}),
    "locks.biased-huge-benefit": ({("monitor-biased", 1): 400e6, ("monitor-thin", 1): 50e6},
                                  {("monitor-biased", 1): 60e6, ("monitor-thin", 1): 50e6}),
    "locks.biased-huge-benefit-same-thread": (
        {("monitor-biased", "why", "reused", "off"): 500e6, ("monitor-thin", "why", "reused", "off"): 40e6},
        {("monitor-biased", "why", "reused", "off"): 45e6, ("monitor-thin", "why", "reused", "off"): 40e6}),
    "locks.startup-delay-matters": (
        {("monitor-biased", "why", "reused", "off"): 500e6, ("monitor-biased-delayed", "why", "reused", "off"): 40e6},
        {("monitor-biased", "why", "reused", "off"): 50e6, ("monitor-biased-delayed", "why", "reused", "off"): 40e6}),
    "locks.osr-no-difference": ({}, {(v, t, "short"): 100e6 for v in locks.VARIANTS for t in THREADS}),
    "locks.reentrant-scales-except-2": (
        {("reentrant", 2): 10e6, ("reentrant", 3): 30e6, ("reentrant", 4): 30e6,
         ("monitor-thin", 2): 20e6, ("monitor-thin", 3): 10e6, ("monitor-thin", 4): 10e6},
        {("reentrant", t): 10e6 for t in THREADS} | {("monitor-thin", t): 20e6 for t in THREADS}),
}


@functools.lru_cache(maxsize=None)
def case_verdicts(cid: str, which: int):
    return locks.verdicts(synthetic_locks(CASES[cid][which]))


@pytest.mark.parametrize("protocol", ["post", "lab"])
@pytest.mark.parametrize("cid", CASES)
def test_each_claim_holds_or_not_with_the_numbers(cid, protocol):
    yes, no = (by_id(case_verdicts(cid, which), cid, protocol=protocol) for which in (0, 1))
    assert yes.outcome == HOLDS, yes
    assert no.outcome == FAILS, no
    for v in (yes, no):
        assert v.machine == "test-machine-a" and v.forks == 5 and v.low <= v.now_value <= v.high
        assert v.scope["jdk"] == "17" and "forks" in v.now


def test_forks_that_disagree_make_a_verdict_inconclusive():
    ops = {("reentrant", 2): [6e6, 14e6, 7e6, 15e6, 8e6], ("reentrant", 3): 14e6}
    v = by_id(locks.verdicts(synthetic_locks(ops, forks=5)), "locks.reentrant-dip-at-2")
    assert v.outcome == INCONCLUSIVE and v.low < 0.9 < v.high and "more forks" in v.why, v


def test_the_posts_protocol_and_the_labs_disagree_when_the_first_run_is_slow():
    """The first post's single long warm-up leaves the monitors on slow code for the first timed run only (OSR):
    the post's protocol sees it, the lab's median of the runs does not."""
    vs = locks.verdicts(synthetic_locks({("reentrant", 1): 40e6}, first=MONITORS_FIRST_SLOW))
    assert by_id(vs, "locks.osr-no-difference", protocol="post").outcome == FAILS
    assert by_id(vs, "locks.osr-no-difference", protocol="lab").outcome == HOLDS
    post = by_id(vs, "locks.reentrant-best-uncontended", protocol="post")
    lab = by_id(vs, "locks.reentrant-best-uncontended", protocol="lab")
    assert (post.outcome, lab.outcome) == (HOLDS, FAILS)
    assert post.now_value == pytest.approx(40 / 12, rel=0.05) and lab.now_value == pytest.approx(0.8, rel=0.05)


def test_the_posts_own_table_through_the_verdicts_gives_the_posts_statistic():
    """The Nehalem table as forks (threads 1..8): each claim's statistic on it is what from_post computes from it, so
    then and now are the same quantity."""
    ref = reference.load(locks.REFERENCE_BIASED)
    ref = ref[ref["cpu"].astype(str).str.startswith("Nehalem")]
    table = locks.claims.tables(ref)["Nehalem 2.8GHz"]
    vs = locks.verdicts(synthetic_locks(dict(table), threads=range(1, 9), jdks=("17",)))
    for cid in ("locks.monitor-throughput-limit", "locks.reentrant-scales-better", "locks.reentrant-dip-at-2",
                "locks.reentrant-scales-except-2", "locks.reentrant-best-uncontended", "locks.biased-huge-benefit"):
        claim = locks.CLAIM[cid]
        assert by_id(vs, cid).now_value == pytest.approx(claim.from_post(ref), rel=0.03), cid
        assert by_id(vs, cid).outcome == HOLDS, cid


def test_biased_claims_not_measurable_without_a_biased_jdk():
    vs = locks.verdicts(synthetic_locks(jdks=("25",)))
    for cid in ("locks.biased-huge-benefit", "locks.biased-costs-10pct", "locks.biased-4-5-cycles",
                "locks.startup-delay-matters", "locks.biased-huge-benefit-same-thread"):
        v = by_id(vs, cid, jdk="")
        assert v.outcome == UNMEASURABLE and "biased locking" in v.why, v
    assert by_id(vs, "locks.reentrant-dip-at-2", jdk="25").outcome in (HOLDS, FAILS)
    assert by_id(vs, "locks.monitor-throughput-limit", jdk="25").scope["variant"] == "monitor-default"


def test_no_measured_rows_is_not_measurable_for_every_claim():
    df = synthetic_locks()
    df["status"] = "failed"
    vs = locks.verdicts(df)
    assert {v.claim.id for v in vs} == {c.id for c in locks.CLAIMS}
    assert all(v.outcome == UNMEASURABLE and v.why for v in vs)


def test_every_claim_gets_a_verdict_and_each_verdict_is_one_scope_and_protocol():
    vs = locks.verdicts(synthetic_locks())
    assert {v.claim.id for v in vs} == {c.id for c in locks.CLAIMS}
    keys = [v.key for v in vs]
    assert len(keys) == len(set(keys))
    judged = [v for v in vs if v.outcome != UNMEASURABLE]
    assert {v.protocol for v in judged} == {"post", "lab"}


# ---------------------------------------------------------------- cycles, at the clock of the run judged

def test_cycles_use_the_clock_recorded_with_each_run(results_dir):
    ops = {("atomic", 1): 200e6, ("monitor-biased", "why", "reused", "off"): 1e9}
    save_synthetic(synthetic_locks(ops, machine="machine-a"), "machine-a", cpu_mhz=2000)
    save_synthetic(synthetic_locks(ops, machine="machine-b"), "machine-b", cpu_mhz=4000)
    vs = locks.verdicts(store.load("locks", "all"))
    a = {v.machine: v for v in vs if v.claim.id == "locks.atomic-10-20-cycles" and v.scope["jdk"] == "17"
         and v.protocol == "post"}
    assert a["machine-a"].now_value == pytest.approx(10, rel=0.03) and a["machine-a"].outcome == HOLDS
    assert a["machine-b"].now_value == pytest.approx(20, rel=0.03)   # the same ops/s at twice the clock
    b = [v for v in vs if v.claim.id == "locks.biased-4-5-cycles" and v.machine == "machine-a"]
    assert {v.outcome for v in b} == {HOLDS} and b[0].now_value == pytest.approx(2, rel=0.03)
    slow = synthetic_locks({("atomic", 1): 50e6}, machine="machine-c")
    save_synthetic(slow, "machine-c", cpu_mhz=2000)
    assert by_id(locks.verdicts(store.load("locks", "machine-c")), "locks.atomic-10-20-cycles").outcome == FAILS


def test_cycles_are_not_measurable_without_the_runs_clock(results_dir):
    """A run stored before cpu_mhz was recorded: never counted at this host's clock, even under this host's id."""
    here = store.machine_id()
    save_synthetic(synthetic_locks(machine=here), here)
    vs = locks.verdicts(store.load("locks", here))
    for cid in ("locks.atomic-10-20-cycles", "locks.biased-4-5-cycles"):
        v = by_id(vs, cid)
        assert v.outcome == UNMEASURABLE and "not in its metadata" in v.why, v
    assert locks.verdicts(synthetic_locks())   # rows no store knows: judged, cycles not measurable
    assert by_id(locks.verdicts(synthetic_locks()), "locks.atomic-10-20-cycles").outcome == UNMEASURABLE


# ---------------------------------------------------------------- machines kept apart

def two_machines():
    a = synthetic_locks({("reentrant", 2): 10e6, ("reentrant", 3): 14e6}, machine="machine-a")
    b = synthetic_locks({("reentrant", 2): 14e6, ("reentrant", 3): 14e6}, machine="machine-b", scale=0.1)
    return a, b, pd.concat([a, b], ignore_index=True)


def test_verdicts_keep_machines_apart():
    """One machine 10x slower: each machine's verdicts are exactly its own, each names its machine."""
    a, b, both = two_machines()
    vs = locks.verdicts(both)
    for name, rows in (("machine-a", a), ("machine-b", b)):
        mine = [(v.key, v.outcome, v.now_value) for v in vs if v.machine == name]
        alone = [(v.key, v.outcome, v.now_value) for v in locks.verdicts(rows)]
        assert mine == alone
    assert {v.machine for v in vs} == {"machine-a", "machine-b"}
    dips = {v.machine: v.outcome for v in vs if v.claim.id == "locks.reentrant-dip-at-2" and v.scope["jdk"] == "17"}
    assert dips == {"machine-a": HOLDS, "machine-b": FAILS}


@pytest.mark.parametrize("table", [
    lambda d: locks.scaling_table(d, "single"), lambda d: locks.scaling_table(d, "short", protocol=analysis.LAB),
    lambda d: locks.summary(d), lambda d: locks.why_table(d), lambda d: locks.osr_table(d),
    lambda d: locks.protocol_table(d), lambda d: locks.unavailable(d)])
def test_every_table_keeps_machines_apart(table):
    a, b, both = two_machines()
    t = table(both)
    if "machine" in t.columns:
        parts = {m: sub.drop(columns="machine").reset_index(drop=True) for m, sub in t.groupby("machine")}
    else:
        parts = {m: t.xs(m, level="machine") for m in t.index.get_level_values("machine").unique()}
    assert set(parts) == {"machine-a", "machine-b"}
    for name, rows in (("machine-a", a), ("machine-b", b)):
        alone = table(rows)
        if "machine" in alone.columns:
            alone = alone.drop(columns="machine")
        pd.testing.assert_frame_equal(parts[name], alone.reset_index(drop=True) if "machine" in t.columns else alone,
                                      check_names=False)


def test_every_figure_has_a_panel_per_machine():
    a, b, both = two_machines()
    assert len(locks.plot_scaling(both, "single").axes) == 2 * len(locks.plot_scaling(a, "single").axes) == 4
    assert len(locks.plot_why(both).axes) == 2
    assert len(locks.plot_runs(both).axes) == 2 * len(locks.plot_runs(a).axes) == 8
    titles = [ax.get_title() for ax in locks.plot_runs(both).axes]
    assert sum(t.startswith("machine-a") for t in titles) == sum(t.startswith("machine-b") for t in titles) == 4


# ---------------------------------------------------------------- the claims as data

@pytest.mark.kernel
def test_variants_policies_and_workers_are_the_kernels_own():
    k = bridge.kernel(locks.KERNEL)
    assert {lock for lock, _, _ in locks.VARIANTS.values()} == {str(x) for x in k.locks()}
    assert locks.POLICIES == [str(x) for x in k.warmups()]
    r = java_kernel(locks.KERNEL, "--workers=nope")
    assert r.returncode == 2 and f"allowed values are {', '.join(locks.WORKERS)}" in r.stderr


POSTS = ROOT.parent / "shared" / "posts"


@pytest.mark.skipif(not POSTS.is_dir(), reason="the posts' copies are not beside this checkout")
@pytest.mark.parametrize("claim", locks.CLAIMS, ids=lambda c: c.id)
def test_quotes_are_the_posts_own_words(claim):
    assert claim.quote in (POSTS / claim.post).read_text(encoding="utf-8")


# ---------------------------------------------------------------- one source: overview.collect

def test_collect_with_an_empty_store_lists_every_claim_as_not_run(results_dir):
    claims = overview.collect()
    from mechsym import experiments

    every = {c.id for m in experiments.all_modules() for c in m.CLAIMS}
    assert set(claims["id"]) == every
    assert (claims["outcome"] == overview.NOT_RUN).all()
    assert "No results yet" in overview.status_line(claims)
    overview.plot_counts(claims)
    overview.forest(claims)  # says there is nothing to plot, does not fail
    overview.table(claims).to_html()
    assert "no results yet" in overview.machines_table().iloc[0, 0]


def test_collect_machines_side_by_side(results_dir, monkeypatch):
    from mechsym.view import collect
    from synthetic import calibration as synthetic_calibration

    # two machines with a core per thread, so the scaling claims are theirs to judge (requirements: cores >= 3)
    monkeypatch.setattr(collect, "_calibration", lambda module, machine, ids: synthetic_calibration("big"))
    save_synthetic(synthetic_locks({("reentrant", 2): 10e6, ("reentrant", 3): 14e6}), "machine-a")
    save_synthetic(synthetic_locks({("reentrant", 2): 14e6, ("reentrant", 3): 14e6}), "machine-b")
    claims = overview.collect("all")
    lk = claims[claims["experiment"] == "locks"]
    assert set(lk["machine"]) == {"machine-a", "machine-b"}
    dip = lk[(lk["id"] == "locks.reentrant-dip-at-2") & lk["scope"].str.startswith("JDK 17")
             & (lk["protocol"] == "post")].set_index("machine")["outcome"]
    assert dip.to_dict() == {"machine-a": HOLDS, "machine-b": FAILS}
    # experiments neither machine ran are "not run yet" on both
    others = claims[claims["experiment"] != "locks"]
    assert (others["outcome"] == overview.NOT_RUN).all() and set(others["machine"]) == {"machine-a", "machine-b"}
    html = overview.table(claims).to_html()
    assert "machine-a · holds?" in html and "machine-b · holds?" in html
    assert len(overview.ratios(claims)) and overview.forest(claims).axes
    assert list(overview.machines_table().columns) == ["machine-a", "machine-b"]
    only_b = overview.collect("machine-b")
    assert set(only_b["machine"]) == {"machine-b"}


def test_collect_names_a_broken_experiment_and_keeps_the_others(results_dir, monkeypatch):
    save_synthetic(synthetic_locks(), "machine-a")

    def broken(df):
        raise ZeroDivisionError("synthetic failure")

    monkeypatch.setattr(locks, "verdicts", broken)
    claims = overview.collect()
    bad = claims[claims["experiment"] == "locks"]
    assert (bad["outcome"] == overview.ERROR).all() and bad["why"].str.contains("synthetic failure").all()
    assert (claims[claims["experiment"] != "locks"]["outcome"] == overview.NOT_RUN).all()


def test_verdicts_command(results_dir):
    r = mechsym("verdicts")
    assert r.returncode == 0, r.stderr
    assert "not run yet" in r.stdout and "01-lock-implementations" in r.stdout
    save_synthetic(synthetic_locks(), "machine-a")
    save_synthetic(synthetic_locks(), "machine-b")
    r = mechsym("verdicts", "--machine", "all", "--format", "csv")
    assert r.returncode == 0, r.stderr
    from io import StringIO

    out = pd.read_csv(StringIO(r.stdout))
    assert {"machine-a", "machine-b"} <= set(out["machine"])
    assert {"claim", "scope", "protocol", "outcome", "now", "low", "high", "forks", "then", "why",
            "notebook"} <= set(out.columns)
    assert set(out.loc[out["claim"] == "locks.osr-no-difference", "protocol"]) == {"post", "lab"}
    r = mechsym("verdicts", "locks", "--machine", "machine-b")
    assert r.returncode == 0 and "machine" not in r.stdout.splitlines()[0].split()
    r = mechsym("verdicts", "--machine", "nope")
    assert r.returncode == 2 and "machine 'nope'" in r.stderr and "machine-a, machine-b" in r.stderr
    r = mechsym("verdicts", "nope")
    assert r.returncode == 2 and "experiment 'nope': unknown" in r.stderr


def test_every_experiment_declares_its_claims():
    from mechsym import experiments

    for m in experiments.all_modules():
        if m.POST_FILE is None:   # the calibration: this machine's floors, no post and so no claim
            assert m.NAME == "calibration" and not m.CLAIMS, m.NAME
            continue
        assert m.CLAIMS and callable(m.verdicts), m.NAME
        for c in m.CLAIMS:
            assert c.notebook in m.NOTEBOOKS, (m.NAME, c.id, c.notebook)
            assert c.text and c.then and c.test and c.post.endswith(".md"), c.id


def test_overview_notebook_is_listed():
    assert (ROOT / "notebooks" / "00-overview.ipynb").exists()


def test_biased_huge_benefit_carries_the_cell_that_isolates_the_mechanism_and_its_time_per_lock():
    """The post's loop (coarsened by C2) and, as a sub-row, the same-thread cell with coarsening off; each carries its
    thin lock's ns per operation, which judge.requirements checks against this machine's uncontended CAS."""
    ops = {("monitor-thin", 1): 400e6, ("monitor-biased", 1): 400e6,
           ("monitor-thin", "why", "reused", "off"): 25e6, ("monitor-biased", "why", "reused", "off"): 350e6}
    vs = [v for v in locks.verdicts(synthetic_locks(ops, jdks=("17",))) if v.claim.id == "locks.biased-huge-benefit"
          and v.protocol == "post"]
    main, = [v for v in vs if "coarsening" not in v.scope]
    off, = [v for v in vs if v.scope.get("coarsening") == "off"]
    assert main.per_op_ns == pytest.approx(2.5, rel=0.02) and main.outcome == FAILS        # 1e9 / 400M, 1.00x
    assert off.per_op_ns == pytest.approx(40.0, rel=0.02) and off.outcome == HOLDS          # 1e9 / 25M, 14x
