"""Signalling kernels (notebooks 03 and 08): LockedSignalling, VolatilePingPong, build/c/pingpong.

Smoke-size runs only; no test asserts a timing number."""

import subprocess

import numpy as np
import pytest

from conftest import ROOT, java_kernel, without_jit_gc
from mechsym.run import bridge, launch
from mechsym.machine.cpus import read_topology
from mechsym.experiments import signalling as exp

pytestmark = pytest.mark.kernel  # every test here runs a kernel or a sweep: serial

LOCKED = "mechsym.signalling.LockedSignalling"
VOLATILE = "mechsym.signalling.VolatilePingPong"
C_BIN = ROOT / "build" / "c" / "pingpong"
TWO = "--pin=0,1" if read_topology().logical >= 2 else "--pin=0,0"
PER_RUN = {"duration", "exchanges", "deadline_hit", "ns_per_op", "throughput", "round_trip_samples",
           "round_trip_mean", "round_trip_p50", "round_trip_p90", "round_trip_p99", "round_trip_p99.9",
           "round_trip_max"}
#: Where the two exchanged counters sat (VolatilePingPong: CounterLine, read after its runs; pingpong.c: the linker)
PLACEMENT = {"counter_line_offset", "counters_share_line"}


def c_kernel(*args, timeout=60):
    if not C_BIN.exists():
        pytest.fail(f"{C_BIN} missing: run `make`")
    return subprocess.run([str(C_BIN), *args], capture_output=True, text=True, timeout=timeout)


def run(kind, *args):
    """The kernel's rows; the Java kernels' JIT and GC rows (which C has not) checked present and left out."""
    r = c_kernel(*args) if kind == "c" else java_kernel(kind, *args)
    assert r.returncode == 0, r.stderr
    df = launch.parse_csv(r.stdout)
    return df if kind == "c" else without_jit_gc(df)


KINDS = [LOCKED, VOLATILE, "c"]
SMALL = {LOCKED: "--iterations=2000", VOLATILE: "--iterations=50000", "c": "--iterations=50000"}


@pytest.mark.parametrize("kind", KINDS, ids=["locked", "volatile", "c"])
def test_kernel_at_smoke_size(kind):
    df = run(kind, SMALL[kind], "--runs=2", "--warmup-runs=1", TWO, "--sample-every=10")
    assert list(df.columns) == ["pinning", "iteration", "warmup", "metric", "value", "unit"]
    assert set(df["pinning"]) == {"thread"}
    runs = df[~df["metric"].isin(["timer_cost", "timer_step"])]
    assert set(runs["metric"]) == PER_RUN | (set() if kind == LOCKED else PLACEMENT)
    assert sorted(runs["iteration"].unique()) == [0, 1, 2]
    assert runs.groupby("iteration")["warmup"].first().tolist() == [True, False, False]
    n = int(SMALL[kind].split("=")[1])
    ex = df[df["metric"] == "exchanges"]["value"]
    assert (ex == n).all()
    assert (df[df["metric"] == "deadline_hit"]["value"] == 0).all()
    # ns/op is the posts' definition: duration / (2 x exchanges)
    w = runs.pivot_table(index="iteration", columns="metric", values="value")
    assert np.allclose(w["ns_per_op"], w["duration"] / (2 * w["exchanges"]), rtol=1e-4)
    assert np.allclose(w["throughput"], 2 * w["exchanges"] * 1e9 / w["duration"], rtol=1e-4)
    assert (w["round_trip_samples"] == n // 10).all()
    assert (w["round_trip_p50"] <= w["round_trip_p99"]).all() and (w["round_trip_p99"] <= w["round_trip_max"]).all()
    units = dict(zip(df["metric"], df["unit"]))
    assert units["ns_per_op"] == "ns/op" and units["throughput"] == "ops/s" and units["timer_cost"] == "ns"
    assert (df[df["metric"] == "timer_cost"]["value"] > 0).all()


def test_java_and_c_print_the_same_csv_shape():
    j = run(VOLATILE, "--iterations=1000", "--runs=1", "--warmup-runs=0")
    c = run("c", "--iterations=1000", "--runs=1", "--warmup-runs=0")
    assert list(j.columns) == list(c.columns)
    assert list(j["metric"]) == list(c["metric"]) and list(j["unit"]) == list(c["unit"])
    assert set(j["pinning"]) == set(c["pinning"]) == {"none"}


@pytest.mark.parametrize("kind", [VOLATILE, "c"], ids=["java", "c"])
def test_busy_spin_on_one_cpu_is_bounded_not_hung(kind):
    # bounded by the kernel's own deadline (--max-ms); the subprocess timeout only guards against a hang
    df = run(kind, "--iterations=100000000", "--runs=1", "--warmup-runs=0", "--pin=0,0", "--max-ms=200",
             "--sample-every=1")
    w = df.set_index("metric")["value"]
    assert w["deadline_hit"] == 1
    assert 0 <= w["exchanges"] < 100_000_000


@pytest.mark.parametrize("kind", [VOLATILE, "c"], ids=["java", "c"])
def test_yielding_variant_finishes_on_one_cpu(kind):
    df = run(kind, "--iterations=5000", "--runs=1", "--warmup-runs=0", "--pin=0,0", "--wait=yield")
    w = df.set_index("metric")["value"]
    assert w["deadline_hit"] == 0 and w["exchanges"] == 5000


def test_locked_on_one_cpu_finishes():
    df = run(LOCKED, "--iterations=2000", "--runs=1", "--warmup-runs=0", "--pin=0,0")
    assert df.set_index("metric")["value"]["exchanges"] == 2000


def kernel(kind, *args):
    return c_kernel(*args) if kind == "c" else java_kernel(kind, *args)


@pytest.mark.parametrize("protocol", ["lab", "post"])
@pytest.mark.parametrize("kind", KINDS, ids=["locked", "volatile", "c"])
def test_failed_order_check_reports_no_number(kind, protocol):
    """The injected fault (an echo of a value never sent) cannot escape the check, whatever the interleaving:
    repeated, unpinned, every run must exit 3 with one line and no number."""
    # with the post's loops the fault stalls the run: the volatile and C kernels see it when their pong thread has
    # run ahead to its end, the locked one when it next looks at a run still going (every --max-ms: long enough that
    # a stalled host cannot pass for a run without progress, which fails with exit 1)
    bound = ["--max-ms=500"] if protocol == "post" and kind == LOCKED else []
    for _ in range(3):
        r = kernel(kind, f"--protocol={protocol}", "--iterations=2000", "--runs=1", "--warmup-runs=0",
                   "--inject=skip", *bound)
        assert r.returncode == 3, r.stderr
        assert r.stdout == ""
        assert len(r.stderr.strip().splitlines()) == 1 and "CHECK FAILED" in r.stderr


POST_RUN = {"duration", "exchanges", "deadline_hit", "ns_per_op", "throughput", "round_trip_samples"}


@pytest.mark.parametrize("kind", KINDS, ids=["locked", "volatile", "c"])
def test_post_protocol_at_smoke_size(kind):
    n = int(SMALL[kind].split("=")[1])
    # the Java volatile kernel's post pong never ends, as the listing's: one run per JVM (its defaults)
    several = kind != VOLATILE
    df = run(kind, "--protocol=post", SMALL[kind], *(["--runs=2", "--warmup-runs=1"] if several else []))
    assert list(df.columns) == ["pinning", "iteration", "warmup", "metric", "value", "unit"]
    runs = df[~df["metric"].isin(["timer_cost", "timer_step"])]
    assert set(runs["metric"]) == POST_RUN | (set() if kind == LOCKED else PLACEMENT)
    assert runs.groupby("iteration")["warmup"].first().tolist() == ([True, False, False] if several else [False])
    w = runs.pivot_table(index="iteration", columns="metric", values="value")
    assert (w["exchanges"] == n).all() and (w["deadline_hit"] == 0).all() and (w["round_trip_samples"] == 0).all()
    assert np.allclose(w["ns_per_op"], w["duration"] / (2 * w["exchanges"]), rtol=1e-4)


@pytest.mark.parametrize("protocol", ["lab", "post"])
def test_volatile_kernel_says_where_its_counters_sat(protocol):
    """One placement per JVM (the statics do not move without a collection), on every run: the first counter's
    byte in its 64-byte line, and whether the second shares that line (it does unless the first is at byte 56)."""
    several = ["--runs=2", "--warmup-runs=1"] if protocol == "lab" else []
    r = java_kernel(VOLATILE, f"--protocol={protocol}", SMALL[VOLATILE], *several)
    assert r.returncode == 0, r.stderr
    df = launch.parse_csv(r.stdout)   # JOL's start-up warnings went to stderr, not into the CSV
    w = df[df["metric"].isin(PLACEMENT)].pivot_table(index="iteration", columns="metric", values="value")
    assert len(w) == (3 if several else 1) and w.nunique().max() == 1
    offset, shared = w["counter_line_offset"].iloc[0], w["counters_share_line"].iloc[0]
    assert offset in range(0, 64, 8) and shared == (0 if offset == 56 else 1)
    assert set(df.loc[df["metric"].isin(PLACEMENT), "unit"]) == {"bytes", "bool"}


@pytest.mark.parametrize("kind", KINDS, ids=["locked", "volatile", "c"])
def test_post_protocol_pinned(kind):
    df = run(kind, "--protocol=post", SMALL[kind], "--runs=1", "--warmup-runs=0", TWO)
    assert set(df["pinning"]) == {"thread"}
    assert df.set_index("metric")["value"]["exchanges"] == int(SMALL[kind].split("=")[1])


@pytest.mark.parametrize("kind", [VOLATILE, "c"], ids=["java", "c"])
def test_post_protocol_that_cannot_finish_is_an_error_not_a_number(kind):
    # both spinning threads on one CPU: one exchange per time slice, so 10^8 cannot finish in 100 ms;
    # the post's loop has no deadline, so the run is given up (exit 1), with no number
    r = kernel(kind, "--protocol=post", "--iterations=100000000", "--runs=1", "--warmup-runs=0", "--pin=0,0",
               "--max-ms=100")
    assert r.returncode == 1, r.stderr
    assert r.stdout == "" and "did not finish within --max-ms=100" in r.stderr


@pytest.mark.parametrize("kind", KINDS, ids=["locked", "volatile", "c"])
@pytest.mark.parametrize("args, message", [
    (["--protocol=listing"], "--protocol=listing: allowed values are lab, post"),
    (["--protocol=post", "--sample-every=10"], "--sample-every=10: the post protocol times whole runs only"),
])
def test_post_protocol_arguments(kind, args, message):
    r = kernel(kind, *args, "--runs=1", "--warmup-runs=0")
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert r.stdout == "" and len(lines) == 1 and message in lines[0], lines


@pytest.mark.parametrize("runs", [["--runs=2", "--warmup-runs=0"], ["--runs=1", "--warmup-runs=1"]])
def test_volatile_post_protocol_makes_one_run_per_jvm(runs):
    # its pong thread spins until the JVM exits, as the listing's, so a second run would race it
    r = java_kernel(VOLATILE, "--protocol=post", SMALL[VOLATILE], *runs)
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "the post protocol makes one run per JVM" in lines[0], lines


@pytest.mark.parametrize("kind", [VOLATILE, "c"], ids=["java", "c"])
def test_post_protocol_only_busy_spins(kind):
    r = kernel(kind, "--protocol=post", "--wait=yield")
    assert r.returncode == 2 and "--wait=yield: the post protocol busy-spins" in r.stderr


def test_failed_check_is_a_kernel_error_and_stores_nothing():
    cell = exp.cell_for("c-spin", "unpinned", "smoke", read_topology(), None)
    cell.params["inject"] = "skip"
    with pytest.raises(launch.KernelError) as e:
        launch.run(cell.launch(), timeout=30)
    assert e.value.kind == "check-failed"


BAD = [
    (["--iterations=0"], "--iterations=0: out of range"),
    (["--iterations=many"], "--iterations=many: not a whole number"),
    (["--pin=0"], "--pin=0: give two CPU ids"),
    (["--pin=0,a"], "--pin=0,a"),
    (["--pin=0,4095"], "--pin"),
    (["--inject=boom"], "--inject=boom: allowed values are none, skip"),
    (["--colour=red"], "--colour: unknown argument"),
    (["runs=1"], "expected --name=value"),
]


@pytest.mark.parametrize("kind", KINDS, ids=["locked", "volatile", "c"])
@pytest.mark.parametrize("args, message", BAD, ids=[b[1][:24] for b in BAD])
def test_bad_arguments_exit_2_with_one_line(kind, args, message):
    r = kernel(kind, *args, "--runs=1", "--warmup-runs=0")
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], lines


@pytest.mark.parametrize("kind", [VOLATILE, "c"], ids=["java", "c"])
def test_unknown_wait_names_the_allowed_ones(kind):
    r = kernel(kind, "--wait=sleep")
    assert r.returncode == 2 and "--wait=sleep: allowed values are spin, pause, yield" in r.stderr


@pytest.mark.parametrize("wait", ["spin", "pause", "yield"])
def test_stress_every_value_echoed_in_order(wait):
    """Many short runs on fresh threads, pinned and not: the kernels' own checks must pass every time. A run's
    deadline (--max-ms, 10 s by default) is lifted: under a loaded machine a yielding run may need longer, and a run
    cut by its deadline (deadline_hit=1, fewer exchanges) is the kernel working, not a lost echo."""
    for pin in (TWO, ""):
        n = 2000 if wait == "yield" else 10000   # a yielding exchange is a trip through the scheduler: fewer
        args = [f"--iterations={n}", "--runs=5", "--warmup-runs=0", f"--wait={wait}", "--sample-every=7",
                "--max-ms=600000"]
        args += [pin] if pin else []
        for kind in (VOLATILE, "c"):
            df = run(kind, *args)
            assert (df[df["metric"] == "exchanges"]["value"] == n).all()
    df = run(LOCKED, "--iterations=500", "--runs=5", "--warmup-runs=0", "--sample-every=3")
    assert (df[df["metric"] == "exchanges"]["value"] == 500).all()


def test_in_process_through_jpype():
    v = bridge.kernel(VOLATILE)
    assert float(v.nsPerOp(20000)) > 0
    assert float(bridge.kernel(LOCKED).nsPerOp(500)) > 0
    assert bridge.metadata(VOLATILE)["wait"] == "spin"
    assert list(v.waits()) == ["spin", "pause", "yield"]
    assert list(v.protocols()) == ["lab", "post"] and bridge.metadata(VOLATILE)["protocol"] == "lab"
    assert bridge.metadata(LOCKED)["protocol"] == "lab"


# The experiment package's tests (sweep cells, claims, verdicts, tables): tests/test_signalling_experiment.py


def test_post_counters_take_the_listings_slots_in_the_mirror():
    """The post holder's statics in the listing's order: a long first (the listing's ITERATIONS), then s1, then s2,
    in consecutive 8-byte slots of the class's mirror. Moved one slot down (0x70/0x78 on JDK 17) the same loops ran
    at about 0.8 of the listing's speed (VolatilePingPong.Post, notebook 08)."""
    import jpype

    bridge.kernel(VOLATILE)   # the JVM is up
    post = jpype.JClass("java.lang.Class").forName("mechsym.signalling.VolatilePingPong$Post")
    the_unsafe = jpype.JClass("sun.misc.Unsafe").class_.getDeclaredField("theUnsafe")
    the_unsafe.setAccessible(True)
    unsafe = the_unsafe.get(None)
    lead, s1, s2 = (int(unsafe.staticFieldOffset(post.getDeclaredField(n))) for n in ("LEADING", "s1", "s2"))
    assert (s1 - lead, s2 - s1) == (8, 8), (lead, s1, s2)


def test_post_counters_share_a_line_whatever_the_class_path():
    """The post holder is loaded where its counters share one line (VolatilePostHarness.placePost). The mirror moves
    with the class path's length (its code source is allocated before it) and with the arguments: over these ten
    JVMs the holder loaded where it fell put them across two lines in 2 (JDK 17, when the placement was written);
    with the placement, every one shares a line."""
    from mechsym.run.kernels import command

    argv = command(VOLATILE, ["--protocol=post", SMALL[VOLATILE], "--wait=spin", "--sample-every=0", "--runs=1",
                              "--warmup-runs=0"])
    at = argv.index("-cp") + 1
    for n in range(10):
        longer = argv[:at] + [argv[at] + (f":/nonexistent/{'x' * n}" if n else "")] + argv[at + 1:]
        r = subprocess.run(longer, capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        w = launch.parse_csv(r.stdout).set_index("metric")["value"]
        assert w["counters_share_line"] == 1, (n, w["counter_line_offset"])


def test_mirror_placement_reads_each_objects_byte_in_its_line_as_jol_does():
    """placePost decides from MirrorPlacement.address, read with Unsafe before the clock; JOL (after the clock, in
    CounterLine) is the reference. An object that moved between the two reads (a collection) is not compared."""
    import jpype

    bridge.kernel(VOLATILE)   # the JVM is up
    mp = jpype.JClass("mechsym.signalling.MirrorPlacement")
    assert mp.shift() >= 0
    system = jpype.JClass("java.lang.System")
    for prop in ("jol.skipHotspotSAAttach", "jol.skipDynamicAttach"):
        system.setProperty(prop, "true")
    vm = jpype.JClass("org.openjdk.jol.vm.VM").current()
    objs = [jpype.JArray(jpype.JLong)(n) for n in range(1, 17)] + [jpype.JClass("java.lang.Object")(), mp.class_]
    compared = 0
    for o in objs:
        before, ours, after = int(vm.addressOf(o)), int(mp.address(o)), int(vm.addressOf(o))
        if before == after:
            assert ours % 64 == before % 64, (ours, before)
            compared += 1
    assert compared >= len(objs) - 2
