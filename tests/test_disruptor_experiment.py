"""The Disruptor experiment (notebook 17): the sweep's cells, the verdicts on synthetic rows, and one smoke run
through the CLI (the kernel itself: tests/test_disruptor_kernel.py). No test asserts a timing number."""

import shutil

import numpy as np
import pandas as pd
import pytest

from mechsym.store import reference
from mechsym.experiments import disruptor as exp
from mechsym.judge.verdicts import FAILS, HOLDS, UNMEASURABLE
from synthetic import TOPOLOGIES, fake_topology

JDK17 = type("J", (), {"feature": "17", "version": "17", "java": "java"})()


# ---------------------------------------------------------------- the sweep

def test_cells_cover_channels_placements_and_the_posts_comparison(tmp_path):
    topo = fake_topology(tmp_path, TOPOLOGIES["2cpu-no-smt"])
    cells = exp.cells("standard", topo, [JDK17])
    lab = [c for c in cells if c.params["protocol"] == "lab"]
    post = [c for c in cells if c.params["protocol"] == "post"]
    assert {(c.variant, c.labels["placement"]) for c in lab} == {(v, p) for v in exp.CHANNELS for p in exp.PLACEMENTS}
    assert {c.variant for c in post} == {"disruptor-yielding", "abq"}
    assert all(c.params["runs"] == 3 and c.params["warmup-runs"] == 0 for c in post)
    assert all(c.forks >= 5 for c in cells)
    pins = {c.labels["placement"]: c.params["pin"] for c in cells}
    assert pins == {"cross-core": "0,1", "unpinned": ""}


def test_one_cpu_marks_cross_core_unavailable(tmp_path):
    cells = exp.cells("smoke", fake_topology(tmp_path, TOPOLOGIES["1cpu"]), [JDK17])
    assert all(c.unavailable == "one core only" for c in cells if c.labels["placement"] == "cross-core")


# ---------------------------------------------------------------- verdicts on synthetic rows

RATES = {  # (variant, placement, protocol) -> events/s
    ("disruptor-yielding", "cross-core", "lab"): 80e6, ("abq", "cross-core", "lab"): 5e6,
    ("disruptor-yielding", "unpinned", "lab"): 40e6, ("abq", "unpinned", "lab"): 4e6,
    ("disruptor-busy-spin", "cross-core", "lab"): 100e6, ("jctools", "cross-core", "lab"): 200e6,
    ("disruptor-busy-spin", "unpinned", "lab"): 60e6, ("jctools", "unpinned", "lab"): 60e6,
    ("disruptor-yielding", "cross-core", "post"): 30e6, ("abq", "cross-core", "post"): 6e6,
    ("disruptor-yielding", "unpinned", "post"): 30e6, ("abq", "unpinned", "post"): 5e6,
}


def synthetic(rates=None, forks=5, spread=0.02, machine="m"):
    """Per cell `forks` forks; lab: a warm-up run and 3 measured runs; post: 3 passes, the last the best."""
    rows = []
    for (variant, placement, protocol), rate in (rates or RATES).items():
        for fork in range(forks):
            base = rate * (1 + spread * (fork - (forks - 1) / 2))
            passes = [(0, True, base / 2), (1, False, base), (2, False, base), (3, False, base)] \
                if protocol == "lab" else [(0, False, base / 2), (1, False, base * 0.9), (2, False, base)]
            for it, warm, v in passes:
                rows.append(dict(run_id="20260101T000000Z-standard-a", experiment="disruptor", variant=variant,
                                 jdk="17", placement=placement, protocol=protocol, fork=fork, iteration=it,
                                 warmup=warm, metric="throughput", value=v, unit="ops/s", status="ok", note="",
                                 machine=machine))
    return pd.DataFrame(rows)


def outcomes(df):
    return {(v.claim.id.removeprefix("disruptor."), v.scope.get("placement"), v.protocol): v.outcome
            for v in exp.verdicts(df)}


def test_verdicts_hold_fail_and_say_why_not():
    o = outcomes(synthetic())
    assert o[("over-50m-events", "cross-core", "lab")] == HOLDS            # 80 M
    assert o[("over-50m-events", "cross-core", "post")] == FAILS           # best pass 30 M
    assert o[("order-of-magnitude-over-queue", "cross-core", "lab")] == HOLDS   # 16x
    assert o[("order-of-magnitude-over-queue", "cross-core", "post")] == HOLDS  # 5x >= 3.16
    assert o[("beats-lock-free-queue", "cross-core", "lab")] == FAILS      # 0.5x
    assert o[("pinning-matters", "cross-core vs unpinned", "lab")] == HOLDS    # 2x
    assert o[("pinning-matters", "cross-core vs unpinned", "post")] == FAILS   # 1x
    assert o[("2-3x-over-1x", None, "post")] == UNMEASURABLE
    # 60 M vs 60 M, every round of forks 10% apart from the next, alike in both cells: resampled by rounds, the
    # round effect cancels and the ratio is 1x in every resample
    v = [v for v in exp.verdicts(synthetic(spread=0.1)) if v.claim.id == "disruptor.beats-lock-free-queue"
         and v.protocol == "lab" and v.scope.get("placement") == "unpinned"][0]
    assert v.low == pytest.approx(1.0) and v.high == pytest.approx(1.0)


def test_post_protocol_reads_each_jvms_best_pass():
    v = [v for v in exp.verdicts(synthetic()) if v.claim.id == "disruptor.over-50m-events" and v.protocol == "post"
         and v.scope["placement"] == "cross-core"][0]
    assert v.now_value == pytest.approx(30e6) and v.forks == 5


def test_missing_placement_is_not_measurable_with_the_reason():
    df = synthetic({k: r for k, r in RATES.items() if k[1] == "unpinned"})
    df = pd.concat([df, pd.DataFrame([dict(run_id="20260101T000000Z-standard-a", experiment="disruptor",
                                           variant="abq", jdk="17", placement="cross-core", fork=-1, iteration=-1,
                                           warmup=False, metric="", value=np.nan, unit="", status="unavailable",
                                           note="one core only", machine="m")])], ignore_index=True)
    vs = [v for v in exp.verdicts(df) if v.scope.get("placement") == "cross-core"]
    assert vs and all(v.outcome == UNMEASURABLE and "one core only" in v.why for v in vs)


def test_tables_and_figures_on_synthetic_rows():
    df = synthetic()
    t = exp.throughput_table(df)
    assert list(t["channel"])[:2] == ["disruptor-busy-spin", "disruptor-yielding"]
    assert "cross-core, JDK 17: x ABQ" in t
    f = exp.forks_table(df, ["disruptor-yielding"])
    assert set(f["protocol"]) == {"post", "lab"}
    assert len(exp.comparison(df, reference.load(exp.REFERENCE))) == 1 + 2 * 2   # the post, then placement x protocol
    exp.plot_throughput(df)
    exp.plot_pinning(df)


# ---------------------------------------------------------------- end to end

def test_smoke_run_through_the_cli(results_dir, smoke_store):
    shutil.copytree(smoke_store("disruptor"), results_dir, dirs_exist_ok=True)   # `mechsym run disruptor --preset smoke`
    from mechsym.store import runs as store

    df = store.load("disruptor", None)
    ok = df[df["status"] == "ok"]
    assert set(ok["variant"]) == set(exp.CHANNELS)
    assert set(ok["protocol"]) == {"lab", "post"}
    assert (ok.loc[ok["metric"] == "throughput", "value"] > 0).all()
    assert len(exp.verdicts(df)) >= len(exp.CLAIMS)
