"""The post's figure, re-drawn: receiver messages/s each second, every fork a line, pinned beside unpinned."""

from __future__ import annotations

from ...judge import analysis
from ...style import plots
from .meta import PLACEMENTS
from .rows import rates


def plot_seconds(df):
    """One panel per placement (per machine): every fork's per-second receiver rate as a line."""
    parts = list(analysis.split(df))
    fig, axes = plots.grid(len(parts) * len(PLACEMENTS), cols=2, width=6.0, height=3.6, sharey=True)
    for i, (machine, sub) in enumerate(parts):
        m = rates(sub)
        for j, pl in enumerate(PLACEMENTS):
            ax = axes[i * len(PLACEMENTS) + j]
            r = m[m["placement"] == pl] if len(m) else m
            if r.empty:
                plots.empty(ax, f"{pl}: not measured here")
                continue
            for k, (fork, g) in enumerate(r.groupby("fork")):
                ax.plot(g["iteration"] + 1, g["value"], "-o", ms=3, lw=1.2, color=plots.OKABE_ITO[k % 9],
                        label=f"fork {fork}")
            ax.set_title(f"{pl}" + (f" ({machine})" if len(parts) > 1 else ""), fontsize=10)
            ax.set_xlabel("second of the run")
            ax.set_ylabel("messages received per second")
            ax.yaxis.set_major_formatter(plots.SI)
            plots.integer_ticks(ax.xaxis)
    plots.figure_legend(fig, axes)
    return fig
