"""False sharing: N threads each writing its own volatile counter, per counter layout (notebook 06).

Posts: "False Sharing" (2011-07-30) and "False Sharing && Java 7" (2011-08-13), Martin Thompson. Kernels:
mechsym.falsesharing.FalseSharing (the listing's loop, per layout, thread count and per-thread pinning; `post` and
`lab` protocols) and mechsym.falsesharing.CounterLayout (JOL: each layout's field offsets and, for counters
allocated as the kernel allocates them, the smallest gap between two threads' counters and whether two share a
64-byte line).

The sweep (sweep.py): per JDK, JOL's layouts in fresh JVMs; layout x threads 1..4 (full: 1..max(4, 2 x CPUs)),
one thread per core (cross-core, round robin), the lab's harness; the posts' three listings at 1 and 2 threads
with the post's protocol (one cold run per JVM, unpinned, as the posts ran); 2 threads on the other placements
(same-cpu, smt, unpinned); every timed run records where the threads' `longs` array starts in its cache line and whether a counter
shares its line: the post's runs leave it to the allocator, the lab's place it at a random byte (array_line_table,
findings); L1D misses per write under `perf stat` where the machine can count them, else those
cells are stored as unavailable with perf's own words. Verdicts (claims.py) per JDK under both protocols; tables
and figures split per machine.
"""

from .claims import CLAIM, CLAIMS
from .figures import plot_layout_gaps, plot_scaling
from .meta import NAME, NOTEBOOKS, POST_FILE, PRESETS, REFERENCE, REFERENCE_JAVA7, TITLE
from .rows import LAB, POST, PROTOCOLS, forks, layout_rows, rows
from .sweep import (
    LAYOUTS, PLACEMENTS, cell_for, cells, layouts_table, parse_perf, perf_probe, pin_for, placements_table,
    thread_counts)
from .tables import (
    array_line_table, findings, forks_table, l1d_table, layout_table, offsets, placement_table, reference_table,
    scaling_table, throughput_table)
from .verdicts import verdicts

__all__ = [
    "CLAIM", "CLAIMS", "array_line_table", "findings", "LAB", "LAYOUTS", "NAME", "NOTEBOOKS", "PLACEMENTS", "POST", "POST_FILE",
    "PRESETS", "PROTOCOLS", "REFERENCE", "REFERENCE_JAVA7", "TITLE", "cell_for", "cells", "forks", "forks_table",
    "l1d_table", "layout_rows", "layout_table", "layouts_table", "offsets", "parse_perf", "perf_probe", "pin_for",
    "placement_table", "placements_table", "plot_layout_gaps", "plot_scaling", "reference_table", "rows",
    "scaling_table", "thread_counts", "throughput_table", "verdicts",
]
