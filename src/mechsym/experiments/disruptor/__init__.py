"""The Disruptor against queues, one publisher and one event processor: notebook 17.

Post: "Disruptor 2.0 Released" (Martin Thompson, 2011-08-27): over 50 M events/s on Sandy Bridge, an order of
magnitude better than queue based approaches, and a note on how much thread affinity matters. Kernel:
mechsym.disruptor.DisruptorThroughput (the LMAX Disruptor 4.0.0 from Maven Central; ArrayBlockingQueue; JCTools'
SpscArrayQueue and the lab's queue O1 through mechsym.spsc.SpscQueue), every event's number checked in order.

Sweep (sweep.py): channel x placement (cross-core, unpinned) x JDK x forks, plus the post's comparison (yielding
RingBuffer, ArrayBlockingQueue) with the kernel's post protocol (the perf test's three cold passes per JVM).
Protocols and per-fork values in rows.py, claims and verdicts in claims.py, tables.py and figures.py.
"""

from .claims import CLAIM, CLAIMS
from .figures import plot_pinning, plot_throughput
from .meta import NAME, NOTEBOOK, NOTEBOOKS, PLACEMENTS, POST_FILE, PRESETS, REFERENCE, TITLE
from .rows import LAB, POST, PROTOCOLS, per_fork_table, rows
from .sweep import CHANNELS, KERNEL, cell_for, cells, placements_table
from .tables import comparison, forks_table, reference_table, throughput_table
from .verdicts import verdicts

__all__ = [
    "CHANNELS", "CLAIM", "CLAIMS", "KERNEL", "LAB", "NAME", "NOTEBOOK", "NOTEBOOKS", "PLACEMENTS", "POST",
    "POST_FILE", "PRESETS", "PROTOCOLS", "REFERENCE", "TITLE", "cell_for", "cells", "comparison", "forks_table",
    "per_fork_table", "placements_table", "plot_pinning", "plot_throughput", "reference_table", "rows",
    "throughput_table", "verdicts",
]
