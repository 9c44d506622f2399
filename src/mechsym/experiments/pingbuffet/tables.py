"""Tables: the post's numbers, this machine's beside them, the percentiles, the mean, forks side by side.

Every function of this file that reads results is split per machine (analysis.by_machine)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from ...judge.analysis import fmt_ns, fmt_ratio
from ...judge.verdicts import estimate
from .meta import JUDGED, VARIANTS, supported
from .rows import LAB, ORDERS, POST, STATS, SUMMARY, forks, median, rows
from .sweep import PINNED

HEAD = {"min": "Min", "p50": "50%", "p90": "90%", "p99": "99%", "p99.9": "99.9%", "p99.99": "99.99%", "max": "Max"}


# ---------------------------------------------------------------- the post's numbers

def _wide(r: pd.DataFrame, index: str) -> pd.DataFrame:
    t = r.pivot_table(index=index, columns="metric", values="value", aggfunc="first", sort=False)
    t = t[[f"rtt_{s}" for s in STATS]].rename(columns=lambda c: HEAD[c.removeprefix("rtt_")])
    return t.map(lambda v: f"{v:,.0f}").rename_axis(columns=None)


def reference_table(ref: pd.DataFrame) -> pd.DataFrame:
    """The post's summary, as it printed it (ns, round trip over loopback for the sockets, through shared memory for IPC, pinned), with the timer's row."""
    r = ref[ref["table"].isin([SUMMARY, "A Java Ping Buffet: ErrPingClient"])]
    return _wide(r, "implementation")


def reference_sample(ref: pd.DataFrame) -> pd.DataFrame:
    """The post's TCP busy-spin output, row by row (one row per batch of pings): the first row's tail is the
    JVM warming up."""
    r = ref[ref["table"] == "A Java Ping Buffet: ./tcp-client.sh spin output"]
    return _wide(r.assign(row=r["row"].astype(int)), "row")


# ---------------------------------------------------------------- this machine

@analysis.by_machine
def beside(df: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """Per transport, pinned: the post's median and p99.9 beside this machine's (post protocol, per fork median
    with its 95% interval), and now / then."""
    out = []
    for v in JUDGED:
        then = ref[(ref["variant"] == v) & ref["table"].str.startswith("A Java Ping Buffet: ")
                   & ~ref["table"].str.endswith("output")]
        get = lambda s: float(then.loc[then["metric"] == f"rtt_{s}", "value"].iloc[0]) if len(then) else np.nan
        row = {"variant": v, "post 50%": fmt_ns(get("p50")), "post 99.9%": fmt_ns(get("p99.9"))}
        for protocol in (POST, LAB):
            est = estimate(lambda a: a, forks(df, protocol, "p50", variant=v, placement=PINNED))
            row[f"now 50% ({protocol.name})"] = est.text("ns") if est else ""
            if protocol is LAB:
                row["now / then (50%, lab)"] = fmt_ratio(est.value / get("p50")) if est else ""
        tail = _tail(df, variant=v, placement=PINNED)
        row["now 99.9% (lab)"] = (fmt_ns(median(df, "p99.9", variant=v, placement=PINNED)) if tail == "p99.9"
                                  else f"- (runs too short; {HEAD[tail]}: "
                                       f"{fmt_ns(median(df, tail, variant=v, placement=PINNED))})")
        out.append(row)
    return pd.DataFrame(out).set_index("variant")


@analysis.by_machine
def percentiles(df: pd.DataFrame, protocol: str = "lab") -> pd.DataFrame:
    """The post's columns (and the mean) per variant and placement: the median over measured runs (max: the
    largest seen), in ns; runs and forks counted."""
    m = rows(df, [f"rtt_{s}" for s in ["mean", *STATS]], protocol=protocol)
    if m.empty:
        return pd.DataFrame()
    m = m.assign(stat=m["metric"].str.removeprefix("rtt_"))
    keys = ["variant", "placement"]
    g = m.groupby(keys + ["stat"])["value"]
    t = g.median().unstack("stat")
    t["max"] = g.max().unstack("stat")["max"]
    n = m[m["stat"] == "p50"].groupby(keys)
    t = t[["mean", *STATS]]
    out = t.map(fmt_ns)
    # a percentile with fewer than MIN_BEYOND samples of a run beyond it is one of the run's largest few: blank
    pings = m.groupby(keys)["pings"].min() if "pings" in m else None
    if pings is not None:
        for s in STATS:
            bad = [k for k in out.index if not supported(s, pings.get(k, np.inf))]
            out.loc[bad, s] = "-"
        out["pings a run"] = pings.map(lambda x: f"{x:,.0f}")
    out = out.rename(columns=HEAD)
    out["runs"], out["forks"] = n.size(), n["fork"].nunique()
    return analysis.sort_by(out.reset_index(), ORDERS).set_index(keys)


@analysis.by_machine
def mean_table(df: pd.DataFrame) -> pd.DataFrame:
    """The mean beside the median and the tail, pinned, lab's runs: what an average would report, and what it hides."""
    out = []
    for v in [x for x in VARIANTS if x != "timer"]:
        cell = dict(variant=v, placement=PINNED)
        mean, p50 = (median(df, s, **cell) for s in ("mean", "p50"))
        if mean is None:
            continue
        t = _tail(df, **cell)
        tail = median(df, t, **cell)
        out.append({"variant": v, "mean": fmt_ns(mean), "50%": fmt_ns(p50), "tail": f"{HEAD[t]} {fmt_ns(tail)}",
                    "mean / 50%": fmt_ratio(mean / p50), "tail / mean": fmt_ratio(tail / mean)})
    return pd.DataFrame(out).set_index("variant") if out else pd.DataFrame()


def _tail(df: pd.DataFrame, **cell) -> str:
    """The highest percentile up to p99.9 that the cell's runs support (at least MIN_BEYOND samples beyond it)."""
    m = analysis.where(rows(df, "rtt_p50"), **cell)
    pings = float(m["pings"].min()) if len(m) and "pings" in m else np.inf
    return next(s for s in ("p99.9", "p99", "p90") if supported(s, pings))


@analysis.by_machine
def forks_table(df: pd.DataFrame, stat: str = "p50") -> pd.DataFrame:
    """Each pinned variant's forks under both protocols: every fork's number, sorted, and the median with its 95%
    interval over forks."""
    out = []
    for v in VARIANTS:
        for protocol in (POST, LAB):
            vals = forks(df, protocol, stat, variant=v, placement=PINNED)
            est = estimate(lambda a: a, vals)
            if est:
                out.append({"variant": v, "protocol": protocol.name,
                            f"{HEAD[stat]} median [95% interval], forks": est.text("ns"),
                            "every fork, sorted": ", ".join(fmt_ns(x) for x in np.sort(vals))})
    return pd.DataFrame(out).set_index(["variant", "protocol"]) if out else pd.DataFrame()
