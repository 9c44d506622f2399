"""The falsesharing experiment package (notebook 06): cells, placements, claims, verdicts, tables, figures.

Synthetic tidy rows with several forks per cell (so intervals exist), two machines kept apart, and one smoke sweep
through the CLI. No test asserts a timing."""

import json

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from mechsym import MechsymError  # noqa: E402
from mechsym.store import reference
from mechsym.machine.cpus import read_topology  # noqa: E402
from mechsym.experiments import falsesharing as exp  # noqa: E402
from mechsym.experiments.falsesharing import sweep as sweep_mod  # noqa: E402
from mechsym.machine.jdk import discover  # noqa: E402
from mechsym.judge.verdicts import FAILS, HOLDS, INCONCLUSIVE, UNMEASURABLE  # noqa: E402
from synthetic import topology  # noqa: E402

TWO = topology()
SMT = topology(2, smt=True)
ONE = topology(1)


# ---------------------------------------------------------------- sweep

def test_pin_lists_one_cpu_per_thread():
    assert exp.pin_for(TWO, "cross-core", 4) == [0, 1, 0, 1]
    assert exp.pin_for(TWO, "same-cpu", 3) == [0, 0, 0]
    assert exp.pin_for(TWO, "unpinned", 2) == [] and exp.pin_for(TWO, "smt", 2) is None
    assert exp.pin_for(SMT, "smt", 2) == [0, 2] and exp.pin_for(SMT, "cross-core", 2) == [0, 1]
    assert exp.pin_for(ONE, "cross-core", 1) is None
    with pytest.raises(MechsymError, match="allowed placements are"):
        exp.pin_for(TWO, "numa", 2)


def test_cells_cover_layouts_threads_protocols_and_name_what_is_missing():
    cs = exp.cells("standard", TWO, list(discover()))
    time = [c for c in cs if c.labels["kind"] == "time"]
    assert {c.variant for c in time} == set(exp.LAYOUTS)
    assert {c.params["threads"] for c in time} == {1, 2, 4}
    post = [c for c in time if c.params["protocol"] == "post"]
    assert {c.variant for c in post} == {"unpadded", "padded-longs", "padded-atomic"}
    assert all(c.labels["placement"] == "unpinned" and c.params["runs"] == 1 and c.params["warmup-runs"] == 0
               for c in post)
    # the post's placement (as allocated) and a run long enough that compiling the loop is a small part of it;
    # the lab's runs sample the array's place in its line at random
    assert all(c.params["array-offset"] == "as-allocated" and c.params["iterations"] >= 100_000_000 for c in post)
    assert all(c.params["array-offset"] == "random" for c in time if c.params["protocol"] == "lab")
    judged = [c for c in time if c.params["threads"] in (1, 2) and c.labels["placement"] in ("cross-core", "unpinned")
              and (c.params["protocol"] == "post" or c.labels["placement"] == "cross-core")]
    assert judged and all(c.forks >= 5 for c in judged)
    contended = [c for c in cs if c.variant == "contended"]
    assert all("-XX:-RestrictContended" in c.flags for c in contended)
    smt = [c for c in cs if c.labels["placement"] == "smt"]
    assert smt and all("SMT" in c.unavailable for c in smt)
    l1d = [c for c in cs if c.labels["kind"] == "l1d"]
    assert l1d and all(c.unavailable == exp.perf_probe() for c in l1d)


def test_full_preset_runs_the_posts_sizes_up_to_twice_the_cpus():
    assert exp.PRESETS["full"]["iterations"] == 500_000_000
    assert exp.thread_counts("full", SMT) == list(range(1, 9)) and exp.thread_counts("full", TWO) == [1, 2, 3, 4]


def test_perf_output_is_parsed_and_not_supported_is_none():
    assert exp.parse_perf("12345,,L1-dcache-load-misses,100,100.00,,\n") == 12345
    assert exp.parse_perf("<not supported>,,L1-dcache-load-misses,0,100.00,,\n") is None


def test_perf_probe_names_why_not(monkeypatch):
    monkeypatch.setattr(sweep_mod.shutil, "which", lambda name: None)
    assert exp.perf_probe() == "perf is not installed"


def test_unknown_layout_and_preset_are_one_line_errors():
    jdk = discover()[0]
    with pytest.raises(MechsymError, match="allowed layouts are unpadded"):
        exp.cell_for("padded", 2, "cross-core", "smoke", TWO, jdk)
    with pytest.raises(MechsymError, match="allowed presets"):
        exp.cells("huge", TWO, [jdk])


def test_reference_files_say_the_figure_has_no_numbers():
    r1, r2 = reference.load(exp.REFERENCE), reference.load(exp.REFERENCE_JAVA7)
    assert r1.loc[r1["metric"] == "iterations", "value"].iloc[0] == 500_000_000
    fig = r1[r1["table"] == "Figure 2"]
    assert len(fig) == 1 and fig["value"].isna().all() and "no numbers" in fig["note"].iloc[0]
    assert set(r1["post"]) == {"2011-07-30-false-sharing.md"} and set(r2["post"]) == {
        "2011-08-13-false-sharing-java-7.md"}
    assert not exp.reference_table(r1, r2).empty


# ---------------------------------------------------------------- synthetic rows

DUR = {"unpadded": 3.0e9, "padded-longs": 1.0e9, "padded-atomic": 1.0e9, "inherited": 1.0e9, "contended": 1.0e9,
       "array-stride": 1.0e9}


def synthetic(machine="m1", slow=None, forks=6, gap=72, cpus=2, jdks=("17",)):
    """Tidy rows as the sweep stores them: time cells (both protocols), JOL layout rows."""
    rng = np.random.default_rng(1)
    out = []
    for jdk in jdks:
        for protocol, placement in (("lab", "cross-core"), ("post", "unpinned")):
            for layout, base in {**DUR, **(slow or {})}.items():
                for threads in (1, 2, 4):
                    scale = base if threads > 1 else 1.0e9
                    for fork in range(forks):
                        for it in range(1 if protocol == "post" else 3):
                            out.append(dict(machine=machine, run_id="r1", experiment="falsesharing", variant=layout,
                                            layout=layout, kind="time", protocol=protocol, placement=placement,
                                            threads=threads, machine_cpus=cpus, jdk=jdk, fork=fork, iteration=it,
                                            warmup=False, metric="duration", value=scale * rng.uniform(0.97, 1.03),
                                            unit="ns", status="ok", note=""))
        for fork in range(forks):
            for layout in exp.LAYOUTS:
                g = 24 if layout == "unpadded" else gap if layout == "padded-longs" else 128
                for metric, v in (("counter_gap_min", g), ("shares_line", int(g < 64)), ("instance_size", 72),
                                  ("padding_fields_kept", 6), ("offset", 16)):
                    out.append(dict(machine=machine, run_id="r1", experiment="falsesharing", variant="layout",
                                    layout=layout, kind="layout", field=f"{layout}.value", restrict_contended="false",
                                    jdk=jdk, fork=fork, iteration=0, warmup=False, metric=metric, value=v,
                                    unit="bytes", status="ok", note="", placement="none"))
    return pd.DataFrame(out)


def outcomes(vs, claim, protocol=None, threads=None):
    return {v.outcome for v in vs if v.claim.id == f"falsesharing.{claim}" and (protocol is None or v.protocol == protocol)
            and (threads is None or str(v.scope.get("threads")) == threads)}


def test_verdicts_hold_fail_and_name_what_two_cpus_cannot_judge():
    vs = exp.verdicts(synthetic())
    assert outcomes(vs, "unpadded-slower") == {HOLDS}
    assert outcomes(vs, "padded-near-linear", threads="2 vs 1") == {HOLDS}
    assert outcomes(vs, "first-padding-false-shares") == {FAILS}
    assert outcomes(vs, "java7-drops-padding") == {FAILS}
    four = [v for v in vs if v.scope.get("threads") == "4 vs 1"]
    assert four and all(v.outcome == UNMEASURABLE and "2 CPUs" in v.why for v in four)
    assert {v.protocol for v in vs if v.claim.id == "falsesharing.unpadded-slower"} == {"post", "lab"}


def test_verdicts_when_the_padding_is_gone():
    vs = exp.verdicts(synthetic(slow={"padded-longs": 3.0e9}, gap=24))
    assert outcomes(vs, "java7-drops-padding") == {HOLDS}
    assert outcomes(vs, "first-padding-false-shares") == {HOLDS}
    assert outcomes(vs, "unpadded-slower") == {FAILS}
    assert outcomes(vs, "padded-atomic-reliable", threads="2 vs 1") == {HOLDS}


def test_few_forks_are_inconclusive_and_four_cpus_judge_four_threads():
    assert outcomes(exp.verdicts(synthetic(forks=2)), "unpadded-slower") == {INCONCLUSIVE}
    vs = exp.verdicts(synthetic(cpus=4))
    assert outcomes(vs, "padded-near-linear", threads="4 vs 1") == {HOLDS}


def test_verdicts_without_results_are_unmeasurable():
    vs = exp.verdicts(pd.DataFrame(columns=["machine", "variant", "jdk", "metric", "value", "status"]))
    assert {v.claim.id for v in vs} == {c.id for c in exp.CLAIMS} and {v.outcome for v in vs} == {UNMEASURABLE}


def test_tables_and_figures_keep_machines_apart():
    df = pd.concat([synthetic("m1"), synthetic("m2", slow={"unpadded": 5e9})], ignore_index=True)
    assert {v.machine for v in exp.verdicts(df)} == {"m1", "m2"}
    for table in (exp.layout_table, exp.scaling_table, exp.forks_table):
        t = table(df)
        assert "m1" in str(t) and "m2" in str(t), table.__name__
    fig = exp.plot_scaling(df)
    assert len([a for a in fig.axes if a.get_visible()]) == 2
    exp.plot_layout_gaps(df)


def test_scaling_table_ratios():
    t = exp.scaling_table(synthetic())
    assert t.loc[("JDK 17", "unpadded"), "2 / 1"].startswith("3.0")
    assert t.loc[("JDK 17", "padded-atomic"), "2 / 1"].startswith("1.0")


# ---------------------------------------------------------------- end to end

def test_smoke_run_through_the_cli(smoke_store):
    stored = smoke_store("falsesharing")   # `mechsym run falsesharing --preset smoke`, once per test run
    meta = json.loads(next(stored.rglob("*.json")).read_text())
    assert meta["failures"] == []
    df = pd.concat(pd.read_csv(p) for p in stored.rglob("*.csv"))
    ok = df[df["status"] == "ok"]
    assert set(ok["kind"]) >= {"time", "layout"}
    assert set(ok.loc[ok["kind"] == "time", "variant"]) == set(exp.LAYOUTS)
    assert (ok.loc[ok["metric"] == "duration", "value"] > 0).all()
    unavailable = df[df["status"] == "unavailable"]
    if not read_topology().smt:
        assert "smt" in set(unavailable["placement"])
    assert len(exp.verdicts(df)) >= len(exp.CLAIMS)
