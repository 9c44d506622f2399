"""mechsym.run.harness: the share of each timed run spent in JIT compilation and in GC, and the runs over the limit.
Synthetic tidy rows only, shaped as the kernels print them (common/JitGc.java)."""

import math

import pandas as pd
import pytest

from mechsym.run import harness


def run_rows(fork, iteration, *, duration_ns=None, jit=0, gc=0, count=0, warmup=False, variant="lab", phase="",
             extra=()):
    """One timed run's tidy rows: the cell keys, a duration (when given), its JIT/GC rows, and extra
    (metric, value, unit) rows."""
    p = f"{phase}_" if phase else ""
    base = dict(experiment="x", variant=variant, threads=2, fork=fork, iteration=iteration, warmup=warmup,
                status="ok", note="")
    rows = [] if duration_ns is None else [dict(base, metric=p + "duration", value=duration_ns, unit="ns")]
    rows += [dict(base, metric=p + "jit_ms", value=jit, unit="ms"), dict(base, metric=p + "gc_ms", value=gc, unit="ms"),
             dict(base, metric=p + "gc_count", value=count, unit="count")]
    rows += [dict(base, metric=m, value=v, unit=u) for m, v, u in extra]
    return rows


def frame(*runs):
    return pd.DataFrame([r for run in runs for r in run])


def test_shares_divide_by_the_runs_own_duration():
    df = frame(run_rows(0, 0, duration_ns=100e6, jit=10, gc=2, count=1, warmup=True),
               run_rows(0, 1, duration_ns=200e6, jit=1, gc=0),
               run_rows(1, 0, duration_ns=50e6, jit=0, gc=5, count=2, variant="post"))
    s = harness.shares(df)
    assert len(s) == 3 and list(s["phase"]) == ["", "", ""]
    assert list(s["duration_ms"]) == [100.0, 200.0, 50.0]
    assert list(s["jit_share"]) == pytest.approx([0.10, 0.005, 0.0])
    assert list(s["gc_share"]) == pytest.approx([0.02, 0.0, 0.10])
    assert list(s["gc_count"]) == [1, 0, 2]
    # the run's keys come along, so a caller can join the shares back to its cells
    assert list(s["variant"]) == ["lab", "lab", "post"] and list(s["warmup"]) == [True, False, False]


def test_flagged_marks_runs_over_the_limit_by_jit_or_gc():
    df = frame(run_rows(0, 0, duration_ns=100e6, jit=6),          # 6% JIT
               run_rows(0, 1, duration_ns=100e6, jit=5, gc=5),    # exactly 5% each: not over
               run_rows(0, 2, duration_ns=100e6, gc=7, count=3))  # 7% GC
    f = harness.flagged(df)
    assert list(f["flagged"]) == [True, False, True]
    assert f["reason"].tolist() == ["JIT 6.0% of 100.0 ms", "", "GC 7.0% of 100.0 ms"]
    assert list(harness.flagged(df, limit=0.01)["flagged"]) == [True, True, True]


def test_a_duration_from_time_per_operation_and_the_count():
    # AtomicIncrement-like (ns_per_op x increments) and PingBuffet-like (rtt_mean x pings) runs, no duration metric
    df = frame(run_rows(0, 0, jit=3, extra=[("ns_per_op", 10.0, "ns/op"), ("increments", 1e6, "count")]),
               run_rows(1, 0, jit=3, variant="ping", extra=[("rtt_mean", 2000.0, "ns"), ("pings", 1e4, "pings")]))
    s = harness.shares(df)
    assert list(s["duration_ms"]) == pytest.approx([10.0, 20.0])
    assert list(s["jit_share"]) == pytest.approx([0.3, 0.15])


def test_no_duration_is_nan_never_a_guess_and_never_flagged():
    # SmartBatching-like: latencies only
    df = frame(run_rows(0, 0, jit=50, extra=[("latency_mean", 1e5, "ns"), ("messages", 10, "count")]))
    f = harness.flagged(df)
    assert math.isnan(f["duration_ms"][0]) and math.isnan(f["jit_share"][0])
    assert not f["flagged"][0] and f["reason"][0] == ""


def test_phases_pair_with_their_own_duration():
    # SequentialIo: write_ and read_ phases in one row set
    df = frame(run_rows(0, 1, duration_ns=100e6, jit=1, phase="write"),
               run_rows(0, 1, duration_ns=10e6, jit=1, phase="read"))
    s = harness.shares(df)
    assert dict(zip(s["phase"], s["jit_share"])) == pytest.approx({"write": 0.01, "read": 0.1})
    assert list(harness.flagged(df)["flagged"]) == [False, True]
    marked = harness.mark(df)
    assert marked["harness_flagged"].all()   # the read phase flags the whole run


def test_mark_flags_every_row_of_a_flagged_run_only():
    df = frame(run_rows(0, 0, duration_ns=10e6, jit=5, extra=[("throughput", 1.0, "ops/s")]),
               run_rows(0, 1, duration_ns=10e6, jit=0, extra=[("throughput", 2.0, "ops/s")]),
               run_rows(1, 0, duration_ns=10e6, jit=0))
    m = harness.mark(df)
    assert len(m) == len(df) and list(m.columns) == [*df.columns, "harness_flagged"]
    assert m.groupby(["fork", "iteration"])["harness_flagged"].agg(set).to_dict() == {
        (0, 0): {True}, (0, 1): {False}, (1, 0): {False}}


def test_rows_without_jit_gc_give_no_shares():
    # runs stored before the kernels recorded them, and the C kernels
    df = pd.DataFrame([dict(variant="v", fork=0, iteration=0, warmup=False, metric="duration", value=1e6, unit="ns")])
    assert harness.shares(df).empty and list(harness.shares(df).columns) == [
        "variant", "fork", "iteration", "warmup", *harness.COLUMNS]
    assert not harness.mark(df)["harness_flagged"].any()


def test_nan_keys_keep_runs_apart_and_unknown_units_are_not_converted():
    a = run_rows(0, 0, duration_ns=10e6, jit=1)
    b = run_rows(0, 0, duration_ns=10e6, jit=2)
    for r in b:
        r["threads"] = float("nan")   # a column one cell lacks
    df = frame(a, b)
    assert sorted(harness.shares(df)["jit_ms"]) == [1, 2]
    df.loc[df["metric"] == "duration", "unit"] = "furlongs"
    assert harness.shares(df)["duration_ms"].isna().all()


@pytest.mark.parametrize("limit", [0, 1, -0.1, 5, "5%", True])
def test_a_bad_limit_is_a_one_line_error(limit):
    with pytest.raises(ValueError, match="between 0 and 1"):
        harness.flagged(frame(run_rows(0, 0, duration_ns=1e6)), limit=limit)


def test_rows_without_metric_or_value_are_refused():
    with pytest.raises(ValueError, match="expected tidy rows with metric and value"):
        harness.shares(pd.DataFrame({"fork": [0]}))


@pytest.mark.kernel
def test_a_kernels_own_rows_give_one_share_per_timed_run():
    from conftest import run_kernel

    df = run_kernel("mechsym.falsesharing.FalseSharing", "--layout=unpadded", "--threads=1", "--iterations=100000",
                    "--runs=2", "--warmup-runs=1").assign(fork=0)
    s = harness.shares(df)
    assert list(s["iteration"]) == [0, 1, 2] and (s["duration_ms"] > 0).all()
    assert (s["jit_share"] >= 0).all() and (s["gc_share"] >= 0).all()


def test_rows_without_a_metric_are_not_harness_rows():
    """An unavailable cell's row has no metric (NaN): it is neither a JIT/GC row nor an error."""
    from mechsym.run import harness

    assert harness._phase(float("nan")) is None and harness._phase("jit_ms") == "" \
        and harness._phase("write_gc_ms") == "write" and harness._phase("duration") is None


def test_drop_split_leaves_out_every_row_of_runs_whose_counters_straddled_two_lines():
    line = [("ns_per_op", 30.0, "ns/op"), ("counters_share_line", 1, "bool")]
    split = [("ns_per_op", 75.0, "ns/op"), ("counters_share_line", 0, "bool")]
    unread = [("ns_per_op", 31.0, "ns/op"), ("counters_share_line", -1, "bool")]
    df = frame(run_rows(0, 0, duration_ns=1e6, extra=line), run_rows(1, 0, duration_ns=1e6, extra=split),
               run_rows(1, 1, duration_ns=1e6, extra=split), run_rows(2, 0, duration_ns=1e6, extra=unread),
               run_rows(3, 0, variant="post", duration_ns=1e6, extra=split))
    kept, left_out = harness.drop_split(df)
    assert left_out == 3   # both protocols; a placement that could not be read is not a split
    assert sorted(set(zip(kept["fork"], kept["iteration"]))) == [(0, 0), (2, 0)]
    assert kept[kept["metric"] == "ns_per_op"]["value"].tolist() == [30.0, 31.0]


def test_drop_split_keeps_rows_that_say_nothing_of_placement():
    df = frame(run_rows(0, 0, duration_ns=1e6), run_rows(1, 0, duration_ns=1e6))
    kept, left_out = harness.drop_split(df)
    assert left_out == 0 and kept.equals(df)
    assert harness.drop_split(df.iloc[0:0])[1] == 0
