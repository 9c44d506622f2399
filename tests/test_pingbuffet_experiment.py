"""The ping buffet (notebook 13): sweep cells, claims and verdicts on synthetic rows, and the smoke sweep (the
kernel's two JVMs: tests/test_pingbuffet_kernel.py). No test asserts a timing."""

import json

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from mechsym import MechsymError  # noqa: E402
from mechsym.store import reference
from mechsym.experiments import pingbuffet as exp  # noqa: E402
from mechsym.machine.jdk import discover  # noqa: E402
from mechsym.judge.verdicts import FAILS, HOLDS, UNMEASURABLE  # noqa: E402
from synthetic import topology  # noqa: E402


# ---------------------------------------------------------------- sweep

def test_cells_pin_per_thread_and_run_the_judged_transports_both_ways():
    cs = exp.cells("standard", topology(), list(discover()))
    smt = [c for c in cs if c.labels["placement"] == "smt"]
    assert smt and all("SMT" in c.unavailable for c in smt)   # the post's "same core": skipped with the reason
    cs = [c for c in cs if c not in smt]
    assert all(c.cpus is None and not c.unavailable for c in cs)   # pinned inside each JVM, never by taskset
    post = {c.variant for c in cs if c.params["protocol"] == "post"}
    assert post == set(exp.JUDGED)
    judged = [c for c in cs if c.labels["placement"] == exp.PINNED and c.variant in exp.JUDGED]
    assert judged and all(c.forks >= 5 for c in judged)
    same = [c for c in cs if c.labels["placement"] == "same-cpu"]
    assert same and all(c.params["yield"] == "true" or c.params["mode"] == "tcp-block" for c in same)
    assert {c.params["pin"] for c in cs} == {"0,1", "0,0", ""}


def test_one_cpu_marks_cross_core_unavailable_with_a_reason():
    cs = exp.cells("standard", topology(1), list(discover()))
    cross = [c for c in cs if c.labels["placement"] == "cross-core"]
    assert cross and all(c.unavailable for c in cross)


def test_unknown_names_are_refused_with_the_allowed_ones():
    with pytest.raises(MechsymError, match="allowed variants"):
        exp.cell_for("tcp-carrier-pigeon", "cross-core", "smoke", topology(), None)
    with pytest.raises(MechsymError, match="allowed placements"):
        exp.cell_for("tcp-spin", "cross-socket", "smoke", topology(), None)


def test_standard_runs_support_the_percentiles_the_tables_show():
    cs = exp.cells("standard", topology(), list(discover()))
    for c in cs:
        fast = c.params["mode"] in ("ipc-spin", "timer") and c.params["yield"] == "false" \
            and c.labels["placement"] in (exp.PINNED, "smt")
        assert c.params["pings"] == (1_000_000 if fast else 20_000)
    assert exp.supported("p99", 20_000) and not exp.supported("p99.9", 20_000)
    assert exp.supported("p99.99", 1_000_000) and exp.supported("max", 1)


# ---------------------------------------------------------------- claims and verdicts on synthetic rows

def synthetic(p50: dict, forks: int = 5, mean_over_p50: float = 1.5, placement: str = exp.PINNED,
              p99: float = 2) -> pd.DataFrame:
    """Tidy rows as the sweep stores them: per variant, both protocols, `forks` forks of one measured run each."""
    rng = np.random.default_rng(1)
    out = []
    for protocol in ("post", "lab"):
        for v, med in p50.items():
            for f in range(forks):
                base = med * (1 + rng.uniform(-0.02, 0.02))
                for stat, factor in (("p50", 1), ("mean", mean_over_p50), ("p99.9", 20), ("min", 0.9),
                                     ("p90", 1.1), ("p99", p99), ("p99.99", 50), ("max", 100)):
                    out.append({"experiment": exp.NAME, "variant": v, "placement": placement, "protocol": protocol,
                                "jdk": "17", "fork": f, "iteration": 1, "warmup": False, "metric": f"rtt_{stat}",
                                "value": base * factor, "unit": "ns", "status": "ok", "note": "",
                                "machine": "m", "run_id": "r"})
    return pd.DataFrame(out)


POST_LIKE = {"ipc-spin": 127, "udp-spin": 5224, "tcp-spin": 6784, "tcp-selectnow": 9617, "tcp-block": 13103,
             "tcp-select": 15426, "timer": 50}


# the post's same-core sentence, on SMT siblings: IPC faster with a worse tail, sockets slower than cross-core
SMT_LIKE = {"ipc-spin": 100, "udp-spin": 6000, "tcp-spin": 8000}


def test_the_posts_own_order_holds_under_both_protocols():
    vs = exp.verdicts(pd.concat([synthetic(POST_LIKE), synthetic(SMT_LIKE, placement="smt", p99=5)]))
    assert len(vs) == 2 * len(exp.CLAIMS)
    assert {v.outcome for v in vs} == {HOLDS}, [(v.claim.id, v.outcome, v.why) for v in vs if v.outcome != HOLDS]


def test_a_reversed_order_and_an_honest_mean_do_not_hold():
    flipped = {**POST_LIKE, "tcp-selectnow": 5000, "udp-spin": 9000, "ipc-spin": 6000, "timer": 900}
    vs = {(v.claim.id, v.protocol): v.outcome for v in exp.verdicts(synthetic(flipped, mean_over_p50=1.0))}
    for cid in ("spin-beats-selectnow", "udp-beats-tcp", "ipc-50x-tcp", "timer-error-50ns", "average-is-not-latency"):
        assert vs[(f"pingbuffet.{cid}", "post")] == FAILS and vs[(f"pingbuffet.{cid}", "lab")] == FAILS, cid


def test_same_core_falls_back_to_one_cpu_as_a_labelled_stand_in():
    one_cpu = synthetic({"ipc-spin-yield": 3000, "tcp-block": 15000}, placement="same-cpu")
    one_cpu = one_cpu[one_cpu["protocol"] == "lab"]   # as the sweep runs it
    vs = exp.verdicts(pd.concat([synthetic({**POST_LIKE, "ipc-spin-yield": 500}), one_cpu]))
    same = {(v.claim.id, v.protocol): v for v in vs if "same-core" in v.claim.id or "cross-core" in v.claim.id}
    lab = same[("pingbuffet.ipc-same-core-faster", "lab")]
    assert lab.outcome == FAILS and "stands in" in lab.why
    assert same[("pingbuffet.sockets-best-cross-core", "lab")].outcome == HOLDS   # 15 µs > 13.1 µs
    assert same[("pingbuffet.ipc-same-core-faster", "post")].outcome == UNMEASURABLE


def test_missing_cells_are_not_measurable_with_the_reason():
    vs = exp.verdicts(synthetic({"tcp-spin": 6784}))
    ipc = [v for v in vs if v.claim.id == "pingbuffet.ipc-50x-tcp"]
    assert ipc and all(v.outcome == UNMEASURABLE and "ipc-spin" in v.why for v in ipc)


def test_tables_and_figures_read_synthetic_rows():
    df, ref = synthetic(POST_LIKE), reference.load(exp.REFERENCE)
    assert list(exp.reference_table(ref).columns) == ["Min", "50%", "90%", "99%", "99.9%", "99.99%", "Max"]
    assert exp.reference_table(ref).loc["IPC busy-spin", "Min"] == "89"
    assert len(exp.reference_sample(ref)) == 8
    assert set(exp.beside(df, ref).index) == set(exp.JUDGED)
    assert "Mean" not in exp.percentiles(df).columns and "mean" in exp.percentiles(df).columns
    assert exp.mean_table(df).loc["tcp-spin", "mean / 50%"]
    assert len(exp.forks_table(df)) == 2 * len(POST_LIKE)
    exp.plot_spectrum(df, ref)
    exp.plot_medians(df)


# ---------------------------------------------------------------- the sweep end to end

def test_smoke_sweep_through_the_cli(smoke_store):
    """The smoke sweep end to end through `mechsym run` (once per test run: smoke_store): rows stored with the cells'
    columns, both protocols, and every claim judged (or said not measurable)."""
    stored = smoke_store(exp.NAME)
    (meta,) = [json.loads(f.read_text()) for f in stored.rglob("*.json")]
    assert meta["failures"] == [] and meta["preset"] == "smoke"
    df = pd.read_csv(next(stored.rglob("*.csv")))
    ok = df[df["status"] == "ok"]
    assert set(ok["variant"]) == {"ipc-spin", "tcp-spin", "timer"} and set(ok["protocol"]) == {"lab", "post"}
    assert (ok.loc[ok["metric"] == "rtt_p50", "value"] > 0).all()
    assert len(exp.verdicts(df.assign(machine="m", run_id="r"))) == 2 * len(exp.CLAIMS)


@pytest.mark.kernel
def test_the_variants_modes_are_the_kernels_own_through_jpype():
    from mechsym.run import bridge

    assert {mode for mode, *_ in exp.VARIANTS.values()} == set(bridge.kernel(exp.sweep.KERNEL).modes())
