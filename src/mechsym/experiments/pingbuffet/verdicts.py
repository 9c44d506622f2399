"""The pingbuffet verdicts: every claim judged on the measured forks, per machine, with intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
from ...analysis import fmt_ns
from ...verdicts import Verdict, estimate, judge, least, unmeasurable
from .claims import CLAIM, CLAIMS, STATS
from .rows import PROTOCOLS, forks, median
from .sweep import PINNED


def _detail(vals: list[np.ndarray], names: list[str]) -> str:
    return "; ".join(f"{n} {fmt_ns(np.median(v))} ({len(v)} forks)" for n, v in zip(names, vals) if len(v))


def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """Every claim under the post's protocol and the lab's, pinned cross-core; 'not measurable here' with the reason
    when the cells are missing."""
    out = []
    scope = {"placement": PINNED}
    if df is None or df.empty:
        return [unmeasurable(c, "no results for this experiment", scope=scope) for c in CLAIMS]
    for protocol in PROTOCOLS:
        for cid, (fn, variants) in STATS.items():
            vals = [forks(df, protocol, variant=v, placement=PINNED) for v in variants]
            if cid == "pingbuffet.selectnow-beats-blocking":   # min(block, select) / selectNow: member by member
                est = least(*[(lambda b, now: b / now, v, vals[0]) for v in vals[1:]]) if all(map(len, vals)) \
                    else None
            else:
                est = estimate(fn, *vals)
            out.append(judge(CLAIM[cid], est, scope=scope, protocol=protocol, detail=_detail(vals, variants),
                             missing=f"cells {', '.join(variants)} ({protocol.name} protocol) missing from these "
                                     "results"))
        mean = forks(df, protocol, "mean", variant="tcp-spin", placement=PINNED)
        p50 = forks(df, protocol, "p50", variant="tcp-spin", placement=PINNED)
        est = estimate(lambda a, b: a / b, mean, p50) if len(mean) == len(p50) else None
        tail = median(df, "p99.9", protocol.name, variant="tcp-spin", placement=PINNED)
        detail = (f"mean {fmt_ns(np.median(mean))}, p50 {fmt_ns(np.median(p50))}, p99.9 {fmt_ns(tail)}"
                  if est else "")
        out.append(judge(CLAIM["pingbuffet.average-is-not-latency"], est, scope=scope, protocol=protocol,
                         detail=detail, missing=f"tcp-spin ({protocol.name} protocol) missing from these results"))
    return out
