"""Figures: the 2011-11-05 post's bars, this machine's runs per placement, the round-trip spectrum, sorted runs.

Figures that read results draw one row of panels per machine (analysis.split)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from ...style import plots
from ...style.plots import plt
from .rows import ORDERS, lab_rows, per_fork_table
from .sweep import PLACEMENTS, VARIANTS
from .tables import PERCENTILES

COLORS = {v: plots.VARIANT_COLORS[v] for v in ("locked", "volatile-spin", "volatile-yield", "c-spin", "c-yield")}
REF_STYLES = ["--", ":", "-."]


JDK25_COLORS = {"locked": "#882255", "volatile-spin": "#56B4E9", "volatile-yield": "#8C6D00"}


def _color(group: str) -> str:
    """The variant's colour (plots.VARIANT_COLORS) for JDK 17 and C; for JDK 25 a companion of its own hue family
    that no other group of these figures uses (a darker shade made vermillion and orange both brown)."""
    variant, runtime = group.split(" (", 1)
    if runtime.startswith("JDK 25") and variant in JDK25_COLORS:
        return JDK25_COLORS[variant]
    return COLORS.get(variant, "#7f7f7f")


PCT_VALUE = {"p50": 0.5, "p90": 0.9, "p99": 0.99, "p99.9": 0.999, "max": 0.9999}   # max drawn one decade on


def plot_reference_cv(ref: pd.DataFrame):
    """The 2011-11-05 post's ns/op, pinned vs unpinned, per system (bars)."""
    r = ref[ref["metric"] == "ns_per_op"].copy()
    r["system"] = r["os"].str.replace(" 64-bit", "").str.replace(" Professional", "") + "\n" + r["cpu"]
    systems = list(dict.fromkeys(r["system"]))
    fig, ax = plt.subplots(figsize=(11, 3.8))
    for i, pl in enumerate(["pinned", "unpinned"]):
        vals = [r[(r["system"] == s) & (r["placement"] == pl)]["value"].iloc[0] for s in systems]
        bars = ax.bar(np.arange(len(systems)) + (i - 0.5) * 0.38, vals, 0.36, label=pl,
                      color=plots.PLACEMENT_COLORS["cross-core" if pl == "pinned" else "unpinned"])
        ax.bar_label(bars, labels=[f"{v:,.0f}" for v in vals], fontsize=8)
    ax.set_xticks(range(len(systems)), systems, fontsize=8)
    ax.set_ylabel("ns/op (post, JDK 1.6.0)")
    ax.set_title("2011-11-05: lock + condition ping-pong, 10 M exchanges")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
    return fig


def _group(m: pd.DataFrame) -> pd.Series:
    return m["variant"] + " (" + m["runtime"] + ")"


def plot_ns_per_op(df: pd.DataFrame, variants: list[str] | None = None, ref_lines: dict[str, float] | None = None,
                   title: str = ""):
    """ns/op per placement (x), one colour per variant and runtime: every measured run a dot, the median a bar.

    ref_lines: {label: ns/op} drawn as dashed horizontal lines (the posts' numbers). One panel per machine."""
    parts = list(analysis.split(lab_rows(df)))
    fig, axes = plots.grid(len(parts), cols=1, width=11, height=4.6)
    for ax, (machine, m) in zip(axes, parts):
        m = m[m["variant"].isin(variants or list(VARIANTS))]
        if m.empty:
            plots.empty(ax, "no measured runs")
            continue
        m = analysis.sort_by(m.assign(group=_group(m)), ORDERS)
        groups = list(dict.fromkeys(m["group"]))
        colors = {g: _color(g) for g in groups}
        plots.strip(ax, m, "placement", hue="group", order=analysis.ordered(m["placement"], PLACEMENTS),
                    hue_order=groups, colors=colors, log=True, formatter=plots.NS)
        for i, (label, value) in enumerate((ref_lines or {}).items()):   # named in the legend, not over the data
            ax.axhline(value, ls=REF_STYLES[i % len(REF_STYLES)], lw=1.2, color="#444444", alpha=0.8, label=label)
        ax.set_ylabel("ns/op = duration / (2 x exchanges), log\n(dots = runs, bar = median)")
        ax.set_title((title or "ns per one-way signal, per CPU placement") + (f": {machine}" if machine else ""),
                     fontsize=10)
    plots.figure_legend(fig, axes)
    return fig


def plot_percentiles(df: pd.DataFrame, variants: list[str] | None = None):
    """Round-trip latency by percentile, HdrHistogram style (x = 1/(1-p), log), one line per placement.

    One panel per variant and runtime (a row per machine); each point is the median over runs of that percentile,
    max the largest seen."""
    m = lab_rows(df, [f"round_trip_{p}" for p in PERCENTILES])
    parts = list(analysis.split(m))
    panels = [(machine, key, g) for machine, sub in parts
              for key, g in analysis.sort_by(sub[sub["variant"].isin(variants or list(VARIANTS))], ORDERS)
              .groupby(["variant", "runtime"], sort=False)]
    if not panels:
        fig, axes = plots.grid(1)
        plots.empty(axes[0], "no round-trip samples")
        return fig
    fig, axes = plots.grid(len(panels), cols=min(3, len(panels)), width=3.7, height=3.2, sharey=True)
    for ax, (machine, (variant, runtime), g) in zip(axes, panels):
        g = g.assign(pct=g["metric"].str.removeprefix("round_trip_"))
        for placement in analysis.ordered(g["placement"], PLACEMENTS):
            s = g[g["placement"] == placement]
            agg = s.groupby("pct")["value"].agg(["median", "max"])
            pts = pd.DataFrame({"p": [PCT_VALUE[k] for k in agg.index],
                                "value": [agg.loc[k, "max" if k == "max" else "median"] for k in agg.index]})
            plots.spectrum(ax, pts, placement, color=plots.PLACEMENT_COLORS.get(placement))
        plots.percentile_axis(ax, list(PCT_VALUE.values()))
        ax.set_xticks([plots.percentile_x(p) for p in PCT_VALUE.values()],
                      [f"{p * 100:g}%" for p in list(PCT_VALUE.values())[:-1]] + ["max"])
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(plots.NS)
        ax.set_title(f"{variant} ({runtime})" + (f", {machine}" if machine and len(parts) > 1 else ""), fontsize=9)
    axes[0].set_ylabel("round trip (ping -> pong -> ping), log")
    plots.figure_legend(fig, axes)
    fig.suptitle("Sampled round trips: each point is the median over measured runs of that percentile", fontsize=10)
    return fig


def plot_sorted_runs(df: pd.DataFrame, variants: list[str] | None = None, placement: str = "cross-core"):
    """Every measured run of each cell, sorted, against its rank; and each fork's number under both protocols.

    A median hides two clusters; sorted runs show them (a step), as the SPSC post's figures do."""
    parts = list(analysis.split(lab_rows(df)))
    fig, axes = plots.grid(2 * len(parts), cols=2, width=4.8, height=3.8)
    for i, (machine, m) in enumerate(parts):
        m = analysis.where(m, placement=placement)
        m = analysis.sort_by(m[m["variant"].isin(variants or list(VARIANTS))].assign(group=_group(m)), ORDERS)
        left, right = axes[2 * i], axes[2 * i + 1]
        if m.empty:
            plots.empty(left, f"no {placement} runs")
            plots.empty(right, f"no {placement} runs")
            continue
        plots.sorted_runs(left, {g: s["value"] for g, s in m.groupby("group", sort=False)},
                          colors={g: _color(g) for g in m["group"].unique()}, formatter=plots.NS)
        left.set_yscale("log")
        left.yaxis.set_major_formatter(plots.NS)
        left.set_ylabel(f"ns/op, {placement}, log")
        left.set_title("every measured run, sorted" + (f"\n{machine}" if machine else ""), fontsize=9)
        from matplotlib.ticker import MaxNLocator
        left.xaxis.set_major_locator(MaxNLocator(integer=True))
        pf = analysis.where(per_fork_table(df[df["machine"].astype(str) == machine] if machine else df),
                            placement=placement)
        pf = pf[pf["variant"].isin(m["variant"].unique())]
        names = {"post": "post: first, cold run of a fork", "lab": "lab: median of a fork's runs"}
        pf = pf.assign(group=pf["variant"] + "\n" + pf["runtime"], protocol=pf["protocol"].map(names))
        plots.strip(right, pf, "group", hue="protocol", order=list(dict.fromkeys(pf["group"])),
                    hue_order=list(names.values()), colors={names["post"]: "#8c564b", names["lab"]: "#17becf"}, log=True,
                    formatter=plots.NS)
        right.tick_params(axis="x", labelsize=8)
        right.set_title("one number per fork (fresh JVM)" + (f"\n{machine}" if machine else ""), fontsize=9)
    plots.figure_legend(fig, axes)
    return fig
