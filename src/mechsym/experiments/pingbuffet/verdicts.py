"""The pingbuffet verdicts: every claim judged on the measured forks, per machine, with intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
from ...judge.analysis import fmt_ns
from ...judge.verdicts import Verdict, estimate, judge, least, unmeasurable
from .claims import CLAIM, CLAIMS, STATS
from .rows import PROTOCOLS, forks, median
from .sweep import PINNED

# The post's "same core (different threads)" is two SMT siblings; on a machine without them, one CPU stands in,
# with the variant that can run there (a busy spin on one CPU waits out the scheduler's time slice).
SAME_CORE = {"pingbuffet.ipc-same-core-faster": [("ipc-spin", "ipc-spin-yield")],
             "pingbuffet.ipc-same-core-worse-tail": [("ipc-spin", "ipc-spin-yield")],
             "pingbuffet.sockets-best-cross-core": [("tcp-spin", "tcp-block"), ("udp-spin", None)]}
STAND_IN = ("no SMT siblings here: one logical CPU for both ends stands in for the post's same core, with the "
            "variant that can share a CPU ({}), so the verdict reads a neighbouring scope")


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
            if cid == "pingbuffet.selectnow-beats-blocking":   # both blocking variants must sit above selectNow
                now, block, sel = vals
                est = least((lambda n, b: b / n, now, block), (lambda n, s: s / n, now, sel))
            else:
                est = estimate(fn, *vals)
            out.append(judge(CLAIM[cid], est, scope=scope, protocol=protocol, detail=_detail(vals, variants),
                             missing=f"cells {', '.join(variants)} ({protocol.name} protocol) missing from these "
                                     "results"))
        mean = forks(df, protocol, "mean", variant="tcp-spin", placement=PINNED)
        p50 = forks(df, protocol, "p50", variant="tcp-spin", placement=PINNED)
        est = estimate(lambda a, b: a / b, mean, p50) if len(mean) == len(p50) else None
        tail = median(df, "p99", protocol.name, variant="tcp-spin", placement=PINNED)
        detail = (f"mean {fmt_ns(np.median(mean))}, p50 {fmt_ns(np.median(p50))}, p99 {fmt_ns(tail)}"
                  if est else "")
        out.append(judge(CLAIM["pingbuffet.average-is-not-latency"], est, scope=scope, protocol=protocol,
                         detail=detail, missing=f"tcp-spin ({protocol.name} protocol) missing from these results"))
        out += [_same_core(df, CLAIM[cid], protocol) for cid in SAME_CORE]
    return out


def _same_core(df: pd.DataFrame, claim, protocol) -> Verdict:
    """Same core against cross-core: on SMT siblings with the busy spin when the results have them, else one CPU
    with the variant that can share it (a stand-in, said so); the lab's protocol only runs the latter."""
    tail = claim.id.endswith("worse-tail")
    stat = "p99" if tail else "p50"
    pairs = SAME_CORE[claim.id]
    members, names, stand_in = [], [], ""
    smt = [(v, forks(df, protocol, stat, variant=v, placement="smt")) for v, _ in pairs]
    if all(len(x) for _, x in smt):
        place = "smt"
        for v, same in smt:
            members.append((v, same, forks(df, protocol, stat, variant=v, placement=PINNED)))
    else:
        place = "same-cpu"
        used = [s for _, s in pairs if s]
        stand_in = STAND_IN.format(", ".join(used))
        for s in used:
            members.append((s, forks(df, protocol, stat, variant=s, placement=place),
                            forks(df, protocol, stat, variant=s, placement=PINNED)))
    members = [(v, a, b) for v, a, b in members if len(a) and len(b)]
    if tail:
        fns = [(lambda same, cross: same / cross, a, b) for _, a, b in members]
    elif claim.id.endswith("faster"):
        fns = [(lambda same, cross: cross / same, a, b) for _, a, b in members]
    else:
        fns = [(lambda same, cross: same / cross, a, b) for _, a, b in members]
    est = (estimate(*fns[0]) if len(fns) == 1 else least(*fns)) if fns else None
    detail = "; ".join(f"{v}: {place} {fmt_ns(np.median(a))}, cross-core {fmt_ns(np.median(b))} ({stat})"
                       for v, a, b in members)
    return judge(claim, est, scope={"placement": f"{place} vs {PINNED}"}, protocol=protocol, detail=detail,
                 stand_in=stand_in if est else "",
                 missing=f"no same-core cells with the {protocol.name} protocol: this machine has no SMT siblings "
                         f"for the post's same core, and the one-CPU stand-in runs under the lab's protocol only")
