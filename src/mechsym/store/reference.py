"""The posts' own numbers, transcribed into data/reference/<name>.csv.

Every reference file is long-format CSV with at least the columns `post`
(the post's file in shared/posts) and `table` (which table, figure or sentence
of the post the number comes from), plus its parameters, metric, value, unit.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .. import MechsymError, repo_root

REQUIRED = ("post", "table")


def reference_dir() -> Path:
    return repo_root() / "data" / "reference"


def names() -> list[str]:
    return sorted(p.stem for p in reference_dir().glob("*.csv"))


def load(name: str) -> pd.DataFrame:
    """A reference table by name (file stem), checked for its source columns."""
    path = reference_dir() / f"{name.removesuffix('.csv')}.csv"
    if not path.exists():
        raise MechsymError(f"reference '{name}': no such file {path.name} (known: {', '.join(names())})")
    try:
        df = pd.read_csv(path)
    except Exception as e:
        raise MechsymError(f"corrupt reference file {path}: {str(e).splitlines()[0]}") from e
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        raise MechsymError(f"reference file {path}: missing source columns {', '.join(missing)}")
    if df[list(REQUIRED)].isna().any().any():
        raise MechsymError(f"reference file {path}: every row must name its post and table")
    return df
