"""The locks sweep: presets, variants and cells of mechsym.locks.LockContention.

Two grids, every JDK found:
- main: the posts' harness (new threads for every run, the JIT's defaults): every variant x threads
  1..max(4, 2 x CPUs) x both warm-up policies (the first post's single long warm-up, the second post's ten short);
- why: one thread, short warm-ups, the monitor variants and ReentrantLock with the harness changed one factor at a
  time: the same worker thread for every run (so a bias is never revoked by a new thread) and lock coarsening off
  (-XX:-EliminateLocks, so C2 cannot take one lock for many unrolled iterations).
"""

from __future__ import annotations

from ...cpus import Topology
from ...jdk import Jdk
from ...sweep import Cell

NAME = "locks"
TITLE = "Counter increments under JVM monitors (biased or not), ReentrantLock, AtomicLong, StampedLock"
NOTEBOOKS = ["01-lock-implementations", "02-biased-locking"]
KERNEL = "mechsym.locks.LockContention"
POST1 = "2011-11-19-java-lock-implementations.md"
POST2 = "2011-11-22-biased-locking-osr-and-benchmarking-fun.md"
REF1 = "2011-11-19-java-lock-implementations"
REF2 = "2011-11-22-biased-locking"

# variant -> (the kernel's --lock, JVM flags, what it stands for)
VARIANTS = {
    "monitor-thin": ("monitor", ("-XX:-UseBiasedLocking",), "synchronized, biased locking off: CAS ('atomic') locking"),
    "monitor-biased-delayed": ("monitor", ("-XX:+UseBiasedLocking", "-XX:BiasedLockingStartupDelay=4000"),
                               "synchronized, biased locking on with JDK 6's 4 s start-up delay: the first post's "
                               "+UseBiasedLocking"),
    "monitor-biased": ("monitor", ("-XX:+UseBiasedLocking", "-XX:BiasedLockingStartupDelay=0"),
                       "synchronized, biased locking on from the start: the second post's +UseBiasedLocking"),
    "monitor-default": ("monitor", (), "synchronized with this JDK's defaults (no biased locking since JDK 15)"),
    "reentrant": ("reentrant", (), "java.util.concurrent.locks.ReentrantLock (non-fair)"),
    "atomic": ("atomic", (), "AtomicLong.incrementAndGet, no lock (not in the posts)"),
    "stamped": ("stamped", (), "StampedLock write lock (not in the posts)"),
}
MONITORS = ["monitor-thin", "monitor-biased-delayed", "monitor-biased", "monitor-default"]
BIASED = ["monitor-thin", "monitor-biased-delayed", "monitor-biased"]   # need -XX:[+-]UseBiasedLocking (JDK <= 17)
POLICIES = ["single", "short"]        # the kernel's --warmup-policy: the first post's, the second post's
WORKERS = ["fresh", "reused"]         # the kernel's --workers
HARNESS = [("fresh", "on", "post's harness"), ("fresh", "off", "coarsening off"), ("reused", "on", "same thread"),
           ("reused", "off", "same thread, coarsening off")]
NO_COARSENING = "-XX:-EliminateLocks"

PRESETS = {
    "smoke": {"iterations": 200_000, "warmup_iterations": 10_000, "runs": 2, "forks": 1, "max_threads": 2,
              "variants": list(VARIANTS), "timeout": 60},
    "standard": {"iterations": 20_000_000, "warmup_iterations": 100_000, "runs": 5, "forks": 4, "max_threads": None,
                 "variants": list(VARIANTS), "timeout": 300},
    "full": {"iterations": 500_000_000, "warmup_iterations": 100_000, "runs": 10, "forks": 10, "max_threads": None,
             "variants": list(VARIANTS), "timeout": 3600},
}


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
    """`--protocol jmh`: every variant at 1 and 2 threads as the JMH benchmark, its JVM flags on the forks."""
    from ...jmh import cell
    return [cell(v, JMH_BENCHMARK, {"lock": VARIANTS[v][0]}, jdk, preset, threads=t, flags=VARIANTS[v][1])
            for jdk in (jdks[:1] if preset == "smoke" else jdks) for v in PRESETS[preset]["variants"] for t in (1, 2)]
