"""Signalling between two threads: condition variables vs volatile counters, Java vs C (notebooks 03 and 08).

Posts: "Locks & Condition Variables - Latency Impact" (2011-11-05) and "Inter Thread Latency" (2011-08-09),
Martin Thompson. Kernels: mechsym.signalling.LockedSignalling (a ReentrantLock and two Conditions),
mechsym.signalling.VolatilePingPong (busy spin on two volatile counters) and c-src/pingpong.c (the same
ping-pong with GCC atomic builtins).

The sweep (sweep.py): variant x CPU placement x JDK (17, 25; C has none) x forks, the forks interleaved
round-robin over the cells. The placements come from the topology: cross-core (the posts' `taskset -c 2,4`),
smt (two siblings of one core), same-cpu (both threads on one CPU) and unpinned. Pinning is per thread, inside
the kernel (`--pin=a,b`), never by taskset on the process, which on a 2-CPU machine pins nothing; the kernels
record it in their `pinning` column. A busy spin with both threads on one CPU only moves once per scheduler time
slice: those runs are bounded (`--max-ms`) and report the exchanges they completed with deadline_hit = 1.

Protocols (rows.py): the posts time one cold run per JVM (no warm-up); the lab takes the median of measured
runs after a warm-up. Every verdict (claims.py) is judged under both, per fork, with a 95% interval over forks.
tables.py and figures.py hold what the notebooks show; every one of them is split per machine.
"""

from .claims import CLAIM, CLAIMS
from .figures import plot_ns_per_op, plot_percentiles, plot_reference_cv, plot_sorted_runs
from .meta import NAME, NOTEBOOKS, POST_FILE, PRESETS, REFERENCE, REFERENCE_ITL, TITLE
from .rows import LAB, POST, PROTOCOLS, forks, per_fork_table, rows
from .sweep import PLACEMENTS, VARIANTS, cell_for, cells, pin_for, placements_table
from .tables import (
    bounded_runs, comparison_cv, comparison_itl, counter_lines, forks_table, java_vs_c, percentiles,
    reference_cv_table, reference_itl_table, run_to_run, summary, timer_table, wide_table)
from .verdicts import protocols_table, verdicts

__all__ = [
    "CLAIM", "CLAIMS", "LAB", "NAME", "NOTEBOOKS", "PLACEMENTS", "POST", "POST_FILE", "PRESETS", "PROTOCOLS",
    "REFERENCE", "REFERENCE_ITL", "TITLE", "VARIANTS", "bounded_runs", "cell_for", "cells", "comparison_cv",
    "comparison_itl", "counter_lines", "forks", "forks_table", "java_vs_c", "per_fork_table", "percentiles", "pin_for",
    "placements_table", "plot_ns_per_op", "plot_percentiles", "plot_reference_cv", "plot_sorted_runs",
    "protocols_table", "reference_cv_table", "reference_itl_table", "rows", "run_to_run", "summary", "timer_table",
    "verdicts", "wide_table",
]
