"""The spsc experiment module: its sweep, its analysis and verdicts (on synthetic rows), and a smoke run stored
through the CLI. No test asserts a timing number."""

import numpy as np
import pandas as pd
import pytest

from conftest import mechsym
from mechsym import experiments, reference, store
from mechsym.cpus import Cpu, Topology, read_topology
from mechsym.jdk import discover
from mechsym.sweep import plan
from mechsym.verdicts import FAILS, HOLDS, UNMEASURABLE

exp = experiments.get("spsc")


def two_core_topology():
    return Topology((Cpu(0, 0, 0), Cpu(1, 1, 0)), "test cpu")


def smt_two_socket_topology():
    # 2 sockets x 2 cores x 2 threads
    cpus = [Cpu(i, (i // 2) % 2, i // 4) for i in range(8)]
    return Topology(tuple(cpus), "test cpu")


def test_the_module_has_what_the_bench_needs():
    assert exp.NAME == "spsc" and exp.NOTEBOOKS == ["05-spsc-variance"]
    assert set(exp.PRESETS) == {"smoke", "standard", "full"}
    assert exp.PRESETS["full"]["runs"] == {"main": 30, "other": 30}  # the post's 30 runs per cell
    assert exp.PRESETS["full"]["iterations"] == 20 and exp.PRESETS["full"]["measured"] == 10
    assert len({c.id for c in exp.CLAIMS}) == len(exp.CLAIMS)


def test_standard_cells_on_a_two_core_machine():
    jdks = list(discover())
    cells = exp.cells("standard", two_core_topology(), jdks)
    runs = [c for c in cells if c.variant != "layout"]
    ok = [c for c in runs if not c.unavailable]
    # layout once per JDK
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
    main = [c for c in ok if c.jdk.feature == lowest and c.labels["options"] == exp.MAIN_OPTIONS]
    assert main and all(c.forks == 30 for c in main)
    assert all(c.forks == 4 for c in ok if c not in main)
    # every option set on the lowest JDK, with its flags
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
    # every option set of the smoke preset is accepted by the lowest JDK here
    assert all(not c.unavailable for c in cells if c.labels.get("placement") in ("same-cpu", "cross-core"))


def synthetic(o1, i4, i1=None, options="post-notiered", placement="cross-core", jdk="17", extra=()):
    """Result rows as the sweep stores them: one run = `measured` iterations around its summary."""
    rows = []
    series = {"O1": o1, "I4": i4, **({"I1": i1} if i1 is not None else {}), **dict(extra)}
    for variant, summaries in series.items():
        for fork, s in enumerate(summaries):
            for it in range(4):
                rows.append({"experiment": "spsc", "variant": variant, "placement": placement, "options": options,
                             "kind": "throughput", "jdk": jdk, "fork": fork, "iteration": it, "warmup": it < 2,
                             "metric": "throughput", "value": s * (1 + 0.001 * (it - 2)), "unit": "ops/s",
                             "status": "ok", "note": ""})
    return pd.DataFrame(rows)


def by_id(verdicts):
    return {v.claim.id: v for v in verdicts}


def test_bimodal_original_and_flat_i4_hold():
    rng = np.random.default_rng(0)
    o1 = [100e6] * 16 + [50e6] * 4          # half the performance 20% of the time
    i4 = list(115e6 + rng.uniform(-3e6, 3e6, 20))
    v = by_id(exp.verdicts(synthetic(o1, i4)))
    assert v["spsc.o1-bimodal-cross-core"].outcome == HOLDS
    assert "20% of 20 runs" in v["spsc.o1-bimodal-cross-core"].now
    assert v["spsc.i4-removes-variance"].outcome == HOLDS
    assert v["spsc.i4-110-120m"].outcome == HOLDS


def test_stable_original_and_noisy_i4_do_not_hold():
    rng = np.random.default_rng(1)
    o1 = list(100e6 + rng.uniform(-2e6, 2e6, 20))
    i4 = [100e6] * 10 + [40e6] * 10
    v = by_id(exp.verdicts(synthetic(o1, i4)))
    assert v["spsc.o1-bimodal-cross-core"].outcome == FAILS
    assert v["spsc.i4-removes-variance"].outcome == FAILS
    assert v["spsc.i4-110-120m"].outcome == FAILS


def test_too_few_runs_are_not_measurable_with_a_reason():
    v = by_id(exp.verdicts(synthetic([100e6], [110e6])))
    for cid in ("spsc.o1-bimodal-cross-core", "spsc.i4-removes-variance", "spsc.options-reorder-winners",
                "spsc.layout-as-post"):
        assert v[cid].outcome == UNMEASURABLE and v[cid].why


def test_inlining_helps_on_one_cpu_and_hurts_cross_core():
    same = synthetic([100e6] * 5, [110e6] * 5, i1=[104e6] * 5, placement="same-cpu")
    cross = synthetic([100e6] * 5, [110e6] * 5, i1=[90e6] * 5, placement="cross-core")
    v = by_id(exp.verdicts(pd.concat([same, cross])))
    assert v["spsc.inline-helps-same-core-hurts-cross-core"].outcome == HOLDS
    assert v["spsc.i4-10pct-faster"].outcome == HOLDS
    assert "I1/O1 = 1.04 on one CPU, 0.90 cross-core" in v["spsc.inline-helps-same-core-hurts-cross-core"].now


def test_options_reorder_winners_needs_a_clear_gap():
    a = synthetic([100e6] * 3, [120e6, 121e6, 122e6], i1=[90e6] * 3, options="none")
    b = synthetic([100e6] * 3, [90e6] * 3, i1=[130e6, 131e6, 132e6], options="condcard")
    assert by_id(exp.verdicts(pd.concat([a, b])))["spsc.options-reorder-winners"].outcome == HOLDS
    # different winners by median, but the runs overlap: noise, not a reordering
    c = synthetic([100e6] * 3, [150e6, 95e6, 140e6], i1=[90e6, 145e6, 138e6], options="none")
    d = synthetic([100e6] * 3, [96e6, 150e6, 138e6], i1=[142e6, 90e6, 148e6], options="condcard")
    assert by_id(exp.verdicts(pd.concat([c, d])))["spsc.options-reorder-winners"].outcome == FAILS


def test_superiority():
    sub = pd.DataFrame({"variant": ["a"] * 2 + ["b"] * 2, "summary": [3.0, 1.0, 2.0, 1.0]})
    assert exp.superiority(sub, "a", "b") == 0.625  # pairs: 3>2, 3>1, 1<2, 1=1 (half)


def test_variance_measures():
    v = exp.variance(pd.Series([100.0, 100.0, 100.0, 40.0, 45.0]))
    assert v["runs"] == 5 and v["median"] == 100 and v["min"] == 40 and v["max"] == 100
    assert v["< 1/2 median %"] == 40 and v["max/min"] == 2.5


def test_reference_numbers_are_transcribed():
    ref = reference.load(exp.REFERENCE)
    assert set(ref["post"]) == {exp.POST}
    get = lambda variant, metric: ref[(ref["variant"] == variant) & (ref["metric"] == metric)]["value"].tolist()
    assert get("O1", "share_of_runs_at_half_performance") == [20]
    assert get("I1", "mean_throughput") == [133_000_000]
    assert get("I4", "run_summary_low") == [110_000_000] and get("I4", "run_summary_high") == [120_000_000]
    assert get("all", "runs_per_cell") == [30]


def test_smoke_run_through_the_cli_is_stored_and_judged(results_dir):
    r = mechsym("run", "spsc", "--preset", "smoke", "--jdk", str(discover()[0].feature), "--no-progress", timeout=300)
    assert r.returncode == 0, r.stderr
    df = store.load("spsc")
    ok = df[df["status"] == "ok"]
    assert set(ok[ok["variant"] != "layout"]["variant"]) == set(exp.PRESETS["smoke"]["queues"])
    assert set(df[df["status"] == "unavailable"]["placement"]) <= {"smt", "cross-socket"}
    assert set(ok[ok["variant"] != "layout"]["pinning"]) == {"thread"}
    assert not exp.variance_table(df).empty and not exp.layout_checks(df).empty
    ids = {v.claim.id: v.outcome for v in exp.verdicts(df)}
    assert ids["spsc.layout-as-post"] == HOLDS
    r = mechsym("verdicts", "spsc")
    assert r.returncode == 0 and "64 bytes apart" in r.stdout
