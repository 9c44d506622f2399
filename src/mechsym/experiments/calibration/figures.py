"""Figures: the A/A, each fresh JVM's round trip in fork order, coloured by level: a machine with one level draws
one band; two or more bands are regimes the other experiments' forks will meet too."""

from __future__ import annotations

import pandas as pd

from ...style import plots
from .tables import aa_forks


def plot_regimes(df: pd.DataFrame):
    """Per fork (x, in run order), its median cache-line round trip (y, ns); colour = level."""
    fig, axes = plots.grid(1, cols=1, width=6.0, height=3.2)
    ax = axes[0]
    pts = aa_forks(df)
    if pts.empty:
        plots.empty(ax, "no A/A forks")
        return fig
    for level, g in pts.groupby("level"):
        ax.plot(g["fork"], g["round_trip_ns"], "o", label=f"level {level}")
    ax.set_ylim(bottom=0)
    ax.set_xlabel("fork (fresh JVM, run order)")
    ax.set_ylabel("round trip (ns)")
    ax.set_title("A/A: one kernel, fresh JVMs", fontsize=10)
    ax.legend(fontsize=8)
    return fig
