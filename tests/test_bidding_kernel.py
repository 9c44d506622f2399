"""The bidding kernel (notebook 15): every container passes its checks under both protocols, a dropped bid
fails every time, bad arguments are refused in one line, and the kernel runs in process through JPype. No test
asserts a timing."""

import pytest

from conftest import JIT_GC, assert_refused, kernel_process, run_kernel
from mechsym.run import bridge
from mechsym.experiments import bidding as exp

pytestmark = pytest.mark.kernel  # every test here runs a kernel or a sweep: serial

KERNEL = exp.sweep.KERNEL
SMALL = ("--clients=3", "--bids-per-item=40")


# ---------------------------------------------------------------- kernel

@pytest.mark.parametrize("container", list(exp.CONTAINERS))
def test_every_container_passes_its_checks_under_both_protocols(container):
    """lab: warm-ups marked, then measured simulations per item count; post: one simulation per item count."""
    for protocol, runs in (("lab", ("--runs=2", "--warmup-runs=1")), ("post", ())):
        rows = run_kernel(KERNEL, f"--container={container}", *SMALL, "--items=1,3", f"--protocol={protocol}", *runs)
        bids = rows[rows["metric"] == "bids"]
        per_count = 3 if protocol == "lab" else 1
        assert list(bids["items"]) == [1] * per_count + [3] * per_count
        assert list(bids["value"]) == [3 * 40 * 1] * per_count + [3 * 40 * 3] * per_count
        assert list(bids["warmup"].astype(str).str.lower()) == (["true", "false", "false"] * 2 if protocol == "lab"
                                                                else ["false", "false"])
        jitter = rows.loc[rows["metric"] == "jitter", "value"]
        assert (jitter >= 0).all() and (rows.loc[rows["metric"] == "bids_per_s", "value"] > 0).all()
        assert set(rows["metric"]) == {"duration", "bids", "bids_per_s", "jitter", "gc_events", "gc_pause_ms"} | JIT_GC
        same = rows.pivot_table(index="iteration", columns="metric", values="value")   # the older names, same figures
        assert (same["gc_events"] == same["gc_count"]).all() and (same["gc_pause_ms"] == same["gc_ms"]).all()


def test_one_client_has_no_jitter():
    rows = run_kernel(KERNEL, "--clients=1", "--items=2", "--bids-per-item=20", "--runs=1", "--warmup-runs=0")
    assert list(rows.loc[rows["metric"] == "jitter", "value"]) == [0]


@pytest.mark.parametrize("container,protocol", [("mutex-priority-queue", "lab"), ("rw-lock-list", "post"),
                                                ("cas-linked-queue", "lab"), ("cas-linked-queue", "post")])
def test_a_dropped_bid_fails_every_time(container, protocol):
    """The fault is in the client's bidding, before any container: each container and protocol fails, no number."""
    runs = ("--runs=2", "--warmup-runs=1") if protocol == "lab" else ()
    r = kernel_process(KERNEL, f"--container={container}", *SMALL, "--items=2,3", f"--protocol={protocol}", *runs,
                       "--inject=drop-bid")
    assert r.returncode == 3 and r.stdout == "", r.stderr
    assert "CHECK FAILED" in r.stderr and "bid keeper" in r.stderr and len(r.stderr.splitlines()) == 1


@pytest.mark.parametrize("args,name", [
    (("--items=0",), "--items"),
    (("--items=2,x",), "--items"),
    (("--container=skiplist",), "--container"),
    (("--protocol=post", "--runs=3"), "--runs"),
    (("--clients=1024", "--items=100000"), "--clients"),     # more bids than a simulation may hold
    (("--gc-between-runs=maybe",), "--gc-between-runs"),
])
def test_bad_arguments_are_refused_with_one_line(args, name):
    assert_refused(kernel_process(KERNEL, *args), name)


def test_in_process_through_jpype():
    k = bridge.kernel(KERNEL)
    assert list(k.containers()) == list(exp.CONTAINERS)
    meta = bridge.metadata(KERNEL)
    assert meta["container"] == "cas-linked-queue" and meta["map-capacity"] == "16" and meta["bids-per-item"] == "1000"
