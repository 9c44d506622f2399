"""Figures: the worked example (every fork beside the post's numbers) and the load sweep's two curves.

Figures that read results draw one row of panels per machine (analysis.split)."""

from __future__ import annotations

import pandas as pd

from ...judge import analysis
from ...style import plots
from .rows import PROTOCOLS, forks, post_value
from .sweep import BURST, DEVICE_US, MODES
from .tables import load_points

COLORS = {"serial": "#D55E00", "batching": "#0072B2"}
PANELS = {"average latency": "latency_mean", "worst latency": "latency_worst", "packets per burst":
          "packets_per_burst"}


def plot_bursts(df: pd.DataFrame, ref: pd.DataFrame, protocol: str = "lab"):
    """Bursts of 1, 5, 10: every fork's average and worst latency and packets per burst (dots; bar = median), per
    mode; the post's numbers for the burst of 10 as diamonds."""
    proto = next(p for p in PROTOCOLS if p.name == protocol)
    parts = list(analysis.split(df))
    fig, axes = plots.grid(len(parts) * 3, cols=3, width=4.6, height=3.8)
    for row, (machine, sub) in enumerate(parts):
        for ax, (title, metric) in zip(axes[row * 3:row * 3 + 3], PANELS.items()):
            pts = pd.DataFrame([{"burst": b, "mode": mode, "value": v} for b in (1, 5, 10) for mode in MODES
                                for v in forks(sub, proto, metric, mode, b)])
            if pts.empty:
                plots.empty(ax, "no measured runs")
                continue
            order = sorted(pts["burst"].unique())
            plots.strip(ax, pts, "burst", hue="mode", order=order, hue_order=MODES, colors=COLORS,
                        formatter=None if metric == "packets_per_burst" else plots.NS)
            if BURST in order:
                i = order.index(BURST)
                for j, mode in enumerate(MODES):
                    m = {"latency_mean": "latency_mean", "latency_worst": "latency_worst",
                         "packets_per_burst": "packets" if mode == "serial" else "packets_max"}[metric]
                    v = post_value(ref, mode, m) * (1e3 if metric != "packets_per_burst" else 1)
                    ax.scatter(i + (j - 0.5) * 0.4, v, marker="D", s=45, color="black", zorder=4,
                               label="post (worked example)" if j == 0 else None)
            ax.set_xlabel("messages per burst")
            ax.set_ylim(bottom=0)
            ax.set_title(f"{title} ({protocol})" + (f": {machine}" if machine else ""), fontsize=10)
    plots.figure_legend(fig, axes)
    return fig


def plot_load(df: pd.DataFrame):
    """The load sweep: average (solid) and p99 (dashed) latency per message against offered load, serial and
    batching; dots are forks, lines join the medians. Serial's capacity is load 1, batching's (15 messages per
    write) load 15."""
    parts = list(analysis.split(df))
    fig, axes = plots.grid(len(parts), cols=1, width=10, height=4.8)
    for ax, (machine, sub) in zip(axes, parts):
        mean, p99 = load_points(sub, "latency_mean"), load_points(sub, "latency_p99")
        if mean.empty:
            plots.empty(ax, "no load sweep in these runs")
            continue
        for mode in MODES:
            for pts, style, what in ((mean, "-o", "average"), (p99, "--", "p99")):
                p = pts[pts["variant"] == mode]
                if p.empty:
                    continue
                med = p.groupby("load")["value"].median()
                ax.plot(med.index, med.values, style, color=COLORS[mode], label=f"{mode}: {what}", ms=4)
                if what == "average":
                    ax.scatter(p["load"], p["value"], s=10, alpha=0.4, color=COLORS[mode], linewidths=0)
        for x, text in ((1, "serial saturates"), (15, "batching saturates")):
            ax.axvline(x, color="#999999", lw=1, ls=":")
            ax.text(x, 0.02, f" {text}", rotation=90, va="bottom", fontsize=8,
                    color="#555555", transform=ax.get_xaxis_transform())
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(plots.NS)
        plots.log_ticks(ax.xaxis)
        ax.set_xlabel(f"offered load (x the serial device's capacity: 1 = {1e6 / DEVICE_US:,.0f} messages/s)")
        ax.set_ylabel("latency per message, log")
        ax.set_title("Latency against load, bursts of 10" + (f": {machine}" if machine else ""), fontsize=10)
    plots.figure_legend(fig, axes)
    return fig
