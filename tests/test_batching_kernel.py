"""The smart-batching kernel (notebook 11): both modes deliver every message exactly once, a dropped message
fails the run every time, the post protocol is one burst per run, an oversized message is refused. No test asserts
a timing."""

import pytest

from conftest import assert_refused, kernel_process, run_kernel
from mechsym.experiments import batching as exp

pytestmark = pytest.mark.kernel  # every test here runs a kernel or a sweep: serial

KERNEL = exp.sweep.KERNEL
SMALL = ("--burst=4", "--bursts=3", "--interval-us=1000", "--runs=2", "--warmup-runs=1")


def value(rows, metric, iteration=None):
    m = rows[(rows["metric"] == metric) & ~rows["warmup"]]
    return list(m["value"]) if iteration is None else float(m[m["iteration"] == iteration]["value"].iloc[0])


# ---------------------------------------------------------------- kernel

@pytest.mark.parametrize("mode", exp.MODES)
def test_every_message_is_written_once(mode):
    """The kernel's own check passed: every run carried 12 messages; serial in 12 packets, batching in at most 12;
    the warm-up run is marked."""
    rows = run_kernel(KERNEL, f"--mode={mode}", *SMALL)
    assert value(rows, "messages") == [12, 12]
    packets = value(rows, "packets")
    assert packets == [12, 12] if mode == "serial" else all(1 <= p <= 12 for p in packets)
    assert set(rows["mode"]) == {mode} and rows["warmup"].sum() == len(rows) / 3
    best, mean, worst = (value(rows, m) for m in ("latency_best", "latency_mean", "latency_worst"))
    assert all(b <= m <= w for b, m, w in zip(best, mean, worst))


@pytest.mark.parametrize("mode", exp.MODES)
@pytest.mark.parametrize("protocol", ["lab", "post"])
def test_a_dropped_message_fails_the_run(mode, protocol):
    bursts = "--bursts=1" if protocol == "post" else "--bursts=3"
    r = kernel_process(KERNEL, f"--mode={mode}", f"--protocol={protocol}", "--burst=3", bursts, "--runs=1",
                       "--warmup-runs=0", "--inject=drop-one")
    assert r.returncode == 3 and r.stdout == "", r.stderr
    assert "CHECK FAILED" in r.stderr and len(r.stderr.splitlines()) == 1


def test_the_post_protocol_is_one_burst_per_run():
    assert_refused(kernel_process(KERNEL, "--protocol=post", "--bursts=2"), "--bursts")
    rows = run_kernel(KERNEL, "--protocol=post", "--mode=batching", "--burst=5", "--warmup-runs=2")
    assert value(rows, "messages") == [5] and rows["warmup"].sum() == 2 * len(rows) / 3


def test_a_message_larger_than_the_packet_is_refused():
    assert_refused(kernel_process(KERNEL, "--packet-bytes=100", "--message-bytes=200"), "--message-bytes")
