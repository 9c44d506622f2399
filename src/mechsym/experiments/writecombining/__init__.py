"""Write combining: one loop writing six byte arrays against two loops of three, and how many arrays a loop can
write before this CPU stops combining them (notebook 07).

Post: "Write Combining" (2011-07-15), Martin Thompson. Kernels: mechsym.writecombining.WriteCombining (Java) and
c-src/writecombining.c (the same loops in C, gcc -O2), so that the JIT and the hardware can be told apart.

The sweep (sweep.py): the listing's main (`--protocol=post`: SingleLoop then SplitLoop, three times per JVM, no
warm-up) on every JDK and in C; then, beyond the post, one loop of N = 1..12 arrays and the listing's SplitLoop
alone (the lab's harness: a warm-up run, then measured runs), on the first JDK and in C, and the six-array pair on
the other JDKs. One thread, unpinned, as the listing ran. Forks interleaved round-robin over the cells.

rows.py: the two protocols (the post's: the listing's first repetition per JVM; for the sweep, which
the post never ran, the first, cold run of each JVM; the lab's: the median of the warmed-up runs). claims.py: the
claims, judged per fork with intervals. tables.py and figures.py: what the notebook shows, split per machine.
One more fork of the listing per JDK logs every compilation (variant listing-jit): rows.jit_forks and jit_spans read
it, tables.jit_runs_table and figures.plot_jit_timeline put its events on its repetitions (shown, never judged).
"""

from .claims import CLAIM, CLAIMS, FASTER
from .figures import plot_jit_timeline, plot_listing, plot_reference, plot_sweep
from .meta import NAME, NOTEBOOKS, POST_FILE, PRESETS, REFERENCE, TITLE
from .rows import COLD, LAB, ORDERS, POST, PROTOCOLS, jit_forks, jit_spans, listing_forks, rows, runtimes, sweep_forks
from .sweep import (
    C_KERNEL, KERNEL, POST_ARRAYS, PROTOCOL_NAMES, SPLIT, VARIANTS, cells, listing_cell, listing_jit_cell, sweep_cell)
from .tables import (
    NOT_RECORDED, forks_table, jit_events_table, jit_runs_table, listing_table, protocols_table, reference_table,
    repetitions, summary, sweep_table)
from .verdicts import knee, verdicts

__all__ = [
    "CLAIM", "CLAIMS", "COLD", "C_KERNEL", "FASTER", "KERNEL", "LAB", "NAME", "NOTEBOOKS", "NOT_RECORDED", "ORDERS",
    "POST", "POST_ARRAYS", "POST_FILE", "PRESETS", "PROTOCOLS", "PROTOCOL_NAMES", "REFERENCE", "SPLIT", "TITLE",
    "VARIANTS", "cells", "forks_table", "jit_events_table", "jit_forks", "jit_runs_table", "jit_spans", "knee",
    "listing_cell", "listing_forks", "listing_jit_cell", "listing_table", "plot_jit_timeline", "plot_listing",
    "plot_reference", "plot_sweep", "protocols_table", "reference_table", "repetitions", "rows", "runtimes",
    "summary", "sweep_cell", "sweep_forks", "sweep_table", "verdicts",
]
