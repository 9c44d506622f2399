"""The cost of contention: one 64-bit counter incremented by one thread or two (notebook 10).

Posts: "Single Writer Principle" (2011-09-22) and "Memory Barriers/Fences" (2011-07-24), Martin Thompson.
Kernels: mechsym.singlewriter.CounterCost (Java) and c-src/single_writer.c (the same methods with GCC builtins, a
pthread mutex and the x86 fence instructions), one run of `--iterations` increments per CSV row.

The sweep (sweep.py): per runtime (JDK 17, 25, C), every method one thread with the lab's harness, CAS and the lock
with two threads (each pinned to its own CPU, two cores: on a 2-vCPU machine the post's two threads fit), plain and
plain-foldable again at 10x the iterations (a loop the compiler folded does not scale), and the post's six rows
again with the post protocol (one cold run per fresh JVM). Verdicts (claims.py) per runtime and protocol, per fork,
with 95% intervals over forks; tables.py and figures.py hold what the notebook shows, split per machine.
"""

from .claims import CLAIM, CLAIMS
from .figures import plot_fences, plot_table
from .meta import NAME, NOTEBOOKS, POST_FILE, PRESETS, REFERENCE, TITLE
from .rows import LAB, POST, PROTOCOLS, forks, rows
from .sweep import C_METHODS, FENCES, JAVA_METHODS, TABLE, cell_for, cells
from .tables import cas_forks_table, comparison, fences_table, folding_table, forks_table, reference_table, summary
from .verdicts import verdicts

__all__ = [
    "CLAIM", "CLAIMS", "C_METHODS", "cas_forks_table", "FENCES", "JAVA_METHODS", "LAB", "NAME", "NOTEBOOKS", "POST", "POST_FILE",
    "PRESETS", "PROTOCOLS", "REFERENCE", "TABLE", "TITLE", "cell_for", "cells", "comparison", "fences_table",
    "folding_table", "forks", "forks_table", "plot_fences", "plot_table", "reference_table", "rows", "summary",
    "verdicts",
]
