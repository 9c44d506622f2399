"""Figures: the post's output, this machine's listing runs, the arrays-per-loop sweep, and the JIT-logged fork's
compilation events on its repetitions.

Figures that read results draw one row of panels per machine (analysis.split)."""

from __future__ import annotations

import pandas as pd
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter

from ...judge import analysis
from ...style import plots
from ...run.harness import COMPILE, JIT_EVENT
from ...style.plots import plt
from .claims import FASTER
from .rows import CASE_NAMES, ORDERS, TIMED, jit_forks, jit_spans, rows, tier_name
from .sweep import LISTINGS, POST_ARRAYS, SPLIT
from .tables import NOT_RECORDED

TWO_DECIMALS = FuncFormatter(lambda y, _p: f"{y:.2f}")
CASE_COLORS = {"single loop": "#D55E00", "split loops": "#0072B2"}
TIER_COLORS = {"C1": "#E69F00", "C2": "#009E73", "other": "#999999"}


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


def plot_jit_timeline(df: pd.DataFrame):
    """One panel per JIT-logged fork: its timed runs as bands along the JVM's uptime (SingleLoop and SplitLoop
    coloured, labelled with repetition and ns per store), and above them the compilation events of loop6 and
    splitLoop, one row per method: a triangle where a compilation starts (filled: the whole method; hollow: an OSR
    entry, labelled with its bytecode index), a cross where code is made not entrant; colour: C1 or C2."""
    parts = [(machine, rt, f) for machine, sub in analysis.split(df) for rt, f in jit_forks(sub).items()]
    if not parts:
        fig, axes = plots.grid(1, width=9, height=1.6)
        plots.empty(axes[0], NOT_RECORDED)
        return fig
    fig, axes = plt.subplots(len(parts), 1, figsize=(10, 2.9 * len(parts)), squeeze=False)
    rows = {m: i for i, m in enumerate(TIMED)}
    for ax, (machine, rt, f) in zip(axes[:, 0], parts):
        s = jit_spans(f)
        for r in s.itertuples(index=False):
            ax.axvspan(r.start, max(r.end, r.start + 1), ymin=0, ymax=0.28, color=CASE_COLORS[r.case], alpha=0.55,
                       lw=0)
            ax.text((r.start + r.end) / 2, -0.55, f"{r.repetition}\n{r.ns_per_store:.3f}", ha="center", va="center",
                    fontsize=7)
        e = f[(f["metric"] == JIT_EVENT) & f["jit_method"].isin(list(TIMED))]
        for r in e.itertuples(index=False):
            y = rows[r.jit_method] + 0.1 * (int(r.jit_compile_id) % 3)   # spread marks of one instant a little
            color = TIER_COLORS[tier_name(r.jit_tier)]
            osr = not pd.isna(r.jit_osr_bci)
            if r.jit_kind == COMPILE:
                ax.plot(r.value, y, "^", ms=7, color=color, mfc="none" if osr else color, mew=1.4)
                ax.annotate(f"@{int(r.jit_osr_bci)}" if osr else "", (r.value, y), xytext=(3, 4),
                            textcoords="offset points", fontsize=6, color=color)
            else:
                ax.plot(r.value, y, "x", ms=6, color=color, mew=1.4)
        ax.set_ylim(-0.9, len(TIMED) - 0.5)
        ax.set_yticks([-0.55, *rows.values()], ["repetition\nns/store", *[m.split("::")[1] for m in TIMED]],
                      fontsize=8)
        ax.set_xlabel("JVM uptime (ms)")
        ax.set_title(f"{rt}: the listing with -Xlog:jit+compilation (one fork)" + (f", {machine}" if machine else ""),
                     fontsize=10)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c, alpha=0.55) for c in CASE_COLORS.values()]
    labels = [f"{CASE_NAMES[k]} timed" for k in CASE_COLORS]
    handles += [Line2D([], [], ls="", marker="^", color=TIER_COLORS["C2"], ms=7),
                Line2D([], [], ls="", marker="^", color=TIER_COLORS["C2"], mfc="none", ms=7),
                Line2D([], [], ls="", marker="x", color="#444444", ms=6),
                Line2D([], [], ls="", marker="s", color=TIER_COLORS["C1"], ms=6),
                Line2D([], [], ls="", marker="s", color=TIER_COLORS["C2"], ms=6)]
    labels += ["compilation starts: whole method", "compilation starts: OSR entry @bytecode index",
               "made not entrant", "C1 (tiers 1-3)", "C2 (tier 4)"]
    fig.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.0, 0.95), fontsize=8, frameon=False)
    fig.tight_layout()
    return fig
