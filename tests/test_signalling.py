"""Signalling kernels (notebooks 03 and 08): LockedSignalling, VolatilePingPong, build/c/pingpong.

Smoke-size runs only; no test asserts a timing number."""

import subprocess
import time

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT, java_kernel
from mechsym import MechsymError, bridge, launch, reference, sweep
from mechsym.cpus import Cpu, Topology, read_topology
from mechsym.experiments import signalling as exp
from mechsym.jdk import discover
from mechsym.verdicts import FAILS, HOLDS, UNMEASURABLE

LOCKED = "mechsym.signalling.LockedSignalling"
VOLATILE = "mechsym.signalling.VolatilePingPong"
C_BIN = ROOT / "build" / "c" / "pingpong"
TWO = "--pin=0,1" if read_topology().logical >= 2 else "--pin=0,0"
PER_RUN = {"duration", "exchanges", "deadline_hit", "ns_per_op", "throughput", "round_trip_samples",
           "round_trip_mean", "round_trip_p50", "round_trip_p90", "round_trip_p99", "round_trip_p99.9",
           "round_trip_max"}


def c_kernel(*args, timeout=60):
    if not C_BIN.exists():
        pytest.fail(f"{C_BIN} missing: run `make`")
    return subprocess.run([str(C_BIN), *args], capture_output=True, text=True, timeout=timeout)


def run(kind, *args):
    r = c_kernel(*args) if kind == "c" else java_kernel(kind, *args)
    assert r.returncode == 0, r.stderr
    return launch.parse_csv(r.stdout)


KINDS = [LOCKED, VOLATILE, "c"]
SMALL = {LOCKED: "--iterations=2000", VOLATILE: "--iterations=50000", "c": "--iterations=50000"}


@pytest.mark.parametrize("kind", KINDS, ids=["locked", "volatile", "c"])
def test_kernel_at_smoke_size(kind):
    df = run(kind, SMALL[kind], "--runs=2", "--warmup-runs=1", TWO, "--sample-every=10")
    assert list(df.columns) == ["pinning", "iteration", "warmup", "metric", "value", "unit"]
    assert set(df["pinning"]) == {"thread"}
    runs = df[~df["metric"].isin(["timer_cost", "timer_step"])]
    assert set(runs["metric"]) == PER_RUN
    assert sorted(runs["iteration"].unique()) == [0, 1, 2]
    assert runs.groupby("iteration")["warmup"].first().tolist() == [True, False, False]
    n = int(SMALL[kind].split("=")[1])
    ex = df[df["metric"] == "exchanges"]["value"]
    assert (ex == n).all()
    assert (df[df["metric"] == "deadline_hit"]["value"] == 0).all()
    # ns/op is the posts' definition: duration / (2 x exchanges)
    w = runs.pivot_table(index="iteration", columns="metric", values="value")
    assert np.allclose(w["ns_per_op"], w["duration"] / (2 * w["exchanges"]), rtol=1e-4)
    assert np.allclose(w["throughput"], 2 * w["exchanges"] * 1e9 / w["duration"], rtol=1e-4)
    assert (w["round_trip_samples"] == n // 10).all()
    assert (w["round_trip_p50"] <= w["round_trip_p99"]).all() and (w["round_trip_p99"] <= w["round_trip_max"]).all()
    units = dict(zip(df["metric"], df["unit"]))
    assert units["ns_per_op"] == "ns/op" and units["throughput"] == "ops/s" and units["timer_cost"] == "ns"
    assert (df[df["metric"] == "timer_cost"]["value"] > 0).all()


def test_java_and_c_print_the_same_csv_shape():
    j = run(VOLATILE, "--iterations=1000", "--runs=1", "--warmup-runs=0")
    c = run("c", "--iterations=1000", "--runs=1", "--warmup-runs=0")
    assert list(j.columns) == list(c.columns)
    assert list(j["metric"]) == list(c["metric"]) and list(j["unit"]) == list(c["unit"])
    assert set(j["pinning"]) == set(c["pinning"]) == {"none"}


@pytest.mark.parametrize("kind", [VOLATILE, "c"], ids=["java", "c"])
def test_busy_spin_on_one_cpu_is_bounded_not_hung(kind):
    t0 = time.monotonic()
    df = run(kind, "--iterations=100000000", "--runs=1", "--warmup-runs=0", "--pin=0,0", "--max-ms=200",
             "--sample-every=1")
    assert time.monotonic() - t0 < 20
    w = df.set_index("metric")["value"]
    assert w["deadline_hit"] == 1
    assert 0 <= w["exchanges"] < 100_000_000
    assert w["duration"] >= 200e6


@pytest.mark.parametrize("kind", [VOLATILE, "c"], ids=["java", "c"])
def test_yielding_variant_finishes_on_one_cpu(kind):
    df = run(kind, "--iterations=5000", "--runs=1", "--warmup-runs=0", "--pin=0,0", "--wait=yield")
    w = df.set_index("metric")["value"]
    assert w["deadline_hit"] == 0 and w["exchanges"] == 5000


def test_locked_on_one_cpu_finishes():
    df = run(LOCKED, "--iterations=2000", "--runs=1", "--warmup-runs=0", "--pin=0,0")
    assert df.set_index("metric")["value"]["exchanges"] == 2000


@pytest.mark.parametrize("kind", KINDS, ids=["locked", "volatile", "c"])
def test_failed_order_check_reports_no_number(kind):
    r = (c_kernel if kind == "c" else lambda *a: java_kernel(kind, *a))(
        "--iterations=2000", "--runs=1", "--warmup-runs=0", "--inject=skip")
    assert r.returncode == 3
    assert r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1 and "CHECK FAILED" in r.stderr


def test_failed_check_is_a_kernel_error_and_stores_nothing():
    cell = exp.cell_for("c-spin", "unpinned", "smoke", read_topology(), None)
    cell.params["inject"] = "skip"
    with pytest.raises(launch.KernelError) as e:
        launch.run(cell.launch(), timeout=30)
    assert e.value.kind == "check-failed"


BAD = [
    (["--iterations=0"], "--iterations=0: out of range"),
    (["--iterations=many"], "--iterations=many: not a whole number"),
    (["--pin=0"], "--pin=0: give two CPU ids"),
    (["--pin=0,a"], "--pin=0,a"),
    (["--pin=0,4095"], "--pin"),
    (["--inject=boom"], "--inject=boom: allowed values are none, skip"),
    (["--colour=red"], "--colour: unknown argument"),
    (["runs=1"], "expected --name=value"),
]


@pytest.mark.parametrize("kind", KINDS, ids=["locked", "volatile", "c"])
@pytest.mark.parametrize("args, message", BAD, ids=[b[1][:24] for b in BAD])
def test_bad_arguments_exit_2_with_one_line(kind, args, message):
    r = (c_kernel if kind == "c" else lambda *a: java_kernel(kind, *a))(*args, "--runs=1", "--warmup-runs=0")
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], lines


@pytest.mark.parametrize("kind", [VOLATILE, "c"], ids=["java", "c"])
def test_unknown_wait_names_the_allowed_ones(kind):
    r = (c_kernel if kind == "c" else lambda *a: java_kernel(kind, *a))("--wait=sleep")
    assert r.returncode == 2 and "--wait=sleep: allowed values are spin, pause, yield" in r.stderr


@pytest.mark.parametrize("wait", ["spin", "pause", "yield"])
def test_stress_every_value_echoed_in_order(wait):
    """Many short runs on fresh threads, pinned and not: the kernels' own checks must pass every time."""
    for pin in (TWO, ""):
        args = ["--iterations=10000", "--runs=5", "--warmup-runs=0", f"--wait={wait}", "--sample-every=7"]
        args += [pin] if pin else []
        for kind in (VOLATILE, "c"):
            df = run(kind, *args)
            assert (df[df["metric"] == "exchanges"]["value"] == 10000).all()
    df = run(LOCKED, "--iterations=500", "--runs=5", "--warmup-runs=0", "--sample-every=3")
    assert (df[df["metric"] == "exchanges"]["value"] == 500).all()


def test_in_process_through_jpype():
    v = bridge.kernel(VOLATILE)
    assert float(v.nsPerOp(20000)) > 0
    assert float(bridge.kernel(LOCKED).nsPerOp(500)) > 0
    assert bridge.metadata(VOLATILE)["wait"] == "spin"
    assert list(v.waits()) == ["spin", "pause", "yield"]


# ---------------------------------------------------------------- the experiment module

def fake_topo(smt=False):
    if smt:
        return Topology((Cpu(0, 0, 0), Cpu(1, 1, 0), Cpu(2, 0, 0), Cpu(3, 1, 0)), "fake")
    return Topology((Cpu(0, 0, 0), Cpu(1, 1, 0)), "fake")


def test_cells_cover_placements_and_mark_missing_smt():
    jdks = list(discover())
    cs = exp.cells("standard", fake_topo(), jdks)
    smt = [c for c in cs if c.labels["placement"] == "smt"]
    assert smt and all(c.unavailable and "SMT" in c.unavailable for c in smt)
    ok = [c for c in cs if not c.unavailable]
    assert {c.labels["placement"] for c in ok} == {"cross-core", "same-cpu", "unpinned"}
    pins = {c.labels["placement"]: c.params["pin"] for c in ok}
    assert pins == {"cross-core": "0,1", "same-cpu": "0,0", "unpinned": ""}
    assert all(c.cpus is None for c in cs)  # per-thread pinning inside the kernel, never process taskset
    # forks interleaved in rounds: one fork per cell per round, each available cell once per round
    assert all(c.forks == 1 for c in cs)
    rounds = exp.PRESETS["standard"]["forks"]
    assert {c.labels["round"] for c in ok} == set(range(rounds))
    assert len(ok) == rounds * len({(c.variant, c.jdk, c.labels["placement"]) for c in ok})
    assert len(smt) == len({(c.variant, c.jdk) for c in smt})  # unavailable cells listed once
    assert all(c.jdk is None for c in cs if c.kernel.startswith("c:"))
    assert {c.jdk.feature for c in cs if not c.kernel.startswith("c:")} == {j.feature for j in jdks}
    bounded = [c for c in ok if c.labels["placement"] == "same-cpu" and c.params.get("wait") == "spin"]
    assert bounded and all(c.params["max-ms"] <= 1000 and c.params["sample-every"] == 1 for c in bounded)


def test_smt_placement_used_when_the_machine_has_it():
    cs = exp.cells("standard", fake_topo(smt=True), list(discover())[:1])
    smt = [c for c in cs if c.labels["placement"] == "smt"]
    assert smt and not any(c.unavailable for c in smt)
    assert {c.params["pin"] for c in smt} == {"0,2"}


def test_unknown_placement_and_variant_are_one_line_errors():
    with pytest.raises(MechsymError, match="placement 'diagonal': allowed placements are cross-core, smt"):
        exp.cell_for("locked", "diagonal", "smoke", fake_topo(), None)
    with pytest.raises(MechsymError, match="variant 'futex': allowed variants are locked"):
        exp.cell_for("futex", "unpinned", "smoke", fake_topo(), None)


def test_c_binary_not_built_says_make(tmp_path, monkeypatch):
    monkeypatch.setenv("MECHSYM_ROOT", str(tmp_path))
    cell = exp.cell_for("c-spin", "unpinned", "smoke", fake_topo(), None)
    with pytest.raises(MechsymError, match="not built.*run `make` first"):
        cell.launch()


def test_presets_are_complete():
    assert set(exp.PRESETS) == {"smoke", "standard", "full"}
    assert exp.NAME == "signalling" and exp.NOTEBOOKS == ["03-condition-variables", "08-inter-thread-latency"]
    assert {c.notebook for c in exp.CLAIMS} == set(exp.NOTEBOOKS)


def test_reference_files_hold_the_posts_numbers():
    cv = reference.load(exp.REF_CV)
    got = cv[(cv["metric"] == "ns_per_op")].set_index(["os", "cpu", "placement"])["value"]
    assert got[("Linux Fedora Core 15 64-bit", "Nehalem 2.8 GHz", "pinned")] == 2023
    assert got[("Linux Fedora Core 15 64-bit", "Sandy Bridge 2.0 GHz", "unpinned")] == 16808
    assert got[("Windows 7 Professional 64-bit", "Nehalem 2.8 GHz", "pinned")] == 2082
    assert len(got) == 6
    itl = reference.load(exp.REF_ITL)
    r = itl[itl["table"] == "Results"].set_index(["language", "metric"])["value"]
    assert r[("Java", "ns_per_op")] == 50 and r[("C++", "ns_per_op")] == 45
    assert r[("Java", "throughput")] == 19688810 and r[("C++", "throughput")] == 22178872
    assert exp.reference_cv_table(cv).shape[0] == 3
    assert exp.reference_itl_table(itl).shape[0] == 2


def synthetic(locked=30_000.0, unpinned=5_000.0, vol=60.0, c=50.0, ops=None):
    rows = []

    def add(variant, lang, jdk, placement, ns):
        for fork in range(2):
            for metric, value, unit in (("ns_per_op", ns, "ns/op"), ("throughput", ops or 1e9 / ns, "ops/s"),
                                        ("deadline_hit", 0, "bool"), ("round_trip_p50", 2 * ns, "ns"),
                                        ("round_trip_max", 20 * ns, "ns"), ("round_trip_samples", 100, "count")):
                rows.append(dict(experiment="signalling", variant=variant, language=lang, jdk=jdk, placement=placement,
                                 mechanism="", fork=fork, iteration=1, warmup=False, metric=metric, value=value,
                                 unit=unit, status="ok", note="", machine="m"))
    for jdk in ("17", "25"):
        add("locked", "java", jdk, "cross-core", locked)
        add("locked", "java", jdk, "unpinned", unpinned)
        add("volatile-spin", "java", jdk, "cross-core", vol)
    add("c-spin", "c", "c", "cross-core", c)
    rows.append(dict(experiment="signalling", variant="locked", language="java", jdk="17", placement="smt",
                     fork=-1, iteration=-1, warmup=False, metric="", value=np.nan, unit="", status="unavailable",
                     note="no SMT siblings", machine="m"))
    return pd.DataFrame(rows)


def outcomes(df):
    return {(v.claim.id, v.now.split(":")[0]): v.outcome for v in exp.verdicts(df)}


def test_verdicts_from_synthetic_results():
    o = outcomes(synthetic(locked=30_000, unpinned=5_000, vol=60, c=50))
    assert o[("signalling.lock-1000x-volatile", "JDK 17")] == HOLDS          # 500x
    assert o[("signalling.unpinned-several-times-slower", "JDK 17")] == FAILS  # unpinned faster
    assert o[("signalling.lock-latency-microseconds", "JDK 25")] == FAILS      # 30 µs
    assert o[("signalling.volatile-under-50ns", "JDK 17")] == FAILS
    assert o[("signalling.20-30m-exchanges", "C (gcc)")] == HOLDS              # 1e9/50 = 20 M
    assert o[("signalling.java-c-equal", "JDK 17 60.0 vs C 50.0 ns/op")] == HOLDS
    o = outcomes(synthetic(locked=2_000, unpinned=8_000, vol=40, c=20))
    assert o[("signalling.lock-1000x-volatile", "JDK 25")] == FAILS           # 50x
    assert o[("signalling.unpinned-several-times-slower", "JDK 25")] == HOLDS
    assert o[("signalling.lock-latency-microseconds", "JDK 17")] == HOLDS
    assert o[("signalling.volatile-under-50ns", "C (gcc)")] == HOLDS
    assert o[("signalling.java-c-equal", "JDK 17 40.0 vs C 20.0 ns/op")] == FAILS
    assert len(exp.notebook_verdicts(synthetic(), "03-condition-variables")) == 6
    assert len(exp.notebook_verdicts(synthetic(), "08-inter-thread-latency")) == 8


def test_verdicts_without_results_are_unmeasurable():
    assert {v.outcome for v in exp.verdicts(pd.DataFrame())} == {UNMEASURABLE}
    df = synthetic()
    df = df[df["placement"] != "cross-core"]
    vs = exp.verdicts(df)
    assert {v.outcome for v in vs} == {UNMEASURABLE} and all("different cores" in v.why for v in vs)


def test_analysis_tables_and_figures_from_synthetic_results():
    df = synthetic()
    assert "smt" in exp.wide_table(df).index
    assert not exp.summary(df).empty
    assert "JDK 17 / C" in exp.java_vs_c(df).columns
    assert not exp.percentiles(df).empty
    assert not exp.comparison_cv(df, reference.load(exp.REF_CV)).empty
    assert not exp.comparison_itl(df, reference.load(exp.REF_ITL)).empty
    assert exp.run_to_run(df.assign(run_id="20260101T000000Z-standard-abcdef")).shape[1] == 1
    assert not exp.bounded_runs(df.assign(metric=df["metric"].replace({"deadline_hit": "x"}))).shape[0]
    import matplotlib.pyplot as plt
    for fig in (exp.plot_ns_per_op(df), exp.plot_percentiles(df), exp.plot_reference_cv(reference.load(exp.REF_CV))):
        assert fig.axes
        plt.close(fig)


def test_smoke_sweep_stores_tidy_rows(results_dir):
    """A slice of the smoke sweep end to end (the notebooks run all of it): rows carry placement, pinning, JDK."""
    import types

    keep = {("locked", "same-cpu"), ("volatile-spin", "unpinned"), ("c-spin", "same-cpu"), ("volatile-spin", "smt")}
    part = types.SimpleNamespace(NAME=exp.NAME, cells=lambda preset, topo, jdks: [
        c for c in exp.cells(preset, topo, jdks) if (c.variant, c.labels["placement"]) in keep])
    meta = sweep.execute(part, "smoke", progress=False)
    assert meta["failures"] == []
    df = meta["frame"]
    ok = df[df["status"] == "ok"]
    assert set(ok["placement"]) >= {"same-cpu", "unpinned"}
    assert set(ok.loc[ok["placement"] == "unpinned", "pinning"]) == {"none"}
    assert set(ok.loc[ok["placement"] != "unpinned", "pinning"]) == {"thread"}
    assert (ok.loc[ok["metric"] == "ns_per_op", "value"] > 0).all()
    assert len(exp.verdicts(df)) >= 6
    assert not exp.timer_table(df).empty
