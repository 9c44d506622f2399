"""Lock vs no-lock bid containers in a small bidding system (notebook 15).

Post: "Lock vs no-lock bidding simulation" (2014-03, Chris Fabri; no listing). Kernel:
mechsym.bidding.BiddingSimulation, written from the post's description: clients (one thread each) bid 1,000 times on
every item, interleaved; each bid reads the item's best bid and puts a new one into the item's bid container and the
bid keeper (a ConcurrentHashMap of initial capacity 16, 1k or 1M).

The sweep (sweep.py): per JDK, the three containers x clients (1 .. past this machine's cores) with the post's
protocol (one JVM sweeps the item counts, one simulation each, as the post's plots do) and the lab's (warm-up, then the
median of measured simulations at the post's peak item count, ~45), the lock-free container at keeper capacities 1k
and 1M, and each container with the JDK's default GC beside the post's GC isolation. Verdicts (claims.py) at clients =
this machine's cores, per JDK and protocol, per fork with 95% intervals; tables.py and figures.py hold what the
notebook shows, split per machine.
"""

from .claims import CLAIM, CLAIMS
from .figures import plot_jitter_vs_clients, plot_throughput_vs_items
from .meta import NAME, NOTEBOOKS, POST_FILE, PRESETS, REFERENCE, TITLE
from .rows import LAB, POST, PROTOCOLS, forks, per_fork_table, rows
from .sweep import CAPACITIES, CONTAINERS, GC_ISOLATED, GC_VARIANTS, cell_for, cells, clients_for
from .tables import capacity_table, comparison, containers_table, gc_table, jitter_table, reference_table, summary
from .verdicts import verdicts

__all__ = [
    "CAPACITIES", "CLAIM", "CLAIMS", "CONTAINERS", "GC_ISOLATED", "GC_VARIANTS", "LAB", "NAME", "NOTEBOOKS", "POST",
    "POST_FILE", "PRESETS", "PROTOCOLS", "REFERENCE", "TITLE", "capacity_table", "cell_for", "cells", "clients_for",
    "comparison", "containers_table", "forks", "gc_table", "jitter_table", "per_fork_table", "plot_jitter_vs_clients",
    "plot_throughput_vs_items", "reference_table", "rows", "summary", "verdicts",
]
