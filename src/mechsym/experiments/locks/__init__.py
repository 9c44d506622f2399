"""Lock implementations and biased locking: notebooks 01 and 02.

Posts: "Java Lock Implementations" (2011-11-19) and "Biased Locking, OSR, and Benchmarking Fun" (2011-11-22),
Martin Thompson. N threads increment one shared counter inside a lock: a JVM monitor (`synchronized`, biased or
not), ReentrantLock, and, not in the posts, AtomicLong and StampedLock. Kernel: mechsym.locks.LockContention.

Sweep grids (sweep.py): `main`, the posts' harness (new threads for every run, the JIT's defaults): every variant x
threads 1..max(4, 2 x CPUs) x both warm-up policies (the first post's one long warm-up, the second post's ten short)
x every JDK; `why`, one thread with the harness changed one factor at a time (the same worker thread for every run,
lock coarsening off).

Verdicts (verdicts.py) are statistics over forks with 95% intervals, judged first under the post's protocol (the
first timed run after the warm-up in each JVM) and then under the lab's (the median of the measured runs).
"""

from .claims import CLAIM, CLAIMS
from .figures import COLORS, plot_reference, plot_runs, plot_scaling, plot_why
from .meta import NAME, NOTEBOOKS, POST_FILE, POST_FILE_BIASED, PRESETS, REFERENCE, REFERENCE_BIASED, TITLE, VARIANTS
from .rows import KEYS, PROTOCOLS, forks, one_thread, run_clocks, throughput
from .sweep import KERNEL, MONITORS, POLICIES, WORKERS, cells, thread_counts
from .tables import osr_table, protocol_table, reference_table, scaling_table, summary, unavailable, why_table
from .verdicts import verdicts

__all__ = [
    "CLAIM", "CLAIMS", "COLORS", "KERNEL", "MONITORS", "NAME", "NOTEBOOKS", "POLICIES", "POST_FILE",
    "POST_FILE_BIASED", "PRESETS", "REFERENCE", "REFERENCE_BIASED", "TITLE", "VARIANTS", "WORKERS", "cells",
    "osr_table", "plot_reference", "plot_runs", "plot_scaling", "plot_why", "protocol_table", "reference_table",
    "run_clocks", "scaling_table", "summary", "thread_counts", "throughput", "unavailable", "verdicts", "why_table",
]
