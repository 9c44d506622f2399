"""The Java ping buffet: loopback round trips between two JVMs per transport (notebook 13).

Post: "A Java Ping Buffet" (2013-07-01), Nitsan Wakart. Kernel: mechsym.ping.PingBuffet, a client JVM that starts
its server JVM (TCP busy spin, selectNow, select, blocking; UDP busy spin; IPC through a memory-mapped file; and the
timer alone, the post's ErrPingClient), written from the post's description (no listing in the post).

The sweep (sweep.py): variant (transport x the post's knobs: yield, a wait between pings) x CPU placement
(cross-core, same-cpu, unpinned; pinned per thread, inside each JVM) x forks. Protocols (rows.py): the post's tool
sorts raw round trips and prints one row per batch; the lab records each run in an HdrHistogram. Verdicts
(claims.py) under both, per fork, with a 95% interval over forks; tables.py and figures.py hold what the notebook
shows.
"""

from .claims import CLAIM, CLAIMS
from .figures import plot_medians, plot_spectrum
from .meta import JUDGED, NAME, NOTEBOOKS, PLACEMENTS, POST_FILE, PRESETS, REFERENCE, TITLE, VARIANTS, supported
from .rows import LAB, POST, PROTOCOLS, rows
from .sweep import PINNED, cell_for, cells, placements_table, session
from .tables import beside, forks_table, mean_table, percentiles, reference_sample, reference_table
from .verdicts import verdicts

__all__ = [
    "CLAIM", "CLAIMS", "JUDGED", "LAB", "NAME", "NOTEBOOKS", "PINNED", "PLACEMENTS", "POST", "POST_FILE", "PRESETS",
    "PROTOCOLS", "REFERENCE", "TITLE", "VARIANTS", "beside", "cell_for", "cells", "forks_table", "mean_table",
    "percentiles", "placements_table", "plot_medians", "plot_spectrum", "reference_sample", "reference_table", "rows",
    "session", "supported", "verdicts",
]
