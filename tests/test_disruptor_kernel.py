"""The Disruptor kernel (notebook 17): its channels, each run printed as rows, a skipped event failing the
run, and the post protocol warming nothing up. No test asserts a timing number."""


import numpy as np
import pytest

from conftest import java_kernel
from mechsym.run import bridge, launch
from mechsym.experiments import disruptor as exp

pytestmark = pytest.mark.kernel  # every test here runs a kernel or a sweep: serial


# ---------------------------------------------------------------- the kernel

def test_channels_are_the_kernels_own():
    assert list(bridge.kernel(exp.KERNEL).channels()) == list(exp.CHANNELS)


def test_a_run_prints_each_run_as_rows(channel="disruptor-blocking"):
    # every channel runs in the CLI smoke run below; this one checks the rows' shape
    r = java_kernel(exp.KERNEL, f"--channel={channel}", "--events=3000", "--runs=2", "--warmup-runs=1", "--size=64")
    assert r.returncode == 0, r.stderr
    df = launch.parse_csv(r.stdout)
    assert set(df["channel"]) == {channel} and set(df["pinning"]) == {"none"}
    assert df.groupby("iteration")["warmup"].first().tolist() == [True, False, False]
    w = df.pivot_table(index="iteration", columns="metric", values="value")
    assert np.allclose(w["throughput"], 3000 * 1e9 / w["duration"], rtol=1e-4)


@pytest.mark.parametrize("channel", ["abq", "jctools"])
def test_a_skipped_event_fails_the_run_on_queues_too(channel):
    r = java_kernel(exp.KERNEL, f"--channel={channel}", "--events=1000", "--runs=1", "--inject=skip")
    assert r.returncode == 3 and r.stdout == ""
    assert "CHECK FAILED" in r.stderr and "out of order" in r.stderr


def test_post_protocol_warms_nothing_up():
    r = java_kernel(exp.KERNEL, "--protocol=post", "--warmup-runs=1")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "--warmup-runs=1" in r.stderr
    r = java_kernel(exp.KERNEL, "--size=48")
    assert r.returncode == 2 and "power of two" in r.stderr
