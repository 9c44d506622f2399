"""The spsc experiment package: its sweep, its tables and verdicts on synthetic runs (several forks per cell, so
intervals exist), the machines kept apart, the port's layout against the post's, and a smoke run stored through the
CLI. No test asserts a timing number."""

import shutil

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT, java_kernel, mechsym
from mechsym.run import bridge, launch
from mechsym import experiments
from mechsym.store import reference, runs as store
from mechsym.machine.cpus import Cpu, Topology, read_topology
from mechsym.machine.jdk import discover
from mechsym.run.sweep import plan
from mechsym.judge.verdicts import FAILS, HOLDS, INCONCLUSIVE, UNMEASURABLE
from synthetic import topology

exp = experiments.get("spsc")
MAIN = exp.MAIN_OPTIONS
POST_TEXT = (ROOT.parent / "shared" / "posts" / exp.POST_FILE)


def smt_two_socket_topology():
    # 2 sockets x 2 cores x 2 threads
    cpus = [Cpu(i, (i // 2) % 2, i // 4) for i in range(8)]
    return Topology(tuple(cpus), "test cpu")


# ---------------------------------------------------------------- the package and its sweep

def test_the_package_has_what_the_bench_needs():
    assert exp.NAME == "spsc" and exp.NOTEBOOKS == ["05-spsc-variance"]
    assert set(exp.PRESETS) == {"smoke", "standard", "full"}
    assert exp.PRESETS["full"]["runs"] == {"main": 30, "other": 30}  # the post's 30 runs per cell
    assert exp.PRESETS["full"]["iterations"] == 20 and exp.PRESETS["full"]["measured"] == 10
    assert len({c.id for c in exp.CLAIMS}) == len(exp.CLAIMS)
    assert "spsc.layout-as-post" not in {c.id for c in exp.CLAIMS}  # a test of the port (below), not a claim


def test_every_claim_cites_the_post_and_the_posts_numbers_pass_it():
    post = POST_TEXT.read_text() if POST_TEXT.exists() else None
    for c in exp.CLAIMS:
        assert c.quote and c.rule and c.rule.reading and c.statistic and c.unit, c.id
        if post is not None:
            assert c.quote in post, c.id
        if c.from_post is not None:
            assert c.rule.holds_at(c.then_value()), (c.id, c.then_value())
    then = {c.id: c.then_value() for c in exp.CLAIMS}
    assert then["spsc.o1-bimodal-cross-core"] == 20 and then["spsc.i4-10pct-faster"] == pytest.approx(1.10)
    assert then["spsc.i4-110-120m"] == pytest.approx(100 * 10 / 115)


@pytest.mark.kernel
def test_python_variants_are_the_kernels():
    assert list(bridge.kernel(exp.KERNEL).queues()) == list(exp.QUEUES)


def test_standard_cells_on_a_two_core_machine():
    jdks = list(discover())
    cells = exp.cells("standard", topology(model="test cpu"), jdks)
    runs = [c for c in cells if c.variant != "layout"]
    ok = [c for c in runs if not c.unavailable]
    assert sum(c.variant == "layout" for c in cells) == len(jdks)
    # same-cpu pins both threads to CPU 0 (and the process to it); cross-core pins producer 0, consumer 1
    same = [c for c in ok if c.labels["placement"] == "same-cpu"]
    cross = [c for c in ok if c.labels["placement"] == "cross-core"]
    assert same and all(c.params["pin"] == "0,0" and c.cpus == [0, 0] for c in same)
    assert cross and all(c.params["pin"] == "0,1" and c.cpus == [0, 1] for c in cross)
    # no SMT, one socket: those cells are marked with the reason, never run
    un = [c for c in runs if c.unavailable]
    assert {c.labels["placement"] for c in un} == {"smt", "cross-socket"}
    assert all("SMT" in c.unavailable or "socket" in c.unavailable for c in un)
    # the main cell gets the post's 30 runs; the others 4
    lowest = min(j.feature for j in jdks)
    main = [c for c in ok if c.jdk.feature == lowest and c.labels["options"] == MAIN]
    assert main and all(c.forks == 30 for c in main)
    assert all(c.forks == 4 for c in ok if c not in main)
    sets = {c.labels["options"]: c.flags for c in ok if c.jdk.feature == lowest}
    assert set(sets) == set(exp.OPTION_SETS)
    assert "-XX:-TieredCompilation" in sets["post-notiered"] and "-XX:+UseNUMA" in sets["post"]
    assert sets["none"] == ()


def test_smt_and_cross_socket_cells_when_the_machine_has_them():
    cells = exp.cells("smoke", smt_two_socket_topology(), list(discover())[:1])
    ok = {c.labels["placement"]: c for c in cells if c.variant == "O1" and not c.unavailable}
    assert set(ok) == {"same-cpu", "cross-core", "smt", "cross-socket"}
    assert ok["smt"].params["pin"] == "0,1"  # cpus 0 and 1 share core 0
    assert ok["cross-core"].params["pin"] == "0,2"
    assert ok["cross-socket"].params["pin"] == "0,4"


def test_flags_are_probed_per_jdk():
    cells = plan(exp, "smoke", list(discover()), read_topology())
    assert all(not c.unavailable for c in cells if c.labels.get("placement") in ("same-cpu", "cross-core"))


# ---------------------------------------------------------------- synthetic runs

def runs(cells: dict, machine: str = "machine-a", jdk: str = "17", within: float = 0.01, unavailable=("smt",)):
    """Tidy rows as the sweep stores them. cells: (variant, placement, options) -> run summaries, one per fork; each
    run has 2 warm-up and 2 measured iterations whose mean is the summary and whose CV is `within`."""
    rows = []
    for (variant, placement, options), summaries in cells.items():
        for fork, s in enumerate(summaries):
            for it in range(4):
                rows.append({"run_id": f"20260101T000000Z-standard-{machine}", "experiment": "spsc", "variant": variant,
                             "queue": variant, "placement": placement, "options": options, "kind": "throughput",
                             "jdk": jdk, "fork": fork, "iteration": it, "warmup": it < 2, "metric": "throughput",
                             "value": s * (1 + within * (1 if it % 2 else -1)), "unit": "ops/s", "status": "ok",
                             "note": "", "vm_cond_card_mark": str(options != "none").lower(),
                             "vm_tiered_compilation": str(options != MAIN).lower(), "vm_numa": "false"})
    for placement in unavailable:
        rows.append({"run_id": f"20260101T000000Z-standard-{machine}", "experiment": "spsc", "variant": "O1",
                     "placement": placement, "options": MAIN, "kind": "throughput", "jdk": jdk, "fork": -1,
                     "iteration": -1, "warmup": False, "metric": None, "value": np.nan, "unit": None,
                     "status": "unavailable", "note": f"no {placement} here (test)"})
    df = pd.DataFrame(rows)
    df["machine"] = machine
    return df


def spread(centre: float, n: int, width: float = 0.02, seed: int = 0) -> list:
    return list(centre * (1 + np.random.default_rng(seed).uniform(-width, width, n)))


def verdict(vs, cid, placement=None, jdk=None):
    found = [v for v in vs if v.claim.id == cid and (placement is None or v.scope.get("placement") == placement)
             and (jdk is None or v.scope.get("jdk") == jdk)]
    assert len(found) == 1, (cid, placement, [(v.scope, v.outcome) for v in vs if v.claim.id == cid])
    return found[0]


def test_bimodal_original_and_flat_i4_hold():
    o1 = spread(100e6, 24) + spread(50e6, 6, seed=1)       # half the performance 20% of the time, as the post saw
    cells = {("O1", "cross-core", MAIN): o1, ("I4", "cross-core", MAIN): spread(115e6, 30, 0.05, seed=2)}
    vs = exp.verdicts(runs(cells))
    v = verdict(vs, "spsc.o1-bimodal-cross-core")
    assert v.outcome == HOLDS and v.forks == 30 and "6 of 30 runs" in v.now and v.low > 5, v
    assert v.scope == {"jdk": "17", "placement": "cross-core", "options": MAIN} and v.protocol == "post"
    assert verdict(vs, "spsc.o1-stable-within-a-run").outcome == HOLDS
    assert verdict(vs, "spsc.i4-removes-variance").outcome == HOLDS
    assert verdict(vs, "spsc.i4-110-120m").outcome == HOLDS


def test_flat_original_noisy_i4_and_unstable_runs_do_not_hold():
    cells = {("O1", "cross-core", MAIN): spread(100e6, 80, 0.05),
             ("I4", "cross-core", MAIN): spread(100e6, 15, seed=3) + spread(40e6, 15, seed=4)}
    vs = exp.verdicts(runs(cells, within=0.2))          # each run as noisy inside as the runs are between them
    assert verdict(vs, "spsc.o1-bimodal-cross-core").outcome == FAILS   # 0 of 80 low: Wilson upper bound < 5%
    assert verdict(vs, "spsc.o1-stable-within-a-run").outcome == FAILS
    assert verdict(vs, "spsc.i4-removes-variance").outcome == FAILS
    assert verdict(vs, "spsc.i4-110-120m").outcome == FAILS


def test_too_little_evidence_is_inconclusive_with_a_reason():
    # 2 low runs of 30 and no low run of 30: neither excludes a 5% share nor shows it
    for o1 in (spread(100e6, 28) + [50e6, 49e6], spread(100e6, 30)):
        v = verdict(exp.verdicts(runs({("O1", "cross-core", MAIN): o1})), "spsc.o1-bimodal-cross-core")
        assert v.outcome == INCONCLUSIVE and "more forks" in v.why, v
    # a spread from 4 runs is never decisive, however clear it looks (a bootstrap over 4 runs cannot see more
    # spread than they show)
    cells = {("O1", "cross-core", MAIN): [100e6, 60e6, 140e6, 80e6], ("I4", "cross-core", MAIN): [110e6, 115e6, 120e6, 112e6]}
    vs = exp.verdicts(runs(cells))
    for cid in ("spsc.o1-bimodal-cross-core", "spsc.o1-stable-within-a-run", "spsc.i4-removes-variance",
                "spsc.i4-110-120m"):
        assert verdict(vs, cid).outcome == INCONCLUSIVE, cid
    for cid in ("spsc.o1-stable-within-a-run", "spsc.i4-removes-variance"):   # their intervals alone would decide
        v = verdict(vs, cid)
        assert "too few forks: 4 forks" in v.why, v   # the shared 5-fork floor speaks before the claim's own 10


def test_layout_ratios_flip_with_the_numbers():
    def judge(i1_same, i1_cross, i4_same, i4_cross):
        cells = {("O1", "same-cpu", MAIN): spread(100e6, 10), ("O1", "cross-core", MAIN): spread(100e6, 10, seed=1),
                 ("I1", "same-cpu", MAIN): spread(i1_same, 10, seed=2), ("I1", "cross-core", MAIN): spread(i1_cross, 10, seed=3),
                 ("I4", "same-cpu", MAIN): spread(i4_same, 10, seed=4), ("I4", "cross-core", MAIN): spread(i4_cross, 10, seed=5)}
        return exp.verdicts(runs(cells))

    yes = judge(104e6, 90e6, 112e6, 111e6)
    assert verdict(yes, "spsc.i1-helps-same-core", "same-cpu").outcome == HOLDS
    assert verdict(yes, "spsc.i1-worse-cross-core").outcome == HOLDS
    assert verdict(yes, "spsc.i4-10pct-faster", "same-cpu").outcome == HOLDS
    assert verdict(yes, "spsc.i4-10pct-faster", "cross-core").outcome == HOLDS
    no = judge(95e6, 110e6, 98e6, 97e6)
    for cid, p in (("spsc.i1-helps-same-core", "same-cpu"), ("spsc.i1-worse-cross-core", "cross-core"),
                   ("spsc.i4-10pct-faster", "same-cpu"), ("spsc.i4-10pct-faster", "cross-core")):
        assert verdict(no, cid, p).outcome == FAILS, cid
    maybe = judge(101e6, 100e6, 105e6, 105e6)            # on the thresholds (1.01, 1.05): the intervals straddle them
    assert verdict(maybe, "spsc.i1-helps-same-core", "same-cpu").outcome == INCONCLUSIVE
    assert verdict(maybe, "spsc.i4-10pct-faster", "cross-core").outcome == INCONCLUSIVE
    # the post's "same core" on SMT siblings: not measurable on a machine without them, with the reason
    smt = verdict(yes, "spsc.i1-helps-same-core", "smt")
    assert smt.outcome == UNMEASURABLE and "no smt here" in smt.why
    assert "stands in" in verdict(yes, "spsc.i4-10pct-faster", "same-cpu").why


def test_option_set_winners():
    def cells(i1_condcard, i1_ct, o2_ct):
        out = {}
        for v, cc, ct in (("I1", i1_condcard, i1_ct), ("O2", 110e6, o2_ct), ("I3", 100e6, 100e6), ("O1", 90e6, 90e6)):
            out[(v, "cross-core", "condcard")] = spread(cc, 8, seed=len(out))
            out[(v, "cross-core", exp.CT_OPTIONS)] = spread(ct, 8, seed=len(out) + 50)
        return out

    vs = exp.verdicts(runs(cells(133e6, 70e6, 130e6)))   # I1 best with CondCardMark, rubbish with CompileThreshold
    assert verdict(vs, "spsc.condcard-i1-best-cross-core").outcome == HOLDS
    assert verdict(vs, "spsc.compile-threshold-sinks-i1").outcome == HOLDS
    reorder = verdict(vs, "spsc.options-reorder-winners", "cross-core")
    assert reorder.outcome == HOLDS and "I1 leads O2 under condcard" in reorder.now, reorder
    vs = exp.verdicts(runs(cells(90e6, 140e6, 100e6)))   # O2 best with CondCardMark, I1 best with CompileThreshold
    assert verdict(vs, "spsc.condcard-i1-best-cross-core").outcome == FAILS
    assert verdict(vs, "spsc.compile-threshold-sinks-i1").outcome == FAILS
    vs = exp.verdicts(runs(cells(133e6, 140e6, 100e6)))   # I1 first under both: the same winner everywhere
    reorder = verdict(vs, "spsc.options-reorder-winners", "cross-core")
    assert reorder.outcome == FAILS and "I1 wins under every set" in reorder.now, reorder


def test_no_runs_is_not_measurable_for_every_claim():
    df = runs({("O1", "cross-core", MAIN): spread(100e6, 5)})
    df["status"] = "failed"
    for rows in (df, pd.DataFrame()):
        vs = exp.verdicts(rows)
        assert {v.claim.id for v in vs} == {c.id for c in exp.CLAIMS}
        assert all(v.outcome == UNMEASURABLE and v.why for v in vs)
    # cross-socket: judged where the machine has two sockets, else not measurable with the machine's reason
    v = verdict(exp.verdicts(runs({("O1", "cross-core", MAIN): spread(100e6, 5)}, unavailable=("cross-socket",))),
                "spsc.cross-socket")
    assert v.outcome == UNMEASURABLE and "no cross-socket here" in v.why


def test_two_machines_stay_apart():
    import matplotlib

    matplotlib.use("Agg")
    cells = {(v, p, o): spread(c, 12, seed=i) for i, (v, p, o, c) in enumerate([
        ("O1", "cross-core", MAIN, 100e6), ("I1", "cross-core", MAIN, 90e6), ("I4", "cross-core", MAIN, 110e6),
        ("O1", "same-cpu", MAIN, 100e6), ("I1", "same-cpu", MAIN, 104e6), ("I4", "same-cpu", MAIN, 111e6),
        ("O1", "cross-core", "none", 100e6), ("I1", "cross-core", "none", 90e6), ("I4", "cross-core", "none", 80e6)])}
    slow = {k: [x / 10 for x in v] for k, v in cells.items()}
    a, b = runs(cells, machine="machine-a"), runs(slow, machine="machine-b")
    df = pd.concat([a, b], ignore_index=True)
    # every verdict names its machine, and each machine's verdicts are what its own rows give
    vs = exp.verdicts(df)
    assert {v.machine for v in vs} == {"machine-a", "machine-b"}
    for m, alone in (("machine-a", a), ("machine-b", b)):
        mine = [v for v in vs if v.machine == m]
        assert [(v.claim.id, v.scope_text, v.outcome, v.now) for v in mine] == \
               [(v.claim.id, v.scope_text, v.outcome, v.now) for v in exp.verdicts(alone)]
    assert "average I1 9.0M ops/s, O1 10.0M ops/s" in verdict([v for v in vs if v.machine == "machine-b"],
                                              "spsc.i1-worse-cross-core").now
    # every table: a machine column (or index level), each machine's rows from its own runs
    t = exp.variance_table(df)
    assert set(t["machine"]) == {"machine-a", "machine-b"}
    med = t.set_index(["machine", "placement", "options", "variant"])["median"]
    assert med[("machine-a", "cross-core", MAIN, "O1")] == pytest.approx(10 * med[("machine-b", "cross-core", MAIN, "O1")])
    assert set(exp.run_summaries(df)["fork_key"].str.split("/").str[0]) == {"machine-a", "machine-b"}
    for table in (exp.variance_display(df), exp.winners_table(df), exp.vm_options_table(df)):
        names = table.index.get_level_values("machine") if "machine" in table.index.names else table.get("machine", [])
        assert set(names) == {"machine-a", "machine-b"}, table
    assert set(exp.unavailable_cells(df)["machine"]) == {"machine-a", "machine-b"}
    # figures: one row of panels per machine
    assert len(exp.plot_sorted_runs(df).axes) == 2 * 2
    assert len(exp.plot_runs_side_by_side(df).axes) == 2


# ---------------------------------------------------------------- the port, and a run through the CLI

@pytest.mark.kernel
@pytest.mark.parametrize("jdk", discover(), ids=lambda j: f"jdk{j.feature}")
def test_the_port_lays_out_i1_and_i3_as_the_posts_jol_tables(jdk):
    """What was the verdict spsc.layout-as-post: a check of the lab's port (the post's claim is its measurements)."""
    r = java_kernel(exp.LAYOUT_KERNEL, "--queue=all", "--check=true", jdk=jdk)
    assert r.returncode == 0, r.stderr
    rows = launch.parse_csv(r.stdout).assign(variant="layout", status="ok", jdk=str(jdk.feature))
    got = exp.offsets(rows, jdk.feature)
    if got[("I1", "capacity")] != 12:
        pytest.skip(f"JDK {jdk.feature}: object header of {got[('I1', 'capacity')]:.0f} bytes, not the post's 12; "
                    "offsets move with it (tests/test_spsc_kernel.py checks the spacing)")
    ref = reference.load(exp.REFERENCE)
    ref = ref[ref["metric"].isin(["offset", "instance_size"])]
    want = {(v, "(instance)" if m == "instance_size" else f.rsplit(".", 1)[-1]): val
            for v, f, m, val in zip(ref["variant"], ref["field"], ref["metric"], ref["value"])}
    assert len(want) == 16
    assert {k: got.get(k) for k in want} == want


def test_smoke_run_through_the_cli_is_stored_and_judged(results_dir, smoke_store):
    shutil.copytree(smoke_store("spsc"), results_dir, dirs_exist_ok=True)   # `mechsym run spsc --preset smoke`, once
    df = store.load("spsc")
    ok = df[df["status"] == "ok"]
    assert set(ok[ok["variant"] != "layout"]["variant"]) == set(exp.PRESETS["smoke"]["queues"])
    assert set(df[df["status"] == "unavailable"]["placement"]) <= {"smt", "cross-socket"}
    assert set(ok[ok["variant"] != "layout"]["pinning"]) == {"thread"}
    assert not exp.variance_table(df).empty and not exp.layout_checks(df).empty
    vs = exp.verdicts(df)
    assert {v.claim.id for v in vs} == {c.id for c in exp.CLAIMS}
    # one run per cell at smoke size: nothing is decided, and every verdict says why
    assert all(v.outcome in (INCONCLUSIVE, UNMEASURABLE) and v.why for v in vs)
    r = mechsym("verdicts", "spsc")
    assert r.returncode == 0 and "half the performance" in r.stdout
