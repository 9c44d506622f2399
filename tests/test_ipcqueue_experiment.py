"""The ipcqueue experiment (notebook 14): the sweep's cells and scratch directory, the claims and verdicts on
synthetic rows, and the smoke sweep through the CLI (the kernel between two JVMs: tests/test_ipcqueue_kernel.py).

No test asserts a timing; none sleeps to synchronise."""

import os

import numpy as np
import pandas as pd
import pytest

from mechsym import MechsymError
from mechsym.experiments import ipcqueue as exp
from mechsym.machine.jdk import discover
from mechsym.judge.verdicts import FAILS, HOLDS, INCONCLUSIVE, UNMEASURABLE
from synthetic import topology


# ---------------------------------------------------------------- the sweep

def test_cells_cover_the_claims_and_mark_missing_smt():
    cells = exp.cells("standard", topology(), discover())
    got = {(c.variant, c.columns()["placement"], c.params.get("protocol", c.labels.get("protocol"))): c for c in cells}
    for v in ("processes", "threads", "in-heap"):
        assert got[(v, "smt", "lab")].unavailable.startswith("no SMT")
        assert got[(v, "cross-core", "lab")].forks >= 5 and got[(v, "cross-core", "lab")].params["pin"] == "0,1"
    assert got[("processes", "cross-core", "post")].params["warmup-runs"] == 0
    assert got[("processes-unaligned", "cross-core", "lab")].params["layout"] == "unaligned"
    assert got[("in-heap", "cross-core", "lab")].params["queue"] == "O1"
    assert all(c.flags == exp.FLAGS for c in cells)
    smt = {(c.variant, c.columns()["placement"]): c for c in exp.cells("standard", topology(smt=True), discover())}
    assert smt[("processes", "smt")].params["pin"] == "0,2" and not smt[("processes", "smt")].unavailable


def test_the_session_refuses_without_room_and_removes_its_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("MECHSYM_SCRATCH", str(tmp_path / "scratch"))
    meta = {}
    with exp.session([], meta) as d:
        assert d.is_dir() and d.parent == tmp_path / "scratch"
        (d / "left.queue").write_bytes(b"x")
    assert not d.exists() and meta["scratch"]["base"] == str(tmp_path / "scratch")
    real = os.statvfs

    class Full:
        def __init__(self, st):
            self.f_flag, self.f_files, self.f_favail, self.f_frsize = st.f_flag, st.f_files, st.f_favail, 4096
            self.f_bavail = 1
    monkeypatch.setattr(os, "statvfs", lambda p: Full(real(p)))
    with pytest.raises(MechsymError, match="not enough free space"):
        with exp.session([], {}):
            pass


# ---------------------------------------------------------------- claims and verdicts on synthetic rows

def synthetic(rates: dict, forks=5, spread=0.02, post=True):
    """Tidy rows like a sweep's: `rates` {(variant, placement): msgs/s}; lab cells (2 warm-up + 3 runs) and, for
    processes and threads, post-protocol cells (3 runs)."""
    rng = np.random.default_rng(7)
    out = []
    for (variant, placement), rate in rates.items():
        protocols = ["lab"] + (["post"] if post and variant in ("processes", "threads") else [])
        for protocol in protocols:
            for fork in range(forks):
                for it in range(5 if protocol == "lab" else 3):
                    out.append({"experiment": "ipcqueue", "variant": variant, "placement": placement,
                                "protocol": protocol, "jdk": "17", "fork": fork, "iteration": it,
                                "warmup": protocol == "lab" and it < 2, "metric": "throughput",
                                "value": rate * (1 + rng.uniform(-spread, spread)), "unit": "ops/s",
                                "status": "ok", "note": "", "machine": "m", "run_id": "r"})
    return pd.DataFrame(out)


def outcomes(df):
    return {(v.claim.id.removeprefix("ipcqueue."), v.protocol): v.outcome for v in exp.verdicts(df)}


def test_the_posts_numbers_pass_their_claims():
    for c in exp.CLAIMS:
        if c.from_post:
            assert c.rule.holds_at(c.then_value()), c.id


def test_verdicts_hold_fail_and_say_what_is_not_measurable():
    o = outcomes(synthetic({("processes", "cross-core"): 120e6, ("threads", "cross-core"): 300e6,
                            ("in-heap", "cross-core"): 100e6, ("processes-unaligned", "cross-core"): 60e6,
                            ("processes-yield", "cross-core"): 130e6}))
    for p in ("post", "lab"):
        assert o[("ipc-98m-cross-core", p)] == HOLDS
        assert o[("ipc-reaches-in-heap", p)] == UNMEASURABLE   # judged same core, the post's scope
        assert o[("yield-helps-cross-core", p)] == HOLDS
        assert o[("ipc-slower-than-in-process", p)] == HOLDS
        assert o[("offheap-faster-than-in-heap", p)] == HOLDS
        assert o[("unaligned-slower", p)] == HOLDS
        assert o[("ipc-135m-same-core", p)] == UNMEASURABLE
    o = outcomes(synthetic({("processes", "cross-core"): 50e6, ("threads", "cross-core"): 50e6,
                            ("in-heap", "cross-core"): 100e6, ("processes-unaligned", "cross-core"): 50e6}))
    assert o[("ipc-98m-cross-core", "lab")] == FAILS
    assert o[("ipc-slower-than-in-process", "lab")] == FAILS and o[("unaligned-slower", "lab")] == FAILS
    smt = outcomes(synthetic({("processes", "smt"): 135e6, ("in-heap", "smt"): 110e6,
                              ("processes-yield", "smt"): 150e6}))
    assert smt[("ipc-reaches-in-heap", "lab")] == HOLDS and smt[("spin-helps-same-core", "lab")] == FAILS
    one = synthetic({("processes", "cross-core"): 120e6}, forks=1)
    assert outcomes(one)[("ipc-98m-cross-core", "lab")] == INCONCLUSIVE


def test_the_post_protocol_reads_the_best_run_of_the_post_cells():
    df = synthetic({("processes", "cross-core"): 100e6, ("in-heap", "cross-core"): 100e6})
    best = df[(df["protocol"] == "post") & (df["variant"] == "processes")].groupby("fork")["value"].max()
    assert sorted(exp.forks(df, exp.POST, variant="processes", placement="cross-core")) == sorted(best)
    assert len(exp.forks(df, exp.POST, variant="in-heap", placement="cross-core")) == 5  # its own rows


def test_tables_and_figure_render_from_synthetic_rows():
    from mechsym.store import reference

    df = synthetic({("processes", "cross-core"): 120e6, ("threads", "cross-core"): 300e6,
                    ("in-heap", "cross-core"): 100e6})
    ref = reference.load(exp.REFERENCE)
    assert len(exp.reference_table(ref)) == 4
    t = exp.comparison(df, ref)
    assert list(t["variant"]) == ["processes", "threads", "in-heap"] and t["the post's figure"].iloc[0] == "98.0M ops/s"
    assert len(exp.summary(df)) == 5 and len(exp.ratios(df)) == 1
    assert exp.plot_throughput(df, ref).axes


# ---------------------------------------------------------------- the sweep through the CLI

@pytest.mark.kernel
def test_smoke_run_through_the_cli_stores_checked_rows_and_leaves_no_scratch(results_dir, tmp_path):
    from conftest import mechsym
    from mechsym.store import runs as store

    scratch = tmp_path / "scratch"
    r = mechsym("run", "ipcqueue", "--preset", "smoke", "--only", "variant=processes", "--no-progress",
                env={"MECHSYM_SCRATCH": str(scratch)}, timeout=300)
    assert r.returncode == 0, r.stderr
    df = store.load("ipcqueue")
    ok = df[df["status"] == "ok"]
    assert set(ok["transport"]) == {"processes"} and set(ok["protocol"]) == {"lab", "post"}
    assert set(ok["tail_line_offset"].astype(int)) == {24} and set(ok["wait"]) == {"spin"}
    assert not scratch.exists() or not any(scratch.iterdir()), "the run's scratch directory outlived it"
    assert {v.claim.id for v in exp.verdicts(df)} == {c.id for c in exp.CLAIMS}


@pytest.mark.kernel
def test_the_variants_transports_are_the_kernels_own_through_jpype():
    from mechsym.run import bridge
    from mechsym.experiments.ipcqueue import sweep

    ipc = {transport for kernel, transport, *_ in sweep.VARIANTS.values() if kernel == sweep.IPC}
    assert ipc == set(bridge.kernel(sweep.IPC).transports())
