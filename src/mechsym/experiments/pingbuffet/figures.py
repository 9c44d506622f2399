"""Figures: the percentile spectrum (this machine's curves with the post's rows), the medians per fork.

Figures that read results draw one panel per machine (analysis.split)."""

from __future__ import annotations

from ...judge import analysis
from ...style import plots
from .meta import JUDGED, VARIANTS
from .meta import supported
from .rows import ORDERS, P, STATS, SUMMARY, rows
from .sweep import PINNED

COLORS = plots.colors_for(JUDGED + [v for v in VARIANTS if v not in JUDGED])


def _points(r):
    """The spectrum's (p, value) points of a frame with a `stat` column, the minimum left out."""
    r = r.assign(p=r["stat"].map(P))
    return r[r["p"] > 0][["p", "value"]]


PANELS = {"sockets": ["udp-spin", "tcp-spin", "tcp-selectnow", "tcp-block", "tcp-select"],
          "shared memory and the timer": ["ipc-spin", "timer"]}
SPECTRUM = [p for p in P.values() if p > 0]   # 50% .. max: the minimum would sit on top of 50% at this scale


def plot_spectrum(df, ref, placement: str = PINNED):
    """Round-trip time against percentile on HdrHistogram's 1/(1-p) axis, sockets in one panel, IPC and the timer in
    another: this machine's runs (lab, median per percentile over the measured runs; max the largest) as solid
    lines, the post's rows dashed, one colour per transport. One row of panels per machine."""
    parts = list(analysis.split(rows(df, [f"rtt_{s}" for s in STATS], protocol="lab")))
    fig, axes = plots.grid(2 * len(parts), cols=2, width=6.2, height=4.6)
    post = ref[ref["table"].isin([SUMMARY, "A Java Ping Buffet: ErrPingClient"])]
    for i, (machine, m) in enumerate(parts):
        m = m[m["placement"] == placement]
        m = m.assign(stat=m["metric"].str.removeprefix("rtt_"))
        for ax, (panel, variants) in zip(axes[2 * i:2 * i + 2], PANELS.items()):
            for v in variants:
                sub = m[m["variant"] == v]
                if len(sub) and "pings" in sub:   # only the percentiles the runs support (meta.supported)
                    sub = sub[[supported(st, p) for st, p in zip(sub["stat"], sub["pings"])]]
                if len(sub):
                    g = sub.groupby("stat")["value"]
                    pts = g.median()
                    pts["max"] = g.max()["max"]
                    plots.spectrum(ax, _points(pts.rename("value").reset_index()), f"{v} (this machine)",
                                   COLORS[v])
                r = post[post["variant"] == v]
                if len(r):
                    plots.spectrum(ax, _points(r.assign(stat=r["metric"].str.removeprefix("rtt_"))),
                                   f"{v} (post, 2013)", COLORS[v], style="--x", alpha=0.6)
            plots.percentile_axis(ax, SPECTRUM)
            ax.set_yscale("log")
            plots.log_ticks(ax.yaxis)
            ax.yaxis.set_major_formatter(plots.NS)
            ax.set_ylabel("round-trip time (log)")
            ax.set_title(f"{panel}, {placement}" + (f"\n{machine}" if machine and len(parts) > 1 else ""),
                         fontsize=10)
    plots.figure_legend(fig, axes)
    only = parts[0][0] if len(parts) == 1 and parts[0][0] else ""
    fig.suptitle("round trip per percentile: solid this machine, dashed the post" + (f" ({only})" if only else ""),
                 fontsize=10)
    return fig


def plot_medians(df, stat: str = "p50"):
    """Every fork's median round trip per variant and placement (lab: each measured run a dot; bar = median)."""
    parts = list(analysis.split(rows(df, f"rtt_{stat}", protocol="lab")))
    fig, axes = plots.grid(len(parts), cols=1, width=11, height=4.4)
    for ax, (machine, m) in zip(axes, parts):
        if m.empty:
            plots.empty(ax, "no measured runs")
            continue
        m = analysis.sort_by(m, ORDERS)
        placements = analysis.ordered(m["placement"], ORDERS["placement"])
        plots.strip(ax, m, "variant", hue="placement", order=analysis.ordered(m["variant"], ORDERS["variant"]),
                    hue_order=placements, colors=plots.PLACEMENT_COLORS, log=True, formatter=plots.NS)
        ax.tick_params(axis="x", labelrotation=30)
        ax.set_ylabel(f"{stat} round trip per run (log)")
        ax.set_title("median round trip per run, per transport and placement" + (f": {machine}" if machine else ""),
                     fontsize=10)
    plots.figure_legend(fig, axes)
    return fig
