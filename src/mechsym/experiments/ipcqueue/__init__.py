"""Off-heap SPSC queue in a memory-mapped file between two processes: notebook 14.

Post: "135 Million messages a second between processes in pure Java" (Nitsan Wakart, 2013-04-07; the second post in
shared/posts/2013-07-01-java-ping-buffet-and-2013-04-07-135m-messages-ipc.md). Kernels: mechsym.ipc.IpcThroughput
(the off-heap queue, two JVMs or two threads, every message compared with the sequence sent) and, reused as the
in-heap baseline, mechsym.spsc.SpscThroughput (queue O1, Martin Thompson's queue: the 130M the post started from).

The sweep (sweep.py): variant (processes, threads, in-heap, processes-unaligned) x placement (SMT siblings, the
post's "same core"; cross core; unpinned) on the lowest JDK, with the post's JVM options; the queue file lives in a
scratch directory under $MECHSYM_SCRATCH (mechsym.run.scratch), made by `session` and removed whatever happens. Protocols
(rows.py): the post's best run per JVM, the lab's median of measured runs. Claims and verdicts in claims.py.
"""

from .claims import CLAIM, CLAIMS
from .figures import plot_throughput
from .meta import NAME, NOTEBOOK, NOTEBOOKS, POST_FILE, PRESETS, REFERENCE, TITLE
from .rows import LAB, POST, PROTOCOLS, forks, per_fork_table, rows
from .sweep import FLAGS, PLACEMENTS, VARIANTS, cell_for, cells, session
from .tables import alignment_table, comparison, placements_table, ratios, reference_table, summary, variants_table
from .verdicts import verdicts

__all__ = [
    "CLAIM", "CLAIMS", "FLAGS", "LAB", "NAME", "NOTEBOOK", "NOTEBOOKS", "PLACEMENTS", "POST", "POST_FILE", "PRESETS",
    "PROTOCOLS", "REFERENCE", "TITLE", "VARIANTS", "alignment_table", "cell_for", "cells", "comparison", "forks",
    "per_fork_table", "placements_table", "plot_throughput", "ratios", "reference_table", "rows", "session",
    "summary", "variants_table", "verdicts",
]
