"""Tables: the post's numbers, this machine's events/s per channel and placement, the forks under both protocols.

Every function of this file that reads results is split per machine (analysis.by_machine)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from ...judge.analysis import fmt_rate, fmt_ratio
from ...judge.verdicts import estimate
from .meta import PLACEMENTS
from .rows import ORDERS, per_fork_table
from .sweep import CHANNELS


def reference_table(ref: pd.DataFrame) -> pd.DataFrame:
    """The post's numbers, as it gives them (prose only)."""
    r = ref[ref["metric"].notna()]
    return pd.DataFrame({"what": r["variant"].fillna(""), "metric": r["metric"],
                         "value": [analysis.fmt_value(v, u) for v, u in zip(r["value"], r["unit"])],
                         "the post's words": r["note"]})


@analysis.by_machine
def throughput_table(df: pd.DataFrame) -> pd.DataFrame:
    """channel x (placement, runtime): the median over forks of each fork's median events/s (lab's harness), and
    each channel over ArrayBlockingQueue in the same column."""
    pf = per_fork_table(df)
    pf = pf[pf["protocol"] == "lab"] if len(pf) else pf
    if pf.empty:
        return pd.DataFrame()
    t = pf.groupby(["variant", "placement", "runtime"])["value"].median().unstack(["placement", "runtime"])
    t = t.reindex(analysis.ordered(t.index, list(CHANNELS)))
    t = t[sorted(t.columns, key=lambda c: (PLACEMENTS.index(c[0]), c[1]))]
    out = pd.DataFrame(index=t.index)
    for col in t.columns:
        name = f"{col[0]}, {col[1]}"
        out[name] = t[col].map(fmt_rate)
        if "abq" in t.index:
            out[f"{name}: x ABQ"] = (t[col] / t.loc["abq", col]).map(fmt_ratio)
    for p, why in analysis.unavailable_reasons(df, "placement").items():
        out[p] = f"not on this machine: {why}"
    out.index.name = "channel"
    return out.reset_index().assign(what=lambda d: d["channel"].map(CHANNELS))


@analysis.by_machine
def forks_table(df: pd.DataFrame, variants: list[str] | None = None) -> pd.DataFrame:
    """Each cell's forks under the post's protocol (best pass of three, cold) and the lab's (median of measured
    runs): the median with its 95% interval over forks, and every fork's number, sorted."""
    pf = per_fork_table(df)
    if variants and len(pf):
        pf = pf[pf["variant"].isin(variants)]
    if pf.empty:
        return pd.DataFrame()
    out = []
    for key, g in pf.groupby(["variant", "runtime", "placement", "protocol"], sort=False):
        vals = g["value"].to_numpy(dtype=float)
        est = estimate(lambda a: a, vals)
        out.append(dict(zip(["channel", "runtime", "placement", "protocol"], key),
                        **{"events/s: median [95% interval], forks": est.text("ops/s") if est else "",
                           "every fork, sorted": ", ".join(fmt_rate(v) for v in np.sort(vals))}))
    t = pd.DataFrame(out).rename(columns={"channel": "variant"})
    return analysis.sort_by(t, ORDERS).rename(columns={"variant": "channel"})


@analysis.by_machine
def comparison(df: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """The post's figures beside this machine's (yielding RingBuffer and ArrayBlockingQueue, both protocols)."""
    out = [{"where": "post: Disruptor 2.0, Sandy Bridge", "protocol": "perf test",
            "RingBuffer (yielding)": f"over {fmt_rate(ref.loc[ref['metric'] == 'events_per_second', 'value'].iloc[0])}",
            "ArrayBlockingQueue": "", "RingBuffer / ABQ": "an order of magnitude"}]
    pf = per_fork_table(df)
    if pf.empty:
        return pd.DataFrame(out)
    med = pf.groupby(["runtime", "placement", "protocol", "variant"])["value"].median()
    for (rt, pl, proto), g in med.groupby(level=[0, 1, 2]):
        g = g.droplevel([0, 1, 2])
        ring, abq = g.get("disruptor-yielding"), g.get("abq")
        out.append({"where": f"this machine: {rt}, {pl}", "protocol": proto, "RingBuffer (yielding)": fmt_rate(ring),
                    "ArrayBlockingQueue": fmt_rate(abq),
                    "RingBuffer / ABQ": fmt_ratio(ring / abq) if ring and abq else ""})
    return pd.DataFrame(out)
