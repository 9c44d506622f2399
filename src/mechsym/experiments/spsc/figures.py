"""The spsc figures: the post's sorted-runs figure (one line per variant, one point per run), per option set, and
the stored runs side by side. One panel row per machine when the rows hold several."""

from __future__ import annotations

from matplotlib.ticker import MaxNLocator

from ...judge import analysis
from ...style import plots
from .meta import MAIN_OPTIONS, OPTION_SETS, QUEUES
from .rows import cell, run_summaries
from .sweep import PLACEMENTS, PLACEMENT_LABELS

COLORS = plots.colors_for(["O1", "O2", "I1", "I2", "I3", "I4", "jctools"])   # plots.VARIANT_COLORS
YLABEL = "run summary, ops/s\n(mean of its measured iterations)"


def _panel(ax, s, variants, title: str, **eq) -> None:
    series = {v: cell(s, variant=v, **eq) for v in variants}
    series = {v: a for v, a in series.items() if len(a)}
    if not series:
        plots.empty(ax, "no runs")
    else:
        plots.sorted_runs(ax, series, colors=COLORS)
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_title(title, fontsize=8)


def _legend(fig, axes) -> None:
    """One legend per figure, outside the axes (never over the runs)."""
    handles = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    if handles:
        fig.legend(handles.values(), handles.keys(), loc="outside right center", fontsize=8)


def _from_zero(axes, groups: list[list] | None = None) -> None:
    """Every panel's y axis from 0; the panels of each group to one top."""
    for group in groups or [[ax] for ax in axes]:
        drawn = [ax for ax in group if ax.lines]
        top = max((ax.get_ylim()[1] for ax in drawn), default=None)
        for ax in drawn:
            ax.set_ylim(0, top)


def _jdk(s, jdk) -> str:
    return str(jdk) if jdk is not None else (analysis.jdks(s) or [""])[0]


def plot_sorted_runs(df, jdk=None, options: str = MAIN_OPTIONS, variants: list[str] | None = None):
    """The post's figures: every run's summary, sorted, one line per variant; one panel per placement that ran, one
    row per JDK that ran `options` (or only `jdk`), and per machine when several."""
    rows = [(m, s, j) for m, sub in analysis.split(df) for s in [run_summaries(sub)]
            for j in ([str(jdk)] if jdk is not None else analysis.jdks(analysis.where(s, options=options)))]
    places = [p for p in PLACEMENTS if any(p in set(s["placement"]) for _, s, _ in rows)] or ["cross-core"]
    fig, axes = plots.grid(max(1, len(rows)) * len(places), cols=len(places), width=5.2, height=3.4)
    several = len({m for m, _, _ in rows}) > 1
    for r, (machine, s, j) in enumerate(rows):
        names = [v for v in (variants or list(QUEUES)) if v in set(s["variant"])]
        for k, p in enumerate(places):
            ax = axes[r * len(places) + k]
            _panel(ax, s, names, f"{machine + ': ' if several else ''}{PLACEMENT_LABELS[p]}, JDK {j}, options: {options}",
                   jdk=j, options=options, placement=p)
            if k == 0:
                ax.set_ylabel(YLABEL)
    if not rows:
        plots.empty(axes[0], f"no runs under '{options}'")
    _legend(fig, axes)
    _from_zero(axes)
    return fig


def plot_sorted_grid(df, jdk=None, variants: list[str] | None = None):
    """Sorted runs for every option set (rows; per machine when several) and placement (columns) of one JDK:
    do the winners reorder?"""
    parts = [(m, run_summaries(sub)) for m, sub in analysis.split(df)]
    rows = [(m, s, o) for m, s in parts for o in OPTION_SETS if o in set(analysis.where(s, jdk=_jdk(s, jdk))["options"])]
    places = [p for p in PLACEMENTS if any(p in set(s["placement"]) for _, s in parts)] or ["cross-core"]
    fig, axes = plots.grid(max(1, len(rows)) * len(places), cols=len(places), width=4.6, height=2.4)
    for i, (machine, s, o) in enumerate(rows):
        j = _jdk(s, jdk)
        names = [v for v in (variants or list(QUEUES)) if v in set(s["variant"])]
        for k, p in enumerate(places):
            ax = axes[i * len(places) + k]
            _panel(ax, s, names, f"{machine + ' | ' if len(parts) > 1 else ''}JDK {j} | {o} | {PLACEMENT_LABELS[p]}",
                   jdk=j, options=o, placement=p)
            ax.set_xlabel("")
    if not rows:
        plots.empty(axes[0], "no runs")
    _legend(fig, axes)
    # one scale per placement, shared by every machine and option set: machines compare on one axis
    _from_zero(axes, [[axes[i * len(places) + k] for i in range(len(rows))] for k in range(len(places))])
    return fig


RUNS_PER_ROW = 5   # stored runs side by side: panels wrap into rows of this many, each wide enough to read


def plot_runs_side_by_side(df, variants=("O1", "I4"), placement: str = "cross-core", options: str = MAIN_OPTIONS):
    """Each stored run (a sweep of fresh JVMs) of the main cell beside the others: does O1's low mode come back?
    The runs of a machine in rows of RUNS_PER_ROW panels (newest last), machine after machine, every panel on one
    y scale, so runs and machines compare at a glance."""
    parts = [(m, sub, sorted(sub["run_id"].astype(str).unique()) if "run_id" in sub else [""])
             for m, sub in analysis.split(df)]
    cols = min(RUNS_PER_ROW, max(len(r) for _, _, r in parts))
    rows = [-(-len(r) // cols) for _, _, r in parts]
    fig, axes = plots.grid(sum(rows) * cols, cols=cols, width=2.9, height=2.5)
    start, jdks = 0, set()
    for (machine, sub, runs), n in zip(parts, rows):
        mine = axes[start:start + n * cols]
        for k, run in enumerate(runs):
            s = run_summaries(analysis.where(sub, run_id=run) if run else sub)
            j = _jdk(s, None)
            jdks.add(j)
            _panel(mine[k], s, list(variants), f"{machine + chr(10) if len(parts) > 1 else ''}{run}", jdk=j,
                   options=options, placement=placement)
        for ax in mine[len(runs):]:
            ax.set_visible(False)
        for ax in mine[::cols]:
            ax.set_ylabel(YLABEL, fontsize=8)
        start += n * cols
    fig.suptitle(f"JDK {', '.join(sorted(jdks))}, {PLACEMENT_LABELS[placement]}, {options}: one panel per stored "
                 "run, oldest first", fontsize=9)
    _legend(fig, axes)
    _from_zero(axes, [axes])   # one scale for every run and machine
    return fig
