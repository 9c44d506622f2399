"""Tables: the post's worked example, this machine's beside it, burst sizes, the harness's own costs, the load
sweep. Every function that reads results is split per machine (analysis.by_machine)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from ...judge.analysis import fmt_ns, median_of
from .rows import GATE, LAB, ORDERS, PROTOCOLS, forks, gated, post_value, rows
from .sweep import BURST, DEVICE_US, HIGH, LOW, MODES

LATENCIES = {"best": "latency_best", "average": "latency_mean", "worst": "latency_worst"}
LABEL = {"serial": "Serial", "batching": "Smart Batching"}


def _packets(v: float) -> str:
    return "" if not np.isfinite(v) else f"{v:.1f}"


def reference_table(ref: pd.DataFrame) -> pd.DataFrame:
    """The post's table: best / average / worst latency (µs) and packets sent, for a burst of 10."""
    out = []
    for mode in MODES:
        row = {"": LABEL[mode]}
        row.update({f"{k} (µs)": f"{post_value(ref, mode, m):,.0f}" for k, m in LATENCIES.items()})
        row["packets sent"] = ("10" if mode == "serial" else
                               f"{post_value(ref, mode, 'packets_min'):.0f}-{post_value(ref, mode, 'packets_max'):.0f}")
        out.append(row)
    return pd.DataFrame(out)


@analysis.by_machine
def comparison(df: pd.DataFrame, ref: pd.DataFrame, protocol: str = "lab") -> pd.DataFrame:
    """The post's table beside this machine's (burst of 10): the median over forks of each fork's figure."""
    proto = next(p for p in PROTOCOLS if p.name == protocol)
    out = []
    for mode in MODES:
        row = {"": LABEL[mode]}
        for k, m in LATENCIES.items():
            row[f"{k}: post"] = f"{post_value(ref, mode, m):,.0f} µs"
            row[f"{k}: now"] = fmt_ns(median_of(forks(df, proto, m, mode, BURST)))
        row["packets: post"] = "10" if mode == "serial" else "1-2"
        row["packets: now"] = _packets(median_of(forks(df, proto, "packets_per_burst", mode, BURST)))
        out.append(row)
    return pd.DataFrame(out)


@analysis.by_machine
def bursts_table(df: pd.DataFrame) -> pd.DataFrame:
    """Bursts of 1, 5 and 10 under both protocols: best, average, worst latency and packets per burst (medians
    over forks)."""
    m = rows(df)
    if m.empty:
        return pd.DataFrame()
    out = []
    for proto in PROTOCOLS:
        for burst in sorted(analysis.where(m, group="table")["burst"].unique()):
            for mode in MODES:
                row = {"protocol": proto.name, "burst": int(burst), "mode": mode}
                for k, metric in LATENCIES.items():
                    row[k] = fmt_ns(median_of(forks(df, proto, metric, mode, burst)))
                row["packets per burst"] = _packets(median_of(forks(df, proto, "packets_per_burst", mode, burst)))
                row["forks"] = len(forks(df, proto, "latency_mean", mode, burst))
                out.append(row)
    return pd.DataFrame(out)


@analysis.by_machine
def harness_table(df: pd.DataFrame) -> pd.DataFrame:
    """What the simulation itself costs here, per cell of bursts of 10: the real duration of one 100 µs device write
    (spinning on the clock, or parked), how late the producer's sends left against their schedule (median and worst
    per fork, medians over forks), and how many forks pass the floor gate (median lateness <= GATE of the device
    time) and so may decide a claim."""
    out = []
    cells = [(proto, "table", "spin", None) for proto in PROTOCOLS] + [(LAB, "device", "park", None)]
    cells += [(LAB, "load", "spin", x) for x in (LOW, HIGH)]
    for proto, group, device, load in cells:
        for mode in MODES:
            dev = forks(df, proto, "device_ns", mode, BURST, group, load, device)
            if not len(dev):
                continue
            _, late = gated(df, proto, "latency_mean", mode, DEVICE_US * 1e3, BURST, group, load, device)
            out.append({"cell": group + (f" {load:g}" if load is not None else ""), "protocol": proto.name,
                        "device wait": device, "mode": mode, "device write": fmt_ns(median_of(dev)),
                        "send late: median": fmt_ns(median_of(late)),
                        "send late: worst": fmt_ns(median_of(forks(df, proto, "wakeup_late_max", mode, BURST, group,
                                                                   load, device))),
                        "forks passing the gate": f"{int(np.sum(late <= GATE * DEVICE_US * 1e3))} of {len(late)}"})
    return pd.DataFrame(out)


def load_points(df: pd.DataFrame, metric: str = "latency_mean") -> pd.DataFrame:
    """Per mode, load and fork: one value (lab protocol) of the load sweep."""
    m = analysis.where(rows(df, metric), group="load", protocol="lab")
    if m.empty:
        return pd.DataFrame(columns=["variant", "load", "fork_key", "value"])
    return analysis.per_fork(m, LAB, by=["variant", "load"])


@analysis.by_machine
def load_table(df: pd.DataFrame) -> pd.DataFrame:
    """The load sweep, bursts of 10 at random times: offered load, messages/s, average and p99 latency, packets per
    burst and how late the producer's sends left against their schedule (medians over forks)."""
    pts = {k: load_points(df, k) for k in ("latency_mean", "latency_p99", "packets_per_burst", "wakeup_late_median")}
    if pts["latency_mean"].empty:
        return pd.DataFrame()
    meds = {k: v.groupby(["variant", "load"])["value"].median() for k, v in pts.items()}
    nforks = pts["latency_mean"].groupby(["variant", "load"])["fork_key"].nunique()
    out = []
    for (mode, load) in analysis.sort_by(meds["latency_mean"].reset_index(), ORDERS)[["variant", "load"]].values:
        key = (mode, load)
        out.append({"mode": mode, "load (x serial capacity)": f"{load:g}",
                    "messages/s": analysis.fmt_rate(load * 1e6 / DEVICE_US, "msg/s"),
                    "average latency": fmt_ns(meds["latency_mean"].get(key)),
                    "p99 latency": fmt_ns(meds["latency_p99"].get(key)),
                    "packets per burst": _packets(meds["packets_per_burst"].get(key, np.nan)),
                    "send late (median)": fmt_ns(meds["wakeup_late_median"].get(key)),
                    "forks": int(nforks.get(key, 0))})
    return pd.DataFrame(out)


@analysis.by_machine
def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Every cell: median average latency over the measured runs, range, runs and forks."""
    m = rows(df)
    if m.empty:
        return pd.DataFrame()
    m["load"] = m["load"].map(lambda v: "" if pd.isna(v) else f"{v:g}")
    keys = ["group", "variant", "protocol", "burst", "device", "load"]
    return analysis.cell_table(m, keys, ORDERS, fmt_ns, spread=False)[0]
