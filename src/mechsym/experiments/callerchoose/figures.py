"""Figures: per input size, every fork's time and allocation per call, by method and collector.

Figures that read results draw one row of panels per machine (analysis.split)."""

from __future__ import annotations

import pandas as pd

from ...judge import analysis
from ...style import plots
from .meta import SIZES
from .rows import LAB, collectors, forks, per_jdk
from .sweep import METHODS
from .tables import LABEL

COLORS = {"G1": "#0072B2", "Parallel": "#E69F00"}


def plot_methods(df: pd.DataFrame, metric: str = "ns_per_op"):
    """One panel per input size: every fork's ns per call (or bytes per call) per method (dots; bar = median),
    one colour per collector."""
    parts = [(" ".join(x for x in (machine, runtime) if x), d) for machine, sub in analysis.split(df)
             for runtime, d in per_jdk(sub)]
    fig, axes = plots.grid(len(parts) * len(SIZES), cols=len(SIZES), width=4.4, height=3.8)
    for row, (machine, sub) in enumerate(parts):
        gs = collectors(sub)
        for ax, size in zip(axes[row * len(SIZES):(row + 1) * len(SIZES)], SIZES):
            pts = pd.DataFrame([{"method": LABEL[m], "collector": g, "value": v} for g in gs for m in METHODS
                                for v in forks(sub, LAB, metric, m, size, g)])
            if pts.empty:
                plots.empty(ax, "no measured runs")
                continue
            plots.strip(ax, pts, "method", hue="collector", order=[LABEL[m] for m in METHODS], hue_order=gs,
                        colors=COLORS, formatter=plots.NS if metric == "ns_per_op" else plots.SI)
            ax.set_ylim(bottom=0)
            ax.set_title(f"{size} input: {'ns' if metric == 'ns_per_op' else 'bytes'} per call"
                         + (f" ({machine})" if machine else ""), fontsize=10)
            ax.tick_params(axis="x", labelsize=8)
    plots.figure_legend(fig, axes)
    return fig
