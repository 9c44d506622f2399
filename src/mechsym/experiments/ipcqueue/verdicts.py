"""The ipcqueue verdicts: every claim judged on the measured forks, per machine, with intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
from ...judge import analysis
from ...judge.analysis import fmt_rate
from ...judge.verdicts import Verdict, estimate, judge, unmeasurable
from .claims import CLAIMS, PINNED
from .rows import PROTOCOLS, forks, rows


# claim -> (numerator cell, denominator cell or None)
CELLS = {
    "ipcqueue.ipc-135m-same-core": (("processes", "smt"), None),
    "ipcqueue.ipc-98m-cross-core": (("processes", PINNED), None),
    "ipcqueue.ipc-reaches-in-heap": (("processes", "smt"), ("in-heap", "smt")),   # the post's scope
    "ipcqueue.ipc-slower-than-in-process": (("processes", PINNED), ("threads", PINNED)),
    "ipcqueue.offheap-faster-than-in-heap": (("threads", PINNED), ("in-heap", PINNED)),
    "ipcqueue.unaligned-slower": (("processes-unaligned", PINNED), ("processes", PINNED)),
    "ipcqueue.yield-helps-cross-core": (("processes-yield", PINNED), ("processes", PINNED)),
    "ipcqueue.spin-helps-same-core": (("processes", "smt"), ("processes-yield", "smt")),
}


def _fmt(vals: np.ndarray) -> str:
    return f"median {fmt_rate(np.median(vals))} ({len(vals)} forks)"


def _verdict(df, claim, protocol) -> Verdict:
    num, den = CELLS[claim.id]
    scope = {"placement": num[1]} if den is None else {"placement": num[1], "against": den[0]}
    reasons = analysis.unavailable_reasons(df, "placement")
    if num[1] in reasons:
        return unmeasurable(claim, f"needs {num[1]}: {reasons[num[1]]}", scope=scope, protocol=protocol)
    a = forks(df, protocol, variant=num[0], placement=num[1])
    if den is None:
        est = estimate(lambda x: x, a)
        return judge(claim, est, scope=scope, protocol=protocol, detail="" if est is None else _fmt(a),
                     missing=f"no {num[0]} {num[1]} results")
    b = forks(df, protocol, variant=den[0], placement=den[1])
    est = estimate(lambda x, y: x / y, a, b)
    detail = "" if est is None else f"{num[0]} {_fmt(a)} / {den[0]} {_fmt(b)}"
    return judge(claim, est, scope=scope, protocol=protocol, detail=detail,
                 missing=f"{num[0]} or {den[0]} {num[1]} cell missing from these results")


@analysis.by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """Every claim under the post's protocol (best run per JVM) and the lab's (median of measured runs)."""
    if rows(df).empty:
        return [unmeasurable(c, "no measured results") for c in CLAIMS]
    return [_verdict(df, c, protocol) for c in CLAIMS for protocol in PROTOCOLS]
