"""The batching verdicts: every claim judged on the measured forks, per machine, with intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
from ... import analysis
from ...verdicts import Verdict, estimate, judge, unmeasurable
from .claims import CLAIM, CLAIMS
from .rows import LAB, PROTOCOLS, forks, rows
from .sweep import BURST, HIGH, LOW


TABLE_CLAIMS = {"batching.mean-latency": "latency_mean", "batching.worst-latency": "latency_worst",
                "batching.fewer-packets": "packets_per_burst"}
LOAD_CLAIMS = {"batching.flat-until-saturation": "batching", "batching.serial-j-curve": "serial"}


def _fmt(metric: str, v: float) -> str:
    return f"{v:.2f} packets" if metric == "packets_per_burst" else analysis.fmt_ns(v)


def _table_verdict(df, claim, metric, protocol) -> Verdict:
    s = forks(df, protocol, metric, "serial", BURST)
    b = forks(df, protocol, metric, "batching", BURST)
    est = estimate(lambda a, c: a / c, s, b)
    detail = "" if est is None else (f"serial {_fmt(metric, np.median(s))}, batching {_fmt(metric, np.median(b))} "
                                     "(medians over forks)")
    return judge(claim, est, scope={"burst": BURST, "device": "spin"}, protocol=protocol, detail=detail,
                 missing=f"no bursts of {BURST} in these results")


def _load_verdict(df, claim, mode) -> Verdict:
    hi = forks(df, LAB, "latency_mean", mode, BURST, "load", HIGH)
    lo = forks(df, LAB, "latency_mean", mode, BURST, "load", LOW)
    est = estimate(lambda a, c: a / c, hi, lo)
    detail = "" if est is None else (f"load {HIGH:g}: {analysis.fmt_ns(np.median(hi))}, load {LOW:g}: "
                                     f"{analysis.fmt_ns(np.median(lo))} (medians over forks)")
    return judge(claim, est, scope={"burst": BURST, "variant": mode}, protocol=LAB, detail=detail,
                 missing=f"no load sweep at {LOW:g} and {HIGH:g} in these results (the smoke preset runs one load)")


@analysis.by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """The worked example's claims under the post's protocol and the lab's; the load claims with the lab's (the post
    describes the load profile in words only)."""
    if rows(df).empty:
        return [unmeasurable(c, "no measured results") for c in CLAIMS]
    out = [_table_verdict(df, CLAIM[cid], metric, proto) for cid, metric in TABLE_CLAIMS.items() for proto in PROTOCOLS]
    out += [_load_verdict(df, CLAIM[cid], mode) for cid, mode in LOAD_CLAIMS.items()]
    return out
