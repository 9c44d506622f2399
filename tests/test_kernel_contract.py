"""The kernel contract of DESIGN.md ("Kernels"), checked on every kernel of mechsym.run.kernels.KERNELS.

- a bad argument value, an unknown argument, an argument given twice: exit 2, nothing on stdout, exactly
  one line on stderr naming the argument;
- the test-only fault: exit 3 and nothing on stdout (no number from a run that failed its check);
- a smoke run: exit 0, CSV whose header is the registered columns, ending with the common ones; a Java
  kernel's timed runs each carry their JIT and GC time (jit_ms, gc_ms, gc_count: common/JitGc.java).

A kernel's own behaviour (variants, checks under stress, in-process calls) is tested in its own file.
No test asserts a timing."""

import re

import pytest

from conftest import ROOT, assert_refused, kernel_process
from mechsym.run import kernels, launch
from mechsym.run.kernels import COMMON_COLUMNS, KERNELS

IDS = [k.short for k in KERNELS]
MAIN = re.compile(r"public\s+static\s+void\s+main\s*\(\s*(final\s+)?String\s*(\[\]|\.\.\.)\s*\w+\s*\)")


def run(kernel, tmp_path, *extra):
    return kernel_process(kernel.name, *kernel.args(*extra, scratch=tmp_path))


def test_the_registry_lists_every_kernel():
    """Every Java class with a main and every C source is registered, and nothing else is."""
    java = set()
    for path in (ROOT / "java-src").rglob("*.java"):
        if MAIN.search(path.read_text()):
            java.add(".".join(path.relative_to(ROOT / "java-src").with_suffix("").parts))
    c = {f"c:{p.stem}" for p in (ROOT / "c-src").glob("*.c")}
    assert java | c == set(kernels.BY_NAME)


def test_the_registry_refuses_an_entry_without_fault_or_reason():
    with pytest.raises(ValueError, match="give either fault arguments or the reason"):
        kernels.Kernel("x.Y", smoke=(), bad=("--a=0", "--a"), columns=COMMON_COLUMNS)
    with pytest.raises(ValueError, match="columns must end with iteration, warmup, metric, value, unit"):
        kernels.Kernel("x.Y", smoke=(), bad=("--a=0", "--a"), columns=("value", "unit"), fault=("--f=1",))


@pytest.mark.parametrize("kernel", KERNELS, ids=IDS)
def test_bad_argument_value_exits_2_with_one_line_naming_it(kernel, tmp_path):
    value, name = kernel.bad
    assert_refused(run(kernel, tmp_path, value), name)


@pytest.mark.parametrize("kernel", KERNELS, ids=IDS)
def test_unknown_argument_exits_2_with_one_line_naming_it(kernel, tmp_path):
    assert_refused(run(kernel, tmp_path, "--no-such-argument=1"), "--no-such-argument")


@pytest.mark.parametrize("kernel", KERNELS, ids=IDS)
def test_argument_not_in_name_value_form_exits_2_with_one_line_naming_it(kernel, tmp_path):
    assert_refused(run(kernel, tmp_path, "no-dashes=1"), "no-dashes=1")


@pytest.mark.parametrize("kernel", KERNELS, ids=IDS)
def test_duplicated_argument_exits_2_with_one_line_naming_it(kernel, tmp_path):
    # the smoke arguments, then the first of them again: each value alone is valid
    first = kernel.smoke[0]
    args = kernel.args(scratch=tmp_path)
    r = kernel_process(kernel.name, *args, args[0])
    assert_refused(r, first.split("=", 1)[0])


@pytest.mark.kernel
@pytest.mark.parametrize("kernel", KERNELS, ids=IDS)
def test_injected_fault_exits_3_and_prints_nothing(kernel, tmp_path):
    if kernel.fault is None:
        pytest.skip(f"{kernel.short}: {kernel.no_fault}")
    r = run(kernel, tmp_path, *kernel.fault)
    assert r.returncode == 3, f"exit {r.returncode}\nstderr: {r.stderr}"
    assert r.stdout == ""
    assert any("CHECK FAILED" in line for line in r.stderr.splitlines()), r.stderr


@pytest.mark.kernel
@pytest.mark.parametrize("kernel", KERNELS, ids=IDS)
def test_smoke_run_exits_0_with_the_agreed_columns(kernel, tmp_path):
    r = run(kernel, tmp_path)
    assert r.returncode == 0, f"exit {r.returncode}\nstderr: {r.stderr}"
    header = r.stdout.splitlines()[0].split(",")
    assert tuple(header) == kernel.columns
    assert tuple(header[-len(COMMON_COLUMNS):]) == COMMON_COLUMNS
    df = launch.parse_csv(r.stdout)  # numeric values, boolean warm-up flags, at least one row
    assert (df["iteration"] >= 0).all()
    assert (~df["warmup"]).any(), "no measured (non-warm-up) row"
    assert df["metric"].notna().all() and df["unit"].notna().all()
    if not kernel.is_c:
        assert_jit_and_gc_time_per_timed_run(kernel, df)


HARNESS = ("jit_ms", "gc_ms", "gc_count")


def assert_jit_and_gc_time_per_timed_run(kernel, df):
    """Each row set with a time in it (unit ns or ns/op) has jit_ms, gc_ms and gc_count under the same keys
    (or <phase>_jit_ms ... beside <phase>_duration), whole non-negative numbers; a kernel without them says why."""
    harness = df["metric"].str.endswith(HARNESS)
    if kernel.no_jit_gc:
        assert not harness.any(), f"{kernel.short} says it has no JIT/GC rows ({kernel.no_jit_gc}) but prints them"
        return
    assert harness.any(), f"{kernel.short}: no jit_ms/gc_ms rows; record them (common/JitGc) or give no_jit_gc"
    values = df.loc[harness, "value"]
    assert (values >= 0).all() and (values == values.round()).all(), df[harness]
    keys = [c for c in df.columns if c not in ("metric", "value", "unit")]
    for key, group in df.groupby(keys, dropna=False):
        timed = group.loc[group["unit"].isin(["ns", "ns/op"]), "metric"]
        if timed.empty:
            continue
        phases = {m.removesuffix("duration") for m in timed if m.endswith("duration")} or {""}
        for phase in phases:
            have = set(group["metric"])
            assert {phase + h for h in HARNESS} <= have, (kernel.short, key, phase, sorted(have))
