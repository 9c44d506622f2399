"""The smart-batching experiment (notebook 11): its cells, claims and verdicts on synthetic rows, tables and
figures, the smoke sweep through the CLI, and the modes the kernel declares (the kernel itself:
tests/test_batching_kernel.py). No test asserts a timing."""

import matplotlib
import pandas as pd
import pytest

matplotlib.use("Agg")

from mechsym.store import reference  # noqa: E402
from mechsym.experiments import batching as exp  # noqa: E402
from mechsym.machine.jdk import discover  # noqa: E402
from mechsym.judge.verdicts import FAILS, HOLDS, INCONCLUSIVE, UNMEASURABLE  # noqa: E402
from synthetic import topology  # noqa: E402


# ---------------------------------------------------------------- cells

def test_standard_cells_run_every_judged_cell_in_five_forks_or_more():
    cells = exp.cells("standard", topology(), discover())
    assert all(c.forks >= 5 for c in cells)
    groups = {(c.labels["group"], c.variant, c.params["protocol"]) for c in cells}
    assert {("table", m, p) for m in exp.MODES for p in ("post", "lab")} <= groups
    loads = {(c.variant, c.labels["load"]) for c in cells if c.labels["group"] == "load"}
    assert {(m, x) for m in exp.MODES for x in (exp.sweep.LOW, exp.sweep.HIGH)} <= loads
    assert all(c.params["bursts"] == 1 for c in cells if c.params["protocol"] == "post")


def test_load_is_the_serial_devices_utilisation():
    assert exp.sweep.interval_us(1.0) == 1000 and exp.sweep.interval_us(0.1) == 10_000


# ---------------------------------------------------------------- claims and verdicts on synthetic rows

def synthetic(serial_mean=600e3, batching_mean=250e3, flat=1.1, j=3.0, forks=5, late=50.0):
    """Rows shaped as the sweep stores them: the worked example under both protocols, and the load sweep; every
    cell's sends `late` ns late (the floor gate reads it)."""
    rows = []

    def add(group, mode, protocol, metric, v, load=""):
        for f in range(forks):
            rows.append(dict(experiment="batching", variant=mode, group=group, protocol=protocol, burst=10,
                             device="spin", load=load, fork=f, iteration=0, warmup=False, metric=metric,
                             value=v * (1 + 0.01 * f), unit="ns", status="ok", machine="m", run_id="r"))

    for protocol in ("post", "lab"):
        for mode, mean, packets in (("serial", serial_mean, 10), ("batching", batching_mean, 1.5)):
            add("table", mode, protocol, "latency_mean", mean)
            add("table", mode, protocol, "latency_worst", 2 * mean)
            add("table", mode, protocol, "latency_best", 100e3)
            add("table", mode, protocol, "packets_per_burst", packets)
            add("table", mode, protocol, "wakeup_late_median", late)
    for mode, ratio in (("serial", j), ("batching", flat)):
        for load, v in ((0.1, 300e3), (0.9, 300e3 * ratio)):
            add("load", mode, "lab", "latency_mean", v, load)
            add("load", mode, "lab", "latency_p99", 2 * v, load)
            add("load", mode, "lab", "wakeup_late_median", late, load)
    return pd.DataFrame(rows)


def outcomes(df):
    return {(v.claim.id, v.protocol): v.outcome for v in exp.verdicts(df)}


def test_the_posts_shape_holds_every_claim():
    out = outcomes(synthetic())
    assert len(out) == 2 * 2 + 1 + 2 and set(out.values()) == {HOLDS}   # packets: over many bursts (lab)


def test_a_serial_as_fast_as_batching_fails_and_a_rising_batching_fails():
    out = outcomes(synthetic(batching_mean=600e3, flat=3.0, j=1.0))
    assert out[("batching.mean-latency", "post")] == FAILS
    assert out[("batching.flat-until-saturation", "lab")] == FAILS
    assert out[("batching.serial-j-curve", "lab")] == FAILS
    assert out[("batching.fewer-packets", "lab")] == HOLDS


def test_two_forks_are_inconclusive_and_no_load_sweep_is_unmeasurable():
    df = synthetic(forks=2)
    out = outcomes(df)
    assert out[("batching.mean-latency", "lab")] == INCONCLUSIVE
    out = outcomes(df[df["group"] != "load"])
    assert out[("batching.serial-j-curve", "lab")] == UNMEASURABLE


def test_tables_and_figures_read_synthetic_rows():
    df, ref = synthetic(), reference.load(exp.REFERENCE)
    c = exp.comparison(df, ref)
    assert list(c["average: post"]) == ["500 µs", "150 µs"] and c["average: now"].iloc[0] == "612.00 µs"
    assert len(exp.bursts_table(df)) == 4 and len(exp.load_table(df)) == 4
    assert not exp.summary(df).empty
    for fig in (exp.plot_bursts(df, ref), exp.plot_load(df), exp.plot_load(df.iloc[0:0])):
        assert fig.axes


# ---------------------------------------------------------------- end to end

def test_smoke_sweep_through_the_cli(smoke_store):
    df = pd.read_csv(next(smoke_store("batching").rglob("*.csv")))   # `mechsym run batching --preset smoke`, once
    ok = df[df["status"] == "ok"]
    assert set(ok["variant"]) == set(exp.MODES) and set(ok["group"]) == {"table", "load"}
    assert (ok.loc[ok["metric"] == "latency_mean", "value"] > 0).all()
    assert len(exp.verdicts(df)) == 7   # packets per burst judged once, over every burst of a fork


@pytest.mark.kernel
def test_the_modes_are_the_kernels_own_through_jpype():
    from mechsym.run import bridge
    from mechsym.experiments.batching import sweep

    k = bridge.kernel(sweep.KERNEL)
    assert list(k.MODES) == sweep.MODES and "drop-one" in list(k.INJECTS)
