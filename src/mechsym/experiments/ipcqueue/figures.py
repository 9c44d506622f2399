"""Figures: every fork's messages/s per variant and placement, the post's figure beside them.

One row of panels per machine (analysis.split)."""

from __future__ import annotations

import pandas as pd

from ...judge import analysis
from ...style import plots
from .rows import per_fork_table, reference_rates
from .sweep import PLACEMENTS, VARIANTS

PROTOCOL_NAMES = {"post": "post protocol: best run of a JVM", "lab": "lab: median of a JVM's measured runs"}
PROTOCOL_COLORS = {PROTOCOL_NAMES["post"]: "#8c564b", PROTOCOL_NAMES["lab"]: "#17becf"}


def plot_throughput(df: pd.DataFrame, ref: pd.DataFrame):
    """Per placement, one dot per fork (fresh JVM) and protocol, the median a black bar; the post's figure for the
    same variant and placement a red cross."""
    parts = [(m, per_fork_table(sub)) for m, sub in analysis.split(df)]
    panels = [(m, pl, pf[pf["placement"] == pl]) for m, pf in parts
              for pl in analysis.ordered(pf["placement"].unique(), PLACEMENTS)]
    if not panels:
        fig, axes = plots.grid(1)
        plots.empty(axes[0], "no measured runs")
        return fig
    fig, axes = plots.grid(len(panels), cols=min(2, len(panels)), width=5.6, height=4.0, sharey=True)
    r = reference_rates(ref)
    for ax, (machine, placement, pf) in zip(axes, panels):
        order = [v for v in VARIANTS if v in set(pf["variant"])]
        plots.strip(ax, pf.assign(protocol=pf["protocol"].map(PROTOCOL_NAMES)), "variant", hue="protocol",
                    order=order, hue_order=list(PROTOCOL_NAMES.values()), colors=PROTOCOL_COLORS, log=True)
        for i, v in enumerate(order):
            post = r[(r["variant"] == v) & (r["placement"] == placement)]["value"]
            if len(post):
                ax.scatter([i], [post.iloc[0]], marker="x", s=70, color="#d62728", zorder=4,
                           label="the post's figure (best run)")
        ax.tick_params(axis="x", labelsize=8, rotation=15)
        ax.set_ylabel("messages/s (log)")
        ax.set_title(placement + (f", {machine}" if machine and len(parts) > 1 else ""), fontsize=10)
    plots.figure_legend(fig, axes)
    fig.suptitle("Messages per second, one dot per fresh JVM", fontsize=11)
    return fig
