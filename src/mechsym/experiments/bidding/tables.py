"""Tables: the post's numbers, this machine's beside them, jitter by clients, GC per simulation, keeper capacity,
every cell. Every function of this file that reads results is split per machine (analysis.by_machine)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from ...judge.analysis import fmt_pct, fmt_rate
from ...judge.verdicts import estimate
from .rows import ORDERS, PROTOCOLS, core_count, forks, judged_items, rows
from .sweep import CAPACITIES, CONTAINERS, GC_VARIANTS, LOCK_FREE


def _rate(v) -> str:
    return fmt_rate(v, "bids/s")


def containers_table() -> pd.DataFrame:
    """The three bid containers, named by what they do."""
    return pd.DataFrame({"container": list(CONTAINERS), "what it does": list(CONTAINERS.values())})


def reference_table(ref: pd.DataFrame) -> pd.DataFrame:
    """Every number the post's text gives (its plots are images), with its words."""
    r = ref[ref["metric"] != "figure"]
    return pd.DataFrame({"section": r["table"], "container": r["variant"], "what": r["metric"],
                         "value": [analysis.fmt_value(v, u) if u in ("bids/s", "%") else f"{v:,.0f} {u}"
                                   for v, u in zip(r["value"], r["unit"].fillna(""))],
                         "the post's words": r["note"]}).reset_index(drop=True)


def _median_fork(df, protocol, **cell) -> str:
    """Median over forks [95% interval], forks."""
    vals = forks(df, protocol, **cell)
    est = estimate(lambda a: a, vals)
    return "" if est is None else est.text("bids/s")


@analysis.by_machine
def comparison(df: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """The post's peak bids/s per container beside this machine's at clients = cores and the judged item count, per
    JDK and protocol: median over forks [95% interval]."""
    post = ref[ref["metric"] == "bids_per_s"].set_index("variant")["value"]
    out = pd.DataFrame({"container": list(CONTAINERS),
                        "post (4 clients, ~45 items, 4 cores)": [_rate(post[c]) for c in CONTAINERS]})
    m = rows(df)
    if m.empty:
        return out
    n, items = core_count(df), judged_items(df)
    for jdk in analysis.jdks(m):
        for p in PROTOCOLS:
            out[f"JDK {jdk}, {p.name}: {n} clients, {items} items"] = [
                _median_fork(df, p, variant=c, clients=n, items=items, jdk=jdk) for c in CONTAINERS]
    return out


@analysis.by_machine
def jitter_table(df: pd.DataFrame, protocol: str = "post") -> pd.DataFrame:
    """Thread jitter (stdev / mean of the threads' completion times) by clients, per container and JDK, at the judged
    item count: the median over forks and the forks' range."""
    m = rows(df, "jitter")
    if m.empty:
        return pd.DataFrame()
    proto = next(p for p in PROTOCOLS if p.name == protocol)
    items, out = judged_items(df), []
    for jdk in analysis.jdks(m):
        for c in CONTAINERS:
            row = {"JDK": jdk, "container": c}
            for k in sorted(set(m["clients"])):
                v = forks(df, proto, "jitter", variant=c, clients=k, items=items, jdk=jdk) * 100
                row[f"{k} client{'s' if k > 1 else ''}"] = (f"{fmt_pct(np.median(v))} ({fmt_pct(v.min())}-"
                                                           f"{fmt_pct(v.max())})" if len(v) else "")
            out.append(row)
    return pd.DataFrame(out)


@analysis.by_machine
def capacity_table(df: pd.DataFrame) -> pd.DataFrame:
    """The lock-free container with the bid keeper presized to 16, 1k and 1M (the post's special test 1): bids/s and
    jitter, medians over forks, per JDK and protocol, at clients = cores and the judged item count."""
    m = rows(df)
    if m.empty:
        return pd.DataFrame()
    n, items, out = core_count(df), judged_items(df), []
    for jdk in analysis.jdks(m):
        for p in PROTOCOLS:
            for k in CAPACITIES:
                cell = dict(variant=LOCK_FREE, clients=n, items=items, jdk=jdk, capacity=k)
                thr, jit = forks(df, p, **cell), forks(df, p, "jitter", **cell) * 100
                if len(thr):
                    out.append({"JDK": jdk, "protocol": p.name, "keeper initial capacity": f"{k:,}",
                                "bids/s": _median_fork(df, p, **cell), "jitter (median)": fmt_pct(np.median(jit)),
                                "forks": len(thr)})
    return pd.DataFrame(out)


@analysis.by_machine
def gc_table(df: pd.DataFrame) -> pd.DataFrame:
    """GC work during the timed simulations (GarbageCollectorMXBeans, pausing collectors), the post's GC isolation
    against the JDK's default, per container (lab cells at clients = cores, the judged item count): collections and
    pause per simulation, and bids/s."""
    m = analysis.measured(df, ["gc_events", "gc_pause_ms", "bids_per_s"])
    if m.empty or "gc" not in m:
        return pd.DataFrame()
    m = analysis.where(m, protocol="lab", clients=core_count(df), items=judged_items(df), map_capacity=16)
    out = []
    for (jdk, c, gc), sub in m.groupby(["jdk", "variant", "gc"], sort=False):
        pick = lambda metric: sub.loc[sub["metric"] == metric, "value"].astype(float)
        out.append({"JDK": jdk, "container": c, "gc": gc, "settings": GC_VARIANTS.get(gc, ""),
                    "collections per simulation (mean)": f"{pick('gc_events').mean():.2f}",
                    "pause per simulation (mean)": f"{pick('gc_pause_ms').mean():.1f} ms",
                    "bids/s (median)": _rate(pick("bids_per_s").median()),
                    "simulations": int(len(pick("bids_per_s")))})
    return analysis.sort_by(pd.DataFrame(out), {"container": list(CONTAINERS), "gc": ORDERS["gc"]})


@analysis.by_machine
def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Every cell: median bids/s and jitter over the measured simulations, spread, simulations and forks."""
    m = rows(df)
    if m.empty:
        return pd.DataFrame()
    keys = ["jdk", "protocol", "gc", "variant", "map_capacity", "clients", "items"]
    s = analysis.sort_by(analysis.summary(m, keys), ORDERS)
    j = rows(df, "jitter").groupby(keys)["value"].median()
    nforks = m.groupby(keys)["fork"].nunique()
    out = s[keys].copy()
    out["bids/s (median)"] = s["median"].map(_rate)
    out["IQR / median %"] = s["spread %"].round(1)
    out["jitter (median)"] = [fmt_pct(j.get(tuple(k), np.nan) * 100) for k in s[keys].values]
    out["simulations"] = s["n"]
    out["forks"] = [int(nforks.get(tuple(k), 0)) for k in s[keys].values]
    return out
