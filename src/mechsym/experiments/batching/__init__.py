"""Smart batching: bursts of messages to a slow device, serial writers vs one batcher thread (notebook 11).

Post: "Smart Batching" (2011-10-19), Martin Thompson. Kernel: mechsym.batching.SmartBatching (a simulated device that
takes 100 µs per write; producers that each lock and write, or a ConcurrentLinkedQueue drained by one batcher running
the post's NetworkBatcher loop).

The sweep (sweep.py): the post's worked example (bursts of 1, 5, 10, far apart) under the post's protocol (one burst
per run, the first after warm-up bursts) and the lab's (the median of runs of 100 bursts), the device parked instead
of spinning, and a load sweep of bursts of 10 from 10% of the serial device's capacity to 20x it. Verdicts
(claims.py) per fork with 95% intervals; tables.py and figures.py hold what the notebook shows, split per machine.
"""

from .claims import CLAIM, CLAIMS
from .figures import plot_bursts, plot_load
from .meta import LOADS, NAME, NOTEBOOKS, POST_FILE, PRESETS, REFERENCE, TITLE
from .rows import LAB, POST, PROTOCOLS, forks, rows
from .sweep import BURST, MODES, cell_for, cells
from .tables import bursts_table, comparison, harness_table, load_table, reference_table, summary
from .verdicts import verdicts

__all__ = [
    "BURST", "CLAIM", "CLAIMS", "LAB", "LOADS", "MODES", "NAME", "NOTEBOOKS", "POST", "POST_FILE", "PRESETS",
    "PROTOCOLS", "REFERENCE", "TITLE", "bursts_table", "cell_for", "cells", "comparison", "forks", "harness_table",
    "load_table", "plot_bursts", "plot_load", "reference_table", "rows", "summary", "verdicts",
]
