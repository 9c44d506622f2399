"""JMH, the second opinion: its JSON read into the lab's rows, its command line, the `jmh` protocol of a sweep,
and every JMH benchmark run briefly in one JMH invocation.

tests/data/jmh-result.json is a real JMH 1.37 result (scorePercentiles dropped): FalseSharing.pair (a @Group of
two threads, layout unpadded) and Locks.increment (lock atomic), 2 forks x 2 measured iterations after 1 warm-up,
with -prof gc."""

from __future__ import annotations

import copy
import json
import math
import re
from pathlib import Path

import pandas as pd
import pytest

from mechsym import MechsymError, experiments
from mechsym.run import jmh
from mechsym.jmh import claims as jmh_claims
from mechsym.jmh import ratios as jmh_ratios
from mechsym.jmh import views as jmh_views
from mechsym.store import runs as store
from mechsym.machine.jdk import Jdk

SAMPLE = Path(__file__).parent / "data" / "jmh-result.json"
FAKE_JDK = Jdk(home=Path("/opt/jdk-17"), feature=17, version="17.0.15", vendor="test")


@pytest.fixture
def sample() -> list[dict]:
    return json.loads(SAMPLE.read_text())


def by(df, **kw):
    for k, v in kw.items():
        df = df[df[k] == v]
    return df


# ---------------------------------------------------------------- JSON -> rows

def test_every_raw_value_is_one_row_per_fork_and_iteration(sample):
    df = jmh.rows(sample)
    locks = by(df, benchmark="mechsym.jmh.Locks.increment", metric="throughput")
    raw = sample[1]["primaryMetric"]["rawData"]
    assert sorted(zip(locks["fork"], locks["iteration"], locks["value"])) == sorted(
        (f, 1 + i, v) for f, values in enumerate(raw) for i, v in enumerate(values))  # iteration after 1 warm-up
    assert set(locks["unit"]) == {"ops/s"} and set(locks["lock"]) == {"atomic"} and set(locks["threads"]) == {1}
    assert not df["warmup"].any() and set(df["protocol"]) == {"jmh"} and set(df["mode"]) == {"thrpt"}
    assert set(df["jmh_version"]) == {"1.37"} and df["value"].map(math.isfinite).all()


def test_a_groups_members_are_throughput_rows_of_their_own_method(sample):
    df = by(jmh.rows(sample), benchmark="mechsym.jmh.FalseSharing.pair", metric="throughput")
    assert set(df["jmh_method"]) == {"pair", "pair:first", "pair:second"}
    assert set(df["threads"]) == {2} and set(df["layout"]) == {"unpadded"}
    first = sample[0]["secondaryMetrics"]["first"]["rawData"]
    assert sorted(by(df, jmh_method="pair:first")["value"]) == sorted(v for fork in first for v in fork)


def test_profiler_figures_keep_their_jmh_names_and_units(sample):
    df = jmh.rows(sample)
    norm = by(df, metric="gc.alloc.rate.norm")
    assert set(norm["unit"]) == {"bytes/op"}  # JMH's B/op in the lab's unit and set(norm["jmh_method"]) == {"pair", "increment"}
    assert len(norm) == 2 * 2 * 2  # two benchmarks x two forks x two iterations


def test_values_jmh_could_not_compute_have_no_row(sample):
    broken = copy.deepcopy(sample)
    broken[1]["primaryMetric"]["rawData"][0][0] = "NaN"
    df = by(jmh.rows(broken), benchmark="mechsym.jmh.Locks.increment", metric="throughput")
    assert len(df) == 3 and df["value"].map(math.isfinite).all()


@pytest.mark.parametrize("change, message", [
    (lambda b: b.pop("primaryMetric"), r"JMH result 0: not a JMH benchmark result \(missing or bad 'primaryMetric'\)"),
    (lambda b: b.update(mode="sample"), r"mode 'sample' has no per-iteration raw data here"),
    (lambda b: b["primaryMetric"].pop("rawData"), r"metric 'throughput' has no rawData\[fork\]\[iteration\]"),
])
def test_a_result_that_is_not_jmhs_is_refused_in_one_line(sample, change, message):
    change(sample[0])
    with pytest.raises(MechsymError, match=message):
        jmh.rows(sample)
    with pytest.raises(MechsymError, match="no measured value"):
        jmh.rows([])


def test_tidy_rows_name_the_experiment_variant_and_status(sample):
    df = jmh.tidy(sample, "demo")
    assert list(df.columns[:2]) == ["experiment", "variant"] and set(df["status"]) == {"ok"}
    assert set(df["variant"]) == {"FalseSharing.pair layout=unpadded", "FalseSharing.pair:first layout=unpadded",
                                  "FalseSharing.pair:second layout=unpadded", "Locks.increment lock=atomic"}


# ---------------------------------------------------------------- the command line

def test_the_command_line_has_the_presets_iterations_json_output_and_profilers(tmp_path):
    cmd = jmh.command("/jdk/bin/java", "mechsym.jmh.Locks", tmp_path / "r.json", jmh.preset("standard"),
                      params={"lock": ["monitor", "atomic"]}, threads=2, jvm_flags=("-XX:-UseBiasedLocking",),
                      comp=True)
    text = " ".join(cmd)
    assert cmd[0] == "/jdk/bin/java" and "org.openjdk.jmh.Main mechsym.jmh.Locks" in text
    assert "-f 5 -wi 3 -w 500ms -i 5 -r 500ms" in text and f"-rf json -rff {tmp_path / 'r.json'}" in text
    assert "-prof gc -prof comp" in text and "-t 2" in text and "-p lock=monitor,atomic" in text
    assert "-jvm /jdk/bin/java -jvmArgsAppend -XX:-UseBiasedLocking" in text
    cp = cmd[cmd.index("-cp") + 1].split(":")
    assert cp[0].endswith("build/jmh.jar") and any("jmh-core-1.37" in p for p in cp)


def test_bad_options_are_refused_in_one_line(tmp_path):
    with pytest.raises(MechsymError, match="preset 'huge': allowed JMH presets are smoke, standard, full"):
        jmh.preset("huge")
    with pytest.raises(MechsymError, match="JMH parameter 'lock': give one or more values, none containing ','"):
        jmh.command("java", "x", tmp_path / "r", jmh.preset("smoke"), params={"lock": "a,b"})
    with pytest.raises(MechsymError, match="JMH splits -jvmArgsAppend at spaces"):
        jmh.command("java", "x", tmp_path / "r", jmh.preset("smoke"), jvm_flags=("-Dname=a b",))


def test_the_kernels_lib_has_no_annotation_processor():
    """JMH's jars go to build/jmh-lib; the kernels' javac class path (build/lib) never sees the processor."""
    lib = jmh.jar_path().parent / "lib"
    assert lib.is_dir() and not [p.name for p in lib.glob("jmh-*.jar")]


# ---------------------------------------------------------------- the sweep's jmh protocol

def test_locks_jmh_cells_are_every_variant_at_one_thread_and_the_unbiased_at_two():
    locks = experiments.get("locks")
    cells = jmh.cells(locks, "jmh", "smoke", None, [FAKE_JDK])  # the cells do not depend on the topology
    unbiased = {v for v in locks.VARIANTS if v not in locks.sweep.BIASED}
    assert {(c.variant, c.params["threads"]) for c in cells} == {(v, 1) for v in locks.VARIANTS} | {
        (v, 2) for v in unbiased}
    c = next(c for c in cells if c.variant == "monitor-thin")
    assert c.kernel == "jmh:mechsym.jmh.Locks.increment" and c.flags == ("-XX:-UseBiasedLocking",)
    assert c.params["lock"] == "monitor" and c.labels["protocol"] == "jmh" and c.runner is not None
    assert c.forks == jmh.PRESETS["smoke"].forks and c.columns()["protocol"] == "jmh"


def test_a_protocol_or_experiment_without_jmh_is_refused_in_one_line():
    with pytest.raises(MechsymError, match="protocol 'jhm': allowed protocols are lab, jmh"):
        jmh.cells(experiments.get("locks"), "jhm", "smoke", None, [FAKE_JDK])
    with pytest.raises(MechsymError, match=r"protocol jmh: experiment seqio has no JMH benchmark cells yet"):
        jmh.cells(experiments.get("seqio"), "jmh", "smoke", None, [FAKE_JDK])
    assert "locks" in experiments.with_jmh_cells() and "seqio" not in experiments.with_jmh_cells()


def test_a_jmh_run_never_stands_in_for_the_labs_own(results_dir):
    rows = pd.DataFrame({"experiment": "demo", "variant": "a", "fork": 0, "iteration": [0, 1], "warmup": False,
                         "metric": "throughput", "value": 1.0, "unit": "ops/s", "status": "ok", "note": ""})
    meta = {"preset": "standard", "machine": {"machine_id": "m1"}, "status": "complete"}
    lab = store.save("demo", rows, {**meta, "run_id": "20260101T000000Z-standard-aaaaaa"}, machine="m1")
    jmh_run = store.save("demo", rows.assign(value=2.0), {**meta, "run_id": "20260102T000000Z-standard-bbbbbb",
                                                          "overrides": {"protocol": "jmh"}}, machine="m1")
    assert [m["run_id"] for m in store.chosen_runs("demo", "m1")] == [lab.stem]
    assert [m["run_id"] for m in store.chosen_runs("demo", "m1", protocol="jmh")] == [jmh_run.stem]
    assert set(store.load("demo", "m1")["value"]) == {1.0}


# ---------------------------------------------------------------- every benchmark, briefly, in one JMH invocation

def benchmark_list() -> set[str]:
    """Every benchmark in build/jmh.jar (META-INF/BenchmarkList: its class, generated class, method or group)."""
    import zipfile

    with zipfile.ZipFile(jmh.jar_path()) as z:
        text = z.read("META-INF/BenchmarkList").decode()
    return {f"{m.group(1)}.{m.group(2)}" for m in re.finditer(r"^JMH S \d+ (\S+) S \d+ \S+ S \d+ (\S+) ", text, re.M)}


@pytest.mark.kernel
def test_every_jmh_benchmark_runs_briefly_and_converts_to_rows():
    """One JMH invocation over all benchmarks (one host JVM, one fork per benchmark and parameter set),
    1 warm-up iteration of 20 ms and 1 measured one of 50 ms (BRIEF: what is checked is that each runs and its
    result converts, not its number)."""
    from mechsym.machine.jdk import discover

    java = discover()[0].java
    df = jmh.tidy(_run_all(java), "smoke")
    names = benchmark_list()
    assert names and set(df["benchmark"]) == set(names), set(names) ^ set(df["benchmark"])
    primary = df[df["metric"] == "throughput"]
    assert (primary["value"] > 0).all() and set(primary["fork"]) == {0} and set(primary["iteration"]) == {1}
    assert set(df[df["metric"] == "gc.alloc.rate.norm"]["benchmark"]) == set(names)  # -prof gc on every one
    # every @Param value of every benchmark ran (JMH forks each parameter set apart)
    assert set(by(df, benchmark="mechsym.jmh.Locks.increment")["lock"]) == {"monitor", "reentrant", "atomic",
                                                                             "stamped"}
    assert len(by(df, benchmark="mechsym.jmh.CallerChoose.splitOnce", metric="throughput")) == 3 * 2


def _run_all(java: str) -> list[dict]:
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        result = Path(tmp) / "all.json"
        # two of SpscQueues' queues (a kernel class, the ArrayBlockingQueue adapter) and three of RingBufferVsQueue's
        # channels (one per consumer class), so that the run stays near its old length
        params = {"queue": ["I3", "abq"], "channel": ["disruptor-yielding", "abq", "lab-O1"]}
        return jmh.run(jmh.command(java, r"^mechsym\.jmh\.", result, BRIEF, params=params), result, timeout=120)


#: Shorter than the smoke preset's iterations (100 ms each): ~40 forks in one test, each mostly its JVM's start.
BRIEF = jmh.Preset(forks=1, warmup_iterations=1, warmup_time="20ms", iterations=1, time="50ms")


# ---------------------------------------------------------------- post | lab | JMH

def _runs(results_dir):
    """A lab run (variants a, b, c; 5 forks x 3 iterations, the first iteration slower) and a JMH run (a at the
    lab's rate, b at half of it, no c), one cell each per variant, threads 1, JDK 17."""
    meta = {"preset": "standard", "machine": {"machine_id": "m1"}, "status": "complete"}
    lab = pd.DataFrame([{"experiment": "demo", "variant": v, "threads": 1, "jdk": 17, "fork": f, "iteration": i,
                         "warmup": False, "metric": "throughput", "value": (50.0 if i == 0 else rate) + f,
                         "unit": "ops/s", "status": "ok", "note": ""}
                        for v, rate in (("a", 100.0), ("b", 100.0), ("c", 10.0)) for f in range(5) for i in range(3)])
    jmh_rows = pd.DataFrame([{"experiment": "demo", "variant": v, "threads": 1, "jdk": 17, "jmh_method": method,
                              "fork": f, "iteration": 5 + i, "warmup": False, "metric": "throughput",
                              "value": rate + f, "unit": "ops/s", "protocol": "jmh", "status": "ok", "note": ""}
                             for v, rate in (("a", 100.0), ("b", 50.0)) for method in ("increment", "increment:x")
                             for f in range(5) for i in range(2)])
    store.save("demo", lab, {**meta, "run_id": "20260101T000000Z-standard-aaaaaa"}, machine="m1")
    store.save("demo", jmh_rows, {**meta, "run_id": "20260102T000000Z-standard-bbbbbb",
                                  "overrides": {"protocol": "jmh"}}, machine="m1")


def test_side_by_side_sets_post_lab_and_jmh_per_cell_with_the_ratios_reading(results_dir):
    _runs(results_dir)
    t = jmh_views.side_by_side("demo", ["variant", "threads", "jdk"], machine="m1").set_index("variant")
    assert t.loc["a", "post"] == 52.0 and t.loc["a", "lab"] == 102.0 and t.loc["a", "JMH"] == 102.0
    assert t.loc["a", "lab forks"] == 5 and t.loc["a", "JMH forks"] == 5  # the group member's rows left out
    assert t.loc["a", "lab/JMH"] == 1.0 and t.loc["a", "reading"] == "comparable"
    assert t.loc["b", "lab/JMH"] == pytest.approx(102 / 52) and t.loc["b", "reading"] == "differ"
    assert t.loc["b", "low"] > 1.1
    assert t.loc["c", "reading"] == "no JMH cell" and math.isnan(t.loc["c", "lab/JMH"])


def test_side_by_side_without_a_jmh_run_says_how_to_make_one(results_dir):
    store.save("demo", pd.DataFrame({"experiment": "demo", "variant": "a", "fork": 0, "iteration": [0], "warmup": False,
                                     "metric": "throughput", "value": 1.0, "unit": "ops/s", "status": "ok",
                                     "note": ""}),
               {"preset": "standard", "machine": {"machine_id": "m1"}, "status": "complete"}, machine="m1")
    with pytest.raises(MechsymError, match=r"demo: no stored JMH run \(run `mechsym run demo --protocol jmh`\)"):
        jmh_views.side_by_side("demo", ["variant"], machine="m1")


# ---------------------------------------------------------------- every experiment's cells, the sections, claim rows

WIRED = ["locks", "falsesharing", "atomiclong", "singlewriter", "writecombining", "callerchoose", "signalling",
         "spsc", "disruptor"]


@pytest.mark.parametrize("name", WIRED)
def test_each_experiments_jmh_cells_name_a_built_benchmark_and_fit_the_budget(name):
    """`mechsym run NAME --protocol jmh` builds these cells; a standard JMH sweep stays near 5 minutes on one JDK
    (two given: JMH runs on the first) with at least 5 forks a cell, and every benchmark is in build/jmh.jar."""
    module = experiments.get(name)
    jdks = [FAKE_JDK, Jdk(home=Path("/opt/jdk-25"), feature=25, version="25", vendor="test")]
    standard = jmh.cells(module, "jmh", "standard", None, jdks)
    assert standard and jmh.sweep_seconds(standard) <= 5.5 * 60 and all(c.forks >= 5 for c in standard)
    assert {c.jdk.feature for c in standard} == {17} and name in experiments.with_jmh_cells()
    built = benchmark_list()
    assert {c.params["benchmark"] for c in jmh.cells(module, "jmh", "smoke", None, jdks)} <= built
    assert {c.variant for c in standard} <= set(module_variants(name, standard))


def module_variants(name, cells):
    """The lab's own variant names for these cells (side_by_side pairs on them)."""
    lab = {c.variant for c in experiments.get(name).sweep.cells("smoke", _topology(), [FAKE_JDK])}
    return [c.variant for c in cells if c.variant in lab]


def _topology():
    from mechsym.machine.cpus import read_topology
    return read_topology()


def test_a_section_says_where_lab_and_jmh_differ_and_what_to_check(results_dir, monkeypatch):
    _runs(results_dir)
    monkeypatch.setitem(jmh_views.SPECS, "demo", [jmh_views.Spec("demo rate", ("variant", "threads", "jdk"), "throughput",
                                                     "ops/s")])
    text, tables = jmh_ratios.summary("demo", machine="m1")
    assert len(tables) == 1 and list(tables[0]["variant"]) == ["a", "b"]   # c has no JMH cell: not shown
    assert "**Lab and JMH differ by more than 10%**" in text and "b, threads 1, jdk 17: lab/JMH 1.96" in text
    assert all(r in text for r in jmh_ratios.REASONS) and "a, threads" not in text.split("differ by more")[1]
    over = jmh_ratios.overview_table(machine="m1")
    assert set(over["experiment"]) == {"demo"} and set(over["reading"]) == {"comparable", "differ"}


def test_without_a_jmh_run_the_section_and_overview_say_how_to_make_one(results_dir, monkeypatch):
    monkeypatch.setitem(jmh_views.SPECS, "demo", [jmh_views.Spec("demo rate", ("variant",), "throughput", "ops/s")])
    store.save("demo", pd.DataFrame({"experiment": "demo", "variant": "a", "fork": 0, "iteration": [0],
                                     "warmup": False, "metric": "throughput", "value": 1.0, "unit": "ops/s",
                                     "status": "ok", "note": ""}),
               {"preset": "standard", "machine": {"machine_id": "m1"}, "status": "complete"}, machine="m1")
    text, tables = jmh_ratios.summary("demo", machine="m1")
    assert not tables and "`mechsym run demo --protocol jmh --preset standard` makes one" in text
    assert jmh_ratios.overview_table(machine="m1").empty


def test_a_claims_jmh_subrow_is_judged_by_its_own_rule_on_jmhs_forks(results_dir):
    from mechsym.judge.verdicts import HOLDS, UNMEASURABLE, Claim, Rule

    _runs(results_dir)
    t = jmh_views.side_by_side("demo", ["variant", "threads", "jdk"], machine="m1")
    claim = Claim("demo.a-faster", "post.md", "nb", "a is faster than b", "2x", "a / b", rule=Rule(">=", 1.5),
                  statistic="a / b", unit="x")
    [v] = jmh_claims.claim_verdicts(claim, t, ({"variant": "a"}, {"variant": "b"}), lambda a, b: a / b, machine="m1")
    assert v.outcome == HOLDS and v.protocol == "jmh" and v.scope_text == "JDK 17, JMH" and v.forks == 5
    assert v.now_value == pytest.approx(102 / 52)
    [gone] = jmh_claims.claim_verdicts(claim, t, ({"variant": "a"}, {"variant": "c"}), lambda a, b: a / b)
    assert gone.outcome == UNMEASURABLE and "no JMH forks stored for c" in gone.why


def test_every_claim_with_jmh_cells_is_a_claim_of_its_experiment_and_its_cells_are_jmh_cells():
    for claim_id, how in jmh_claims.CLAIM_CELLS.items():
        module = experiments.get(how.experiment)
        assert claim_id in {c.id for c in module.claims.CLAIMS}, claim_id
        cells = jmh.cells(module, "jmh", "standard", None, [FAKE_JDK])
        spec = jmh_views.SPECS[how.experiment][how.spec]
        for want in how.cells:
            assert any(all(str(c.columns().get(k, c.variant if k == "variant" else None)) == str(v)
                           for k, v in want.items()) for c in cells), (claim_id, want, spec.title)
