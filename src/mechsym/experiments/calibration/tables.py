"""Tables: per measure, the median over measured runs with its interquartile range, and the A/A's per-fork values
(the regimes). Split per machine (analysis.by_machine): one machine's floors are never another's."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from ...machine.calibration import AA_VARIANT, VARIANTS, regime_summary
from .rows import rows

LABEL = {
    "nanotime": "System.nanoTime step", "millis": "System.currentTimeMillis step", "cas": "uncontended CAS (Java)",
    "line-same": "cache-line round trip, one CPU (Java)", "line-cross": "cache-line round trip, two CPUs (Java)",
    "wakeup-cross": "park/unpark wake-up, other CPU (Java)", "c-line-same": "cache-line round trip, one CPU (C)",
    "c-line-cross": "cache-line round trip, two CPUs (C)", "c-futex-cross": "futex wake-up, other CPU (C)",
    AA_VARIANT: "A/A: round trip per fresh JVM",
}


def _ns(v: float) -> str:
    return analysis.fmt_ns(v) if np.isfinite(v) else analysis.MISSING


@analysis.by_machine
def summary(df: pd.DataFrame) -> pd.DataFrame:
    """One row per measure: median, interquartile range, measured runs and forks (JVMs or processes)."""
    m = rows(df)
    out = []
    for variant in [*VARIANTS, AA_VARIANT]:
        v = m.loc[m["variant"] == variant, "value"].astype(float) if len(m) else pd.Series(dtype=float)
        if v.empty:
            continue
        sub = m[m["variant"] == variant]
        out.append({"measure": LABEL[variant], "placement": sub["placement"].fillna("").astype(str).iloc[0]
                    if "placement" in sub else "", "median": _ns(v.median()),
                    "interquartile": f"{_ns(v.quantile(0.25))} - {_ns(v.quantile(0.75))}",
                    "runs": len(v), "forks": sub["fork"].nunique()})
    return pd.DataFrame(out, columns=["measure", "placement", "median", "interquartile", "runs", "forks"])


def aa_forks(df: pd.DataFrame) -> pd.DataFrame:
    """The A/A: each fresh JVM's median round trip in fork order, and its level (0 = fastest)."""
    from ...machine.calibration import levels

    m = rows(df)
    aa = m[m["variant"] == AA_VARIANT] if len(m) else m
    per = aa.groupby("fork", sort=True)["value"].median().astype(float) if len(aa) else pd.Series(dtype=float)
    return pd.DataFrame({"fork": per.index, "round_trip_ns": per.values, "level": levels(list(per.values))})


def regimes(df: pd.DataFrame) -> dict:
    """Levels, slowest over fastest, and the share of consecutive forks that switch level."""
    n, ratio, switches = regime_summary(list(aa_forks(df)["round_trip_ns"]))
    return {"levels": n, "ratio": ratio, "switches": switches}
