"""Figures: the post's output, this machine's listing runs, and the arrays-per-loop sweep.

Figures that read results draw one row of panels per machine (analysis.split)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import pandas as pd
from matplotlib.ticker import FuncFormatter

from ... import analysis, plots
from .claims import FASTER
from .rows import ORDERS, rows
from .sweep import LISTINGS, POST_ARRAYS, SPLIT

TWO_DECIMALS = FuncFormatter(lambda y, _p: f"{y:.2f}")
CASE_COLORS = {"single loop": "#D55E00", "split loops": "#0072B2"}


def plot_reference(ref: pd.DataFrame):
    """The post's three SingleLoop / SplitLoop pairs (bars, seconds)."""
    r = ref[ref["table"] == "Output"]
    fig, ax = plt.subplots(figsize=(7, 3.4))
    for i, (case, color) in enumerate(zip(("SingleLoop", "SplitLoop"), CASE_COLORS.values())):
        sub = r[r["case"] == case].sort_values("repetition")
        bars = ax.bar(sub["repetition"] + (i - 0.5) * 0.38, sub["value"] / 1e9, 0.36, color=color,
                      label=f"{case} ({'6 arrays, one loop' if i == 0 else 'two loops of 3'})")
        ax.bar_label(bars, labels=[f"{v / 1e9:.2f} s" for v in sub["value"]], fontsize=8)
    ax.set_xticks([1, 2, 3], ["repetition 1", "2", "3"])
    ax.set_ylabel("duration (s)")
    ax.set_title("2011-07-15: Core i7 860 @ 2.8 GHz, 2^31 iterations per loop", fontsize=10)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig


def plot_listing(df: pd.DataFrame, ref: pd.DataFrame | None = None):
    """The listing's main on this machine: ns per store of SingleLoop and SplitLoop per runtime, every repetition
    of every fork a dot, the median a bar; the post's own ns per store as dashed lines."""
    parts = list(analysis.split(analysis.where(rows(df), variant="listing")))
    fig, axes = plots.grid(len(parts), cols=1, width=9, height=3.8)
    for ax, (machine, m) in zip(axes, parts):
        if m.empty:
            plots.empty(ax, "no runs of the listing")
            continue
        m = analysis.sort_by(m, ORDERS)
        plots.strip(ax, m, "runtime", hue="case", order=analysis.ordered(m["runtime"], ORDERS["runtime"]),
                    hue_order=list(CASE_COLORS), colors=CASE_COLORS)
        if ref is not None:
            r = ref[ref["table"] == "Output"]
            stores = (ref.loc[ref["metric"] == "iterations", "value"].iloc[0] - 1) * POST_ARRAYS
            for case, style in (("SingleLoop", "--"), ("SplitLoop", ":")):
                ax.axhline(r.loc[r["case"] == case, "value"].mean() / stores, ls=style, color="#444444", lw=1.2,
                           label=f"post, {case} (first repetition)")
        ax.set_ylim(bottom=0)
        ax.yaxis.set_major_formatter(TWO_DECIMALS)
        ax.set_ylabel("ns per store (dots = repetitions,\nbar = median)")
        ax.set_title("The listing: 6 arrays in one loop vs two loops of 3" + (f": {machine}" if machine else ""),
                     fontsize=10)
    plots.figure_legend(fig, axes)
    return fig


def plot_sweep(df: pd.DataFrame):
    """ns per store against the arrays one loop writes (x), one panel per runtime (the lab's measured runs: dots,
    medians joined), the listing's SplitLoop at six arrays beside it; below, one loop of N / one loop of 3 with the
    threshold of the claims."""
    parts = list(analysis.split(rows(df)))
    panels = [(machine, rt, g) for machine, sub in parts for rt, g in
              analysis.sort_by(sub[~sub["variant"].isin(LISTINGS)], ORDERS).groupby("runtime", sort=False)]
    if not panels:
        fig, axes = plots.grid(1)
        plots.empty(axes[0], "no sweep runs")
        return fig
    fig, axes = plt.subplots(2, len(panels), figsize=(4.6 * len(panels), 6.4), squeeze=False,
                             height_ratios=[2, 1], sharex=True)
    names = {"single loop": "one loop of N arrays", "split loops": f"SplitLoop: two loops of {SPLIT}"}
    colors = {names[k]: c for k, c in CASE_COLORS.items()}
    for i, (machine, rt, g) in enumerate(panels):
        top, bottom = axes[0][i], axes[1][i]
        g = g.assign(line=g["case"].map(names))
        plots.points_and_median(top, g, "arrays", "value", "line", order=list(names.values()), colors=colors,
                                marker="o")
        top.yaxis.set_major_formatter(TWO_DECIMALS)
        top.set_ylim(bottom=0)
        top.axvline(4.5, color="#999999", lw=1, ls=":", label="4 buffers (the post's Intel guarantee)")
        top.set_title(rt + (f", {machine}" if machine and len(parts) > 1 else ""), fontsize=10)
        med = g[g["case"] == "single loop"].groupby("arrays")["value"].median()
        if SPLIT in med.index:
            ratio = med / med[SPLIT]
            bottom.plot(ratio.index, ratio.values, "-o", color="#000000", ms=4, label=f"one loop / one loop of {SPLIT}")
        bottom.axhline(1, color="#999999", lw=1)
        bottom.axhline(FASTER, color="#CC79A7", ls="--", lw=1.2, label=f"{FASTER}x: the claims' threshold")
        bottom.axvline(4.5, color="#999999", lw=1, ls=":")
        bottom.set_xlabel("arrays written by one loop (N)")
        plots.integer_ticks(bottom.xaxis)
    axes[0][0].set_ylabel("ns per store\n(dots = runs, line = median)")
    axes[1][0].set_ylabel(f"per store, / loop of {SPLIT}\n(medians)")
    plots.figure_legend(fig, list(axes.flat))
    fig.suptitle("Where this CPU stops combining writes: one loop of N byte arrays, each written the same number of "
                 "times", fontsize=10)
    return fig
