"""Calibration: what this machine can measure (no post; the overview's "This machine" section).

Kernels: mechsym.calibration.Floors (nanoTime and currentTimeMillis steps, an uncontended CAS, a cache line's round
trip on one CPU and across two, park/unpark wake-up across CPUs) and c-src/calibration.c (round trip and futex
wake-up in C). The sweep (sweep.py) runs each in fresh processes, then the A/A: the cross-CPU round trip in many
fresh JVMs, whose per-fork levels are the machine's regimes. machine/calibration.from_rows turns a run into the
record the other experiments' claims read; `mechsym calibrate` stores one, and the smoke preset opens every
standard run of any experiment (run/sweep.py). No claims, no verdicts.
"""

from .claims import CLAIMS
from .figures import plot_regimes
from .meta import NAME, NOTEBOOKS, POST_FILE, PRESETS, REFERENCE, TITLE
from .rows import PROTOCOLS, rows
from .sweep import cells, session
from .tables import aa_forks, regimes, summary
from .verdicts import verdicts

__all__ = ["CLAIMS", "NAME", "NOTEBOOKS", "POST_FILE", "PRESETS", "PROTOCOLS", "REFERENCE", "TITLE", "aa_forks",
           "cells", "plot_regimes", "regimes", "rows", "session", "summary", "verdicts"]
