"""Plot helpers shared by the notebooks: every point shown, the median drawn."""

from __future__ import annotations

import matplotlib

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter

PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f"]


def si(x, _pos=None) -> str:
    """1.2e9 -> '1.2G'."""
    for div, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.3g}{suffix}"
    return f"{x:.3g}"


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
    if log:
        ax.set_yscale("log")
    ax.yaxis.set_major_formatter(SI)


def median_spread(df: pd.DataFrame, by: list[str], value: str = "value") -> pd.DataFrame:
    """Median, min, max, IQR and count per group: the numbers a table quotes."""
    g = df.groupby(by, dropna=False)[value]
    out = pd.DataFrame({
        "median": g.median(),
        "min": g.min(),
        "p25": g.quantile(0.25),
        "p75": g.quantile(0.75),
        "max": g.max(),
        "n": g.count(),
    })
    out["spread %"] = (out["p75"] - out["p25"]) / out["median"] * 100
    return out.reset_index()
