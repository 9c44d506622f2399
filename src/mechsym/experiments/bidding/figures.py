"""Figures as the post's: throughput against items for fixed clients, and jitter against clients; every fork a dot,
the median a line. Figures draw one row of panels per machine (analysis.split)."""

from __future__ import annotations

import pandas as pd
from matplotlib.ticker import FuncFormatter

from ...judge import analysis
from ...style import plots
from .rows import PROTOCOLS, core_count, judged_items, per_fork_table, rows
from .sweep import CONTAINERS


def _panels(df, draw, ylabel: str, title: str, width: float = 4.6):
    """One panel per container and machine (what a panel draws chooses its JDKs)."""
    parts = list(analysis.split(df))
    fig, axes = plots.grid(len(parts) * len(CONTAINERS), cols=len(CONTAINERS), width=width, height=3.8,
                           sharey="row")
    for row, (machine, sub) in enumerate(parts):
        empty = analysis.measured(sub, "bids_per_s").empty
        for i, container in enumerate(CONTAINERS):
            ax = axes[row * len(CONTAINERS) + i]
            ax.set_title(f"{container}" + (f"\n{machine}" if machine else ""), fontsize=9)
            if empty:
                plots.empty(ax, "no measured runs")
                continue
            draw(ax, sub, container)
            ax.set_ylabel(ylabel if i == 0 else "")
    fig.suptitle(title, fontsize=10)
    plots.figure_legend(fig, axes)
    return fig


def plot_throughput_vs_items(df: pd.DataFrame, ref: pd.DataFrame | None = None, protocol: str = "post"):
    """bids/s against the item count, one line per clients count (median over forks, dots = forks), the post's
    sweep; the post's peak for the container as a dashed line."""
    post = ref[ref["metric"] == "bids_per_s"].set_index("variant")["value"] if ref is not None else {}

    def draw(ax, sub, container):
        pf = per_fork_table(sub)
        jdk = analysis.jdks(pf)[0]
        pts = analysis.where(pf, protocol=protocol, variant=container, jdk=jdk, map_capacity=16, gc="isolated")
        n = core_count(sub)
        label = lambda k: f"{k} client{'s' if k > 1 else ''}"
        order = sorted(pts["clients"].unique())
        colors = {label(k): ("black" if k == n else plots.PALETTE[i % len(plots.PALETTE)]) for i, k in enumerate(order)}
        plots.points_and_median(ax, pts.assign(clients=pts["clients"].map(label)), "items", "value", "clients",
                                order=[label(k) for k in order], colors=colors, jitter=0.5)
        if container in post:
            ax.axhline(post[container], ls="--", color="#888", lw=1, label="the post's peak (4 cores, 2014)")
        ax.set_xlabel(f"items (JDK {jdk})")

    return _panels(df, draw, "bids/s (dots = forks)", f"Throughput against items, fixed clients ({protocol} "
                   "protocol; black: clients = cores)")


def plot_jitter_vs_clients(df: pd.DataFrame, protocol: str = "post"):
    """Thread jitter (%) against clients at the judged item count, every fork a dot, the median a line per JDK; the
    post's 0-6% band for clients <= cores shaded up to this machine's core count."""
    proto = next(p for p in PROTOCOLS if p.name == protocol)

    def draw(ax, sub, container):
        m = rows(sub, "jitter")
        jdks = analysis.jdks(m)
        pf = pd.concat([analysis.per_fork(analysis.where(m, protocol=protocol, variant=container, jdk=jdk,
                                                         items=judged_items(sub), map_capacity=16, gc="isolated"),
                                          proto, ["clients"]).assign(what=analysis.runtime_label(jdk))
                        for jdk in jdks], ignore_index=True)
        pf["value"] = pf["value"] * 100
        colors = {analysis.runtime_label(j): c for j, c in zip(jdks, ("#0072B2", "#D55E00", "#009E73"))}
        plots.points_and_median(ax, pf, "clients", "value", "what", order=list(colors), colors=colors, jitter=0.3)
        ax.axhspan(0, 6, xmax=1, color="#2ca02c", alpha=0.08, label="the post: 0-6% while clients <= cores")
        ax.axvline(core_count(sub), ls=":", color="#555", lw=1, label="this machine's cores")
        ax.set_xscale("log", base=2)
        ax.set_xticks(sorted(pf["clients"].unique()), [str(k) for k in sorted(pf["clients"].unique())])
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _p: f"{y:.0f}%"))
        ax.set_xlabel("clients (threads)")

    return _panels(df, draw, "jitter: stdev / mean of\nthread completion times", "Thread jitter against clients "
                   f"({protocol} protocol, {judged_items(df) or '—'} items)")
