"""Calibration: the record (machine/calibration.py) from synthetic rows, the regime rule, loading the newest stored
run, the table beside the posts (view/machine.py), the cells on any topology, the short form that opens a standard
run (run/calibrate.py, run/sweep.py) and one smoke run of the experiment (kernel)."""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

import pandas as pd
import pytest

from mechsym.experiments import calibration as exp
from mechsym.machine import calibration
from mechsym.run import calibrate
from mechsym.view.machine import calibration_table, this_machine
from synthetic import TOPOLOGIES, fake_topology

META = {"run_id": "20261129T080000Z-smoke-abcdef", "machine": {"machine_id": "m-1", "logical_cpus": 8,
        "physical_cores": 4, "smt": True, "sockets": 1}, "noise": {"steal_pct": 3.5},
        "calibration_facts": {"free_cpus": 6}}


def rows(values: dict[str, list[float]], aa: list[float] = ()) -> pd.DataFrame:
    """Measured rows per variant (one fork, a run each), a warm-up and a jit_ms row that must be ignored, and the
    A/A's forks (one run each)."""
    out = []
    for variant, vs in values.items():
        out.append({"variant": variant, "fork": 0, "iteration": 0, "warmup": True, "metric": "round_trip",
                    "value": 1e9, "status": "ok"})
        for i, v in enumerate(vs):
            out.append({"variant": variant, "fork": 0, "iteration": i + 1, "warmup": False, "metric": "round_trip",
                        "value": v, "status": "ok"})
            out.append({"variant": variant, "fork": 0, "iteration": i + 1, "warmup": False, "metric": "jit_ms",
                        "value": 7e6, "status": "ok"})
    for f, v in enumerate(aa):
        out.append({"variant": "aa", "fork": f, "iteration": 1, "warmup": False, "metric": "round_trip",
                    "value": v, "status": "ok"})
    return pd.DataFrame(out)


def test_from_rows_takes_medians_and_interquartile_spreads_of_measured_rows():
    df = rows({"nanotime": [20, 30, 40, 50, 60], "cas": [6, 6, 7, 8, 9], "line-cross": [100, 110, 120],
               "wakeup-cross": [30_000, 28_000, 29_000], "c-futex-cross": [25_000]})
    cal = calibration.from_rows(df, META)
    assert (cal.timer_ns, cal.cas_ns, cal.line_rt_cross_ns, cal.wakeup_cross_ns, cal.futex_cross_ns) == \
        (40, 7, 110, 29_000, 25_000)
    assert cal.spread["timer_ns"] == {"low": 30, "high": 50}
    assert cal.line_rt_same_ns is None and "line_rt_same_ns" not in cal.spread
    assert (cal.machine, cal.logical_cpus, cal.cores, cal.smt_siblings, cal.free_cpus, cal.sockets) == \
        ("m-1", 8, 4, True, 6, 1)
    assert cal.steal_pct == 3.5 and cal.source == f"measured {META['run_id']}"
    assert cal.regimes is None   # no A/A forks


def test_regimes_by_the_gap_rule():
    # two levels ~4x apart, alternating: 2 levels, ratio ~4, every consecutive pair but one switches
    cal = calibration.from_rows(rows({}, aa=[70, 300, 72, 290, 305, 71]), META)
    assert cal.regimes == 2 and 4.0 < cal.regime_ratio < 4.4
    assert cal.regime_switches == pytest.approx(4 / 5)
    one = calibration.from_rows(rows({}, aa=[100, 105, 110, 104]), META)   # within 20% of a neighbour: one level
    assert (one.regimes, one.regime_ratio, one.regime_switches) == (1, 1.0, 0.0)
    assert calibration.levels([100, 119, 150]) == [0, 0, 1]      # 119 -> 150 is a 26% jump; 100 -> 119 is not
    assert calibration.regime_summary([42.0]) == (None, None, None)


def test_load_reads_the_newest_stored_run_and_skips_a_damaged_one(tmp_path):
    assert calibration.load("m-1", tmp_path) is None
    folder = tmp_path / "m-1" / calibration.EXPERIMENT
    folder.mkdir(parents=True)
    for run_id, cas, damaged in (("20261129T080000Z-smoke-aaaaaa", 5.0, False),
                                 ("20261129T090000Z-smoke-bbbbbb", 9.0, False),
                                 ("20261129T100000Z-smoke-cccccc", 1.0, True)):
        df = rows({"cas": [cas]})
        df.insert(0, "run_id", run_id)
        df.to_csv(folder / f"{run_id}.csv", index=False)
        meta = {**META, "run_id": run_id, "rows": len(df) + (1 if damaged else 0)}
        (folder / f"{run_id}.json").write_text(json.dumps(meta))
    cal = calibration.load("m-1", tmp_path)
    assert cal.cas_ns == 9.0 and cal.source.endswith("bbbbbb")


def test_the_record_round_trips_through_run_metadata():
    cal = calibration.from_rows(rows({"cas": [7.0]}, aa=[1, 1, 3]), META)
    back = calibration.from_dict(json.loads(json.dumps(cal.as_dict())))
    assert back == cal
    assert calibration.synthetic(cores=16, logical_cpus=32, smt_siblings=True, wakeup_cross_ns=1000).cores == 16


def test_the_table_puts_this_machine_beside_the_posts(tmp_path):
    cal = calibration.from_rows(rows({"line-cross": [150.0], "wakeup-cross": [27_700.0]}, aa=[70, 300]), META)
    t = calibration_table(cal)
    assert t.loc["park/unpark wake-up, other CPU", "this machine"] == "27.70 µs"
    assert "2,082 ns/op" in t.loc["park/unpark wake-up, other CPU", "the posts"]
    assert t.loc["SMT siblings", "this machine"] == "yes"
    assert t.loc["per-JVM regimes (A/A levels)", "this machine"].startswith("2 levels")
    assert t.loc["uncontended CAS", "this machine"] == "not measured"
    assert "mechsym calibrate" in this_machine("m-1", tmp_path).iloc[0, 0]


def test_the_short_form_is_the_smoke_preset():
    assert exp.PRESETS["smoke"] == calibrate.SHORT


@pytest.mark.parametrize("topo_name", TOPOLOGIES)
def test_cells_pin_each_thread_and_skip_two_cpu_cells_on_one_cpu(topo_name, tmp_path):
    topo = fake_topology(tmp_path, TOPOLOGIES[topo_name])
    cells = {c.variant: c for c in exp.cells("standard", topo, [])}
    assert set(cells) == set(calibration.VARIANTS) | {calibration.AA_VARIANT}
    assert cells["line-same"].params["pin"] == "0,0" and not cells["line-same"].unavailable
    two = [cells[v] for v in ("line-cross", "wakeup-cross", "c-line-cross", "c-futex-cross", "aa")]
    if topo_name == "1cpu":
        assert all(c.unavailable and "two CPUs" in c.unavailable for c in two)
    else:
        a, b = map(int, cells["line-cross"].params["pin"].split(","))
        assert a != b and not any(c.unavailable for c in two)
        assert cells["aa"].forks == exp.PRESETS["standard"]["aa_forks"]


def test_the_opening_records_what_it_measured_and_never_fails_the_run(tmp_path):
    """opening() over forks that answer with synthetic rows (and one that fails): a record, a note, no exception."""
    from mechsym.run.launch import KernelError
    from mechsym.run.loop import tag_rows

    topo = fake_topology(tmp_path, TOPOLOGIES["2cpu-no-smt"])

    def fork(f):
        if f.cell.variant == "millis":
            raise KernelError("Floors: exit 1", "error", [])
        v = {"cas": 8.0, "wakeup-cross": 30_000.0}.get(f.cell.variant, 100.0 + f.number)
        return pd.DataFrame([{"iteration": 1, "warmup": False, "metric": "round_trip", "value": v, "unit": "ns"}]), \
            "thread"

    jdk = SimpleNamespace(feature=17, version="17.0.15")
    rec = calibrate.opening(topo, [jdk], {"machine": META["machine"], "run_id": "r"}, fork, tag_rows)
    assert rec["cas_ns"] == 8.0 and rec["wakeup_cross_ns"] == 30_000.0 and rec["timer_millis_ns"] is None
    assert rec["regimes"] == 1 and rec["source"] == "short form opening run r"
    assert any(n.startswith("millis fork 0") for n in rec["notes"]) and rec["free_cpus"] >= 1


@pytest.mark.kernel
def test_smoke_calibration_run_gives_every_floor(tmp_path, monkeypatch):
    """`mechsym calibrate --preset smoke`: a stored run from which the record has a number for each floor this
    machine has (two-CPU floors only with two CPUs)."""
    from conftest import mechsym

    monkeypatch.setenv("MECHSYM_RESULTS", str(tmp_path / "results"))
    monkeypatch.setenv("MECHSYM_BENCH_LOCK", str(tmp_path / "bench.lock"))
    r = mechsym("calibrate", "--preset", "smoke", "--no-progress", timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    assert "uncontended CAS" in r.stdout and "the posts" in r.stdout
    cal = calibration.load(None, tmp_path / "results")
    assert cal is not None and cal.source.startswith("measured ")
    assert cal.timer_ns > 0 and cal.timer_millis_ns >= 1e6 and cal.cas_ns > 0 and cal.line_rt_same_ns > 0
    if cal.logical_cpus > 1:
        assert cal.line_rt_cross_ns > 0 and cal.wakeup_cross_ns > 0 and cal.futex_cross_ns > 0
        assert cal.regimes >= 1 and cal.regime_ratio >= 1


def test_a_standard_run_opens_with_the_short_calibration_and_a_smoke_run_does_not(monkeypatch):
    """run/sweep.execute calls the opening once per standard run, before its forks, and records what it returns."""
    from mechsym.run import sweep
    from mechsym.run.cells import Cell

    order = []
    monkeypatch.setattr(sweep.provenance, "record", lambda *a, **k: {})
    monkeypatch.setattr(calibrate, "opening", lambda topo, jdks, meta, run_fork, tag:
                        order.append(("opening", meta["preset"])) or {"seconds": 0.1, "cas_ns": 7.0})

    def runner(fork):
        order.append(("fork", fork.cell.variant))
        return pd.DataFrame([{"iteration": 0, "warmup": False, "metric": "duration", "value": 1.0, "unit": "ns"}])

    module = SimpleNamespace(NAME="demo", cells=lambda preset, topo, jdks, **kw: [
        Cell("v", "cmd:demo", runner=runner, forks=1, timeout=10)])
    smoke = sweep.execute(module, "smoke", jdks=[], progress=False, store_results=False, lock=False)
    standard = sweep.execute(module, "standard", jdks=[], progress=False, store_results=False, lock=False,
                             allow_dirty=True)
    assert order == [("fork", "v"), ("opening", "standard"), ("fork", "v")]
    assert "calibration" not in smoke and standard["calibration"]["cas_ns"] == 7.0


def test_the_experiments_tables_and_figure_read_its_rows():
    df = rows({"cas": [6.0, 7.0, 8.0]}, aa=[70.0, 300.0, 71.0]).assign(placement="", unit="ns")
    t = exp.summary(df)
    assert list(t["measure"]) == ["uncontended CAS (Java)", "A/A: round trip per fresh JVM"]
    assert t.iloc[0]["median"] == "7.0 ns" and t.iloc[0]["runs"] == 3
    assert exp.regimes(df) == {"levels": 2, "ratio": pytest.approx(300 / 70.5, abs=1e-3), "switches": 1.0}
    assert list(exp.aa_forks(df)["level"]) == [0, 1, 0]
    assert exp.plot_regimes(df).axes[0].get_title().startswith("A/A")
    assert exp.verdicts(df) == [] and exp.CLAIMS == []


def test_the_session_records_the_cpus_a_thread_may_migrate_to():
    meta = {}
    with exp.session([], meta):
        pass
    assert 1 <= meta["calibration_facts"]["free_cpus"] <= os.cpu_count()
