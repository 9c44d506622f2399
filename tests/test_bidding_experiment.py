"""The bidding experiment (notebook 15): its sweep cells, claims and verdicts on synthetic rows, tables and figures,
and a smoke sweep end to end through the CLI (the kernel itself: tests/test_bidding_kernel.py). No test asserts a
timing."""

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from mechsym import MechsymError  # noqa: E402
from mechsym.store import reference
from mechsym.experiments import bidding as exp  # noqa: E402
from mechsym.machine.jdk import discover  # noqa: E402
from mechsym.judge.verdicts import FAILS, HOLDS, INCONCLUSIVE, UNMEASURABLE  # noqa: E402
from synthetic import topology  # noqa: E402


# ---------------------------------------------------------------- sweep

def test_standard_cells_judge_at_the_cores_with_five_forks():
    jdks = list(discover())
    cs = exp.cells("standard", topology(), jdks)
    keys = [(c.variant, c.jdk, c.params["protocol"], c.params["clients"], c.params["items"], c.params["map-capacity"],
             c.labels["gc"]) for c in cs]
    assert len(set(keys)) == len(cs)
    assert all(c.forks >= 5 and c.labels["cores"] == 2 for c in cs)
    assert {c.params["clients"] for c in cs} == {1, 2, 4, 8}
    post = [c for c in cs if c.params["protocol"] == "post"]
    assert all(c.params["runs"] == 1 and c.params["warmup-runs"] == 0 for c in post)
    assert all(str(exp.PRESETS["standard"]["items"]) in c.params["items"].split(",") for c in post)
    assert all((c.flags == exp.GC_ISOLATED) == (c.labels["gc"] == "isolated") for c in cs)
    assert {c.params["map-capacity"] for c in cs if c.variant == "cas-linked-queue"} == set(exp.CAPACITIES)
    assert exp.clients_for("full", topology()) == [1, 2, 3, 4, 6, 8, 12, 16, 24, 32]
    assert exp.PRESETS["full"]["post_items"] == list(range(1, 101))


def test_cell_refuses_unknown_names():
    jdk = list(discover())[0]
    with pytest.raises(MechsymError, match="allowed containers"):
        exp.cell_for("skiplist", 2, "smoke", topology(), jdk)
    with pytest.raises(MechsymError, match="allowed are"):
        exp.cell_for("rw-lock-list", 2, "smoke", topology(), jdk, gc="zgc")


# ---------------------------------------------------------------- claims and verdicts on synthetic rows

def synthetic(thr, jit, forks=5, protocols=("post", "lab"), machine="m", cores=2, items=45,
              startup=1.5) -> pd.DataFrame:
    """Tidy rows: thr(container, clients, items, capacity) bids/s and jit(...) jitter for every cell the claims read."""
    out, rng = [], np.random.default_rng(1)
    cells = [(c, k, i, 16) for c in exp.CONTAINERS for k in (1, 2, 4, 8) for i in (1, items)]
    cells += [("cas-linked-queue", cores, items, cap) for cap in exp.CAPACITIES[1:]]
    for protocol in protocols:   # the post protocol sweeps items past the judged count; the lab's cells do not
        more = [(c, 2, 64, 16) for c in exp.CONTAINERS] if protocol == "post" and "lab" in protocols else []
        for container, clients, n, cap in cells + more:
            for fork in range(forks):
                for it in range(1 if protocol == "post" else 4):   # lab: iteration 0 is a warm-up, jitterier
                    warm = protocol == "lab" and it == 0
                    for metric, value in (("bids_per_s", thr(container, clients, n, cap)),
                                          ("jitter", jit(container, clients, n, cap) * (startup if warm else 1))):
                        out.append({"experiment": exp.NAME, "variant": container, "clients": clients, "items": n,
                                    "map_capacity": cap, "cores": cores, "gc": "isolated", "jdk": "17",
                                    "protocol": protocol, "fork": fork, "iteration": it, "warmup": warm,
                                    "metric": metric, "value": value * rng.uniform(0.99, 1.01), "unit": "",
                                    "status": "ok", "note": "", "machine": machine, "run_id": "r1"})
    return pd.DataFrame(out)


SPEED = {"mutex-priority-queue": 1.7e6, "rw-lock-list": 2.5e6, "cas-linked-queue": 2.6e6}
JIT = {"mutex-priority-queue": 0.01, "rw-lock-list": 0.02, "cas-linked-queue": 0.04}


def post_like(container, clients, items, cap):
    """The post's story: peak at the cores (2 here), more items faster, a presized keeper faster."""
    return SPEED[container] * (1 if clients == 2 else 0.7) * (1 if items > 1 else 0.5) * (1.2 if cap > 16 else 1)


def post_jitter(container, clients, items, cap):
    return JIT[container] * (0.5 if cap > 16 else 1)


def test_the_posts_story_passes_every_claim():
    vs = exp.verdicts(synthetic(post_like, post_jitter))
    lab_plateau = [v for v in vs if v.claim.id == "bidding.plateau-past-peak-items" and v.protocol == "lab"]
    assert lab_plateau and all(v.outcome == UNMEASURABLE and "not run" in v.why for v in lab_plateau)
    vs = [v for v in vs if v not in lab_plateau]
    assert vs and all(v.outcome == HOLDS for v in vs), [(v.claim.id, v.outcome, v.now) for v in vs if
                                                        v.outcome != HOLDS]
    assert {v.protocol for v in vs} == {"post", "lab"} and {v.claim.id for v in vs} == set(exp.CLAIM)


def test_a_peak_at_one_client_and_a_flat_jitter_fail():
    one = lambda c, k, i, cap: SPEED[c] / k
    flat = lambda c, k, i, cap: 0.2
    by = {(v.claim.id, v.protocol, v.scope.get("variant")): v for v in exp.verdicts(synthetic(one, flat))}
    assert by[("bidding.peak-at-cores", "post", "rw-lock-list")].outcome == FAILS
    assert by[("bidding.jitter-within-6pct", "lab", "cas-linked-queue")].outcome == FAILS
    assert by[("bidding.lock-free-most-jitter", "post", None)].outcome in (FAILS, INCONCLUSIVE)


def test_a_calm_start_fails_the_startup_jitter_claim():
    vs = exp.verdicts(synthetic(post_like, post_jitter, startup=0.5))
    startup = [v for v in vs if v.claim.id == "bidding.jitter-higher-at-startup"]
    assert startup and all(v.outcome == FAILS and v.protocol == "lab" for v in startup)


def test_few_forks_and_missing_cells_are_said():
    vs = exp.verdicts(synthetic(post_like, post_jitter, forks=2, protocols=("post",)))
    assert all(v.outcome == UNMEASURABLE and v.why for v in vs if v.protocol == "lab")
    assert all(v.outcome == INCONCLUSIVE for v in vs if v.protocol == "post"
               and v.claim.id != "bidding.plateau-past-peak-items")   # nothing swept past the judged count


def test_machines_are_judged_apart():
    df = pd.concat([synthetic(post_like, post_jitter, machine="a"), synthetic(post_like, post_jitter, machine="b")])
    assert {v.machine for v in exp.verdicts(df)} == {"a", "b"}


def test_tables_and_figures_render_numbers():
    df = synthetic(post_like, post_jitter)
    ref = reference.load(exp.REFERENCE)
    assert "1.7M bids/s" in set(exp.reference_table(ref)["value"])
    comp = exp.comparison(df, ref)
    assert comp.shape == (3, 4) and comp.iloc[:, 2].str.contains("bids/s").all()
    jt = exp.jitter_table(df)
    assert list(jt.columns[2:]) == ["1 client", "2 clients", "4 clients", "8 clients"] and jt.iloc[0, 3].endswith(")")
    assert len(exp.capacity_table(df)) == 3 * 2 and not exp.summary(df).empty
    for fig in (exp.plot_throughput_vs_items(df, ref), exp.plot_jitter_vs_clients(df),
                exp.plot_throughput_vs_items(df.iloc[0:0], ref)):
        assert fig.axes


# ---------------------------------------------------------------- end to end

def test_smoke_sweep_through_the_cli(smoke_store):
    df = pd.read_csv(next(smoke_store("bidding").rglob("*.csv")))   # `mechsym run bidding --preset smoke`, once
    ok = df[df["status"] == "ok"]
    assert set(ok["variant"]) == set(exp.CONTAINERS) and set(ok["protocol"]) == {"post", "lab"}
    assert set(ok["gc"]) == {"isolated", "default"}
    assert len(exp.verdicts(df)) >= len(exp.CLAIMS) and not exp.gc_table(df).empty
