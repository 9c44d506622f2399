"""The atomic-counter kernels (mechsym.atomic.AtomicIncrement, build/c/atomic_counter): every variant counts every
increment exactly once under both protocols, the injected fault is caught for every variant, the C variants are the
instructions they are named for, and the Java kernel answers in process through JPype. No test asserts a timing."""

import subprocess

import pandas as pd
import pytest

from conftest import JIT_GC, ROOT, kernel_process
from mechsym.run import bridge
from mechsym.experiments.atomiclong import sweep as sweep_mod

JAVA = sweep_mod.JAVA
KERNELS = {**{v: JAVA for v in sweep_mod.JAVA_VARIANTS}, **{v: sweep_mod.C_BINARY for v in sweep_mod.C_VARIANTS}}


def run(variant, *args):
    p = kernel_process(KERNELS[variant], f"--variant={variant}", *args)
    assert p.returncode == 0, p.stderr
    from io import StringIO
    return pd.read_csv(StringIO(p.stdout))


@pytest.mark.kernel
@pytest.mark.parametrize("protocol", ["lab", "post"])
@pytest.mark.parametrize("variant", list(KERNELS))
def test_every_increment_counted_once(variant, protocol):
    """3 threads, a count that does not divide by 3: the kernel's own check passes and it reports what it made."""
    df = run(variant, f"--protocol={protocol}", "--threads=3", "--count=30001", "--runs=2", "--warmup-runs=1")
    inc = df[df["metric"] == "increments"]
    assert list(inc["iteration"]) == [0, 1, 2] and list(inc["warmup"]) == [True, False, False]
    if variant in ("long-adder", "add"):
        assert (inc["value"] == 30000).all()          # 3 x (30001 // 3): each thread its share, as run_add
    else:
        assert inc["value"].between(30001, 30004).all()   # a thread may pass the total by its last increment
    ns = df[df["metric"] == "ns_per_op"]["value"]
    assert (ns > 0).all() and set(df["pinning"]) == {"none"}
    jit_gc = JIT_GC if KERNELS[variant] == JAVA else set()   # C has no JIT
    cas = {"cas_failures_per_op"} if variant == "cas-loop" else set()
    assert set(df["metric"]) == {"duration", "increments", "ns_per_op", "throughput"} | jit_gc | cas
    failures = df[df["metric"] == "cas_failures_per_op"]["value"]
    # only the CAS loop counts its failed attempts (the XADD loops stay as they were), one row per run
    assert len(failures) == (3 if variant == "cas-loop" else 0) and (failures >= 0).all()


@pytest.mark.kernel
def test_one_thread_never_fails_a_cas():
    """Nothing competes with a lone thread: its failed-CAS count is exactly 0, so a count above 0 means contention."""
    df = run("cas-loop", "--threads=1", "--count=20000", "--runs=2")
    f = df[df["metric"] == "cas_failures_per_op"]
    assert len(f) == 2 and (f["value"] == 0).all() and set(f["unit"]) == {"ratio"}


@pytest.mark.kernel
@pytest.mark.parametrize("variant", list(KERNELS))
def test_injected_fault_fails_the_check_every_time(variant):
    for threads in (1, 2, 4):
        p = kernel_process(KERNELS[variant], f"--variant={variant}", f"--threads={threads}", "--count=20000",
                           "--inject=skip")
        assert p.returncode == 3 and p.stdout == "", (variant, threads, p.stderr)
        assert "CHECK FAILED" in p.stderr and len(p.stderr.strip().splitlines()) == 1


@pytest.mark.kernel
def test_kernels_know_the_sweeps_variants():
    for kernel, variants in ((JAVA, sweep_mod.JAVA_VARIANTS), (sweep_mod.C_BINARY, sweep_mod.C_VARIANTS)):
        p = kernel_process(kernel, "--variant=nope")
        assert p.returncode == 2 and all(v in p.stderr for v in variants), p.stderr


def test_c_variants_are_the_instructions_they_are_named_for(tmp_path):
    """gcc -O2 (the Makefile's flags) makes LOCK XADD, LOCK ADD and LOCK CMPXCHG of the three loops."""
    asm = tmp_path / "atomic_counter.s"
    subprocess.run(["gcc", "-O2", "-pthread", "-S", "-o", str(asm), str(ROOT / "c-src" / "atomic_counter.c")],
                   check=True)
    text = asm.read_text()
    assert "lock xaddq" in text and "lock addq\t$1" in text and "lock cmpxchgq" in text


@pytest.mark.kernel
def test_in_process_through_jpype():
    k = bridge.kernel(JAVA)
    assert list(k.variants()) == sweep_mod.JAVA_VARIANTS
    assert bridge.metadata(JAVA)["count"] == "500000000" and bridge.metadata(JAVA)["protocol"] == "post"
    import jpype
    counts, failures = jpype.JArray(jpype.JLong)(2), jpype.JArray(jpype.JLong)(2)
    assert int(k.measure(False, "cas-loop", 2, 5000, counts, failures, False)) > 0
    assert 5000 <= sum(int(c) for c in counts) <= 5002 and min(int(f) for f in failures) >= 0
