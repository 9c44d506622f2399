import statistics
import time

import pytest

from conftest import java_kernel
from mechsym import bridge, launch
from mechsym.jdk import discover, select
from mechsym.launch import KernelError

KERNEL = "mechsym.locks.LockContention"
LOCKS = ["monitor", "reentrant", "atomic", "stamped"]


def run_kernel(*args, jdk=None, flags=()):
    r = java_kernel(KERNEL, *args, jdk=jdk, flags=flags)
    assert r.returncode == 0, r.stderr
    return launch.parse_csv(r.stdout)


@pytest.mark.parametrize("lock", LOCKS)
@pytest.mark.parametrize("workers", ["fresh", "reused"])
def test_every_lock_at_smoke_size(lock, workers):
    df = run_kernel(f"--lock={lock}", "--threads=3", "--iterations=30000", "--warmup-policy=short",
                    "--warmup-iterations=300", "--runs=2", f"--workers={workers}")
    assert set(df["metric"]) == {"duration", "throughput"}
    assert df["warmup"].sum() == 20 and (~df["warmup"]).sum() == 4  # 10 warm-ups + 2 runs, two metrics each
    assert (df["value"] > 0).all()
    assert set(df["unit"]) == {"ns", "ops/s"}


def test_single_warmup_is_one_full_run():
    df = run_kernel("--lock=monitor", "--threads=1", "--iterations=50000", "--warmup-policy=single", "--runs=1")
    assert df[df["metric"] == "duration"]["warmup"].tolist() == [True, False]


def test_every_jdk_runs_the_kernel():
    for jdk in discover():
        df = run_kernel("--lock=reentrant", "--threads=2", "--iterations=20000", "--runs=1", jdk=jdk)
        assert (df["status"] if "status" in df else df["value"]).notna().all()


def test_biased_locking_is_reported_by_the_kernel():
    df = run_kernel("--lock=monitor", "--iterations=1000", "--runs=1", jdk=select("17")[0],
                    flags=("-XX:+UseBiasedLocking", "-XX:BiasedLockingStartupDelay=0"))
    assert str(df["vm_biased_locking"].iloc[0]).lower() == "true"


def test_per_thread_pinning():
    df = run_kernel("--lock=atomic", "--threads=2", "--iterations=1000", "--runs=1", "--pin=0")
    assert df["pinning"].iloc[0] == "thread"


@pytest.mark.parametrize("args, message", [
    (["--lock=spin"], "--lock=spin: allowed values are monitor, reentrant, atomic, stamped"),
    (["--threads=0"], "--threads=0: out of range (allowed 1..4096)"),
    (["--threads=two"], "--threads=two: not a whole number"),
    (["--iterations=0"], "--iterations=0: out of range"),
    (["--warmup-policy=long"], "--warmup-policy=long: allowed values are single, short"),
    (["--colour=red"], "--colour: unknown argument"),
    (["threads=2"], "expected --name=value"),
])
def test_bad_arguments_exit_2_with_one_line(args, message):
    r = java_kernel(KERNEL, *args)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = [ln for ln in r.stderr.splitlines() if "warning" not in ln.lower()]
    assert len(lines) == 1 and message in lines[0]


def test_timeout_kills_the_kernel():
    cmd = launch.java_command(discover()[0], KERNEL, {"lock": "reentrant", "threads": 2, "iterations": 10**12})
    t0 = time.monotonic()
    with pytest.raises(KernelError, match="killed after its timeout of 1 s") as e:
        launch.run(cmd, timeout=1)
    assert e.value.kind == "timeout"
    assert time.monotonic() - t0 < 30


def test_in_process_call_through_jpype():
    k = bridge.kernel(KERNEL)
    assert list(k.locks()) == LOCKS
    meta = bridge.metadata(KERNEL)
    assert meta["lock"] == "monitor" and meta["warmup-policy"] == "short"
    ns = k.measure("reentrant", 2, 20000)
    assert ns > 0


def test_in_process_check_failure_and_bad_input_surface_as_exceptions():
    k = bridge.kernel(KERNEL)
    with pytest.raises(Exception, match="allowed values are"):
        k.measure("spin", 1, 10)
    with pytest.raises(Exception, match="must be at least 1"):
        k.measure("monitor", 0, 10)


def test_jpype_call_overhead_is_under_a_millisecond():
    # The bridge must add < 1 ms beyond the kernel's own (barrier-to-join) time.
    k = bridge.kernel(KERNEL)
    for _ in range(20):
        k.measure("atomic", 1, 1000)  # warm the path
    overheads = []
    for _ in range(30):
        ns, wall = bridge.timed_call(k.measure, "atomic", 1, 1000)
        overheads.append(wall - ns / 1e9)
    # includes starting and joining one Java thread, which is the kernel's, not the bridge's
    assert statistics.median(overheads) < 1e-3, overheads


@pytest.mark.parametrize("workers", ["fresh", "reused"])
def test_failed_counter_check_reports_no_number(workers):
    r = java_kernel(KERNEL, "--threads=2", "--iterations=1000", "--warmup-iterations=1000", f"--workers={workers}",
                    "--fault=drop-one")
    assert r.returncode == 3
    assert r.stdout == ""
    assert "CHECK FAILED: " in r.stderr and "expected 1000" in r.stderr.splitlines()[-1]


def test_sweep_stores_nothing_from_a_fork_that_failed_its_check(results_dir):
    import types

    from mechsym import MechsymError, store, sweep

    jdk = discover()[0]

    def cells(preset, topo, jdks):
        base = {"lock": "monitor", "threads": 2, "iterations": 1000, "warmup-iterations": 1000, "runs": 1}
        return [sweep.Cell("good", KERNEL, params=base, jdk=jdk, forks=1),
                sweep.Cell("bad", KERNEL, params={**base, "fault": "drop-one"}, jdk=jdk, forks=2)]

    module = types.SimpleNamespace(NAME="faulty", cells=cells)
    meta = sweep.execute(module, "smoke", progress=False)
    assert [f["kind"] for f in meta["failures"]] == ["check-failed", "check-failed"]
    df = store.load("faulty")
    assert set(df["variant"]) == {"good"}

    def only_bad(preset, topo, jdks):
        return cells(preset, topo, jdks)[1:]

    with pytest.raises(MechsymError, match="every fork failed; nothing stored"):
        sweep.execute(types.SimpleNamespace(NAME="faulty", cells=only_bad), "smoke", progress=False)
    assert len(store.runs("faulty")) == 1
