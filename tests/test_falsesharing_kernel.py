"""False-sharing kernels (notebook 06): FalseSharing (the listing's loop per layout) and CounterLayout (JOL).

Smoke-size runs only; layout tests assert the property (a >= 64-byte gap, padding kept), never exact offsets and
never a timing."""

import pytest

from conftest import JIT_GC, java_kernel
from mechsym.run import bridge, launch
from mechsym.machine.cpus import read_topology
from mechsym.experiments import falsesharing as exp
from mechsym.machine.jdk import discover

pytestmark = pytest.mark.kernel  # every test here runs a kernel or a sweep: serial

KERNEL = "mechsym.falsesharing.FalseSharing"
LAYOUT = "mechsym.falsesharing.CounterLayout"
CONTENDED = ("-XX:-RestrictContended",)
TWO = "--pin=0,1" if read_topology().logical >= 2 else "--pin=0,0"
SMALL = ("--threads=2", "--iterations=20000", "--runs=2", "--warmup-runs=1")
JDKS = {j.feature: j for j in discover()}


def run(*args, flags=(), jdk=None, kernel=KERNEL):
    r = java_kernel(kernel, *args, flags=flags, jdk=jdk)
    assert r.returncode == 0, r.stderr
    return launch.parse_csv(r.stdout)


@pytest.mark.parametrize("layout", list(exp.LAYOUTS))
def test_every_layout_runs_checks_and_reports_each_run(layout):
    df = run(f"--layout={layout}", *SMALL, TWO, flags=exp.LAYOUTS[layout][0])
    assert set(df["metric"]) == {"duration", "ns_per_op", "throughput", "array_offset", "array_shares_line"} | JIT_GC
    assert sorted(df["iteration"].unique()) == [0, 1, 2]
    assert list(df.drop_duplicates("iteration")["warmup"]) == [True, False, False]
    timed = df[df["metric"].isin(["duration", "ns_per_op", "throughput"])]
    assert (timed["value"] > 0).all() and set(df["pinning"]) == {"thread"}


def _placed(layout, offset):
    df = run(f"--layout={layout}", "--threads=2", "--iterations=1000", "--runs=1", "--warmup-runs=0",
             f"--array-offset={offset}")
    get = lambda metric: int(df.loc[df["metric"] == metric, "value"].iloc[0])
    return get("array_offset"), get("array_shares_line")


def test_the_array_lands_where_asked_and_padding_after_the_value_can_share_its_line():
    placed = {b: _placed("padded-atomic", b) for b in range(0, 64, 8)}
    assert all(at == b for b, (at, _) in placed.items())
    # padding after the value only: at some bytes counter 0 shares the array's line, at others not
    assert {shares for _, shares in placed.values()} == {0, 1}


@pytest.mark.parametrize("offset", [0, 24, 56])
def test_padding_before_the_value_never_shares_the_arrays_line(offset):
    assert _placed("inherited", offset) == (offset, 0)


@pytest.mark.parametrize("protocol", ["post", "lab"])
def test_post_protocol_is_one_cold_run_by_default(protocol):
    df = run(f"--protocol={protocol}", "--threads=3", "--iterations=20000")
    runs = df.drop_duplicates("iteration")
    assert len(runs) == (1 if protocol == "post" else 6) and set(df["pinning"]) == {"none"}
    assert runs["warmup"].tolist() == ([False] if protocol == "post" else [True] + [False] * 5)


@pytest.mark.parametrize("protocol", ["post", "lab"])
@pytest.mark.parametrize("layout", ["unpadded", "padded-atomic", "array-stride"])
def test_a_counter_short_stores_no_number(layout, protocol):
    r = java_kernel(KERNEL, f"--layout={layout}", f"--protocol={protocol}", *SMALL, "--inject=short")
    assert r.returncode == 3 and r.stdout == ""
    assert "CHECK FAILED" in r.stderr and "counter 0 ends at 3" in r.stderr


@pytest.mark.parametrize("args,message", [
    (("--layout=padded",), "--layout=padded: allowed values are unpadded, padded-longs"),
    (("--threads=2", "--pin=0"), "--pin=0: give two CPU ids"),
    (("--threads=0",), "--threads=0: out of range"),
    (("--iterations=2",), "--iterations=2: out of range"),
    (("--protocol=jmh",), "--protocol=jmh: allowed values are lab, post"),
    (("--array-offset=12",), "--array-offset=12: allowed values are as-allocated, random, 0, 8"),
    (("--stride=8",), "--stride: unknown argument"),
])
def test_bad_arguments_exit_2_with_one_line(args, message):
    r = java_kernel(KERNEL, *args)
    assert r.returncode == 2 and r.stdout == "" and message in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


# ---------------------------------------------------------------- JOL layouts

@pytest.fixture(scope="module", params=sorted(JDKS), ids=lambda f: f"jdk{f}")
def layouts(request):
    """CounterLayout's rows on one JDK, with -XX:-RestrictContended as the sweep runs it."""
    return run("--layout=all", "--threads=4", "--check=true", flags=CONTENDED, jdk=JDKS[request.param],
               kernel=LAYOUT)


def _metric(df, layout, metric):
    return df[(df["layout"] == layout) & (df["metric"] == metric)]["value"]


@pytest.mark.parametrize("layout", [k for k in exp.LAYOUTS if k != "unpadded"])
def test_padded_layouts_keep_two_counters_a_line_apart(layouts, layout):
    assert "jol_unavailable" not in set(layouts["metric"]), layouts["jol_error"].unique()
    assert _metric(layouts, layout, "counter_gap_min").iloc[0] >= 64
    assert _metric(layouts, layout, "shares_line").iloc[0] == 0


@pytest.mark.parametrize("layout", list(exp.LAYOUTS))
def test_whether_a_counter_shares_the_arrays_line_is_reported(layouts, layout):
    flags = _metric(layouts, layout, "array_shares_line")
    assert (flags.isin([0, 1]).all() and len(flags) == 1) if layout != "array-stride" else flags.empty


def test_unpadded_counters_share_a_line(layouts):
    assert _metric(layouts, "unpadded", "counter_gap_min").iloc[0] < 64
    assert _metric(layouts, "unpadded", "shares_line").iloc[0] == 1


@pytest.mark.parametrize("layout", ["padded-longs", "padded-atomic"])
def test_the_posts_padding_fields_are_reported(layouts, layout):
    kept = _metric(layouts, layout, "padding_fields_kept").iloc[0]
    assert 0 <= kept <= 6 and _metric(layouts, layout, "value_first").iloc[0] in (0, 1)
    offsets = layouts[(layouts["layout"] == layout) & (layouts["metric"] == "offset")]
    assert len(offsets[offsets["field"].str.contains(r"\.p\d$")]) == kept


def test_contended_pads_only_with_the_flag():
    plain = run("--layout=contended", "--threads=2", kernel=LAYOUT)
    assert set(plain["restrict_contended"].astype(str).str.lower()) == {"true"}
    value = lambda df: df[(df["metric"] == "offset") & df["field"].str.endswith(".value")]["value"].iloc[0]
    assert value(plain) < 64    # the annotation ignored: the value right after the header
    padded = run("--layout=contended", "--threads=2", "--check=true", flags=CONTENDED, kernel=LAYOUT)
    assert set(padded["restrict_contended"].astype(str).str.lower()) == {"false"}
    assert value(padded) >= 64 + value(plain)
    assert _metric(padded, "contended", "instance_size").iloc[0] > _metric(plain, "contended", "instance_size").iloc[0]


def test_layout_check_fails_on_unpadded_counters():
    r = java_kernel(LAYOUT, "--inject=unpadded", "--layout=unpadded")
    assert r.returncode == 3 and r.stdout == "" and "unpadded: two counters" in r.stderr


def test_in_process_through_jpype():
    k = bridge.kernel(KERNEL)
    assert list(k.layouts()) == list(exp.LAYOUTS)
    meta = bridge.metadata(KERNEL)
    assert meta["protocol"] == "lab" and meta["layout"] == "unpadded"
