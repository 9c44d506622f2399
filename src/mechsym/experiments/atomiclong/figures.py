"""Figures: ns per increment against threads, one panel per primitive, Java and C side by side; and each fork under
the post's protocol and the lab's. One row of panels per machine (analysis.split)."""

from __future__ import annotations

import pandas as pd

from ...judge import analysis
from ...style import plots
from .rows import ORDERS, cpus_online, per_fork_table
from .sweep import PRIMITIVES

# one colour per runtime (Java on JDK 17 and 25, C), the same in every panel; VarHandle.getAndAdd, which shares the
# XADD panel with AtomicLong, a colour of its own per JDK
RUNTIME_COLORS = {"JDK 17": "#0072B2", "JDK 25": "#56B4E9", "C (gcc)": "#D55E00"}
VARHANDLE_COLORS = {"JDK 17": "#009E73", "JDK 25": "#E69F00"}
PROTOCOL_COLORS = {"post": "#8c564b", "lab": "#17becf"}


def _shade_time_sliced(ax, counts: list[int], cpus: int | None) -> None:
    """Grey behind the thread counts above the machine's CPUs: those threads take turns, they do not contend."""
    over = [i for i, t in enumerate(counts) if cpus and t > cpus]
    if over:
        ax.axvspan(over[0] - 0.5, len(counts) - 0.5, color="#999999", alpha=0.15, lw=0,
                   label=f"more threads than CPUs ({cpus}): time-sliced")


def plot_primitives(df: pd.DataFrame):
    """ns per increment (y) against threads (x), one panel per primitive (its variants named in the title): every fork
    a dot (the lab's median of its measured runs), the median over forks a bar, one colour per runtime (Java vs C
    side by side)."""
    parts = list(analysis.split(df))
    pf_all = [(machine, per_fork_table(sub)) for machine, sub in parts]
    panels = [(machine, prim, pf[(pf["protocol"] == "lab") & (pf["primitive"] == prim)], sub)
              for (machine, pf), (_, sub) in zip(pf_all, parts) if len(pf) for prim in PRIMITIVES
              if (pf["primitive"] == prim).any()]
    if not panels:
        fig, axes = plots.grid(1)
        plots.empty(axes[0], "no measured runs")
        return fig
    fig, axes = plots.grid(len(panels), cols=min(3, len(panels)), width=4.2, height=3.4)
    for ax, (machine, prim, pf, sub) in zip(axes, panels):
        vh = pf["variant"] == "varhandle-add"
        java = pf["runtime"].map(lambda r: r if r.startswith("C") else f"Java ({r})")
        pf = analysis.sort_by(pf.assign(group=java.where(~vh, "VarHandle.getAndAdd (" + pf["runtime"] + ")")), ORDERS)
        groups = list(dict.fromkeys(pf["group"]))
        colors = {**{(r if r.startswith("C") else f"Java ({r})"): c for r, c in RUNTIME_COLORS.items()},
                  **{f"VarHandle.getAndAdd ({r})": c for r, c in VARHANDLE_COLORS.items()}}
        counts = sorted(pf["threads"].unique())
        _shade_time_sliced(ax, counts, cpus_online(sub))
        plots.strip(ax, pf, "threads", hue="group", order=counts, hue_order=groups, colors=colors,
                    formatter=plots.NS)
        ax.set_ylim(bottom=0)
        ax.set_xlabel("threads incrementing one counter")
        names = ", ".join(dict.fromkeys(pf["variant"]))
        ax.set_title(f"{prim}\n{names}" + (f", {machine}" if machine and len(parts) > 1 else ""), fontsize=9)
    axes[0].set_ylabel("ns per increment\n(dots = forks, bar = median)")
    plots.figure_legend(fig, axes)
    return fig


def plot_protocols(df: pd.DataFrame):
    """Each fork's ns per increment under the post's protocol (one cold run, thread start and join timed) and the
    lab's (median of warmed-up runs), for the variants the post ran; one panel per variant and runtime."""
    parts = list(analysis.split(df))
    panels = []
    for machine, sub in parts:
        pf = per_fork_table(sub)
        if pf.empty:
            continue
        posted = pf[pf["protocol"] == "post"][["variant", "runtime"]].drop_duplicates()
        for variant, runtime in posted.itertuples(index=False):
            panels.append((machine, f"{variant} ({runtime})", pf[(pf["variant"] == variant) & (pf["runtime"] == runtime)]))
    if not panels:
        fig, axes = plots.grid(1)
        plots.empty(axes[0], "no post-protocol cells in these results")
        return fig
    fig, axes = plots.grid(len(panels), cols=min(4, len(panels)), width=3.4, height=3.0, sharey=False)
    for ax, (machine, title, pf) in zip(axes, panels):
        plots.strip(ax, pf, "threads", hue="protocol", order=sorted(pf["threads"].unique()),
                    hue_order=["post", "lab"], colors=PROTOCOL_COLORS, formatter=plots.NS)
        ax.set_ylim(bottom=0)
        ax.set_title(title + (f"\n{machine}" if machine and len(parts) > 1 else ""), fontsize=9)
        ax.set_xlabel("threads")
    axes[0].set_ylabel("ns per increment, one dot per fork")
    plots.figure_legend(fig, axes)
    return fig
