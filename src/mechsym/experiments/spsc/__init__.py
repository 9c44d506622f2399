"""SPSC queue run-to-run variance: notebook 05.

Post: "Single Producer Single Consumer Queue Revisited: An empiricist tale - part I" (Nitsan Wakart, 2013-07-15).
The same lock-free SPSC array queue with six memory layouts (O1 the original, O2 + padded data, I1 inlined
counters, I2 + padded data, I3 inlined counters + padded class, I4 + padded data; JCTools' SpscArrayQueue beside
them), each run 30 times in fresh JVMs: one run = one JVM, 20 iterations, the run's summary = the mean throughput
of the last 10 (the post's protocol, `POST`; the fork is the unit of replication).

Kernels: mechsym.spsc.SpscThroughput (one run per JVM, both threads pinned) and mechsym.spsc.SpscLayout (JOL field
offsets, one JVM per JDK).

Sweep (sweep.py): queue variant x CPU placement (same logical CPU, SMT siblings, cross core, cross socket: those
the machine has; the others stored as unavailable with the reason) x JVM option set (the post's four, plus the
post's set with -XX:-TieredCompilation, which is how JDK 7 ran it: CompileThreshold is ignored under tiered
compilation) x JDK. Run summaries and JOL offsets in rows.py, tables in tables.py (variance, winners, JCTools, alignment, JOL
layouts), figures in figures.py (the post's sorted runs), claims in claims.py, verdicts in verdicts.py.
"""

from .claims import CLAIM, CLAIMS
from .figures import COLORS, plot_runs_side_by_side, plot_sorted_grid, plot_sorted_runs
from .meta import MAIN_OPTIONS, NAME, NOTEBOOK, NOTEBOOKS, OPTION_SETS, POST_FILE, PRESETS, QUEUES, REFERENCE, TITLE
from .rows import POST, PROTOCOLS, layout_rows, offsets, run_summaries
from .sweep import (
    CT_OPTIONS, KERNEL, LAYOUT_KERNEL, PLACEMENT_LABELS, PLACEMENTS, POST_QUEUES, SAME_CORE, cells, option_sets_table)
from .tables import (
    alignment_table, jctools_table, layout_checks, layout_table, layout_vs_post, stored_runs, unavailable_cells,
    variance_display, variance_table, vm_options_table, winners_table)
from .verdicts import verdicts

__all__ = [
    "NAME", "TITLE", "NOTEBOOKS", "PRESETS", "cells", "CLAIMS", "CLAIM", "verdicts", "POST_FILE", "NOTEBOOK",
    "REFERENCE", "KERNEL", "LAYOUT_KERNEL", "QUEUES", "POST_QUEUES", "OPTION_SETS", "MAIN_OPTIONS", "CT_OPTIONS",
    "PLACEMENTS", "PLACEMENT_LABELS", "SAME_CORE", "COLORS", "POST", "PROTOCOLS", "option_sets_table",
    "run_summaries", "variance_table", "variance_display", "unavailable_cells", "vm_options_table", "winners_table",
    "jctools_table", "alignment_table", "stored_runs",
    "layout_rows", "layout_table", "layout_checks", "layout_vs_post", "offsets",
    "plot_sorted_runs", "plot_sorted_grid", "plot_runs_side_by_side",
]
