"""The affinity verdicts: every claim judged on the measured forks, per machine, with intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
from ...judge import analysis
from ...judge.verdicts import Verdict, estimate, judge, unmeasurable
from .claims import CLAIM, CLAIMS
from .rows import POST, fork_values, rates


def _ratio(claim, num, den, names, protocol, why):
    est = estimate(lambda a, b: a / b, num, den)
    detail = "" if est is None else "; ".join(f"{n}: {', '.join(analysis.si(v) for v in np.sort(x))}"
                                              for n, x in zip(names, (num, den)))
    return judge(claim, est, scope={"placement": "cross-core vs unpinned"}, protocol=protocol, detail=detail,
                 missing=why)


@analysis.by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """Both claims under the one protocol, one machine at a time."""
    if rates(df).empty:
        gone = analysis.unavailable_reasons(df, "placement") if df is not None and len(df) else {}
        short = len(analysis.measured(df, "total")) > 0
        why = "; ".join(f"{p}: {r}" for p, r in gone.items()) or (
            "no full second in these runs (each shorter than a second, as at the smoke preset)" if short
            else "no measured results")
        return [unmeasurable(c, why) for c in CLAIMS]
    gone = analysis.unavailable_reasons(df, "placement")
    why = "; ".join(f"{p}: {r}" for p, r in gone.items()) or "pinned or unpinned cells missing from these results"
    pin, unp = (fork_values(df, POST, placement=pl) for pl in ("cross-core", "unpinned"))
    out = [_ratio(CLAIM["affinity.pinned-greatest-throughput"], pin, unp, ("pinned", "unpinned"), POST, why)]
    pin, unp = (fork_values(df, POST, "cv", placement=pl) for pl in ("cross-core", "unpinned"))
    out.append(_ratio(CLAIM["affinity.pinned-steadier"], unp, pin, ("unpinned CV", "pinned CV"), POST, why))
    return out
