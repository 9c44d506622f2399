"""Processor affinity, part 1: notebook 12.

Post: "Processor Affinity - Part 1" (Martin Thompson, 2011-07-19): a multicast sender and receiver in two JVMs,
messages per second each second; unpinned the rate moves in steps, pinned (taskset) it is steady and highest.
Kernel: mechsym.affinity.MulticastRate (--role=sender|receiver). The sweep (sweep.py) runs each pair in a network
namespace of its own (root, unshare -n), pinned to two CPUs or unpinned; without root or unshare the cells are
unavailable with the reason. The one protocol and per-fork values in rows.py, claims in claims.py.
"""

from .claims import CLAIM, CLAIMS
from .figures import plot_seconds
from .meta import NAME, NOTEBOOK, NOTEBOOKS, PLACEMENTS, POST_FILE, PRESETS, REFERENCE, TITLE
from .rows import POST, PROTOCOLS, rates, totals, trace
from .sweep import KERNEL, cell_for, cells, command, namespace_missing
from .tables import loss_table, rate_table, reference_table, seconds_table, step_trace
from .verdicts import verdicts

__all__ = [
    "CLAIM", "CLAIMS", "KERNEL", "NAME", "NOTEBOOK", "NOTEBOOKS", "PLACEMENTS", "POST", "POST_FILE", "PRESETS",
    "PROTOCOLS", "REFERENCE", "TITLE", "cell_for", "cells", "command", "loss_table", "namespace_missing",
    "plot_seconds", "rate_table", "rates", "reference_table", "seconds_table", "step_trace", "totals", "trace",
    "verdicts",
]
