"""A DataFrame as a reader sees it: no pandas row index, numbers formatted, '—' for a missing value, and the unit
of its values in the header.

The lesson: a number without its unit ('96.7') is a guess for the reader; a table that names its values' unit in
`columns.name` ('M ops/s, single warm-up') shows it as a header row spanning the value columns."""

from __future__ import annotations

import pandas as pd

from . import units


def table(df):
    """A table for a reader: no pandas row index, numbers formatted, '—' for a missing value (units.readable);
    `columns.name`, where set, heads the value columns (the index levels turned columns stay under a blank top).
    A Styler or anything else is passed through."""
    if not isinstance(df, pd.DataFrame):
        return df
    unit = df.columns.name if not isinstance(df.columns, pd.MultiIndex) else None
    values = list(df.columns)
    out = units.readable(df)
    if unit:
        out.columns = pd.MultiIndex.from_tuples([(str(unit) if c in values else "", c) for c in out.columns])
    return out.style.hide(axis="index")
