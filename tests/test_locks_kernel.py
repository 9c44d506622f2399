"""mechsym.locks.LockContention at smoke size: every lock and worker mode, warm-up policies, the JVM options it
reports, its check, in-process calls.

The contract every kernel shares (bad, unknown and duplicated arguments, the injected fault, the CSV columns)
is in tests/test_kernel_contract.py. No test asserts a timing number."""

import functools

import pytest

from conftest import assert_refused, java_kernel, without_jit_gc
from conftest import run_kernel as _run_kernel
from mechsym.run import bridge, launch
from mechsym.machine.jdk import discover, select
from mechsym.run.launch import KernelError

pytestmark = pytest.mark.kernel  # every test here runs a kernel or a sweep: serial

KERNEL = "mechsym.locks.LockContention"
LOCKS = ["monitor", "reentrant", "atomic", "stamped"]
run_kernel = functools.partial(_run_kernel, KERNEL)


@pytest.mark.parametrize("lock", LOCKS)
@pytest.mark.parametrize("workers", ["fresh", "reused"])
def test_every_lock_at_smoke_size(lock, workers):
    df = run_kernel(f"--lock={lock}", "--threads=3", "--iterations=30000", "--warmup-policy=short",
                    "--warmup-iterations=300", "--runs=2", f"--workers={workers}")
    df = without_jit_gc(df)
    assert set(df["metric"]) == {"duration", "throughput"}
    assert df["warmup"].sum() == 20 and (~df["warmup"]).sum() == 4  # 10 warm-ups + 2 runs, two metrics each
    assert (df["value"] > 0).all()
    assert set(df["unit"]) == {"ns", "ops/s"}


def test_single_warmup_is_one_full_run():
    df = run_kernel("--lock=monitor", "--threads=1", "--iterations=50000", "--warmup-policy=single", "--runs=1")
    assert df[df["metric"] == "duration"]["warmup"].tolist() == [True, False]


def test_every_jdk_runs_the_kernel_and_reports_its_biased_locking_option():
    # two contending threads pass the counter check on every JDK; the option column is what that JVM has:
    # UseBiasedLocking exists (off by default since JDK 15) up to JDK 17 and is gone from JDK 18 on
    for jdk in discover():
        df = run_kernel("--lock=reentrant", "--threads=2", "--iterations=20000", "--runs=1", jdk=jdk)
        reported = set(df["vm_biased_locking"].astype(str).str.lower())
        assert reported == ({"absent"} if jdk.feature >= 18 else {"false"}), (jdk.feature, reported)


def test_biased_locking_is_reported_by_the_kernel():
    df = run_kernel("--lock=monitor", "--iterations=1000", "--runs=1", jdk=select("17")[0],
                    flags=("-XX:+UseBiasedLocking", "-XX:BiasedLockingStartupDelay=0"))
    assert str(df["vm_biased_locking"].iloc[0]).lower() == "true"


def test_per_thread_pinning():
    df = run_kernel("--lock=atomic", "--threads=2", "--iterations=1000", "--runs=1", "--pin=0")
    assert df["pinning"].iloc[0] == "thread"


def test_pinning_to_a_cpu_that_is_not_online_is_a_bad_argument():
    # refused when the arguments are read, before any thread starts (a taskset failing later is exit 1)
    r = java_kernel(KERNEL, "--threads=2", "--iterations=1000", "--pin=0,4095")
    assert_refused(r, "--pin")
    assert "CPU 4095 is not online" in r.stderr


@pytest.mark.parametrize("args, name, message", [
    (["--lock=spin"], "--lock", "allowed values are monitor, reentrant, atomic, stamped"),
    (["--warmup-policy=long"], "--warmup-policy", "allowed values are single, short"),
    (["--workers=pooled"], "--workers", "allowed values are fresh, reused"),
])
def test_unknown_names_list_the_known_ones(args, name, message):
    r = java_kernel(KERNEL, *args)
    assert_refused(r, name)
    assert message in r.stderr


def test_timeout_kills_the_kernel():
    cmd = launch.java_command(discover()[0], KERNEL, {"lock": "reentrant", "threads": 2, "iterations": 10**12})
    with pytest.raises(KernelError, match="killed after its timeout of 1 s") as e:
        launch.run(cmd, timeout=1)
    assert e.value.kind == "timeout"


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


def test_a_timed_call_through_jpype_returns_the_kernels_duration():
    # The call works and its result is sane: a positive duration (the kernel's own, barrier to join) that
    # fits inside the wall-clock time of the Python call around it. How much the bridge adds is measured and
    # reported, never asserted.
    k = bridge.kernel(KERNEL)
    ns, wall = bridge.timed_call(k.measure, "atomic", 1, 1000)
    assert isinstance(int(ns), int) and 0 < ns <= wall * 1e9


@pytest.mark.parametrize("workers", ["fresh", "reused"])
def test_failed_counter_check_reports_no_number(workers):
    r = java_kernel(KERNEL, "--threads=2", "--iterations=1000", "--warmup-iterations=1000", f"--workers={workers}",
                    "--inject=drop-one")
    assert r.returncode == 3
    assert r.stdout == ""
    assert "CHECK FAILED: " in r.stderr and "expected 1000" in r.stderr.splitlines()[-1]


def test_sweep_stores_nothing_from_a_fork_that_failed_its_check(results_dir):
    import types

    from mechsym import MechsymError
    from mechsym.store import runs as store
    from mechsym.run import sweep

    jdk = discover()[0]

    def cells(preset, topo, jdks):
        base = {"lock": "monitor", "threads": 2, "iterations": 1000, "warmup-iterations": 1000, "runs": 1}
        return [sweep.Cell("good", KERNEL, params=base, jdk=jdk, forks=1),
                sweep.Cell("bad", KERNEL, params={**base, "inject": "drop-one"}, jdk=jdk, forks=2)]

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
