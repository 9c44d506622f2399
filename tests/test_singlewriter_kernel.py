"""The single-writer kernels (notebook 10), Java and C: every method counts every increment under both
protocols, a lost increment fails every method every time, bad arguments are refused in one line, pinned threads
say so, the kernel runs in process through JPype, and the C methods are the sweep's. No test asserts a timing."""

import pytest

from conftest import ROOT, assert_refused, kernel_process, run_kernel
from mechsym.run import bridge
from mechsym.experiments import singlewriter as exp

JAVA, C = exp.sweep.KERNEL, "c:" + exp.sweep.C_BINARY
KERNELS = [(JAVA, m) for m in exp.JAVA_METHODS] + [(C, m) for m in exp.C_METHODS]
IDS = [f"{k.rsplit('.', 1)[-1].removeprefix('c:')}-{m}" for k, m in KERNELS]


def threads_for(method):
    return 2 if method in ("cas", "lock") else 1


# ---------------------------------------------------------------- kernels

@pytest.mark.kernel
@pytest.mark.parametrize("kernel,method", KERNELS, ids=IDS)
@pytest.mark.parametrize("protocol", ["lab", "post"])
def test_every_method_counts_every_increment(kernel, method, protocol):
    """The kernel's own check (counter == threads x share) passed: one row per run and metric, warm-ups marked."""
    warm = "1" if protocol == "lab" else "0"
    rows = run_kernel(kernel, f"--method={method}", f"--threads={threads_for(method)}", "--iterations=20000",
                      "--runs=2", f"--warmup-runs={warm}", f"--protocol={protocol}")
    ns = rows[rows["metric"] == "ns_per_op"]
    assert len(ns) == 2 + int(warm) and (ns["value"] >= 0).all()
    assert list(ns["warmup"].astype(str).str.lower()) == ["true"] * int(warm) + ["false", "false"]
    assert set(rows.loc[rows["metric"] == "increments", "value"]) == {20000}


@pytest.mark.kernel
@pytest.mark.parametrize("kernel,method", KERNELS, ids=IDS)
@pytest.mark.parametrize("threads", [1, 2])
def test_lost_increment_fails_every_method_every_time(kernel, method, threads):
    if threads == 2 and method not in ("cas", "lock"):
        pytest.skip("one thread only")
    for protocol in ("lab", "post"):
        r = kernel_process(kernel, f"--method={method}", f"--threads={threads}", "--iterations=10000", "--runs=2",
                           "--warmup-runs=0", f"--protocol={protocol}", "--inject=lose-one")
        assert r.returncode == 3 and r.stdout == "", r.stderr
        assert "CHECK FAILED" in r.stderr and len(r.stderr.splitlines()) == 1


@pytest.mark.kernel
@pytest.mark.parametrize("kernel", [JAVA, C], ids=["java", "c"])
@pytest.mark.parametrize("args,name", [
    (("--method=plain", "--threads=2"), "--threads"),        # two writers would lose updates
    (("--method=cas", "--threads=2", "--iterations=1001"), "--iterations"),   # not a multiple of the threads
    (("--protocol=post", "--warmup-runs=1"), "--warmup-runs"),                 # the post warms nothing up
    (("--method=nope",), "--method"),
    (("--method=lock", "--threads=2", "--pin=0"), "--pin"),                     # one CPU per thread
])
def test_bad_arguments_are_refused_with_one_line(kernel, args, name):
    size = [] if any(a.startswith("--iterations=") for a in args) else ["--iterations=1000"]
    assert_refused(kernel_process(kernel, *size, *args), name)


@pytest.mark.kernel
def test_pinned_two_threads_say_so():
    for kernel in (JAVA, C):
        rows = run_kernel(kernel, "--method=lock", "--threads=2", "--iterations=2000", "--runs=1",
                          "--warmup-runs=0", "--pin=0,0")
        assert set(rows["pinning"]) == {"thread"}


@pytest.mark.kernel
def test_in_process_through_jpype():
    k = bridge.kernel(JAVA)
    assert list(k.methods()) == exp.JAVA_METHODS and list(k.protocols()) == exp.sweep.PROTOCOL_NAMES
    meta = bridge.metadata(JAVA)
    assert meta["method"] == "plain" and meta["protocol"] == "lab" and meta["threads"] == "1"


def test_c_methods_match_the_sweep():
    text = (ROOT / "c-src" / "single_writer.c").read_text()
    for m in exp.C_METHODS:
        assert f'"{m}"' in text
