"""The single-writer experiment (notebook 10): its sweep cells, claims and verdicts on synthetic rows, tables and
figures, and a smoke sweep end to end through the CLI (the kernels themselves: tests/test_singlewriter_kernel.py).
No test asserts a timing."""

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from mechsym import MechsymError  # noqa: E402
from mechsym.store import reference
from mechsym.experiments import singlewriter as exp  # noqa: E402
from mechsym.machine.jdk import discover  # noqa: E402
from mechsym.judge.verdicts import FAILS, HOLDS, INCONCLUSIVE, UNMEASURABLE  # noqa: E402
from synthetic import topology  # noqa: E402


# ---------------------------------------------------------------- sweep

def test_cells_per_runtime_with_post_cells_and_folding_check():
    jdks = list(discover())
    cs = exp.cells("standard", topology(), jdks)
    assert len({(c.variant, c.jdk, c.params["threads"], c.params["protocol"], c.labels["scale"]) for c in cs}) \
        == len(cs)
    runtimes = len(jdks) + 1
    assert len([c for c in cs if c.params["protocol"] == "post"]) == 6 * runtimes
    assert all(c.params["runs"] == 1 and c.params["warmup-runs"] == 0 for c in cs if c.params["protocol"] == "post")
    assert {c.variant for c in cs if c.labels["scale"] == "10x"} == {"plain", "plain-foldable"}
    two = [c for c in cs if c.params["threads"] == 2]
    assert two and all(c.params["pin"] == "0,1" and c.variant in ("cas", "lock") for c in two)
    assert all(c.forks >= 5 for c in cs)
    full = exp.cells("full", topology(), jdks)
    assert {c.params["iterations"] for c in full if c.labels["scale"] == "1x"} == {500_000_000}


def test_two_threads_unavailable_on_one_cpu_with_reason():
    cs = exp.cells("smoke", topology(1), list(discover())[:1])
    two = [c for c in cs if c.params["threads"] == 2]
    assert two and all(c.unavailable and "two cores" in c.unavailable for c in two)
    assert not any(c.unavailable for c in cs if c.params["threads"] == 1)


def test_cell_refuses_unknown_method_and_two_threads_plain():
    with pytest.raises(MechsymError, match="allowed methods"):
        exp.cell_for("mfence", 1, "smoke", topology(), list(discover())[0])
    with pytest.raises(MechsymError, match="threads 2 for plain"):
        exp.cell_for("plain", 2, "smoke", topology(), None)


# ---------------------------------------------------------------- claims and verdicts on synthetic rows

def synthetic(ns: dict[tuple[str, int], float], jdks=("17", "c"), forks=5, post_too=True, machine="m") -> pd.DataFrame:
    """Tidy rows: every (method, threads) cell at the given ns per increment, with a little fork-to-fork spread."""
    out = []
    rng = np.random.default_rng(1)
    for jdk in jdks:
        for (method, threads), v in ns.items():
            for protocol in (["lab", "post"] if post_too else ["lab"]):
                for fork in range(forks):
                    for it in range(1 if protocol == "post" else 3):
                        for metric, value in (("ns_per_op", v * rng.uniform(0.97, 1.03)), ("duration", v * 1e6)):
                            out.append({"experiment": exp.NAME, "variant": method, "threads": threads, "jdk": jdk,
                                        "protocol": protocol, "scale": "1x", "iterations": 1_000_000,
                                        "placement": "cross-core" if threads == 2 else "one thread", "fork": fork,
                                        "iteration": it, "warmup": False, "metric": metric, "value": value,
                                        "unit": "ns/op" if metric == "ns_per_op" else "ns", "status": "ok",
                                        "note": "", "machine": machine, "run_id": "r1"})
    return pd.DataFrame(out)


def post_like(scale=1.0):
    """The post's table as ns per increment (ms x 1e6 / 500 M), plus the fences."""
    ms = {("plain", 1): 300, ("barrier", 1): 4700, ("cas", 1): 5700, ("cas", 2): 18000, ("lock", 1): 10000,
          ("lock", 2): 118000}
    ns = {k: v * 1e6 / 500e6 * scale for k, v in ms.items()}
    ns[("release", 1)] = ns[("plain", 1)]
    return ns


def test_the_posts_table_passes_its_own_claims_as_forks():
    vs = exp.verdicts(synthetic(post_like()))
    # contended-cas-cycles needs the run's recorded clock: synthetic rows have no stored run (tests/
    # test_singlewriter_claims.py feeds it one)
    cycles = [v for v in vs if v.claim.id == "singlewriter.contended-cas-cycles"]
    assert cycles and all(v.outcome == UNMEASURABLE and "clock" in v.why for v in cycles)
    vs = [v for v in vs if v not in cycles]
    assert vs and all(v.outcome == HOLDS for v in vs), [(v.claim.id, v.outcome, v.now) for v in vs]
    assert {v.protocol for v in vs} == {"post", "lab"}
    assert {v.scope.get("jdk") for v in vs} == {"17", "c"}


def test_a_flat_table_fails_the_contention_claims():
    flat = {k: 5.0 for k in post_like()}
    by = {(v.claim.id, v.protocol, v.scope["jdk"]): v.outcome for v in exp.verdicts(synthetic(flat))}
    assert by[("singlewriter.lock-contention-orders", "lab", "17")] == FAILS
    assert by[("singlewriter.contention-not-instruction", "post", "c")] == FAILS
    assert by[("singlewriter.table-order", "lab", "17")] in (FAILS, INCONCLUSIVE)


def test_missing_post_cells_and_few_forks_are_said():
    vs = exp.verdicts(synthetic(post_like(), post_too=False, forks=2))
    post = [v for v in vs if v.protocol == "post"]
    assert post and all(v.outcome == UNMEASURABLE and v.why for v in post)
    assert all(v.outcome == INCONCLUSIVE for v in vs if v.protocol == "lab"
               and v.claim.id != "singlewriter.contended-cas-cycles")   # no stored run: no clock


def test_machines_are_judged_apart():
    df = pd.concat([synthetic(post_like(), machine="a"), synthetic(post_like(), machine="b")])
    assert {v.machine for v in exp.verdicts(df)} == {"a", "b"}


def test_tables_and_figures_render_numbers():
    df = synthetic(post_like())
    ref = reference.load(exp.REFERENCE)
    assert list(exp.reference_table(ref)["time (ms, 500 M increments)"]) == ["300", "4,700", "5,700", "18,000",
                                                                            "10,000", "118,000"]
    comp = exp.comparison(df, ref)
    assert (comp["JDK 17: ms"].str.len() > 0).all() and comp["C (gcc): x one thread"].str.endswith("x").all()
    assert len(exp.forks_table(df)) == 6 * 2 * 2
    assert not exp.summary(df).empty and "JDK 17: ns" in exp.fences_table(df)
    for fig in (exp.plot_table(df, ref), exp.plot_fences(df), exp.plot_table(df.iloc[0:0], ref)):
        assert fig.axes


# ---------------------------------------------------------------- end to end

def test_smoke_sweep_through_the_cli(smoke_store):
    csv = next(smoke_store("singlewriter").rglob("*.csv"))   # `mechsym run singlewriter --preset smoke`, once
    df = pd.read_csv(csv)
    ok = df[df["status"] == "ok"]
    jdks = set(ok["jdk"].astype(str))
    assert "c" in jdks and any(j.isdigit() for j in jdks)
    assert set(ok["variant"]) >= set(exp.JAVA_METHODS) | set(exp.C_METHODS)
    assert (ok.loc[ok["metric"] == "ns_per_op", "value"] >= 0).all()
    assert len(exp.verdicts(df)) >= len(exp.CLAIMS)
