"""The batching verdicts: every claim judged on the measured forks that pass the floor gate, per machine, with
intervals. A fork whose sends left late by more than GATE of the device time measured the harness, not the device:
it cannot decide; when no fork of a claim's cells passes, the claim is not measurable on this machine."""

from __future__ import annotations

import numpy as np
import pandas as pd
from ...judge import analysis
from ...judge.verdicts import Verdict, estimate, judge, unmeasurable
from .claims import CLAIM, CLAIMS
from .rows import GATE, LAB, LAB_ALL_BURSTS, POST, gated, rows
from .sweep import BURST, DEVICE_US, HIGH, LOW

DEVICE_NS = DEVICE_US * 1e3
LATENCY_CLAIMS = {"batching.mean-latency": "latency_mean", "batching.worst-latency": "latency_worst"}
LOAD_CLAIMS = {"batching.flat-until-saturation": "batching", "batching.serial-j-curve": "serial"}


def _fmt(metric: str, v: float) -> str:
    return f"{v:.2f} packets" if metric == "packets_per_burst" else analysis.fmt_ns(v)


def _gate(claim, protocol, scope, cells) -> tuple[list[np.ndarray], Verdict | None, str]:
    """The gated values of each cell; a verdict when no fork passes; the note on refused forks."""
    values, lates = zip(*cells)
    late = np.concatenate(lates) if lates else np.array([])
    refused = sum(len(x) for x in lates) - sum(len(v) for v in values)
    if len(late) and not all(len(v) for v in values):
        return list(values), unmeasurable(
            claim, f"scheduler floor {analysis.fmt_ns(np.median(late))} vs {DEVICE_US} µs device: the forks' sends "
            f"left later than {GATE:.0%} of the device time (median lateness), so they measure the harness, "
            "not the device", scope=scope, protocol=protocol), ""
    note = (f"{refused} of {len(late)} forks refused: their sends' median lateness exceeded {GATE:.0%} of the "
            "device time") if refused else ""
    return list(values), None, note


def _table_verdict(df, claim, metric, protocol, reduce=None) -> Verdict:
    scope = {"burst": BURST, "device": "spin"}
    (s, b), refused, note = _gate(claim, protocol, scope, [
        gated(df, protocol, metric, mode, DEVICE_NS, BURST, reduce=reduce) for mode in ("serial", "batching")])
    if refused:
        return refused
    est = estimate(lambda a, c: a / c, s, b)
    detail = "" if est is None else (f"serial {_fmt(metric, np.median(s))}, batching {_fmt(metric, np.median(b))} "
                                     "(medians over forks)")
    return judge(claim, est, scope=scope, protocol=protocol, detail=detail, why=note,
                 missing=f"no bursts of {BURST} in these results")


def _load_verdict(df, claim, mode) -> Verdict:
    scope = {"burst": BURST, "variant": mode}
    (hi, lo), refused, note = _gate(claim, LAB, scope, [
        gated(df, LAB, "latency_mean", mode, DEVICE_NS, BURST, "load", x) for x in (HIGH, LOW)])
    if refused:
        return refused
    est = estimate(lambda a, c: a / c, hi, lo)
    detail = "" if est is None else (f"load {HIGH:g}: {analysis.fmt_ns(np.median(hi))}, load {LOW:g}: "
                                     f"{analysis.fmt_ns(np.median(lo))} (medians over forks)")
    return judge(claim, est, scope=scope, protocol=LAB, detail=detail, why=note,
                 missing=f"no load sweep at {LOW:g} and {HIGH:g} in these results (the smoke preset runs one load)")


@analysis.by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """The worked example's latency claims under the post's protocol and the lab's; packets per burst over every
    measured burst of a fork (the lab's runs: one burst per fork is one sample of a count, not a measurement); the
    load claims with the lab's (the post describes the load profile in words only)."""
    if rows(df).empty:
        return [unmeasurable(c, "no measured results") for c in CLAIMS]
    out = [_table_verdict(df, CLAIM[cid], metric, proto) for cid, metric in LATENCY_CLAIMS.items()
           for proto in (POST, LAB)]
    out.append(_table_verdict(df, CLAIM["batching.fewer-packets"], "packets_per_burst", LAB, LAB_ALL_BURSTS))
    out += [_load_verdict(df, CLAIM[cid], mode) for cid, mode in LOAD_CLAIMS.items()]
    return out
