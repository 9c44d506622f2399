"""The singlewriter verdicts: every claim judged on the measured forks, per machine, with intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
from ...judge import analysis
from ...store import runs as store
from ...judge.verdicts import Verdict, estimate, judge, least, unmeasurable
from .claims import CLAIM, CLAIMS, KEYS, STEPS
from .meta import NAME
from .rows import LAB, PROTOCOLS, forks, rows, runtimes, table_forks


def _values(vals: np.ndarray) -> str:
    return ", ".join(analysis.fmt_ns(v) for v in np.sort(vals))


def _table_verdicts(df, jdk, protocol) -> list[Verdict]:
    f = table_forks(df, protocol, jdk)
    groups = [f[k] for k in KEYS]
    med = {k: analysis.fmt_ns(np.median(v)) if len(v) else "—" for k, v in f.items()}
    detail = "; ".join(f"{k} {med[k]}" for k in KEYS)
    two = analysis.unavailable_reasons(df, "placement").get("cross-core")
    missing = (f"the two-thread rows need two cores: {two}" if two else
               "no cells of the post's table for this runtime and protocol")

    def one(claim, fn, *keys, steps=()):
        gs = [f[k] for k in keys] if keys else groups
        if steps:   # the least of several ratios: decided step by step (intersection-union), see verdicts.least
            est = least(*[(fn, f[a], f[b]) for a, b in steps]) if all(len(g) for g in gs) else None
        else:
            est = estimate(fn, *gs)
        text = detail if not keys else "; ".join(f"{k} {med[k]} (forks: {_values(f[k])})" for k in keys)
        two = not keys or any(k.endswith("-2") for k in keys)
        scope = {"jdk": jdk} | ({"placement": "two threads on two cores"} if two else {})
        return judge(claim, est, scope=scope, protocol=protocol, detail="" if est is None else text,
                     missing=missing if two else "no one-thread cells of the table for this runtime and protocol")

    return [
        one(CLAIM["singlewriter.table-order"], _div, steps=STEPS),
        one(CLAIM["singlewriter.lock-contention-orders"], lambda a, b: a / b, "lock-2", "barrier"),
        one(CLAIM["singlewriter.contention-not-instruction"], _div, "cas", "cas-2", "lock", "lock-2",
            steps=[("cas-2", "cas"), ("lock-2", "lock")]),
        one(CLAIM["singlewriter.barrier-significant"], lambda a, b: a / b, "barrier", "one-thread"),
    ]


def _cycles_verdict(df, jdk, protocol) -> Verdict:
    """Cycles per increment a thread makes with two threads CAS-ing: each fork's ns per increment x 2 x the clock
    recorded in the metadata of the run the fork belongs to."""
    claim = CLAIM["singlewriter.contended-cas-cycles"]
    scope = {"jdk": jdk, "placement": "two threads on two cores"}
    m = analysis.where(rows(df), protocol=protocol.name, jdk=jdk, variant="cas", threads=2, scale="1x")
    pf = analysis.per_fork(m, protocol, by=["run_id"])
    if pf.empty:
        two = analysis.unavailable_reasons(df, "placement").get("cross-core")
        return unmeasurable(claim, f"the two-thread rows need two cores: {two}" if two else
                            "no two-thread CAS cells for this runtime and protocol", scope=scope, protocol=protocol)
    clocks = store.run_clocks(NAME, df)
    mhz = pf["run_id"].astype(str).map(clocks)
    cyc = (pf["value"] * 2 * mhz / 1000).dropna().to_numpy(dtype=float)
    if not len(cyc):
        runs = ", ".join(sorted(pf["run_id"].astype(str).unique()))
        return unmeasurable(claim, f"the CPU clock of run {runs} is not in its stored metadata; cycles are never "
                            "counted at another host's clock, nor at this host's", scope=scope, protocol=protocol)
    clock = ", ".join(f"{x:,.0f}" for x in sorted(set(mhz.dropna())))
    return judge(claim, estimate(lambda c: c, cyc), scope=scope, protocol=protocol,
                 detail=f"ns per increment x 2 threads at {clock} MHz (the run's recorded clock); forks: "
                        + ", ".join(f"{c:.0f}" for c in np.sort(cyc)))


def _div(a: float, b: float) -> float:
    return a / b


def _release_verdict(df, jdk) -> Verdict:
    claim = CLAIM["singlewriter.release-store-cheap"]
    vol, rel = forks(df, LAB, jdk, "barrier"), forks(df, LAB, jdk, "release")
    est = estimate(lambda a, b: a / b, vol, rel)
    detail = "" if est is None else f"volatile store forks: {_values(vol)}; release store forks: {_values(rel)}"
    return judge(claim, est, scope={"jdk": jdk}, protocol=LAB, detail=detail,
                 missing="no barrier or release cells for this runtime")


@analysis.by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """Every claim per runtime (each JDK, then C), the table's claims under the post's protocol and the lab's."""
    if rows(df).empty:
        return [unmeasurable(c, "no measured results") for c in CLAIMS]
    out: list[Verdict] = []
    for jdk in runtimes(df):
        for protocol in PROTOCOLS:
            out += _table_verdicts(df, jdk, protocol)
            out.append(_cycles_verdict(df, jdk, protocol))
        out.append(_release_verdict(df, jdk))
    order = {c.id: i for i, c in enumerate(CLAIMS)}
    return sorted(out, key=lambda v: order[v.claim.id])
