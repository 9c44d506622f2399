"""Let the caller choose: String.split against a split into a caller-supplied, reused collection (notebook 16).

Post: "Let The Caller Choose" (2011-07-16), Martin Thompson; it prints no benchmark. Kernel:
mechsym.callerchoose.SplitCost (String.split, or a split into a reused ArrayList or HashSet; ns per call, bytes
allocated per call, collections and GC time per run, the young generation's size).

The sweep (sweep.py): every method x input size (8 words, 1,000, 4 M: a result array larger than the young
generation of -Xmn8m) x collector (G1, Parallel), per JDK (smoke: the first). Verdicts (claims.py) per JDK and
collector under both protocols, per fork with 95% intervals; tables.py and figures.py hold what the notebook shows,
split per machine and JDK.
"""

from .claims import CLAIM, CLAIMS
from .figures import plot_methods
from .meta import COLLECTORS, NAME, NOTEBOOKS, POST_FILE, PRESETS, REFERENCE, SIZES, TITLE
from .rows import LAB, POST, PROTOCOLS, forks, rows
from .sweep import METHODS, cell_for, cells
from .tables import comparison, reference_table, summary, young_table
from .verdicts import verdicts

__all__ = [
    "CLAIM", "CLAIMS", "COLLECTORS", "LAB", "METHODS", "NAME", "NOTEBOOKS", "POST", "POST_FILE", "PRESETS",
    "PROTOCOLS", "REFERENCE", "SIZES", "TITLE", "cell_for", "cells", "comparison", "forks", "plot_methods",
    "reference_table", "rows", "summary", "verdicts", "young_table",
]
