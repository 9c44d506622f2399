"""One shared counter incremented by 1..N threads: XADD, a CAS loop, LongAdder, Java vs C (notebook 09).

Posts: "Adventures with AtomicLong" (2011-09-11) and the CAS remark of "Disruptor 2.0 Released" (2011-08-27),
Martin Thompson. Kernels: mechsym.atomic.AtomicIncrement (Java: AtomicLong.incrementAndGet, an explicit CAS loop,
VarHandle.getAndAdd, LongAdder, synchronized) and c-src/atomic_counter.c (GCC builtins: LOCK XADD, LOCK ADD, a
LOCK CMPXCHG loop).

The sweep (sweep.py): variant x threads (1..max(4, 2 x CPUs)) x JDK (17, 25; C has none) x forks, interleaved
round-robin; no pinning (the post pinned nothing). Threads past the machine's CPUs are time-sliced, not contending:
every cell records the CPUs it ran on (`cpus_online`) and the claims about 3+ concurrent threads are not measurable
below 4 CPUs.

Protocols (rows.py): post, the kernels' `--protocol=post` (the listing's timing: thread start to join, one cold run
per process); lab, the median of the measured runs after a warm-up. Every verdict (claims.py) is judged under both
where the post ran the variant, per fork, with a 95% interval over forks.
"""

from .claims import CLAIM, CLAIMS
from .figures import plot_primitives, plot_protocols
from .meta import NAME, NOTEBOOKS, POST_FILE, PRESETS, REFERENCE, TITLE
from .rows import LAB, POST, PROTOCOLS, forks, per_fork_table, rows
from .sweep import VARIANTS, cell_for, cells, thread_counts
from .tables import comparison, ratios, reference_table, summary, wide_table
from .verdicts import verdicts

__all__ = [
    "CLAIM", "CLAIMS", "LAB", "NAME", "NOTEBOOKS", "POST", "POST_FILE", "PRESETS", "PROTOCOLS", "REFERENCE", "TITLE",
    "VARIANTS", "cell_for", "cells", "comparison", "forks", "per_fork_table", "plot_primitives", "plot_protocols",
    "ratios", "reference_table", "rows", "summary", "thread_counts", "verdicts", "wide_table",
]
