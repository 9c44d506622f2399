"""The bidding verdicts: every claim judged on the measured forks, per machine, with intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
from ...judge import analysis
from ...judge.verdicts import Verdict, estimate, judge, least, unmeasurable
from .claims import CAS, CLAIM, CLAIMS, MUTEX, RW
from .rows import PROTOCOLS, core_count, forks, judged_items, rows
from .sweep import CAPACITIES, CONTAINERS, LOCK_FREE


def _values(vals: np.ndarray, unit: str) -> str:
    return ", ".join(analysis.fmt_value(v, unit) for v in np.sort(vals))


def _ratio(a: float, b: float) -> float:
    return a / b


def _jitter_pct(df, protocol, **cell) -> np.ndarray:
    return forks(df, protocol, "jitter", **cell) * 100


def _startup_ratios(df: pd.DataFrame, **cell) -> np.ndarray:
    """Per fork of the lab's cell: the first simulation's jitter (a warm-up) over the median measured jitter."""
    m = analysis.where(rows(df, "jitter", warmup=True), protocol="lab", map_capacity=16, gc="isolated", **cell)
    out = []
    for _, f in m.groupby(["run_id", "fork"], sort=False):
        f = f.sort_values("iteration")
        later = f.loc[~f["warmup"].astype(bool), "value"]
        if len(f) > 1 and len(later) and later.median() > 0:
            out.append(float(f["value"].iloc[0]) / float(later.median()))
    return np.array(out)


def _verdicts(df: pd.DataFrame, jdk: str, protocol, n: int, items: int) -> list[Verdict]:
    scope = {"jdk": jdk, "clients": n, "items": items}
    thr = {c: forks(df, protocol, variant=c, clients=n, items=items, jdk=jdk) for c in CONTAINERS}
    jit = {c: _jitter_pct(df, protocol, variant=c, clients=n, items=items, jdk=jdk) for c in CONTAINERS}
    rate = lambda v: analysis.fmt_rate(v, "bids/s")
    med = "; ".join(f"{c} {rate(np.median(v))}" for c, v in thr.items() if len(v))

    def one(claim, fn, groups, detail="", sc=scope, missing="cells missing from these results"):
        est = estimate(fn, *groups) if callable(fn) else fn   # fn: a statistic, or an Estimate made already
        return judge(claim, est, scope=sc, protocol=protocol, detail="" if est is None else detail, missing=missing)

    out = [
        one(CLAIM["bidding.lock-free-fastest"], least((_ratio, thr[CAS], thr[RW]), (_ratio, thr[CAS], thr[MUTEX])),
            [], med),
        one(CLAIM["bidding.priority-queue-slowest"], least((_ratio, thr[RW], thr[MUTEX]), (_ratio, thr[CAS], thr[MUTEX])),
            [], med),
        one(CLAIM["bidding.list-and-queue-similar"], lambda c, r: c / r, [thr[CAS], thr[RW]], med),
    ]
    clients = sorted(set(analysis.where(rows(df), jdk=jdk, protocol=protocol.name, items=items,
                                        map_capacity=16, gc="isolated")["clients"]))
    for c in CONTAINERS:
        groups = [forks(df, protocol, variant=c, clients=k, items=items, jdk=jdk) for k in clients]
        at = dict(zip(clients, groups))
        est = least(*[(lambda a, b: a / b, at[n], at[k]) for k in clients if k != n]) \
            if len(clients) > 1 and n in at else None
        meds = "; ".join(f"{k} clients {rate(np.median(g))}" for k, g in zip(clients, groups) if len(g))
        out.append(judge(CLAIM["bidding.peak-at-cores"], est, scope={"jdk": jdk, "variant": c, "cores": n,
                                                                      "items": items},
                         protocol=protocol, detail="" if est is None else meds,
                         missing="needs two or more clients counts at the judged item count"))
    for c in CONTAINERS:
        groups = [forks(df, protocol, variant=c, clients=k, items=items, jdk=jdk) for k in clients]
        most = max(clients) if clients else None
        ok = most is not None and most > n and n in clients
        at_n = groups[clients.index(n)] if ok else np.array([])
        at_most = groups[clients.index(most)] if ok else np.array([])
        out.append(one(CLAIM["bidding.drops-past-peak-clients"], lambda a, b: a / b, [at_most, at_n],
                       f"{most} clients {rate(np.median(at_most))}; {n} clients {rate(np.median(at_n))}"
                       if ok and len(at_most) and len(at_n) else "",
                       sc={"jdk": jdk, "variant": c, "items": items},
                       missing="needs a clients count past the cores at the judged item count"))
        swept = sorted(set(analysis.where(rows(df), jdk=jdk, protocol=protocol.name, variant=c, clients=n)["items"]))
        top = swept[-1] if swept and swept[-1] > items else None
        at_top = forks(df, protocol, variant=c, clients=n, items=top, jdk=jdk) if top else np.array([])
        out.append(one(CLAIM["bidding.plateau-past-peak-items"], lambda a, b: a / b, [at_top, thr[c]],
                       f"{top} items {rate(np.median(at_top))}; {items} items {rate(np.median(thr[c]))}"
                       if top and len(at_top) and len(thr[c]) else "",
                       sc={"jdk": jdk, "variant": c, "clients": n},
                       missing=f"no item count past {items} under the {protocol.name} protocol (the lab's cells run "
                               f"{items} items only: not run)"))
        one_item = forks(df, protocol, variant=c, clients=n, items=1, jdk=jdk)
        out.append(one(CLAIM["bidding.throughput-rises-with-items"], lambda a, b: a / b, [thr[c], one_item],
                       f"{items} items {rate(np.median(thr[c])) if len(thr[c]) else '—'}; 1 item "
                       f"{rate(np.median(one_item)) if len(one_item) else '—'}",
                       sc={"jdk": jdk, "variant": c, "clients": n},
                       missing="no one-item cells for this JDK and protocol"))
        out.append(one(CLAIM["bidding.jitter-within-6pct"], lambda a: a, [jit[c]],
                       "forks: " + _values(jit[c], "%") if len(jit[c]) else "",
                       sc=scope | {"variant": c}))
    out.append(one(CLAIM["bidding.lock-free-most-jitter"],
                   least((_ratio, jit[CAS], jit[RW]), (_ratio, jit[RW], jit[MUTEX])), [],
                   "; ".join(f"{c} {analysis.fmt_pct(np.median(v))}" for c, v in jit.items() if len(v))))
    if protocol.name == "lab":
        for c in CONTAINERS:
            ratios = _startup_ratios(df, variant=c, clients=n, items=items, jdk=jdk)
            out.append(one(CLAIM["bidding.jitter-higher-at-startup"], lambda a: a, [ratios],
                           "per fork: " + _values(ratios, "x") if len(ratios) else "", sc=scope | {"variant": c},
                           missing="no warm-up simulations kept for this cell"))
    cap = {k: forks(df, protocol, variant=LOCK_FREE, clients=n, items=items, jdk=jdk, capacity=k) for k in CAPACITIES}
    capj = {k: _jitter_pct(df, protocol, variant=LOCK_FREE, clients=n, items=items, jdk=jdk, capacity=k)
            for k in CAPACITIES}
    sc = scope | {"variant": LOCK_FREE}
    c16, c1k, c1m = cap.values()
    j16, j1k, j1m = capj.values()
    out.append(one(CLAIM["bidding.capacity-1k-faster"], least((_ratio, c1k, c16), (_ratio, c1m, c16)), [],
                   "; ".join(f"capacity {k:,} {rate(np.median(v))}" for k, v in cap.items() if len(v)), sc,
                   "no keeper-capacity cells for this JDK and protocol"))
    out.append(one(CLAIM["bidding.capacity-less-jitter"], least((_ratio, j16, j1k), (_ratio, j16, j1m)), [],
                   "; ".join(f"capacity {k:,} {analysis.fmt_pct(np.median(v))}" for k, v in capj.items() if len(v)),
                   sc, "no keeper-capacity cells for this JDK and protocol"))
    return out


@analysis.by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """Every claim per JDK, under the post's protocol (its item sweep) and the lab's, at clients = this machine's
    cores and the judged item count."""
    m = rows(df)
    if m.empty:
        return [unmeasurable(c, "no measured results") for c in CLAIMS]
    n, items = core_count(df), judged_items(df)
    out: list[Verdict] = []
    for jdk in analysis.jdks(m):
        for protocol in PROTOCOLS:
            out += _verdicts(df, jdk, protocol, n, items)
    order = {c.id: i for i, c in enumerate(CLAIMS)}
    return sorted(out, key=lambda v: order[v.claim.id])
