"""The atomiclong experiment package (notebook 09): cells, claims, verdicts, tables and figures on synthetic rows
with several forks per cell, two machines kept apart, and a slice of the smoke sweep end to end through the CLI.
No test asserts a timing."""

import json

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from conftest import mechsym  # noqa: E402
from mechsym.experiments import atomiclong as exp  # noqa: E402
from mechsym.machine.jdk import discover  # noqa: E402
from mechsym.judge.verdicts import FAILS, HOLDS, UNMEASURABLE  # noqa: E402
from synthetic import topology  # noqa: E402


def test_threads_go_past_the_cpus_and_post_cells_are_the_posts_variants():
    jdks = list(discover())
    assert exp.thread_counts(topology(2)) == [1, 2, 3, 4] and exp.thread_counts(topology(8)) == list(range(1, 17))
    cs = exp.cells("standard", topology(2), jdks)
    post = [c for c in cs if c.params["protocol"] == "post"]
    assert {c.variant for c in post} == {"atomic-increment", "cas-loop", "xadd", "add", "cas"}
    assert all(c.params["runs"] == 1 and c.params["warmup-runs"] == 0 for c in post)
    assert all(c.forks >= 5 for c in cs if c.params["threads"] <= 2)    # every judged cell: >= 5 forks at standard
    assert {c.labels["contention"] for c in cs if c.params["threads"] > 2} == {"time-sliced"}
    # post cells run long enough that compiling the loop is a small part, at the thread counts the claims judge
    assert all(c.params["count"] >= 100_000_000 and c.params["threads"] <= 2 for c in post)
    assert all(c.jdk is None for c in cs if c.kernel.startswith("c:"))
    assert all(c.params["variant"] == c.variant for c in cs)
    assert len({(c.variant, c.jdk, c.params["threads"], c.params["protocol"]) for c in cs}) == len(cs)


def synthetic(cpus=2, machine="test-machine-a", forks=5, cas_factor=2.5, adder=4.0):
    """Rows as a sweep stores them: ns/op per variant, runtime and threads, several forks and runs."""
    rng = np.random.default_rng(1)
    base = {"atomic-increment": 8, "varhandle-add": 8, "cas-loop": 8 * cas_factor, "long-adder": 8 / adder,
            "synchronized": 30, "xadd": 7, "add": 7, "cas": 7 * cas_factor}
    out = []
    for variant, ns in base.items():
        lang = exp.VARIANTS[variant][0]
        for jdk in (["17", "25"] if lang == "java" else ["c"]):
            for threads in range(1, max(4, 2 * cpus) + 1):
                for protocol in (["lab", "post"] if variant in ("atomic-increment", "cas-loop", "xadd", "add", "cas")
                                 else ["lab"]):
                    for fork in range(forks):
                        for it in range(1 if protocol == "post" else 4):
                            v = (ns if threads > 1 else 5) * rng.uniform(0.95, 1.05)
                            for metric, value in (("ns_per_op", v), ("throughput", 1e9 / v)):
                                out.append({"experiment": "atomiclong", "variant": variant, "protocol": protocol,
                                            "threads": threads, "jdk": jdk, "language": lang,
                                            "primitive": exp.VARIANTS[variant][1], "cpus_online": cpus,
                                            "fork": fork, "iteration": it, "warmup": protocol == "lab" and it == 0,
                                            "metric": metric, "value": value, "status": "ok", "note": "",
                                            "machine": machine, "run_id": f"run-{machine}"})
    return pd.DataFrame(out)


def by_claim(vs, cid):
    return [v for v in vs if v.claim.id == f"atomiclong.{cid}"]


def test_verdicts_on_two_cpus_judge_contention_and_leave_3_plus_threads_unmeasurable():
    vs = exp.verdicts(synthetic())
    cas = by_claim(vs, "cas-2-10x-slower-than-xadd")
    assert cas and all(v.outcome == HOLDS and v.scope["threads"] == 2 for v in cas)
    assert {v.protocol for v in cas} == {"post", "lab"}
    assert {v.scope.get("jdk") or v.scope.get("runtime") for v in cas} == {"17", "25", "C (gcc)"}
    for cid in ("xadd-flat-past-3-threads", "cas-keeps-degrading"):
        (v,) = by_claim(vs, cid)
        assert v.outcome == UNMEASURABLE and "4 CPUs" in v.why and "time-sliced" in v.why
    assert all(v.outcome == HOLDS for v in by_claim(vs, "add-like-xadd"))
    assert {v.scope["threads"] for v in by_claim(vs, "add-like-xadd")} == {1, 2}
    java_c = by_claim(vs, "java-cas-like-c-cas")
    assert java_c and all(v.outcome == HOLDS for v in java_c)
    adder = by_claim(vs, "longadder-scales")
    assert adder and all(v.outcome == HOLDS and v.protocol == "lab" for v in adder)


def test_verdicts_fail_when_the_data_says_so_and_judge_3_plus_threads_on_enough_cpus():
    vs = exp.verdicts(synthetic(cas_factor=1.0, adder=1.0))
    assert all(v.outcome == FAILS for v in by_claim(vs, "cas-2-10x-slower-than-xadd"))
    assert all(v.outcome == FAILS for v in by_claim(vs, "longadder-scales"))
    vs = exp.verdicts(synthetic(cpus=4))
    flat = by_claim(vs, "xadd-flat-past-3-threads")
    assert flat and all(v.outcome == HOLDS and v.scope["threads"] == "4 vs 3" for v in flat)
    assert all(v.outcome == FAILS for v in by_claim(vs, "cas-keeps-degrading"))   # flat synthetic CAS


def test_machines_are_kept_apart():
    df = pd.concat([synthetic(), synthetic(machine="test-machine-b", cas_factor=1.0)])
    vs = by_claim(exp.verdicts(df), "cas-2-10x-slower-than-xadd")
    assert {(v.machine, v.outcome) for v in vs} == {("test-machine-a", HOLDS), ("test-machine-b", FAILS)}
    assert set(exp.summary(df)["machine"]) == {"test-machine-a", "test-machine-b"}


def test_tables_and_figures_read_the_rows():
    df = synthetic()
    wide = exp.wide_table(df)
    assert list(wide["threads run"]) == ["alone", "at once", "time-sliced on 2 CPUs", "time-sliced on 2 CPUs"]
    assert "cas (C (gcc))" in wide.columns and wide["cas (C (gcc))"].str.endswith("ns").all()
    r = exp.ratios(df)
    assert set(r["runtime"]) == {"JDK 17", "JDK 25", "C (gcc)"} and (r.loc[r["threads"] > 1, "CAS / XADD"] != "").all()
    s = exp.summary(df)
    assert {"lab: median", "post: median"} <= set(s.columns) and (s["lab: forks"] == 5).all()
    comp = exp.comparison(df, pd.DataFrame(
        {"metric": ["throughput"], "variant": ["xadd"], "cpu": ["Nehalem"], "threads": ["3+"], "value": [1e8]}))
    assert comp["where"].iloc[0] == "post: Nehalem" and comp["XADD ops/s"].iloc[0] == "100.0M ops/s"
    assert len(exp.plot_primitives(df).axes) >= 5 and exp.plot_protocols(df).axes


def test_reference_names_the_images_and_feeds_its_own_claim():
    from mechsym.store import reference
    ref = reference.load(exp.REFERENCE)
    images = ref[ref["metric"].str.startswith("figure_")]
    assert len(images) == 2 and images["value"].isna().all() and images["note"].str.contains("image").all()
    c = exp.CLAIM["atomiclong.cas-2-10x-slower-than-xadd"]
    assert c.then_value() == 2 and c.rule.holds_at(c.then_value())
    assert not exp.reference_table(ref).empty


@pytest.mark.kernel
def test_smoke_sweep_through_the_cli(results_dir):
    """A slice of the smoke sweep, end to end through `mechsym run`: rows are stored with the cells' columns."""
    p = mechsym("run", "atomiclong", "--preset", "smoke", "--only", "variant=cas-loop,cas;threads=2")
    assert p.returncode == 0, p.stderr
    (meta,) = [json.loads(f.read_text()) for f in results_dir.rglob("*.json")]
    assert meta["failures"] == [] and meta["preset"] == "smoke"
    df = pd.read_csv(next(results_dir.rglob("*.csv")))
    ok = df[df["status"] == "ok"]
    assert set(ok["variant"]) == {"cas-loop", "cas"} and set(ok["protocol"]) == {"lab", "post"}
    assert (ok.loc[ok["metric"] == "ns_per_op", "value"] > 0).all()
    assert len(exp.verdicts(df.assign(machine="m", run_id="r"))) >= len(exp.CLAIMS)
