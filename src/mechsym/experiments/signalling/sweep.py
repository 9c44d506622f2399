"""The sweep: presets, variants, CPU placements and the cells they make."""

from __future__ import annotations

import functools

from ... import MechsymError
from ...machine import cpus
from ...machine.cpus import Topology
from ...machine.jdk import Jdk
from ...run.sweep import Cell
from .meta import PRESETS


LOCKED = "mechsym.signalling.LockedSignalling"
VOLATILE = "mechsym.signalling.VolatilePingPong"
C_BINARY = "pingpong"

# variant -> (kernel, wait mode or None, language, mechanism, what it stands for)
VARIANTS = {
    "locked": (LOCKED, None, "java", "lock+condition",
               "ReentrantLock + two Conditions (the 2011-11-05 post)"),
    "volatile-spin": (VOLATILE, "spin", "java", "volatile",
                      "two volatile counters, busy spin (the 2011-08-09 post, Java)"),
    "volatile-yield": (VOLATILE, "yield", "java", "volatile",
                       "the same with Thread.yield() in the wait loop (not in the posts)"),
    "c-spin": ("c:" + C_BINARY, "spin", "c", "volatile",
               "two counters, __sync_add_and_fetch, busy spin (the 2011-08-09 post, C++)"),
    "c-yield": ("c:" + C_BINARY, "yield", "c", "volatile",
                "the same with sched_yield() in the wait loop (not in the posts)"),
}
# The kernels' wait modes (VolatilePingPong.WAITS and pingpong.c alike; a test reads both): the sweep runs spin and
# yield; pause (Thread.onSpinWait / PAUSE) is there to try by hand, e.g. `--wait=pause`, and is not in the posts.
WAITS = ["spin", "pause", "yield"]
# The kernels' protocols (VolatilePingPong.PROTOCOL_NAMES, LockedSignalling.PROTOCOL_NAMES, pingpong.c; a test reads them):
# lab, the harness (threads reused, warm-up runs, several measured runs, sampled round trips); post, the listing's
# structure (fresh threads, the ping loop on main, one cold run per JVM here, as the posts ran it).
PROTOCOL_NAMES = ["lab", "post"]
# The cells the posts themselves ran, run again with the kernels' post protocol: the lock pinned and unpinned
# (2011-11-05), the busy spin pinned in Java and C (2011-08-09). Same exchanges per run as the lab's cells.
POST_CELLS = [("locked", "cross-core"), ("locked", "unpinned"), ("volatile-spin", "cross-core"),
              ("c-spin", "cross-core")]
JAVA_VARIANTS = ["locked", "volatile-spin", "volatile-yield"]
C_VARIANTS = ["c-spin", "c-yield"]
PLACEMENTS = ["cross-core", "smt", "same-cpu", "unpinned"]
PLACEMENT_TEXT = {
    "cross-core": "two CPUs on different cores (the posts' taskset -c 2,4)",
    "smt": "two SMT siblings of one core",
    "same-cpu": "both threads on one CPU",
    "unpinned": "no pinning: the scheduler decides",
}


def pin_for(topo: Topology, placement: str) -> list[int] | None:
    """The two CPUs of a placement ([] = unpinned), None when the machine lacks it.

    An unknown placement is a MechsymError naming the allowed ones."""
    if placement not in PLACEMENTS:
        raise MechsymError(f"placement '{placement}': allowed placements are {', '.join(PLACEMENTS)}")
    return topo.placement(placement)


def cell_for(variant: str, placement: str, preset: str, topo: Topology, jdk: Jdk | None,
             protocol: str = "lab") -> Cell:
    """One cell of the sweep (also used by the tests): the lab's harness, or the kernels' post protocol (one cold
    run per JVM, busy spin, no sampled round trips)."""
    if variant not in VARIANTS:
        raise MechsymError(f"variant '{variant}': allowed variants are {', '.join(VARIANTS)}")
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    if protocol not in PROTOCOL_NAMES or protocol == "post" and (variant, placement) not in POST_CELLS:
        raise MechsymError(f"protocol '{protocol}' for {variant} {placement}: allowed are lab, and post for "
                           + ", ".join(f"{v} {pl}" for v, pl in POST_CELLS))
    p = PRESETS[preset]
    kernel, wait, language, mechanism, _ = VARIANTS[variant]
    cpus = pin_for(topo, placement)
    pin = ",".join(map(str, cpus or []))
    runs, warmup = p["runs"], p["warmup_runs"]
    if protocol == "post":
        # as the posts ran: one cold run per JVM, busy spin, the whole run timed; max-ms is the kernel's watchdog
        iterations = p["post_locked_iterations"] if variant == "locked" else p["post_volatile_iterations"]
        params = {"protocol": "post", "iterations": iterations, **({"wait": "spin"} if wait else {}),
                  "sample-every": 0, "max-ms": (p["timeout"] - 30) * 1000, "runs": 1, "warmup-runs": 0, "pin": pin}
    elif variant == "locked":
        params = {"protocol": "lab", "iterations": p["locked_iterations"], "sample-every": p["locked_sample_every"],
                  "runs": runs, "warmup-runs": warmup, "pin": pin}
    else:
        bounded = placement == "same-cpu" and wait == "spin"
        iterations = p["yield_iterations"] if wait == "yield" else p["volatile_iterations"]
        sample = p["yield_sample_every"] if wait == "yield" else p["volatile_sample_every"]
        if bounded:
            # one exchange per time slice: time-bounded, every exchange sampled
            runs, sample = p["same_cpu_runs"], 1
        params = {"protocol": "lab", "iterations": iterations, "wait": wait, "sample-every": sample,
                  "max-ms": p["same_cpu_max_ms"] if bounded else p["max_ms"], "runs": runs, "warmup-runs": warmup,
                  "pin": pin}
    labels = {"placement": placement, "language": language, "mechanism": mechanism}
    unavailable = None if cpus is not None else topo.missing_reason(placement)
    return Cell(variant=variant, kernel=kernel, params=params, labels=labels,
                jdk=None if language == "c" else jdk, cpus=None, forks=p["forks"], timeout=p["timeout"],
                unavailable=unavailable)


def cells(preset: str, topo: Topology, jdks: list[Jdk], **_overrides) -> list[Cell]:
    """Every variant x placement x JDK with the lab's harness, then the posts' own cells with the kernels' post
    protocol (smoke: the first JDK only, to stay within seconds).

    Each cell runs `forks` fresh JVMs; the sweep interleaves them round-robin over the cells (fork 0 of every
    cell, then fork 1, ...), so a slow drift of the machine spreads over every cell."""
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    if preset == "smoke":
        jdks = list(jdks)[:1]
    out: list[Cell] = []
    for placement in PLACEMENTS:
        for jdk in jdks:
            out += [cell_for(v, placement, preset, topo, jdk) for v in JAVA_VARIANTS]
        out += [cell_for(v, placement, preset, topo, None) for v in C_VARIANTS]
    for variant, placement in POST_CELLS:
        for jdk in ([None] if VARIANTS[variant][2] == "c" else jdks):
            out.append(cell_for(variant, placement, preset, topo, jdk, protocol="post"))
    return out


# Which CPUs each placement uses on this machine, or why it is missing (the shared table, this experiment's roles).
placements_table = functools.partial(cpus.placements_table,
                                     {p: PLACEMENT_TEXT[p] for p in PLACEMENTS}, None)


# variant -> (JMH benchmark (a @Group of two threads: ping, pong), its @Param values)
JMH_BENCHMARKS = {
    "locked": ("mechsym.jmh.LockedPingPong.pingpong", {}),
    "volatile-spin": ("mechsym.jmh.PingPong.pingpong", {"variant": "volatile-spin"}),
    "volatile-yield": ("mechsym.jmh.PingPong.pingpong", {"variant": "volatile-yield"}),
}
JMH_PLACEMENT = "cross-core"


def jmh_cells(preset: str, topo: Topology, jdks: list[Jdk]) -> list[Cell]:
    """`--protocol jmh`: the lock + condition ping-pong and the volatile one (busy spin, yield), each a @Group of
    two threads, on the first JDK, the host JVM under taskset over the cross-core pair (JMH cannot pin each
    thread)."""
    from ...run import jmh

    pair = topo.placement(JMH_PLACEMENT) if topo is not None else None
    return [jmh.cell(v, bench, params, jdk, preset, threads=2, cpus=pair,
                     labels={"placement": JMH_PLACEMENT, "language": "java", "mechanism": VARIANTS[v][3]})
            for jdk in jmh.first_jdk(preset, jdks) for v, (bench, params) in JMH_BENCHMARKS.items()]
