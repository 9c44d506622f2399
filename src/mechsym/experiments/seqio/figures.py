"""seqio's figures: the post's passes, this machine's passes with dd's lines, and the two kernel protocols."""

from __future__ import annotations

import pandas as pd

from ...judge import analysis
from ...style import plots
from ...style.plots import plt
from .meta import POST_METHODS
from .rows import PROTOCOL_NAMES, throughput
from .sweep import DD, METHODS, REGIMES
from .tables import device_ceiling

COLORS = {v: plots.VARIANT_COLORS[v] for v in ("random-access-file", "buffered-stream", "channel-heap",
                                               "channel-direct", "mapped", "buffered-stream-biased", "dd", "dd-cached")}
POST_CPU = "2011: Sandy Bridge 2.0GHz, 8GB RAM, Intel 320 SSD, ext4, JDK 1.6.0_30"


def forks_per_cell(rows: pd.DataFrame) -> str:
    """'1 fork', '3 forks' or '2-3 forks': the fresh JVMs behind each (method, pass) point, from the rows."""
    if rows.empty or "fork" not in rows:
        return "forks"
    key = [k for k in ("run_id", "fork") if k in rows]
    cell = [k for k in ("machine", "regime", "variant", "direction", "pass") if k in rows]
    n = rows.groupby(cell)[key].apply(lambda g: len(g.drop_duplicates()))
    lo, hi = int(n.min()), int(n.max())
    return f"{lo} fork{'s' if hi > 1 else ''}" if lo == hi else f"{lo}-{hi} forks"


def plot_reference(ref: pd.DataFrame):
    """The post's numbers in the same layout as this machine's plot: file x direction, pass vs MB/s."""
    fig, axes = plt.subplots(2, 2, figsize=(12, 7), sharex=True, squeeze=False)
    for i, size in enumerate(["400MB", "8GB"]):
        for j, direction in enumerate(["write", "read"]):
            ax = axes[i][j]
            for method in POST_METHODS:
                sub = ref[(ref["file_size"] == size) & (ref["direction"] == direction) & (ref["method"] == method)]
                ax.plot(sub["pass"], sub["MB/s"], "-o", color=COLORS[method], label=METHODS[method][1])
            ax.set_title(f"post, {size} file: {direction}")
            ax.set_ylim(bottom=0)
            ax.set_xticks(range(1, 6))
            if j == 0:
                ax.set_ylabel("MB/s")
            if i == 1:
                ax.set_xlabel("pass")
    plots.figure_legend(fig, axes.flat)
    fig.suptitle(POST_CPU, fontsize=10)
    return fig


def plot_passes(df: pd.DataFrame, protocol: str = "lab"):
    """Pass vs MB/s per method (one kernel protocol), one row per machine and regime, write and read; dd drawn as
    horizontal lines (dashed: fdatasync writes / evicted reads, the device's limit; dotted: through the cache)."""
    panels = []  # (machine, regime, its throughput rows, the machine's rows)
    for machine, rows in analysis.split(df):
        t = throughput(rows)
        t = t[(t["protocol"] == protocol) | t["variant"].isin(list(DD))]
        panels += [(machine, r, t[t["regime"] == r], rows) for r in analysis.ordered(t["regime"], list(REGIMES))]
    if not panels:
        fig, ax = plt.subplots(figsize=(6, 2))
        plots.empty(ax, "no throughput rows")
        return fig
    fig, axes = plt.subplots(len(panels), 2, figsize=(13, 3.8 * len(panels)), squeeze=False)
    java_rows = pd.concat([p[2][p[2]["variant"].isin(list(METHODS))] for p in panels])
    per_cell = forks_per_cell(java_rows)
    ylabel = ("MB/s (one dot per pass: 1 fork per cell)" if per_cell == "1 fork"
              else f"MB/s (dots = forks, {per_cell} per cell;\nline = median)")
    for i, (machine, regime, sub, whole) in enumerate(panels):
        ceiling = device_ceiling(whole)
        size = sub["size_bytes"].astype(float).max()
        for j, direction in enumerate(["write", "read"]):
            ax = axes[i][j]
            note = _passes_panel(ax, sub[sub["direction"] == direction], direction, ceiling)
            where = f"{machine}: " if len(analysis.machines(df)) > 1 else ""
            ax.set_title(f"{where}{regime}, {size / 1e6:,.0f} MB file: {direction}" + (f"\n{note}" if note else ""),
                         fontsize=9)
            ax.set_xticks(sorted(sub["pass"].unique()))
            ax.set_xlabel("pass (1 = first in a fresh JVM)")
            if j == 0:
                ax.set_ylabel(ylabel)
    plots.figure_legend(fig, axes.flat)
    return fig


def _passes_panel(ax, sub: pd.DataFrame, direction: str, ceiling: dict) -> str:
    """Draws one panel; returns its dd numbers as text (for the title: the legend names the lines once)."""
    notes = []
    java = sub[sub["variant"].isin(list(METHODS))]
    plots.points_and_median(ax, java, "pass", "value", "variant",
                            order=[v for v in METHODS if v in set(java["variant"])], colors=COLORS)
    top = java["value"].max() if len(java) else 0
    d = sub[(sub["variant"] == "dd") & ~sub["warmup"]]
    if len(d):
        ax.axhline(d["value"].median(), color=COLORS["dd"], ls="--", lw=1.2,
                   label="dd, fdatasync writes / evicted reads")
        notes.append(f"dd {d['value'].median():,.0f} MB/s")
        top = max(top, d["value"].median())
    elif direction in ceiling:
        ax.axhline(ceiling[direction], color="#444444", ls="-.", lw=1, label="device ceiling (dd, evicted regime)")
        notes.append(f"device ceiling {ceiling[direction]:,.0f} MB/s")
        top = max(top, ceiling[direction])
    ax.set_ylim(0, top * 1.12 if top else None)
    d = sub[(sub["variant"] == "dd-cached") & ~sub["warmup"]]
    if len(d):  # usually far above everything else: a note, not a line that flattens the plot
        med = d["value"].median()
        if med > top * 1.12:
            notes.append(f"dd through the page cache {med:,.0f} MB/s (off the scale)")
        else:
            ax.axhline(med, color=COLORS["dd-cached"], ls=":", lw=1.2, label="dd through the page cache")
            notes.append(f"dd through the page cache {med:,.0f} MB/s")
    return "; ".join(notes)


def plot_protocols(df: pd.DataFrame):
    """The post's four methods under both kernel protocols: every fork's median of passes 2-5 as a dot, the
    median a bar; one row per machine and regime, write and read."""
    t = throughput(df, measured_only=True)
    t = t[t["variant"].isin(POST_METHODS)]
    pf = analysis.per_fork(t, analysis.LAB, by=["machine", "regime", "direction", "variant", "protocol"])
    keys = [(m, r) for m, sub in analysis.split(pf) for r in analysis.ordered(sub["regime"], list(REGIMES))
            if sub[sub["regime"] == r]["protocol"].nunique() > 1]
    if not keys:
        fig, ax = plt.subplots(figsize=(6, 2))
        plots.empty(ax, "only one kernel protocol in these results")
        return fig
    fig, axes = plt.subplots(len(keys), 2, figsize=(12, 3.6 * len(keys)), squeeze=False)
    for i, (machine, regime) in enumerate(keys):
        for j, direction in enumerate(["write", "read"]):
            ax = axes[i][j]
            sub = analysis.where(pf, regime=regime, direction=direction, **({"machine": machine} if machine else {}))
            plots.strip(ax, sub, "variant", order=[v for v in POST_METHODS if v in set(sub["variant"])],
                        hue="protocol", hue_order=[p for p in PROTOCOL_NAMES if p in set(sub["protocol"])],
                        colors={"post": "#7f7f7f", "lab": "#1f77b4"})
            where = f"{machine}: " if len(analysis.machines(pf)) > 1 else ""
            ax.set_title(f"{where}{regime}: {direction}s, post protocol vs lab kernel", fontsize=10)
            ax.set_ylabel("MB/s, one dot per fork")
            ax.set_ylim(bottom=0)
    plots.figure_legend(fig, axes.flat)
    return fig
