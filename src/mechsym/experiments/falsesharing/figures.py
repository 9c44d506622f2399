"""Figures: duration against threads per layout (the first post's Figure 2, re-drawn with this machine's forks),
and JOL's gap between two threads' counters per layout and JDK. One row of panels per machine."""

from __future__ import annotations

import pandas as pd

from ...judge import analysis
from ...style import plots
from .rows import PROTOCOLS, layout_rows, rows
from .sweep import LAB_PLACEMENT, LAYOUTS

COLORS = dict(zip(LAYOUTS, ["#d62728", "#ff7f0e", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b"]))
LINE = 64


def plot_scaling(df: pd.DataFrame, layouts: list[str] | None = None):
    """Duration (s) against threads, per layout: every fork a dot (the median of its measured runs), the median
    over forks a line; one panel per JDK. Thread counts beyond the machine's CPUs are shaded: time-sliced."""
    m = analysis.where(rows(df), protocol="lab", placement=LAB_PLACEMENT)
    parts = [(machine, rt, g) for machine, sub in analysis.split(m)
             for rt, g in sub.groupby("runtime", sort=True)]
    if not parts:
        fig, axes = plots.grid(1)
        plots.empty(axes[0], "no measured runs")
        return fig
    fig, axes = plots.grid(len(parts), cols=min(2, len(parts)), width=5.4, height=4.0, sharey=True)
    for ax, (machine, rt, g) in zip(axes, parts):
        pf = analysis.per_fork(g, PROTOCOLS[1], ["variant", "threads"])
        pf = pf[pf["variant"].isin(layouts or list(LAYOUTS))].assign(seconds=lambda d: d["value"] / 1e9,
                                                                     threads=lambda d: d["threads"].astype(float))
        order = [v for v in LAYOUTS if v in set(pf["variant"])]
        plots.points_and_median(ax, pf, "threads", "seconds", "variant", order=order, colors=COLORS)
        cpus = pd.to_numeric(g["machine_cpus"], errors="coerce").dropna()
        if len(cpus) and pf["threads"].max() > cpus.iloc[0]:
            ax.axvspan(cpus.iloc[0] + 0.5, pf["threads"].max() + 0.5, color="#999999", alpha=0.15,
                       label="more threads than CPUs (time-sliced)")
        ticks = sorted(pf["threads"].unique())
        ax.set_xticks(ticks, [f"{t:.0f}" for t in ticks])
        ax.set_xlabel("threads (each writes its own counter N times)")
        ax.set_ylabel("duration, s (dots = forks, line = median)")
        ax.set_ylim(bottom=0)
        ax.set_title(f"{rt}, one thread per core" + (f": {machine}" if machine else ""), fontsize=10)
    plots.figure_legend(fig, axes)
    return fig


def plot_layout_gaps(df: pd.DataFrame):
    """JOL: the smallest distance between two threads' counters as allocated, per layout and JDK (bars; every
    fresh JVM a dot), against the 64-byte line."""
    lay = analysis.where(layout_rows(df), metric="counter_gap_min")
    parts = list(analysis.split(lay))
    fig, axes = plots.grid(len(parts), cols=1, width=9, height=3.4)
    for ax, (machine, m) in zip(axes, parts):
        if m.empty:
            plots.empty(ax, "no JOL layout rows")
            continue
        order = [v for v in LAYOUTS if v in set(m["layout"])]
        runtimes = sorted(m["runtime"].unique())
        plots.strip(ax, m, "layout", hue="runtime", order=order, hue_order=runtimes,
                    colors=dict(zip(runtimes, ["#1f77b4", "#ff7f0e", "#2ca02c"])))
        ax.axhline(LINE, ls="--", color="#444444", lw=1.2, label="64 bytes: one cache line")
        ax.set_yscale("log", base=2)
        ax.yaxis.set_major_formatter(plots.SI)
        ax.set_ylabel("smallest gap between\ntwo counters, bytes (log)")
        ax.set_title("Where the counters land (JOL addresses; below the line two threads can share a line)"
                     + (f": {machine}" if machine else ""), fontsize=10)
    plots.figure_legend(fig, axes)
    return fig
