"""Figures: the post's table beside this machine's forks (log scale), and the stores and fences.

Figures that read results draw one row of panels per machine (analysis.split)."""

from __future__ import annotations

import pandas as pd

from ...judge import analysis
from ...style import plots
from .meta import POST_ITERATIONS
from .rows import PROTOCOLS, forks, post_ms, runtimes
from .sweep import FENCES, TABLE

RUNTIME_COLORS = {"JDK 17": "#0072B2", "JDK 25": "#56B4E9", "C (gcc)": "#009E73"}


def _points(df: pd.DataFrame, protocol: str, cells: dict[str, tuple[str, str, int]]) -> pd.DataFrame:
    """Per-fork ns per op: one row per (label, runtime, fork). cells: label -> (Java method, C method, threads)."""
    proto = next(p for p in PROTOCOLS if p.name == protocol)
    out = []
    for jdk in runtimes(df):
        for label, (java, c, threads) in cells.items():
            for v in forks(df, proto, jdk, c if jdk == "c" else java, threads):
                out.append({"label": label, "runtime": analysis.runtime_label(jdk), "value": v})
    return pd.DataFrame(out, columns=["label", "runtime", "value"])


def _panels(df, protocol, cells, title, ylabel, post: dict[str, float] | None = None):
    parts = list(analysis.split(df))
    fig, axes = plots.grid(len(parts), cols=1, width=11, height=4.6)
    for ax, (machine, sub) in zip(axes, parts):
        pts = _points(sub, protocol, cells)
        if pts.empty:
            plots.empty(ax, "no measured runs")
            continue
        hues = analysis.ordered(pts["runtime"], list(RUNTIME_COLORS))
        plots.strip(ax, pts, "label", hue="runtime", order=list(cells), hue_order=hues,
                    colors={h: RUNTIME_COLORS.get(h, "#7f7f7f") for h in hues}, log=True, formatter=plots.NS)
        if post:
            ax.scatter(range(len(post)), list(post.values()), marker="D", s=40, color="black", zorder=4,
                       label="post (Westmere 2.4 GHz, 2011)")
        ax.set_ylabel(ylabel)
        ax.set_title(title + (f": {machine}" if machine else ""), fontsize=10)
        ax.tick_params(axis="x", labelsize=8)
    plots.figure_legend(fig, axes)
    return fig


def plot_table(df: pd.DataFrame, ref: pd.DataFrame, protocol: str = "lab"):
    """The post's six rows: every fork's ns per increment (dots; bar = median) per runtime, the post's as
    diamonds. Log scale: the rows span three orders of magnitude."""
    cells = {label.replace(" with ", "\nwith "): (m, m, t) for m, t, label in TABLE.values()}
    ms = post_ms(ref)
    post = {label: ms[key] * 1e6 / POST_ITERATIONS for label, key in zip(cells, TABLE)}
    return _panels(df, protocol, cells, f"ns per increment of one 64-bit counter ({protocol} protocol)",
                   "ns per increment, log\n(dots = forks, bar = median)", post)


def plot_fences(df: pd.DataFrame):
    """The memory-barriers post's stores and fences: ns per store (one thread), every fork, per runtime."""
    cells = {label.split(" (")[0]: (java, c, 1) for label, (java, c) in FENCES.items()}
    return _panels(df, "lab", cells, "ns per store: plain, ordered, volatile, and each fence after a plain store",
                   "ns per store, log\n(dots = forks, bar = median)")

