"""A DataFrame as a reader sees it: no pandas row index, numbers formatted, '—' for a missing value."""

from __future__ import annotations

import pandas as pd

from . import units


def table(df):
    """A table for a reader: no pandas row index, numbers formatted, '—' for a missing value (units.readable).
    A Styler or anything else is passed through."""
    if not isinstance(df, pd.DataFrame):
        return df
    return units.readable(df).style.hide(axis="index")
