"""The SPSC queue kernels (mechsym.spsc): every variant at smoke size, correctness under stress, layout
properties, the kernel's own argument checks.

The contract every kernel shares (bad, unknown and duplicated arguments, the injected fault, the CSV columns)
is in tests/test_kernel_contract.py; the queue contract every variant shares is in tests/test_spsc_sanity.py.
No test asserts a timing number."""

import re
import subprocess

import pytest

from conftest import assert_refused, java_kernel, run_kernel, without_jit_gc
from mechsym.run import bridge
from mechsym.machine.jdk import discover

pytestmark = pytest.mark.kernel  # every test here runs a kernel or a sweep: serial

KERNEL = "mechsym.spsc.SpscThroughput"
LAB_HARNESS = "mechsym.spsc.LabHarness"   # the lab harness, called in process
LAYOUT = "mechsym.spsc.SpscLayout"
QUEUES = [str(q) for q in bridge.kernel(KERNEL).queues()]
INLINED = ["I1", "I2", "I3", "I4"]
PAD_FIELD = re.compile(r"^p\d+$|^p0i$")


def smallest_capacity(queue):
    # JCTools' SpscArrayQueue holds at least 4; the kernel refuses --capacity=2 for it (tests/test_spsc_sanity.py)
    return 4 if queue == "jctools" else 2


@pytest.mark.parametrize("queue", QUEUES)
def test_every_queue_at_smoke_size_pinned_cross_core(queue):
    df = without_jit_gc(run_kernel(KERNEL, f"--queue={queue}", "--ops=20000", "--iterations=4", "--measured=2",
                                   "--capacity=64", "--pin=0,1"))
    assert set(df["metric"]) == {"duration", "throughput"}
    assert set(df["unit"]) == {"ns", "ops/s"}
    assert (df["value"] > 0).all()
    # 4 iterations x 2 metrics, the first 2 iterations are warm-up (the post: mean of the last ones)
    assert df["warmup"].sum() == 4 and (~df["warmup"]).sum() == 4
    assert set(df["queue"]) == {queue}
    assert set(df["pinning"]) == {"thread"}
    assert df["producer_cpu"].iloc[0] == 0 and df["consumer_cpu"].iloc[0] == 1
    assert df["queue_line_offset"].between(-1, 63).all()
    # throughput is the kernel's own ops / duration
    w = df.pivot_table(index="iteration", columns="metric", values="value")
    assert ((20000 * 1e9 / w["duration"]) / w["throughput"]).between(0.999, 1.001).all()


def test_every_queue_in_the_posts_harness_tiny_capacity():
    # The post's harness (a GC and a new producer thread per iteration, one constant value, the counts checked after
    # the clock) with the smallest queue, so that every offer/poll crosses full/empty: exit 0 is the assertion.
    for queue in QUEUES:
        df = without_jit_gc(run_kernel(KERNEL, f"--queue={queue}", "--protocol=post", "--ops=20000", "--iterations=3",
                                       "--measured=1", f"--capacity={smallest_capacity(queue)}"))
        assert set(df["protocol"]) == {"post"} and set(df["pinning"]) == {"none"}, queue
        assert (df["value"] > 0).all() and df["warmup"].sum() == 4 and (~df["warmup"]).sum() == 2
        # where the queue and its array sat in their cache lines, read per iteration (the GC moves them): a byte of
        # the line that an object can start at (objects are 8-byte aligned), or -1 where JOL cannot tell
        for col in ("queue_line_offset", "buffer_line_offset"):
            assert set(df[col].astype(int)) <= {-1, 0, 8, 16, 24, 32, 40, 48, 56}, (queue, col, set(df[col]))


@pytest.mark.parametrize("queue, at", [("O1", 48), ("O1", 0), ("I4", 24)])
def test_the_posts_harness_places_the_queue_where_asked(queue, at):
    # --queue-at: after each iteration's full GC, live spacers allocated before the queue are let go until the GC has
    # slid it to that byte of its cache line; every row records where it sat during its iteration. The slide is the
    # size of what died below the queue only when one thread compacts (Placer's premise): G1's full GC compacts in
    # one chain per GC worker, and which regions a worker takes depends on the machine's load (on a busy 2-CPU
    # machine the queue once stayed at byte 40 after 6 GCs), so the test runs it with one GC worker.
    df = without_jit_gc(run_kernel(KERNEL, f"--queue={queue}", "--protocol=post", f"--queue-at={at}", "--ops=20000",
                                   "--iterations=3", "--measured=1", flags=("-XX:ParallelGCThreads=1",)))
    assert set(df["queue_line_offset"].astype(int)) == {at}, set(df["queue_line_offset"])
    assert (df["value"] > 0).all() and len(df) == 6


@pytest.mark.parametrize("protocol", ["post", "lab"])
def test_a_value_offered_twice_is_caught_in_either_harness(protocol):
    for ops in (1, 1000):
        r = java_kernel(KERNEL, f"--protocol={protocol}", f"--ops={ops}", "--iterations=2", "--measured=1",
                        "--capacity=64", "--inject=duplicate-one")
        assert r.returncode == 3 and r.stdout == "", (protocol, ops, r.returncode, r.stderr)
        assert "CHECK FAILED" in r.stderr.splitlines()[-1], r.stderr


def test_stress_every_queue_on_one_cpu_tiny_capacity():
    # Both threads on one CPU and the smallest queue: every offer/poll crosses full/empty, the yields interleave;
    # the kernel checks every value it takes, so exit 0 is the assertion.
    for queue in QUEUES:
        run_kernel(KERNEL, f"--queue={queue}", "--ops=20000", "--iterations=2", "--measured=1",
                   f"--capacity={smallest_capacity(queue)}", "--pin=0,0")


def test_stress_every_queue_in_process_through_jpype():
    # Many laps of small queues, unpinned, the Java check on every value: lost, duplicated, reordered or
    # overwritten values raise CheckFailed.
    k = bridge.kernel(LAB_HARNESS)
    for queue in QUEUES:
        for capacity in (smallest_capacity(queue), 8, 1024):
            ns = k.measure(queue, capacity, 100_000, 2)
            assert len(ns) == 2 and min(ns) > 0, (queue, capacity)


def test_the_check_catches_a_broken_queue():
    import jpype

    k = bridge.kernel(LAB_HARNESS)
    spsc = jpype.JClass("mechsym.spsc.SpscQueue")

    class Lossy:
        """A queue that drops every 100th value."""

        def __init__(self):
            import collections
            self.items, self.n = collections.deque(), 0

        def offer(self, e):
            self.n += 1
            if self.n % 100 != 0:
                self.items.append(e)
            return True

        def poll(self):
            return self.items.popleft() if self.items else None

    class Duplicating(Lossy):
        def poll(self):
            if not self.items:
                return None
            e = self.items[0]
            self.n += 1
            if self.n % 50:
                self.items.popleft()
            return e

    for impl in (Lossy(), Duplicating()):
        proxy = jpype.JProxy(spsc, inst=impl)
        with pytest.raises(jpype.JClass("mechsym.common.CheckFailed"), match="lost, duplicated or reordered|still held"):
            k.measure(proxy, 16, 1000, 1, jpype.JArray(jpype.JInt)([]))


def test_a_duplicate_that_lands_after_the_consumers_check_is_caught():
    """One value per iteration, and the producer's extra offer of it lands only after the consumer has taken it and
    found the queue empty: each later iteration then takes the extra as its own (the same object), and only the end
    of the run can see the value left over. Found by reading --inject=duplicate-one with --ops=1 (its exit would
    have been 0); this queue makes that interleaving certain."""
    import collections

    import jpype

    k = bridge.kernel(LAB_HARNESS)
    spsc = jpype.JClass("mechsym.spsc.SpscQueue")

    class LateDuplicate:
        def __init__(self):
            self.items, self.held, self.first = collections.deque(), [], True

        def offer(self, e):
            if self.first:   # offered twice, the second copy held back
                self.held.append(e)
                self.first = False
            self.items.append(e)
            return True

        def poll(self):
            if self.items:
                return self.items.popleft()
            self.items.extend(self.held)   # lands just after this poll found the queue empty
            self.held.clear()
            return None

    for iterations in (1, 2):
        proxy = jpype.JProxy(spsc, inst=LateDuplicate())
        with pytest.raises(jpype.JClass("mechsym.common.CheckFailed"), match="still held"):
            k.measure(proxy, 16, 1, iterations, jpype.JArray(jpype.JInt)([]))


def test_every_jdk_runs_the_post_queues_and_jctools():
    for jdk in discover():
        for queue in ("O1", "I4", "jctools"):
            df = run_kernel(KERNEL, f"--queue={queue}", "--ops=5000", "--iterations=2", "--measured=1", jdk=jdk)
            assert set(df["pinning"]) == {"none"} and set(df["producer_cpu"].astype(str)) == {"any"}


def test_the_kernel_reports_the_jvm_options_it_got():
    df = run_kernel(KERNEL, "--queue=O1", "--ops=5000", "--iterations=1", "--measured=1", jdk=discover()[0],
                    flags=("-XX:+UseCondCardMark", "-XX:CompileThreshold=100000", "-XX:-TieredCompilation"))
    row = df.iloc[0]
    assert str(row["vm_cond_card_mark"]).lower() == "true"
    assert str(row["vm_tiered_compilation"]).lower() == "false"
    assert int(row["vm_compile_threshold"]) == 100000


def header_variants():
    """(JDK, JVM flags) pairs to check the layout under: every JDK with its default header, and compact object
    headers (8-byte header) on a JDK that accepts -XX:+UseCompactObjectHeaders."""
    out = []
    for jdk in discover():
        out.append((jdk, ()))
        compact = ("-XX:+UseCompactObjectHeaders",)
        if subprocess.run([str(jdk.java), *compact, "-version"], capture_output=True).returncode == 0:
            out.append((jdk, compact))
    return out


def test_layout_keeps_producer_and_consumer_fields_a_cache_line_apart():
    """The property the post's layouts are for, not their offsets (which move with the object header)."""
    for jdk, flags in header_variants():
        where = f"JDK {jdk.feature} {' '.join(flags)}"
        df = run_kernel(LAYOUT, "--check=true", jdk=jdk, flags=flags)
        assert (df["metric"] != "jol_unavailable").all(), where
        off = df[(df["metric"] == "offset") & (df["class"] == df.groupby("queue")["class"].transform("first"))]
        at = {(q, f.rsplit(".", 1)[-1]): v for q, f, v in zip(off["queue"], off["field"], off["value"])}
        for q in INLINED:
            fields = ["tail", "headCache", "head", "tailCache"]
            for a in fields:
                for b in fields[fields.index(a) + 1:]:
                    assert abs(at[(q, a)] - at[(q, b)]) >= 64, f"{where}: {q}.{a} and {q}.{b} share a cache line"
        assert abs(at[("jctools", "producerIndex")] - at[("jctools", "consumerIndex")]) >= 64, where
        derived = df.pivot_table(index="queue", columns="metric", values="value", aggfunc="first")
        assert (derived.loc[INLINED, "min_hot_gap"] >= 64).all(), where
        assert (derived.loc[INLINED + ["jctools"], "min_cross_gap"] >= 64).all(), where
        # I3 and I4 pad the cold fields away from the object header; I1 and I2 do not
        assert (derived.loc[["I3", "I4"], "cold_offset"] >= 64).all(), where
        assert (derived.loc[["I1", "I2"], "cold_offset"] < 64).all(), where


def test_pad_classes_hold_only_padding():
    """Every ...Pad class above an inlined queue declares pad fields only (p<n><k>, primitive), 56+ bytes; every
    other class of the chain declares none."""
    import jpype

    create = jpype.JClass("mechsym.spsc.SpscQueue").create
    modifier = jpype.JClass("java.lang.reflect.Modifier")
    size = {"long": 8, "int": 4}
    for q in INLINED:
        pads = 0
        c = create(q, 2).getClass()
        while c is not None and str(c.getName()).startswith("mechsym.spsc."):
            fields = [f for f in c.getDeclaredFields() if not modifier.isStatic(f.getModifiers())]
            names = [str(f.getName()) for f in fields]
            if str(c.getSimpleName()).endswith("Pad"):
                pads += 1
                assert names and all(PAD_FIELD.match(n) for n in names), (q, str(c.getSimpleName()), names)
                assert all(f.getType().isPrimitive() for f in fields), (q, str(c.getSimpleName()))
                assert sum(size[str(f.getType().getName())] for f in fields) >= 56, (q, str(c.getSimpleName()))
            else:
                assert not any(PAD_FIELD.match(n) for n in names), (q, str(c.getSimpleName()), names)
            c = c.getSuperclass()
        assert pads >= 5, f"{q}: {pads} pad classes, expected one after each of the cold and hot fields"


def test_layout_text_format_is_jols_table():
    r = java_kernel(LAYOUT, "--queue=I3", "--format=text")
    assert r.returncode == 0, r.stderr
    assert "Instance size:" in r.stdout and "PaddedClassTailField.tail" in r.stdout
    assert "WARNING" not in r.stdout  # JOL's warnings go to stderr, never into the output


@pytest.mark.parametrize("kernel, args, name, message", [
    (KERNEL, ["--queue=O3"], "--queue", "allowed values are " + ", ".join(QUEUES)),
    (KERNEL, ["--capacity=1000"], "--capacity", "must be a power of two"),
    (KERNEL, ["--queue=jctools", "--capacity=2"], "--capacity", "would hold 4"),
    (KERNEL, ["--iterations=20", "--measured=21"], "--measured", "must be at most --iterations=20"),
    (KERNEL, ["--pin=0"], "--pin", "give two CPU ids"),
    (KERNEL, ["--pin=0,4095"], "--pin", "CPU 4095 is not online"),
    (KERNEL, ["--inject=drop-all"], "--inject", "allowed values are none, duplicate-one"),
    (KERNEL, ["--protocol=fast"], "--protocol", "allowed values are lab, post"),
    (KERNEL, ["--protocol=post", "--pin=0,1"], "--pin", "the post protocol pins no thread"),
    (KERNEL, ["--protocol=post", "--queue-at=12"], "--queue-at", "allowed values are any, 0, 8, 16, 24, 32, 40, 48, 56"),
    (KERNEL, ["--queue-at=8"], "--queue-at", "placing the queue needs --protocol=post"),
    (KERNEL, ["--protocol=post", "--ops=2147483648"], "--ops", "the post protocol counts in an int"),
    (LAYOUT, ["--queue=O9"], "--queue", "allowed values are " + ", ".join(QUEUES) + ", all"),
    (LAYOUT, ["--format=xml"], "--format", "allowed values are csv, text"),
])
def test_the_kernels_own_argument_checks(kernel, args, name, message):
    r = java_kernel(kernel, *args)  # every bad input is rejected before any work starts
    assert_refused(r, name)
    assert message in r.stderr


def test_in_process_metadata_through_jpype():
    k = bridge.kernel(LAB_HARNESS)
    assert set(QUEUES) >= {"O1", "O2", "I1", "I2", "I3", "I4", "jctools"}
    meta = bridge.metadata(KERNEL)
    assert meta["queue"] == "O1" and meta["iterations"] == "20" and meta["measured"] == "10"
    with pytest.raises(Exception, match="allowed values are"):
        k.measure("O3", 16, 10, 1)
