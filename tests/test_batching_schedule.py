"""Smart batching's schedule and floor gate: one producer thread sends on schedule (Poisson or fixed bursts), every
send's lateness is recorded, and a fork whose sends left late beside the 100 µs device cannot decide a claim.
Synthetic rows for the gate; the kernel at a few bursts. No test asserts a timing."""

import pandas as pd
import pytest

from conftest import assert_refused, kernel_process, run_kernel
from mechsym.machine.cpus import Cpu, Topology
from mechsym.experiments import batching as exp
from mechsym.experiments.batching.rows import GATE
from mechsym.machine.jdk import discover
from mechsym.judge.verdicts import HOLDS, INCONCLUSIVE, UNMEASURABLE
from test_batching_experiment import synthetic

KERNEL = exp.sweep.KERNEL


def outcomes(df):
    return {(v.claim.id, v.protocol): v for v in exp.verdicts(df)}


def test_a_floor_beside_the_device_time_makes_every_claim_unmeasurable():
    out = outcomes(synthetic(late=150e3))
    assert {v.outcome for v in out.values()} == {UNMEASURABLE}
    why = out[("batching.mean-latency", "post")].why
    assert why.startswith("scheduler floor 153.00 µs vs 100 µs device")   # the median of 150 µs x 1.00..1.04


def test_forks_over_the_gate_are_refused_and_the_rest_decide():
    df = synthetic(forks=7)
    late = df["metric"] == "wakeup_late_median"
    df.loc[late & (df["fork"] == 0), "value"] = 2 * GATE * 100e3      # one fork per cell over the gate
    v = outcomes(df)[("batching.mean-latency", "lab")]
    assert v.outcome == HOLDS and v.forks == 6 and "2 of 14 forks refused" in v.why
    df.loc[late & (df["fork"] >= 2), "value"] = 2 * GATE * 100e3      # five of seven over: too few left
    assert outcomes(df)[("batching.mean-latency", "lab")].outcome == INCONCLUSIVE


def test_packets_are_judged_once_over_every_burst_of_a_fork():
    df = synthetic()
    pk = (df["metric"] == "packets_per_burst") & (df["variant"] == "batching") & (df["protocol"] == "lab")
    more = [df[pk].assign(iteration=i, value=3.5) for i in (1, 2)]   # runs of 1.5, 3.5, 3.5: mean 2.83, median 3.5
    v = outcomes(pd.concat([df, *more], ignore_index=True))
    assert ("batching.fewer-packets", "post") not in v
    assert "batching 2.84 packets" in v[("batching.fewer-packets", "lab")].now   # every burst: the mean of the runs


def test_the_load_sweep_sends_at_random_times_and_the_worked_example_on_a_period():
    cells = exp.cells("standard", Topology((Cpu(0, 0, 0), Cpu(1, 1, 0))), discover())
    arrivals = {(c.labels["group"], c.params["arrivals"]) for c in cells}
    assert arrivals == {("table", "fixed"), ("device", "fixed"), ("load", "poisson")}
    assert {c.labels["threads"] for c in cells} == {1, 2}


@pytest.mark.kernel
def test_the_kernel_records_each_sends_lateness_under_poisson_bursts():
    rows = run_kernel(KERNEL, "--mode=batching", "--burst=4", "--bursts=6", "--interval-us=300",
                      "--arrivals=poisson", "--seed=7", "--runs=1", "--warmup-runs=0")
    m = rows.set_index("metric")["value"]
    assert m["messages"] == 24 and 1 <= m["packets"] <= 24
    assert 0 <= m["wakeup_late_median"] <= m["wakeup_late_max"]
    assert_refused(kernel_process(KERNEL, "--arrivals=random"), "--arrivals")
