"""Figures: every fork's events/s per channel, one panel per placement and JDK (log scale), the post's 50 M line."""

from __future__ import annotations

from ...judge import analysis
from ...style import plots
from ...style.plots import plt
from .meta import PLACEMENTS
from .rows import per_fork_table
from .sweep import CHANNELS

COLORS = {"lab": "#0072B2", "post": "#D55E00"}


def plot_throughput(df, post_line: float | None = 50e6):
    """Events/s per channel: each fork a dot (lab: median of its runs; post: best of its three passes), medians as
    bars; one row of panels per machine, one panel per placement and JDK."""
    parts = list(analysis.split(df))
    panels = [(m, sub, pl, rt) for m, sub in parts for pl in PLACEMENTS
              for rt in sorted(per_fork_table(sub).get("runtime", []).unique() if len(sub) else [])]
    fig, axes = plots.grid(len(panels), cols=2, width=6.2, height=3.8)
    if not panels:
        plots.empty(axes[0], "no measured results")
        return fig
    for ax, (machine, sub, pl, rt) in zip(axes, panels):
        pf = per_fork_table(sub)
        pf = pf[(pf["placement"] == pl) & (pf["runtime"] == rt)]
        if pf.empty:
            plots.empty(ax, f"{pl}: not measured here")
            continue
        order = [c for c in CHANNELS if c in set(pf["variant"])]
        plots.strip(ax, pf, "variant", hue="protocol", order=order, hue_order=["lab", "post"], colors=COLORS,
                    log=True)
        if post_line:
            ax.axhline(post_line, ls="--", color="#555", lw=1, label="post: over 50 M events/s")
        ax.set_xticks(range(len(order)), [o.replace("disruptor-", "ring\n") for o in order], fontsize=8)
        ax.set_ylabel("events/s per fork")
        ax.set_title(f"{rt}, {pl}" + (f"\n{machine}" if len(parts) > 1 else ""), fontsize=10)
    plots.figure_legend(fig, axes)
    return fig


def plot_pinning(df):
    """Pinned against unpinned per channel (lab's harness): the ratio of median events/s, one bar per JDK."""
    pf = per_fork_table(df)
    fig, ax = plt.subplots(figsize=(8, 3.4))
    pf = pf[pf["protocol"] == "lab"] if len(pf) else pf
    if pf.empty or set(PLACEMENTS) - set(pf["placement"]):
        plots.empty(ax, "pinned and unpinned cells both needed")
        return fig
    med = pf.groupby(["runtime", "variant", "placement"])["value"].median().unstack("placement")
    ratio = (med["cross-core"] / med["unpinned"]).unstack("runtime").reindex([c for c in CHANNELS])
    ratio.plot.bar(ax=ax, color=[plots.OKABE_ITO[i] for i in range(len(ratio.columns))], rot=0)
    ax.axhline(1, color="black", lw=0.8)
    ax.set_ylabel("pinned / unpinned events/s")
    ax.set_xlabel("")
    ax.set_xticks(range(len(ratio.index)), [o.replace("disruptor-", "ring\n") for o in ratio.index], fontsize=8)
    ax.set_title("What pinning buys, per channel (above 1: pinned is faster)")
    return fig
