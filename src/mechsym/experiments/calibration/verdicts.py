"""No verdicts: there are no claims (see claims.py)."""

from __future__ import annotations

from .claims import CLAIMS


def verdicts(_df) -> list:
    """Always empty: the record is data for the other experiments' requirements, not a verdict."""
    return list(CLAIMS)
