"""Write-combining kernels (notebook 07): mechsym.writecombining.WriteCombining and build/c/writecombining.

Smoke-size runs only; no test asserts a timing number. The kernel contract (bad, unknown and repeated arguments,
the injected fault, the smoke columns) is tests/test_kernel_contract.py's."""

import subprocess

import numpy as np
import pytest

from conftest import ROOT, java_kernel, without_jit_gc
from mechsym.run import bridge, launch
from mechsym.experiments import writecombining as exp

pytestmark = pytest.mark.kernel  # every test here runs a kernel or a sweep: serial

JAVA = exp.KERNEL
C_BIN = ROOT / "build" / "c" / "writecombining"
KINDS = [JAVA, "c"]
IDS = ["java", "c"]
SMALL = ["--items=4096", "--iterations=20000"]
PER_RUN = {"duration", "stores", "ns_per_store"}


def kernel(kind, *args, timeout=60):
    if kind == "c":
        if not C_BIN.exists():
            pytest.fail(f"{C_BIN} missing: run `make`")
        return subprocess.run([str(C_BIN), *args], capture_output=True, text=True, timeout=timeout)
    return java_kernel(kind, *args, timeout=timeout)


def run(kind, *args):
    """The kernel's rows; the Java kernel's JIT and GC rows (which C has not) checked present and left out."""
    r = kernel(kind, *args)
    assert r.returncode == 0, r.stderr
    df = launch.parse_csv(r.stdout)
    return df if kind == "c" else without_jit_gc(df)


def wide(df):
    return df.pivot_table(index=["per_loop", "iteration"], columns="metric", values="value")


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
@pytest.mark.parametrize("arrays, per_loop", [(1, 1), (3, 3), (6, 6), (6, 3), (12, 12)])
def test_lab_protocol_rows(kind, arrays, per_loop):
    df = run(kind, *SMALL, f"--arrays={arrays}", f"--per-loop={per_loop}", "--runs=2", "--warmup-runs=1")
    assert list(df.columns) == ["arrays", "per_loop", "iteration", "warmup", "metric", "value", "unit"]
    assert set(df["arrays"]) == {arrays} and set(df["per_loop"]) == {per_loop}
    assert set(df["metric"]) == PER_RUN
    assert df.groupby("iteration")["warmup"].first().tolist() == [True, False, False]
    w = wide(df)
    assert (w["stores"] == 19999 * arrays).all()   # while (--i != 0): iterations - 1 writes per array
    assert np.allclose(w["ns_per_store"], w["duration"] / w["stores"], rtol=1e-4)
    assert dict(zip(df["metric"], df["unit"])) == {"duration": "ns", "stores": "count", "ns_per_store": "ns"}


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_post_protocol_is_the_listings_main(kind):
    """Three repetitions of SingleLoop (one loop of 6) then SplitLoop (two loops of 3), no warm-up."""
    df = run(kind, "--protocol=post", *SMALL)
    assert set(df["arrays"]) == {6} and not df["warmup"].any()
    order = df.drop_duplicates(["iteration", "per_loop"])[["iteration", "per_loop"]].values.tolist()
    assert order == [[0, 6], [0, 3], [1, 6], [1, 3], [2, 6], [2, 3]]
    assert (wide(df)["stores"] == 19999 * 6).all()


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
@pytest.mark.parametrize("iterations", ["--iterations=2", "--iterations=4096", "--iterations=4097",
                                        "--iterations=50000"])
def test_check_passes_when_the_loops_wrap_or_not(kind, iterations):
    """Slot 0 is written only once the index wraps (iterations - 1 >= items): both sides of it pass the check."""
    df = run(kind, "--items=4096", iterations, "--arrays=6", "--per-loop=3", "--runs=2", "--warmup-runs=0")
    assert len(df) == 2 * len(PER_RUN)


@pytest.mark.parametrize("protocol", ["lab", "post"])
@pytest.mark.parametrize("kind", KINDS, ids=IDS)
def test_dropped_array_fails_the_check_every_time(kind, protocol):
    shapes = [[]] + ([] if protocol == "post" else [["--arrays=1"], ["--arrays=12"], ["--per-loop=3"]])
    for shape in shapes:
        for _ in range(3):
            r = kernel(kind, f"--protocol={protocol}", *SMALL, "--inject=drop-array", *shape)
            assert r.returncode == 3, r.stderr
            assert r.stdout == ""
            lines = r.stderr.strip().splitlines()
            assert len(lines) == 1 and "CHECK FAILED" in lines[0] and "array" in lines[0], lines


BAD = [
    (["--protocol=listing"], "--protocol=listing: allowed values are lab, post"),
    (["--protocol=post", "--arrays=3"], "--protocol=post runs the listing"),
    (["--protocol=post", "--warmup-runs=1"], "--protocol=post runs the listing"),
    (["--arrays=7", "--per-loop=3"], "--per-loop=3: allowed --per-loop=7 (one loop of the 7 arrays) or"),
    (["--arrays=13"], "--arrays=13: out of range"),
    (["--items=1000"], "--items=1000: must be a power of two"),
    (["--iterations=2147483648"], "--iterations=2147483648: out of range"),
    (["--inject=boom"], "--inject=boom: allowed values are none, drop-array"),
]


@pytest.mark.parametrize("kind", KINDS, ids=IDS)
@pytest.mark.parametrize("args, message", BAD, ids=[b[1][:28] for b in BAD])
def test_bad_arguments_exit_2_with_one_line(kind, args, message):
    r = kernel(kind, *args)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert r.stdout == "" and len(lines) == 1 and message in lines[0], lines


def test_java_and_c_print_the_same_csv_shape():
    args = [*SMALL, "--arrays=6", "--per-loop=3", "--runs=1", "--warmup-runs=1"]
    j, c = run(JAVA, *args), run("c", *args)
    assert list(j.columns) == list(c.columns)
    for col in ("arrays", "per_loop", "iteration", "warmup", "metric", "unit"):
        assert list(j[col]) == list(c[col])
    assert list(j.loc[j["metric"] == "stores", "value"]) == list(c.loc[c["metric"] == "stores", "value"])


def test_protocols_are_the_kernels_own():
    """Python's protocols equal the Java kernel's (through JPype) and the C kernel's (its bad-argument message)."""
    assert list(bridge.kernel(JAVA).protocols()) == exp.PROTOCOL_NAMES
    r = kernel("c", "--protocol=x")
    assert r.returncode == 2 and f"allowed values are {', '.join(exp.PROTOCOL_NAMES)}" in r.stderr


def test_defaults_through_jpype():
    meta = bridge.metadata(JAVA)
    assert meta["protocol"] == "lab" and meta["items"] == str(1 << 24) and meta["arrays"] == "6"
    assert int(bridge.kernel(JAVA).MAX_ARRAYS) == 12 == max(exp.PRESETS["full"]["arrays"])
