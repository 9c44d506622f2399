"""The sweep: presets, variants, thread counts and the cells they make."""

from __future__ import annotations

from ... import MechsymError
from ...machine.cpus import Topology
from ...machine.jdk import Jdk
from ...run.sweep import Cell
from .meta import PRESETS


JAVA = "mechsym.atomic.AtomicIncrement"
C_BINARY = "c:atomic_counter"

# variant -> (language, primitive (one figure panel each), what it stands for). The variant is also the kernel's
# --variant, so the kernels' own names (AtomicIncrement.VARIANTS, atomic_counter.c) are the sweep's.
VARIANTS = {
    "atomic-increment": ("java", "LOCK XADD", "AtomicLong.incrementAndGet(): the listing; an XADD intrinsic today"),
    "cas-loop": ("java", "CAS loop (LOCK CMPXCHG)", "get() + compareAndSet() retried: the post's JDK 6/7 "
                 "incrementAndGet"),
    "varhandle-add": ("java", "LOCK XADD", "VarHandle.getAndAdd (JDK 9; not in the post)"),
    "long-adder": ("java", "LongAdder (striped cells)", "LongAdder.increment (JDK 8; not in the post)"),
    "synchronized": ("java", "synchronized (a monitor)", "++ under synchronized, for scale (not in the post)"),
    "xadd": ("c", "LOCK XADD", "__sync_add_and_fetch, result used: the listing's run_xadd"),
    "add": ("c", "LOCK ADD", "__sync_add_and_fetch, result unused: the listing's run_add"),
    "cas": ("c", "CAS loop (LOCK CMPXCHG)", "read + __sync_val_compare_and_swap retried: the listing's run_cas"),
}
PRIMITIVES = ["LOCK XADD", "LOCK ADD", "CAS loop (LOCK CMPXCHG)", "LongAdder (striped cells)",
              "synchronized (a monitor)"]
JAVA_VARIANTS = [v for v, (lang, *_) in VARIANTS.items() if lang == "java"]
C_VARIANTS = [v for v, (lang, *_) in VARIANTS.items() if lang == "c"]
# The cells the post ran, run again with the kernels' post protocol (one run per process, thread start and join
# timed, as the listings): the Java listing (incrementAndGet; the CAS loop it was then) and the three C functions.
POST_VARIANTS = ["atomic-increment", "cas-loop", *C_VARIANTS]
PROTOCOL_NAMES = ["lab", "post"]


def thread_counts(topo: Topology, preset: str = "standard") -> list[int]:
    """1..max(4, 2 x CPUs), as the post went past its cores (smoke: 1, 2)."""
    top = max(4, 2 * topo.logical)
    cap = PRESETS[preset]["max_threads"]
    return list(range(1, min(top, cap or top) + 1))


def cell_for(variant: str, threads: int, preset: str, topo: Topology, jdk: Jdk | None,
             protocol: str = "lab") -> Cell:
    """One cell (also used by the tests): the lab's harness, or the listing's timing (protocol post)."""
    if variant not in VARIANTS:
        raise MechsymError(f"variant '{variant}': allowed variants are {', '.join(VARIANTS)}")
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    if protocol not in PROTOCOL_NAMES or protocol == "post" and variant not in POST_VARIANTS:
        raise MechsymError(f"protocol '{protocol}' for {variant}: allowed are lab, and post for "
                           + ", ".join(POST_VARIANTS))
    p = PRESETS[preset]
    language, primitive, _ = VARIANTS[variant]
    post = protocol == "post"
    params = {"protocol": protocol, "variant": variant, "threads": threads,
              "count": p["post_count"] if post else p["count"],
              "runs": 1 if post else p["runs"], "warmup-runs": 0 if post else p["warmup_runs"]}
    sliced = threads > topo.logical
    labels = {"language": language, "primitive": primitive, "cpus_online": topo.logical,
              "contention": "none" if threads == 1 else "time-sliced" if sliced else "concurrent"}
    # time-sliced cells are shown, never judged (claims.py): fewer forks there keep the sweep's time for the rest
    return Cell(variant=variant, kernel=JAVA if language == "java" else C_BINARY, params=params, labels=labels,
                jdk=jdk if language == "java" else None, forks=p["sliced_forks"] if sliced else p["forks"],
                timeout=p["timeout"])


def cells(preset: str, topo: Topology, jdks: list[Jdk], **_overrides) -> list[Cell]:
    """Every variant x thread count x JDK with the lab's harness, then the post's own variants with the listing's
    timing. The sweep interleaves the forks round-robin over the cells."""
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    jdks = list(jdks)[:PRESETS[preset]["jdks"]] if PRESETS[preset]["jdks"] else list(jdks)
    out: list[Cell] = []
    for protocol, variants in (("lab", list(VARIANTS)), ("post", POST_VARIANTS)):
        for threads in thread_counts(topo, preset):
            if protocol == "post" and threads > topo.logical and not PRESETS[preset]["post_past_cpus"]:
                continue
            for v in variants:
                for jdk in (jdks if VARIANTS[v][0] == "java" else [None]):
                    out.append(cell_for(v, threads, preset, topo, jdk, protocol))
    return out


JMH_BENCHMARK = "mechsym.jmh.AtomicLongIncrement.increment"


def jmh_cells(preset: str, topo: Topology, jdks: list[Jdk]) -> list[Cell]:
    """`--protocol jmh`: every Java variant at 2 threads (the contended claims), XADD and the CAS loop also at 1,
    on the first JDK; the host JVM under taskset over the CPUs the lab's N threads use."""
    from ...run import jmh

    out = []
    for jdk in jmh.first_jdk(preset, jdks):
        for threads, variants in ((1, ["atomic-increment", "cas-loop"]), (2, JAVA_VARIANTS)):
            for v in variants:
                out.append(jmh.cell(v, JMH_BENCHMARK, {"variant": v}, jdk, preset, threads=threads,
                                    labels={"language": "java", "primitive": VARIANTS[v][1]}))
    return out
