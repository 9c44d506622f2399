"""The rows as the tables read them: one value per measured run, in ns, per variant (machine/calibration.VARIANTS).
No post, so no post protocol: PROTOCOLS is empty (the contract test's allowance for an experiment without a post)."""

from __future__ import annotations

import pandas as pd

from ...judge import analysis
from ...machine.calibration import METRICS

PROTOCOLS: tuple = ()


def rows(df: pd.DataFrame | None) -> pd.DataFrame:
    """Measured rows of forks that passed their checks, the timed metric of each measure."""
    return analysis.measured(df, list(METRICS))
