"""Numbers as a reader sees them: a duration, a rate, a bandwidth, a ratio or a percentage in the unit that reads
best (`fmt_ns`, `fmt_rate`, `fmt_mbps`, `fmt_ratio`, `fmt_pct`, `fmt_value` by unit name), a bare number in a table
(`fmt_number`), and a whole table made readable (`readable`). mechsym.judge.analysis re-exports every name here, as the
experiments, notebooks and tests call them (analysis.fmt_ns ...).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pandas as pd


def _nan(v) -> bool:
    return v is None or (isinstance(v, float) and np.isnan(v)) or (not isinstance(v, str) and pd.isna(v))


def fmt_ns(v) -> str:
    """A duration in ns, in the unit that reads best: '42.1 ns', '3.14 µs', '4.00 ms', '1.20 s'."""
    if _nan(v):
        return ""
    a = abs(v)
    if a >= 1e9:
        return f"{v / 1e9:,.2f} s"
    if a >= 1e6:
        return f"{v / 1e6:,.2f} ms"
    if a >= 1e3:
        return f"{v / 1e3:,.2f} µs"
    return f"{v:,.1f} ns"


def si(v, digits: int = 3) -> str:
    """1.2e9 -> '1.2G' (no unit)."""
    if _nan(v):
        return ""
    for div, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= div:
            return f"{v / div:.{digits}g}{suffix}"
    return f"{v:.{digits}g}"


def fmt_rate(v, unit: str = "ops/s") -> str:
    """Operations per second: '312.4M ops/s'."""
    if _nan(v):
        return ""
    if abs(v) >= 1e6:
        return f"{v / 1e6:,.1f}M {unit}"
    if abs(v) >= 1e3:
        return f"{v / 1e3:,.1f}k {unit}"
    return f"{v:,.1f} {unit}"


def fmt_mbps(v) -> str:
    """Bytes per second as MB/s (10^6 bytes, as the posts divide): '1,234 MB/s'."""
    return "" if _nan(v) else f"{v / 1e6:,.0f} MB/s"


def fmt_ratio(v) -> str:
    """A ratio: '1.02x', '12.9x', '604x'."""
    if _nan(v):
        return ""
    a = abs(v)
    return f"{v:,.0f}x" if a >= 100 else f"{v:.1f}x" if a >= 10 else f"{v:.2f}x"


def fmt_pct(v) -> str:
    return "" if _nan(v) else f"{v:.0f}%" if abs(v) >= 10 else f"{v:.1f}%"


FORMATTERS: dict[str, Callable] = {
    "ns": fmt_ns, "ns/op": fmt_ns, "ops/s": fmt_rate, "bytes/s": fmt_mbps, "B/s": fmt_mbps, "MB/s":
    lambda v: "" if _nan(v) else f"{v:,.0f} MB/s", "x": fmt_ratio, "%": fmt_pct, "cycles": lambda v: "" if _nan(v)
    else f"{v:.1f} cycles",
}


def fmt_value(v, unit: str) -> str:
    """A number in its unit, readable: the formatter for the unit, else '<3 significant digits> unit'."""
    f = FORMATTERS.get(unit)
    if f:
        return f(v)
    return "" if _nan(v) else f"{si(v)} {unit}".strip()


def fmt_column(series: pd.Series, unit: str) -> pd.Series:
    return series.map(lambda v: fmt_value(v, unit))


MISSING = "—"


def fmt_number(v) -> str:
    """A bare number as a table shows it: '—' when missing, no scientific notation, no '.0' on whole numbers."""
    if _nan(v):
        return MISSING
    if isinstance(v, (bool, np.bool_)):
        return "yes" if v else "no"
    if float(v).is_integer() and abs(v) < 1e15:
        return f"{v:,.0f}"
    a = abs(v)
    return f"{v:,.0f}" if a >= 1000 else f"{v:.3g}" if a >= 0.001 else f"{v:.3g}" if a >= 1e-9 else "0"


def readable(df: pd.DataFrame) -> pd.DataFrame:
    """A table as a reader sees it: the index levels as columns (a bare row number dropped), every number formatted
    (fmt_number), a missing value or an empty cell shown as '—'. Text that is already formatted is kept."""
    if df is None:
        return pd.DataFrame()
    out = df.copy()
    if not isinstance(out.index, pd.RangeIndex) or out.index.name is not None:
        taken = {c[0] if isinstance(c, tuple) else c for c in out.columns}
        names = []
        for n in out.index.names:   # an unnamed level gets a blank name no column has
            n = n if n is not None else ""
            while n in taken or n in names:
                n += " "
            names.append(n)
        out.index = out.index.set_names(names)
        if isinstance(out.columns, pd.MultiIndex):
            out = out.reset_index(col_level=0)
        else:
            out = out.reset_index()
    out = out.reset_index(drop=True)
    for c in out.columns:
        col = out[c]
        if pd.api.types.is_bool_dtype(col) or pd.api.types.is_numeric_dtype(col):
            out[c] = col.map(fmt_number)
        else:
            out[c] = col.map(lambda v: MISSING if _nan(v) or (isinstance(v, str) and not v.strip())
                             else fmt_number(v) if isinstance(v, (int, float, np.number, bool, np.bool_))
                             else v)
    return out
