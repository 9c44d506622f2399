"""The sweep: presets, the post's table as (method, threads) cells, the fences, and the folding check."""

from __future__ import annotations

from ... import MechsymError
from ...machine.cpus import Topology
from ...machine.jdk import Jdk
from ...run.sweep import Cell
from .meta import PRESETS

KERNEL = "mechsym.singlewriter.CounterCost"
C_BINARY = "single_writer"

# The post's table, in its order: row key -> (method, threads, the post's label). The same method names in Java
# (CounterCost.METHODS) and C (single_writer.c); "lock" is a ReentrantLock in Java, a pthread mutex in C.
TABLE = {
    "one-thread": ("plain", 1, "One Thread"),
    "barrier": ("barrier", 1, "One Thread with Memory Barrier"),
    "cas": ("cas", 1, "One Thread with CAS"),
    "cas-2": ("cas", 2, "Two Threads with CAS"),
    "lock": ("lock", 1, "One Thread with Lock"),
    "lock-2": ("lock", 2, "Two Threads with Lock"),
}
# The memory-barriers post's stores and fences: label -> (Java method, C method).
FENCES = {
    "plain store": ("plain", "plain"),
    "release store (setRelease, lazySet; C release store)": ("release", "release"),
    "volatile store (C: seq_cst store)": ("barrier", "barrier"),
    "release fence / sfence": ("fence-release", "sfence"),
    "acquire fence / lfence": ("fence-acquire", "lfence"),
    "full fence / mfence": ("fence-full", "mfence"),
}
JAVA_METHODS = ["plain", "plain-foldable", "barrier", "cas", "lock", "release", "fence-release", "fence-acquire",
                "fence-full"]
C_METHODS = ["plain", "plain-foldable", "barrier", "cas", "lock", "release", "sfence", "lfence", "mfence"]
SHARED = ["cas", "lock"]            # the methods two threads run (the others would lose updates)
FOLDING = ["plain", "plain-foldable"]  # run again at 10x the iterations: a real loop scales, a folded one does not
PROTOCOL_NAMES = ["lab", "post"]
# How long one increment takes, roughly, so each cell gets a count that runs long enough and not longer.
FAST = {"plain", "plain-foldable", "release", "fence-release", "fence-acquire", "sfence"}
TWO_THREADS = "cross-core"


def iterations(preset: str, method: str, threads: int, protocol: str = "lab") -> int:
    """The preset's increment count for a cell (the post's 500 M in full)."""
    sizes = PRESETS[preset]["post_iterations" if protocol == "post" else "iterations"]
    return sizes["contended" if threads == 2 else "fast" if method in FAST else "slow"]


def cell_for(method: str, threads: int, preset: str, topo: Topology, jdk: Jdk | None, protocol: str = "lab",
             scale: int = 1) -> Cell:
    """One cell (also used by the tests): a Java cell when jdk is given, else C. Two threads are pinned each to
    its own CPU of two different cores; on a machine without two cores the cell is unavailable, with the reason."""
    methods = JAVA_METHODS if jdk is not None else C_METHODS
    if method not in methods:
        raise MechsymError(f"method '{method}': allowed methods are {', '.join(methods)}")
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    if threads not in (1, 2) or threads == 2 and method not in SHARED:
        raise MechsymError(f"threads {threads} for {method}: 1, or 2 for {', '.join(SHARED)}")
    if protocol not in PROTOCOL_NAMES:
        raise MechsymError(f"protocol '{protocol}': allowed protocols are {', '.join(PROTOCOL_NAMES)}")
    p = PRESETS[preset]
    cpus = topo.placement(TWO_THREADS) if threads == 2 else []
    runs, warmup = (1, 0) if protocol == "post" else (p["runs"], p["warmup_runs"])
    params = {"protocol": protocol, "method": method, "threads": threads,
              "iterations": iterations(preset, method, threads, protocol) * scale, "runs": runs, "warmup-runs": warmup,
              "pin": ",".join(map(str, cpus or []))}
    labels = {"placement": TWO_THREADS if threads == 2 else "one thread", "language": "java" if jdk else "c",
              "scale": f"{scale}x"}
    return Cell(variant=method, kernel=KERNEL if jdk is not None else "c:" + C_BINARY, params=params, labels=labels,
                jdk=jdk, forks=p["forks"], timeout=p["timeout"] * scale,
                unavailable=None if cpus is not None else
                f"two threads need two cores: {topo.missing_reason(TWO_THREADS)}")


def cells(preset: str, topo: Topology, jdks: list[Jdk], **_overrides) -> list[Cell]:
    """Per runtime (each JDK, then C): every method with the lab's harness, cas and lock with two threads, plain and
    plain-foldable again at 10x; then the post's six rows with the post protocol (one cold run per fresh JVM).
    smoke: the first JDK only."""
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    runtimes = [(j, JAVA_METHODS) for j in (list(jdks)[:1] if preset == "smoke" else jdks)] + [(None, C_METHODS)]
    out: list[Cell] = []
    for jdk, methods in runtimes:
        out += [cell_for(m, 1, preset, topo, jdk) for m in methods]
        out += [cell_for(m, 2, preset, topo, jdk) for m in SHARED]
        out += [cell_for(m, 1, preset, topo, jdk, scale=10) for m in FOLDING]
        out += [cell_for(m, t, preset, topo, jdk, protocol="post") for m, t, _ in TABLE.values()]
    return out


JMH_BENCHMARK = "mechsym.jmh.SingleWriter.increment"
JMH_METHODS = ["plain", "release", "barrier", "cas", "lock"]   # SingleWriter's @Param method: the kernel's names


def jmh_cells(preset: str, topo: Topology, jdks: list[Jdk]) -> list[Cell]:
    """`--protocol jmh`: the post's table (plain, barrier, CAS, lock at one thread; CAS and lock at two) and the
    release store, on the first JDK; two threads under taskset over the lab's cross-core pair."""
    from ...run import jmh

    pair = topo.placement(TWO_THREADS) if topo is not None else None
    cells_ = [(m, 1) for m in JMH_METHODS] + [(m, 2) for m in SHARED]
    return [jmh.cell(m, JMH_BENCHMARK, {"method": m}, jdk, preset, threads=t, cpus=pair if t == 2 else None,
                     labels={"placement": TWO_THREADS if t == 2 else "one thread", "language": "java"})
            for jdk in jmh.first_jdk(preset, jdks) for m, t in cells_]
