"""Plot helpers shared by the notebooks: every point shown, the median drawn."""

from __future__ import annotations

import matplotlib
import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter, LogFormatter

from .units import fmt_ns, si as _si


class _Pyplot:
    """matplotlib.pyplot, imported on first use: it costs ~0.2 s, which every `mechsym` command that draws nothing
    (most of them, and every one the tests start) would otherwise pay at start-up."""

    def __getattr__(self, name):
        import matplotlib.pyplot

        return getattr(matplotlib.pyplot, name)


plt = _Pyplot()

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f"]


def si(x, _pos=None) -> str:
    """1.2e9 -> '1.2G' (a matplotlib tick formatter)."""
    return _si(x)


SI = FuncFormatter(si)


def style() -> None:
    matplotlib.rcParams.update({
        "figure.dpi": 100, "savefig.dpi": 110, "axes.grid": True, "grid.alpha": 0.3,
        "axes.spines.top": False, "axes.spines.right": False, "font.size": 10,
        "legend.frameon": False, "figure.constrained_layout.use": True,
    })


def points_and_median(ax, df: pd.DataFrame, x: str, y: str, hue: str, order: list | None = None,
                      colors: dict | None = None, jitter: float = 0.12, label_suffix: str = "",
                      log: bool = False, marker: str = "o") -> None:
    """Every measurement as a faint dot (jittered along x), the median per x as a line."""
    order = order or sorted(df[hue].unique(), key=str)
    xs = sorted(df[x].unique())
    rng = np.random.default_rng(0)
    for i, key in enumerate(order):
        sub = df[df[hue] == key]
        if sub.empty:
            continue
        c = (colors or {}).get(key, PALETTE[i % len(PALETTE)])
        offs = (i - (len(order) - 1) / 2) * 0.06
        ax.scatter(sub[x] + offs + rng.uniform(-jitter / 3, jitter / 3, len(sub)), sub[y], s=9, alpha=0.35,
                   color=c, linewidths=0, marker=marker)
        med = sub.groupby(x)[y].median().reindex(xs).dropna()
        ax.plot(med.index + offs, med.values, "-", marker=marker, color=c, lw=1.8, ms=5, label=f"{key}{label_suffix}")
    ax.yaxis.set_major_formatter(SI)
    if log:
        ax.set_yscale("log")
        log_ticks(ax.yaxis)


# ---------------------------------------------------------------- shared figure pieces (one copy for every notebook)

PLACEMENT_COLORS = {"same-cpu": "#d62728", "smt": "#9467bd", "cross-core": "#1f77b4", "cross-socket": "#17becf",
                    "unpinned": "#ff7f0e"}
NS = FuncFormatter(lambda y, _p: fmt_ns(y))


# One colour per variant, the same in every notebook: the Okabe-Ito colour-blind-safe set (and Paul Tol's wine and
# grey), no two variants of one figure in near-identical hues.
OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#882255", "#999999",
             "#F0E442"]
VARIANT_COLORS = {
    # locks (notebooks 01, 02)
    "monitor-thin": "#0072B2", "monitor-biased-delayed": "#E69F00", "monitor-biased": "#882255",
    "monitor-default": "#CC79A7", "reentrant": "#009E73", "atomic": "#000000", "stamped": "#D55E00",
    # SPSC queues (notebook 05)
    "O1": "#D55E00", "O2": "#E69F00", "I1": "#0072B2", "I2": "#56B4E9", "I3": "#009E73", "I4": "#CC79A7",
    "jctools": "#555555",
    # signalling (notebooks 03, 08; JDK 25 in a companion colour: signalling.figures.JDK25_COLORS)
    "locked": "#D55E00", "volatile-spin": "#0072B2", "volatile-yield": "#E69F00", "c-spin": "#009E73",
    "c-yield": "#CC79A7",
    # sequential IO (notebook 04)
    "random-access-file": "#0072B2", "buffered-stream": "#D55E00", "channel-heap": "#009E73",
    "channel-direct": "#CC79A7", "mapped": "#E69F00", "buffered-stream-biased": "#882255", "dd": "#000000",
    "dd-cached": "#999999",
}


def colors_for(keys) -> dict:
    """{key: colour} for these keys: a variant's own colour from VARIANT_COLORS, any other key the next Okabe-Ito
    colour not already used in this figure (so every key of one figure is distinct)."""
    keys = list(dict.fromkeys(keys))
    out = {k: VARIANT_COLORS[k] for k in keys if k in VARIANT_COLORS}
    spare = [c for c in OKABE_ITO if c not in out.values()]
    for k in keys:
        if k not in out:
            out[k] = spare.pop(0) if spare else PALETTE[len(out) % len(PALETTE)]
    return out


class _LogSI(LogFormatter):
    """matplotlib's choice of which log ticks to label (decades; a few minor ticks on a short axis), written as SI."""

    def _num_to_string(self, x, vmin, vmax):
        return si(x)


def log_ticks(axis) -> None:
    """A log axis with one tick style: major and minor tick labels both SI ('40M', '100M', '400M'), never a mix with
    matplotlib's '4x10^8'."""
    axis.set_major_formatter(_LogSI())
    axis.set_minor_formatter(_LogSI(labelOnlyBase=False))


def integer_ticks(axis) -> None:
    """Ticks at whole numbers only (run counts, ranks)."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def color_for(key, colors: dict | None = None, i: int = 0) -> str:
    return (colors or {}).get(key, PALETTE[i % len(PALETTE)])


def grid(n: int, cols: int | None = None, width: float = 4.8, height: float = 3.6, **kw):
    """A figure with n panels in rows of `cols`; unused panels hidden. Returns (fig, list of axes)."""
    n = max(1, n)
    cols = cols or min(3, n)
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False, **kw)
    flat = list(axes.flat)
    for ax in flat[n:]:
        ax.set_visible(False)
    return fig, flat[:n]


def title(ax, text: str, fontsize: float = 10, **kw) -> None:
    """A panel title wrapped to the panel's width, so neighbouring panels' titles never overprint."""
    import textwrap

    fig = ax.get_figure()
    inches = fig.get_figwidth() * ax.get_position().width
    chars = max(12, int(inches * 72 / (fontsize * 0.6)))   # ~0.6 em per character
    ax.set_title("\n".join(textwrap.wrap(text, chars)), fontsize=fontsize, **kw)


def empty(ax, text: str) -> None:
    """A panel that says why it has nothing to show."""
    ax.text(0.5, 0.5, text, ha="center", va="center", transform=ax.transAxes, fontsize=9, color="#555")
    ax.set_xticks([])
    ax.set_yticks([])


def strip(ax, df: pd.DataFrame, x: str, y: str = "value", hue: str | None = None, order: list | None = None,
          hue_order: list | None = None, colors: dict | None = None, log: bool = False, formatter=None,
          jitter: float = 0.28) -> None:
    """Categorical x: every measurement a dot (jittered), the median a short black bar; hue side by side."""
    order = order or sorted(df[x].unique(), key=str)
    hues = hue_order or (sorted(df[hue].unique(), key=str) if hue else [None])
    width = 0.8 / max(1, len(hues))
    rng = np.random.default_rng(0)
    for j, h in enumerate(hues):
        sub = df if h is None else df[df[hue] == h]
        c = color_for(h, colors, j)
        for i, cat in enumerate(order):
            vals = sub[sub[x].astype(str) == str(cat)][y].dropna()
            if vals.empty:
                continue
            pos = i + (j - (len(hues) - 1) / 2) * width
            ax.scatter(pos + rng.uniform(-jitter * width, jitter * width, len(vals)), vals, s=12, alpha=0.55,
                       color=c, linewidths=0, label=str(h) if (h is not None and i == 0) else None)
            ax.hlines(vals.median(), pos - width * 0.4, pos + width * 0.4, color="black", lw=2, zorder=3)
    ax.set_xticks(range(len(order)), [str(o) for o in order])
    if log:
        ax.set_yscale("log")
    ax.yaxis.set_major_formatter(formatter or SI)
    if log:   # one tick style per axis: minor labels in the major's style, or none
        if formatter is None:
            log_ticks(ax.yaxis)
        else:
            from matplotlib.ticker import NullFormatter

            ax.yaxis.set_minor_formatter(NullFormatter())


def sorted_runs(ax, series: dict, colors: dict | None = None, formatter=None) -> None:
    """Each label's run values sorted ascending against the run's rank: the SPSC post's figure shape, which shows
    bimodality and outliers that a median hides."""
    for i, (label, values) in enumerate(series.items()):
        v = np.sort(np.asarray(values, dtype=float))
        v = v[np.isfinite(v)]
        if len(v):
            ax.plot(np.arange(1, len(v) + 1), v, "-o", ms=3, lw=1.2, color=color_for(label, colors, i), label=label)
    ax.set_xlabel("run (sorted)")
    integer_ticks(ax.xaxis)
    ax.yaxis.set_major_formatter(formatter or SI)


def percentile_x(p: float) -> float:
    """HdrHistogram's percentile axis: x = 1/(1-p) (p=0.5 -> 2, 0.99 -> 100, 0.9999 -> 10,000)."""
    return 1.0 / (1.0 - min(p, 1 - 1e-7))


def percentile_axis(ax, percentiles: list[float]) -> None:
    """A log x axis at 1/(1-p) with ticks labelled as percentiles ('50%', '99.9%')."""
    ax.set_xscale("log")
    ticks = sorted(set(percentiles))
    ax.set_xticks([percentile_x(p) for p in ticks], [f"{p * 100:g}%" if p < 1 else "max" for p in ticks])
    ax.minorticks_off()
    ax.set_xlabel("percentile (x = 1/(1-p), log)")


def spectrum(ax, points: pd.DataFrame, label: str, color: str | None = None, style: str = "-o",
             **kw) -> None:
    """One percentile-spectrum line: points has columns p (0..1; 1 for max, drawn at the axis end) and value."""
    pts = points.sort_values("p")
    xs = [percentile_x(p) for p in pts["p"]]
    ax.plot(xs, pts["value"], style, ms=4, color=color, label=label, **kw)


def figure_legend(fig, axes) -> None:
    """One legend for the figure, outside the axes on the right: every label once (never over the data)."""
    seen = {}
    for ax in axes:
        for h, label in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(label, h)
    if seen:
        fig.legend(list(seen.values()), list(seen.keys()), loc="outside right upper", fontsize=9, markerscale=2)


# ---------------------------------------------------------------- bimodal cells (mechsym.judge.modes)

MODE_COLORS = {"low": "#1f77b4", "high": "#d62728"}


def modes_strips(cells, width: float = 9.0, row: float = 1.5):
    """One strip per bimodal cell (mechsym.modes.ModalCell): every fork a dot on a log axis of the cell's metric,
    coloured by its mode, each mode's median a bar; when a recorded column separates the modes, each dot is labelled
    with that column's value and the column named in the panel's title."""
    fig, axes = plt.subplots(len(cells), 1, figsize=(width, row * len(cells) + 0.3), squeeze=False)
    rng = np.random.default_rng(0)
    for ax, c in zip(axes[:, 0], cells):
        f = c.forks
        col = c.separation.column if c.separation else None
        col = col if col in f else None      # a text column's level ("run = x") labels no dot
        for mode in ("low", "high"):
            sub = f[f["mode"] == mode]
            color = MODE_COLORS[mode]
            y = rng.uniform(-0.2, 0.2, len(sub))
            ax.scatter(sub["value"], y, s=28, color=color, alpha=0.8, linewidths=0,
                       label=f"{mode} mode ({len(sub)} fork{'s' if len(sub) != 1 else ''})")
            ax.vlines(sub["value"].median(), -0.35, 0.35, color=color, lw=1.5)
            if col:
                for x, yy, v in zip(sub["value"], y, sub[col]):
                    ax.annotate(si(v), (x, yy), xytext=(0, 5), textcoords="offset points", fontsize=7,
                                ha="center", color="#333")
        ax.set_xscale("log")
        lo, hi = f["value"].min(), f["value"].max()
        ax.set_xlim(lo / (hi / lo) ** 0.08, hi * (hi / lo) ** 0.08)
        log_ticks(ax.xaxis)
        ax.set_ylim(-0.6, 0.6)
        ax.set_yticks([])
        ax.grid(axis="y", visible=False)
        sep = c.separation.short() + (" (labels: its value per fork)" if col else "") if c.separation \
            else "no recorded column separates the modes"
        ax.set_title(f"{c.label}\n{c.metric} ({c.unit}); {sep}", fontsize=8, loc="left")
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


# ---------------------------------------------------------------- forest plots (view.answer, view.overview)

def forest(rows: list[dict], xlabel: str, ends: tuple[str, str], key: list[tuple[str, str]] = (),
           width: float = 13.0, row: float = 0.24):
    """One line per row: a dot at x with a whisker lo..hi, an open diamond at ref, a shaded band where given, the
    reference line at 1; log x axis with ticks and labels at the top and the bottom, the two ends named. rows: dicts
    of label, x, lo, hi, ref, band ((low, high) or None), color, note (text at the right), missing (text drawn where
    a row has no x)."""
    from matplotlib.lines import Line2D

    n = max(1, len(rows))
    fig, ax = plt.subplots(figsize=(width, row * n + 1.5), layout="constrained")
    if not rows:
        empty(ax, "nothing to draw: no claim has an estimate yet (run an experiment, or import results)")
        return fig
    vals = [v for r in rows for v in (r.get("x"), r.get("lo"), r.get("hi"), r.get("ref"), *(r.get("band") or ()))
            if v is not None and np.isfinite(v) and v > 0] + [1.0]
    lo, hi = min(vals), max(vals)
    pad = (hi / lo) ** 0.06 if hi > lo else 2.0
    ax.set_xscale("log")
    ax.set_xlim(lo / pad, hi * pad)
    ax.axvline(1.0, color="black", lw=0.9, zorder=1)
    for i, r in enumerate(rows):
        if r.get("band"):
            ax.fill_betweenx([i - 0.42, i + 0.42], *r["band"], color="#bbbbbb", alpha=0.35, lw=0, zorder=0)
        x, left = r.get("x"), lo / pad
        if x is not None and np.isfinite(x):
            low, high = r.get("lo", np.nan), r.get("hi", np.nan)
            if np.isfinite(high) and (np.isfinite(low) or low == 0):
                # an interval reaching zero or below has no place on a log axis: drawn to the edge, marked '<'
                ax.hlines(i, low if low > 0 else left, high, color=r["color"], lw=2.2, zorder=2)
                if not low > 0:
                    ax.plot([left], [i], "<", color=r["color"], ms=6, zorder=3, clip_on=False)
            ax.plot([x], [i], "o", color=r["color"], ms=6, mec="black", mew=0.5, zorder=3)
        else:
            ax.text(0.01, i, r.get("missing", ""), transform=ax.get_yaxis_transform(), va="center", ha="left",
                    fontsize=7.5, color="#666")
        ref = r.get("ref")
        if ref is not None and np.isfinite(ref):
            ax.plot([ref], [i], "D", mfc="none", mec="black", ms=6, mew=1.0, zorder=4)
    ax.set_yticks(range(len(rows)), [r["label"] for r in rows], fontsize=8)
    ax.set_ylim(len(rows) - 0.5, -0.5)
    notes = ax.secondary_yaxis("right")   # the notes as right-hand tick labels: the layout makes room for them
    notes.set_yticks(range(len(rows)), [r.get("note", "") for r in rows], fontsize=7.5, color="#333")
    notes.tick_params(length=0)
    ax.grid(axis="y", visible=False)
    ax.tick_params(axis="x", which="both", top=True, labeltop=True)
    log_ticks(ax.xaxis)
    ax.set_xlabel(xlabel, fontsize=9)
    ax.set_title(f"← {ends[0]}", loc="left", fontsize=8, color="#444")
    ax.set_title(f"{ends[1]} →", loc="right", fontsize=8, color="#444")
    handles = [Line2D([], [], ls="", marker="o", color=c, mec="black", mew=0.5, label=s) for c, s in key]
    handles += [Line2D([], [], ls="", marker="D", mfc="none", mec="black", label="the post's figure"),
                Line2D([], [], color="black", lw=0.9, label="threshold (1)")]
    fig.legend(handles=handles, loc="outside lower center", ncol=len(handles), fontsize=8)
    return fig
