"""The callerchoose verdicts: every claim judged on the measured forks, per machine, with intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
from ...judge import analysis
from ...judge.verdicts import Verdict, estimate, judge, unmeasurable
from .claims import CLAIMS
from .rows import PROTOCOLS, collectors, forks, rows


# claim -> (metric, size)
MEASURE = {"callerchoose.reuse-faster": ("ns_per_op", "small"),
           "callerchoose.reuse-allocates-less": ("alloc_bytes_per_op", "small"),
           "callerchoose.large-arrays-worse": ("ns_per_op", "large")}


def _fmt(metric: str, v: float) -> str:
    return f"{v:,.0f} bytes" if metric == "alloc_bytes_per_op" else analysis.fmt_ns(v)


def _verdict(df, claim, jdk, collector, protocol) -> Verdict:
    metric, size = MEASURE[claim.id]
    s = forks(df, protocol, metric, "split", size, collector, jdk)
    r = forks(df, protocol, metric, "list", size, collector, jdk)
    est = estimate(lambda a, b: a / b if b else np.inf, s, r)
    detail = "" if est is None else (f"String.split {_fmt(metric, np.median(s))}, reused ArrayList "
                                     f"{_fmt(metric, np.median(r))} (medians over forks)")
    return judge(claim, est, scope={"jdk": jdk, "collector": collector, "input": size}, protocol=protocol,
                 detail=detail, missing=f"no {size} cells for {collector} in these results")


@analysis.by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """Every claim per JDK and collector, under the post's protocol and the lab's."""
    if rows(df).empty:
        return [unmeasurable(c, "no measured results") for c in CLAIMS]
    return [_verdict(df, c, j, g, p) for c in CLAIMS for j in analysis.jdks(rows(df)) for g in collectors(df)
            for p in PROTOCOLS]
