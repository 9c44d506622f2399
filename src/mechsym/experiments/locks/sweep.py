"""The locks sweep: presets, variants and cells of mechsym.locks.LockContention.

Two grids, every JDK found:
- main: the posts' harness (new threads for every run, the JIT's defaults): every variant x threads
  1..max(4, 2 x CPUs) x both warm-up policies (the first post's single long warm-up, the second post's ten short);
- why: one thread, short warm-ups, the monitor variants and ReentrantLock with the harness changed one factor at a
  time: the same worker thread for every run (so a bias is never revoked by a new thread) and lock coarsening off
  (-XX:-EliminateLocks, so C2 cannot take one lock for many unrolled iterations).
"""

from __future__ import annotations

from ...machine.cpus import Topology
from ...machine.jdk import Jdk
from ...run.sweep import Cell
from .meta import PRESETS, VARIANTS

KERNEL = "mechsym.locks.LockContention"

MONITORS = ["monitor-thin", "monitor-biased-delayed", "monitor-biased", "monitor-default"]
BIASED = ["monitor-thin", "monitor-biased-delayed", "monitor-biased"]   # need -XX:[+-]UseBiasedLocking (JDK <= 17)
POLICIES = ["single", "short"]        # the kernel's --warmup-policy: the first post's, the second post's
WORKERS = ["fresh", "reused"]         # the kernel's --workers
HARNESS = [("fresh", "on", "post's harness"), ("fresh", "off", "coarsening off"), ("reused", "on", "same thread"),
           ("reused", "off", "same thread, coarsening off")]
NO_COARSENING = "-XX:-EliminateLocks"


def thread_counts(topo: Topology, preset: str) -> list[int]:
    cap = PRESETS[preset]["max_threads"]
    top = max(4, 2 * topo.logical) if preset != "full" else max(8, 2 * topo.logical)
    return list(range(1, (cap or top) + 1))


def cells(preset: str, topo: Topology, jdks: list[Jdk]) -> list[Cell]:
    p = PRESETS[preset]
    out: list[Cell] = []

    def cell(variant, jdk, threads, policy, workers, coarsening, grid):
        lock, flags, _ = VARIANTS[variant]
        flags = tuple(flags) + ((NO_COARSENING,) if coarsening == "off" else ())
        return Cell(variant=variant, kernel=KERNEL, jdk=jdk, flags=flags, forks=p["forks"], timeout=p["timeout"],
                    params={"lock": lock, "threads": threads, "iterations": p["iterations"],
                            "warmup-policy": policy, "warmup-iterations": p["warmup_iterations"],
                            "runs": p["runs"], "workers": workers},
                    labels={"grid": grid, "coarsening": coarsening})

    for jdk in jdks:
        for policy in POLICIES:
            for variant in p["variants"]:
                for threads in thread_counts(topo, preset):
                    out.append(cell(variant, jdk, threads, policy, "fresh", "on", "main"))
        for variant in MONITORS + ["reentrant"]:
            for workers, coarsening, _ in HARNESS[1:]:   # the first is the main grid's cell
                out.append(cell(variant, jdk, 1, "short", workers, coarsening, "why"))
    return out


JMH_BENCHMARK = "mechsym.jmh.Locks.increment"


def jmh_cells(preset: str, topo: Topology, jdks: list[Jdk]) -> list[Cell]:
    """`--protocol jmh`: every variant at 1 thread, and the unbiased ones (monitor-default, reentrant, atomic,
    stamped) at 2, as the JMH benchmark with the variant's JVM flags on the forks, on the first JDK (the lowest: the
    one that still has biased locking); ~5.5 minutes at the standard preset."""
    from ...run.jmh import cell, first_jdk
    two = [v for v in PRESETS[preset]["variants"] if v not in BIASED]
    return [cell(v, JMH_BENCHMARK, {"lock": VARIANTS[v][0]}, jdk, preset, threads=t, flags=VARIANTS[v][1])
            for jdk in first_jdk(preset, jdks) for t, variants in ((1, PRESETS[preset]["variants"]), (2, two))
            for v in variants]
