"""The SPSC queue kernels (mechsym.spsc): every variant at smoke size, correctness stress, layout, bad input.

No test asserts a timing number."""

import pytest

from conftest import java_kernel
from mechsym import bridge, launch
from mechsym.jdk import discover

KERNEL = "mechsym.spsc.SpscThroughput"
LAYOUT = "mechsym.spsc.SpscLayout"
QUEUES = ["O1", "O2", "I1", "I2", "I3", "I4", "jctools"]


def run_kernel(kernel, *args, jdk=None, flags=(), timeout=120):
    r = java_kernel(kernel, *args, jdk=jdk, flags=flags, timeout=timeout)
    assert r.returncode == 0, r.stderr
    return launch.parse_csv(r.stdout)


@pytest.mark.parametrize("queue", QUEUES)
def test_every_queue_at_smoke_size_pinned_cross_core(queue):
    df = run_kernel(KERNEL, f"--queue={queue}", "--ops=20000", "--iterations=4", "--measured=2", "--capacity=64",
                    "--pin=0,1")
    assert set(df["metric"]) == {"duration", "throughput"}
    assert set(df["unit"]) == {"ns", "ops/s"}
    assert (df["value"] > 0).all()
    # 4 iterations x 2 metrics, the first 2 iterations are warm-up (the post: mean of the last ones)
    assert df["warmup"].sum() == 4 and (~df["warmup"]).sum() == 4
    assert set(df["queue"]) == {queue}
    assert set(df["pinning"]) == {"thread"}
    assert df["producer_cpu"].iloc[0] == 0 and df["consumer_cpu"].iloc[0] == 1
    assert df["queue_line_offset"].between(-1, 63).all()


def test_stress_every_queue_on_one_cpu_tiny_capacity():
    # Both threads on one CPU and a queue of 2: every offer/poll crosses full/empty, the yields interleave.
    for queue in QUEUES:
        df = run_kernel(KERNEL, f"--queue={queue}", "--ops=20000", "--iterations=2", "--measured=1", "--capacity=2",
                        "--pin=0,0")
        assert len(df) == 4, queue


def test_stress_every_queue_in_process_through_jpype():
    # Many laps of small queues, unpinned, the Java check on every value: lost, duplicated, reordered or
    # overwritten values raise CheckFailed.
    k = bridge.kernel(KERNEL)
    for queue in QUEUES:
        for capacity in (2, 8, 1024):
            ns = k.measure(queue, capacity, 100_000, 2)
            assert len(ns) == 2 and min(ns) > 0, (queue, capacity)


def test_the_check_catches_a_broken_queue():
    import jpype

    k = bridge.kernel(KERNEL)
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
        with pytest.raises(Exception, match="lost, duplicated or reordered|still held a value"):
            k.measure(proxy, 16, 1000, 1, jpype.JArray(jpype.JInt)([]))


def test_every_jdk_runs_every_queue_once():
    for jdk in discover():
        for queue in ("O1", "I4", "jctools"):
            df = run_kernel(KERNEL, f"--queue={queue}", "--ops=5000", "--iterations=2", "--measured=1", jdk=jdk)
            assert set(df["pinning"]) == {"none"}


def test_the_kernel_reports_the_jvm_options_it_got():
    df = run_kernel(KERNEL, "--queue=O1", "--ops=5000", "--iterations=1", "--measured=1", jdk=discover()[0],
                    flags=("-XX:+UseCondCardMark", "-XX:CompileThreshold=100000", "-XX:-TieredCompilation"))
    row = df.iloc[0]
    assert str(row["vm_cond_card_mark"]).lower() == "true"
    assert str(row["vm_tiered_compilation"]).lower() == "false"
    assert int(row["vm_compile_threshold"]) == 100000


def test_layout_matches_the_post_and_passes_its_check_on_every_jdk():
    for jdk in discover():
        df = run_kernel(LAYOUT, "--check=true", jdk=jdk)
        off = df[df["metric"] == "offset"]
        get = {(q, f.rsplit(".", 1)[-1]): v for q, f, v in zip(off["queue"], off["field"], off["value"])}
        assert [get[("I1", f)] for f in ("tail", "headCache", "head", "tailCache")] == [80, 144, 208, 272]
        assert [get[("I3", f)] for f in ("capacity", "tail", "headCache", "head", "tailCache")] == [80, 152, 216, 280, 344]
        gaps = df[df["metric"] == "min_hot_gap"].set_index("queue")["value"]
        assert (gaps[["I1", "I2", "I3", "I4"]] >= 64).all()
        cold = df[df["metric"] == "cold_offset"].set_index("queue")["value"]
        assert cold["I1"] < 64 <= cold["I3"] and cold["I4"] >= 64


def test_layout_text_format_is_jols_table():
    r = java_kernel(LAYOUT, "--queue=I3", "--format=text")
    assert r.returncode == 0, r.stderr
    assert "Instance size: 408 bytes" in r.stdout and "BTail.tail" in r.stdout
    assert "WARNING" not in r.stdout  # JOL's warnings go to stderr, never into the output


@pytest.mark.parametrize("kernel, args, message", [
    (KERNEL, ["--queue=O3"], "--queue=O3: allowed values are O1, O2, I1, I2, I3, I4, jctools"),
    (KERNEL, ["--capacity=1000"], "--capacity=1000: must be a power of two"),
    (KERNEL, ["--capacity=1"], "--capacity=1: out of range"),
    (KERNEL, ["--ops=0"], "--ops=0: out of range"),
    (KERNEL, ["--ops=many"], "--ops=many: not a whole number"),
    (KERNEL, ["--iterations=20", "--measured=21"], "--measured=21: must be at most --iterations=20"),
    (KERNEL, ["--pin=0"], "--pin=0: give two CPU ids"),
    (KERNEL, ["--pin=0,x"], "--pin=0,x: expected comma-separated CPU ids"),
    (KERNEL, ["--pin=0,4095"], "--pin: taskset could not pin thread"),
    (KERNEL, ["--colour=red"], "--colour: unknown argument"),
    (LAYOUT, ["--queue=O9"], "--queue=O9: allowed values are O1, O2, I1, I2, I3, I4, jctools, all"),
    (LAYOUT, ["--format=xml"], "--format=xml: allowed values are csv, text"),
    (LAYOUT, ["--check=yes"], "--check=yes: allowed values are true, false"),
])
def test_bad_arguments_exit_2_with_one_line(kernel, args, message):
    r = java_kernel(kernel, *args)  # every bad input is rejected before any work starts
    assert r.returncode == 2, r.stderr
    assert r.stdout == ""
    lines = [ln for ln in r.stderr.splitlines() if "warning" not in ln.lower()]
    assert len(lines) == 1 and message in lines[0], r.stderr


def test_in_process_metadata_through_jpype():
    k = bridge.kernel(KERNEL)
    assert list(k.queues()) == QUEUES
    meta = bridge.metadata(KERNEL)
    assert meta["queue"] == "O1" and meta["iterations"] == "20" and meta["measured"] == "10"
    with pytest.raises(Exception, match="allowed values are"):
        k.measure("O3", 16, 10, 1)
