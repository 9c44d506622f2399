"""The post's claims as data, and the verdicts: per fork, with intervals, per JDK, under the post's protocol and the
lab's.

The post ran on 4 cores; this machine's claims are judged at its own core count: "peak at 4 clients" reads "peak
at the number of cores". Every threshold cites the post's sentence and says how its words are read; the post's own
numbers (data/reference) pass their own claims."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import analysis
from ...verdicts import Claim, Rule, Verdict, estimate, judge, least, unmeasurable
from .rows import PROTOCOLS, core_count, forks, judged_items, rows
from .sweep import CAPACITIES, CONTAINERS, LOCK_FREE, POST, REF

NB = "15-bidding"
MUTEX, RW, CAS = list(CONTAINERS)


def _peak(ref: pd.DataFrame) -> pd.Series:
    """The post's peak throughput per container (bids/s)."""
    return ref[ref["metric"] == "bids_per_s"].set_index("variant")["value"]


def _ref(ref: pd.DataFrame, metric: str) -> float:
    return float(ref.loc[ref["metric"] == metric, "value"].iloc[0])


CLAIMS = [
    Claim("bidding.lock-free-fastest", POST, NB,
          "The no-lock container (ConcurrentLinkedQueue, peak by CAS) is the fastest of the three.",
          "Impl3 2.6M+ bids/s against Impl2 2.5M and Impl1 1.7M: 1.04x the next",
          "bids/s per fork at clients = cores, the judged item count, keeper capacity 16; the lock-free container's "
          "median over the better of the other two",
          quote="Implementation 3 is the fastest.",
          rule=Rule(">=", 1.0, reading="'the fastest' read as: at least as many bids/s as either blocking container"),
          statistic="cas-linked-queue / best blocking container, bids/s", unit="x", reference=REF,
          from_post=lambda ref: _peak(ref)[CAS] / max(_peak(ref)[RW], _peak(ref)[MUTEX])),
    Claim("bidding.priority-queue-slowest", POST, NB,
          "The mutex around a priority queue is the slowest container.",
          "Impl1 1.7M bids/s against 2.5M and 2.6M+: the others 1.47x faster",
          "bids/s per fork at clients = cores, the judged item count; the slower of the other two containers' "
          "medians over the priority queue's",
          quote="Implementation 1, the priority queue is the slowest, throughput is 1.7M bids/sec, due largely to the "
                "Log(k) insert cost but also due to the mutex lock which doesn't differentiate b/w reads and writes.",
          rule=Rule(">=", 1.0, reading="'the slowest' read as: each other container at least as fast"),
          statistic="slower of rw-lock-list, cas-linked-queue / mutex-priority-queue, bids/s", unit="x",
          reference=REF, from_post=lambda ref: min(_peak(ref)[RW], _peak(ref)[CAS]) / _peak(ref)[MUTEX]),
    Claim("bidding.list-and-queue-similar", POST, NB,
          "The read/write-locked list and the lock-free queue perform about the same.",
          "2.6M+ / 2.5M bids/s = 1.04x",
          "bids/s per fork at clients = cores, the judged item count; ratio of the two containers' medians",
          quote="The blocking list and concurrentLinkedQueue implementations - though they use different 'concurrent' "
                "approaches - have similar performance.",
          rule=Rule("between", 0.8, 1.25, reading="'similar performance' read generously as within a quarter either "
                    "way (0.8..1.25)"),
          statistic="cas-linked-queue / rw-lock-list, bids/s", unit="x", reference=REF,
          from_post=lambda ref: _peak(ref)[CAS] / _peak(ref)[RW]),
    Claim("bidding.peak-at-cores", POST, NB,
          "Throughput peaks when there are as many clients as cores (the post: 4 clients on 4 cores); more clients "
          "do not help.",
          "peak at 4 clients on a 4-core machine: 4 / 4 = 1",
          "bids/s per fork for every clients count swept, at the judged item count; the median at clients = cores "
          "over each other clients count's, the least of those ratios (each with its own interval)",
          quote="All simulations peak for 4 Clients (and roughly 45 items) consistent with the fact that the tests "
                "were run on a single CPU 4 core machine.",
          rule=Rule(">=", 0.95, reading="'peak for 4 Clients ... consistent with ... 4 core machine' read as the "
                    "peak at the number of cores (here this machine's logical CPUs, 2 on the lab's VM, not 4): no "
                    "other clients count more than 5% above it. The post gives the peak's position only (4 of 4), "
                    "not the throughput at each count, so its own ratio cannot be computed"),
          statistic="least of bids/s at clients = cores / bids/s at each other clients count", unit="x"),
    Claim("bidding.throughput-rises-with-items", POST, NB,
          "Throughput rises as items are added (clients spread over more items contend less), then plateaus.",
          "the throughput-vs-items plots are images (no numbers); the text: rising to a plateau at ~45 items",
          "bids/s per fork at clients = cores: the judged item count (~45) over one item; ratio of the medians",
          quote="Throughput increases as Items are added to the system and plateaus.",
          rule=Rule(">=", 1.0, reading="'increases as Items are added' read as: more bids/s at ~45 items than at one"),
          statistic="bids/s at the judged item count / at one item", unit="x"),
    Claim("bidding.jitter-within-6pct", POST, NB,
          "While clients <= cores, thread jitter (stdev of the threads' completion times / their mean) stays "
          "within 0-6%.",
          "0-6% with clients <= 4 on 4 cores",
          "jitter per fork at clients = cores (one client has none), the judged item count; the median over forks",
          quote="In these tests, when the number of clients (and hence threads) was less than or equal to 4, the "
                "number of cores, the jitter was generally between 0 adn 6% - meaning, each thread took nearly the "
                "same clock time to complete.",
          rule=Rule("<=", 6, reading="'generally between 0 and 6%' read at the busiest such cell, clients = cores "
                    "(here this machine's, not 4): the median over forks at most 6%"),
          statistic="thread jitter at clients = cores", unit="%", reference=REF,
          from_post=lambda ref: _ref(ref, "jitter_max")),
    Claim("bidding.lock-free-most-jitter", POST, NB,
          "The lock-free container has the highest jitter, then the read/write-locked list, then the priority queue.",
          "an order only (its jitter plots are images): Impl3 > Impl2 > Impl1",
          "jitter per fork at clients = cores, the judged item count; the smaller of the two steps of the order "
          "(cas / rw, rw / mutex), from the medians over forks",
          quote="Comparing the three implementations shows that Impl3 has roughly speaking the highest jitter, "
                "followed by Impl2 and then Impl1.",
          rule=Rule(">=", 1.0, reading="the order holds when each step's ratio is at least 1; 'roughly speaking' "
                    "asks no margin"),
          statistic="min(jitter cas / rw, rw / mutex)", unit="x"),
    Claim("bidding.capacity-1k-faster", POST, NB,
          "Presizing the bid keeper (initial capacity 1k or 1M rather than 16) raises throughput of the lock-free "
          "container.",
          "plots only (images): 'performance increases ... as the initial capacity is increased'; 1k+ optimal",
          "cas-linked-queue bids/s per fork at clients = cores, the judged item count, keeper capacity 16, 1k, 1M; "
          "the slower of 1k and 1M over 16, from the medians",
          quote="The plots show performance increases and jitter decreases as the initial capacity is increased and "
                "intermittent map resizing is reduced.",
          rule=Rule(">=", 1.0, reading="'Init capacity of 1k+ seems optimal' read as: 1k and 1M each at least as "
                    "fast as 16"),
          statistic="min(bids/s at 1k, 1M) / bids/s at 16", unit="x"),
    Claim("bidding.capacity-less-jitter", POST, NB,
          "Presizing the bid keeper lowers the lock-free container's jitter.",
          "plots only (images): 'jitter decreases as the initial capacity is increased'",
          "cas-linked-queue jitter per fork at clients = cores, the judged item count; jitter at capacity 16 over "
          "the higher of 1k and 1M, from the medians",
          quote="The plots show performance increases and jitter decreases as the initial capacity is increased and "
                "intermittent map resizing is reduced.",
          rule=Rule(">=", 1.0, reading="'jitter decreases' read as: 16 at least as jittery as 1k and 1M"),
          statistic="jitter at 16 / max(jitter at 1k, 1M)", unit="x"),
]
CLAIM = {c.id: c for c in CLAIMS}


def _values(vals: np.ndarray, unit: str) -> str:
    return ", ".join(analysis.fmt_value(v, unit) for v in np.sort(vals))


def _ratio(a: float, b: float) -> float:
    return a / b


def _jitter_pct(df, protocol, **cell) -> np.ndarray:
    return forks(df, protocol, "jitter", **cell) * 100


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
