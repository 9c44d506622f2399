"""Tables: the posts' numbers, this machine's beside them, every cell's spread under both protocols.

Every function of this file that reads results is split per machine (analysis.by_machine)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from ...judge.analysis import fmt_ns, fmt_rate, fmt_ratio
from .rows import ORDERS, cpus_online, per_fork_table, rows


def reference_table(ref: pd.DataFrame) -> pd.DataFrame:
    """Every number the posts give in their text, and the figures they give none for (images)."""
    out = ref[["post", "table", "cpu", "language", "threads", "metric", "value", "unit", "note"]].copy()
    out["value"] = [analysis.fmt_value(v, u) if pd.notna(v) else "none given" for v, u in zip(ref["value"], ref["unit"])]
    out["post"] = out["post"].str.slice(0, 10)
    return out.drop(columns="unit").fillna("")


@analysis.by_machine
def summary(df: pd.DataFrame) -> pd.DataFrame:
    """ns per increment per cell, one number per fork: the lab's (median of measured runs) with its forks' range,
    and the post protocol's (one run per process, timed as the listing) where the sweep ran it."""
    pf = per_fork_table(df)
    if pf.empty:
        return pd.DataFrame()
    keys = ["primitive", "variant", "runtime", "threads"]
    g = pf.groupby(keys + ["protocol"], sort=False)["value"]
    s = pd.DataFrame({"median": g.median(), "min": g.min(), "max": g.max(), "forks": g.count()}).unstack("protocol")
    out = pd.DataFrame(index=s.index)
    for p, name in (("lab", "lab"), ("post", "post")):
        if ("median", p) not in s:
            continue
        out[f"{name}: median"] = s[("median", p)].map(fmt_ns)
        out[f"{name}: forks' range"] = [f"{fmt_ns(a)}..{fmt_ns(b)}" if pd.notna(a) else "" for a, b in
                                        zip(s[("min", p)], s[("max", p)])]
        out[f"{name}: forks"] = s[("forks", p)].fillna(0).astype(int)
    out = analysis.sort_by(out.reset_index(), ORDERS)
    return out.reset_index(drop=True)


@analysis.by_machine
def wide_table(df: pd.DataFrame, protocol: str = "lab") -> pd.DataFrame:
    """threads x (variant, runtime): the median over forks of ns per increment, like the post's figures; each row
    says whether its threads all run at once here or are time-sliced."""
    pf = per_fork_table(df)
    pf = pf[pf["protocol"] == protocol] if len(pf) else pf
    if pf.empty:
        return pd.DataFrame({"note": [f"no {protocol} cells in these results"]})
    pf = pf.assign(cell=pf["variant"] + " (" + pf["runtime"] + ")")
    t = pf.pivot_table(index="threads", columns="cell", values="value", aggfunc="median", sort=False)
    t = t[list(dict.fromkeys(analysis.sort_by(pf, ORDERS)["cell"]))].map(fmt_ns)
    cpus = cpus_online(rows(df)) or 0
    t.insert(0, "threads run", ["alone" if n == 1 else "at once" if n <= cpus else f"time-sliced on {cpus} CPUs"
                                for n in t.index])
    return t.reset_index().rename_axis(columns=None)


@analysis.by_machine
def comparison(df: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """XADD increments per second with every CPU incrementing, beside the levels the post names for 3+ threads."""
    m = rows(df, "throughput")
    m = m[(m["protocol"] == "lab") & m["variant"].isin(["xadd", "atomic-increment"])]
    r = ref[(ref["metric"] == "throughput") & (ref["variant"] == "xadd")]
    out = [{"where": f"post: {c}", "threads": t, "XADD ops/s": fmt_rate(v)} for c, t, v in
           zip(r["cpu"], r["threads"], r["value"])]
    cpus = cpus_online(m)
    for (variant, runtime), g in m.groupby(["variant", "runtime"], sort=False):
        for t in sorted(g["threads"].unique()):
            if cpus and (t == cpus or t == g["threads"].max()):
                fork_medians = analysis.per_fork(g[g["threads"] == t], analysis.LAB)["value"]
                out.append({"where": f"here: {variant} ({runtime})", "threads": str(t) + (
                    "" if t <= cpus else f" (time-sliced on {cpus} CPUs)"), "XADD ops/s": fmt_rate(np.median(
                        fork_medians))})
    return pd.DataFrame(out)


@analysis.by_machine
def ratios(df: pd.DataFrame) -> pd.DataFrame:
    """CAS over XADD (the post's comparison) and AtomicLong over LongAdder, per runtime and thread count: ratios of
    the medians over forks (lab's harness)."""
    pf = per_fork_table(df)
    pf = pf[pf["protocol"] == "lab"] if len(pf) else pf
    if pf.empty:
        return pd.DataFrame()
    med = pf.groupby(["variant", "runtime", "threads"])["value"].median()
    out = []
    for runtime in analysis.ordered(pf["runtime"], ORDERS["runtime"]):
        cas, xadd = ("cas", "xadd") if runtime.startswith("C") else ("cas-loop", "atomic-increment")
        for t in sorted(pf["threads"].unique()):
            get = lambda v: med.get((v, runtime, t), np.nan)
            row = {"runtime": runtime, "threads": t, "CAS / XADD": fmt_ratio(get(cas) / get(xadd))}
            row["ADD / XADD" if runtime.startswith("C") else "AtomicLong / LongAdder"] = fmt_ratio(
                get("add") / get("xadd") if runtime.startswith("C") else get("atomic-increment") / get("long-adder"))
            out.append(row)
    return pd.DataFrame(out)
