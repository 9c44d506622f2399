"""Tables: the post's numbers, this machine's beside them with their spread, forks under both protocols, and where
the counters sat. Every function that reads results is split per machine (analysis.by_machine)."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd

from ...judge import analysis
from ...machine import cpus
from ...judge.analysis import fmt_rate
from ...judge.verdicts import estimate
from .rows import ORDERS, per_fork_table, reference_rates, rows
from .sweep import PLACEMENTS, PLACEMENT_TEXT, VARIANTS

POST_NAMES = {"in-heap": "P1C1QueueOriginal3 (in heap)", "threads": "P1C1OffHeapQueue (in process)",
              "in-heap-primitive": "P1C1QueueOriginalPrimitive (in process)", "processes": "IPC (memory-mapped file)"}
POST_PLACEMENTS = {"smt": "same core", "cross-core": "cross core", "cross-socket": "cross socket"}


def reference_table(ref: pd.DataFrame) -> pd.DataFrame:
    """The post's two tables as one: implementation x affinity, messages/s."""
    r = reference_rates(ref)
    r = r[r["variant"].isin(list(POST_NAMES)) & (r["placement"] != "not stated")]
    t = r.pivot_table(index="variant", columns="placement", values="value", aggfunc="first", sort=False)
    t = t.reindex(index=[v for v in POST_NAMES if v in t.index],
                  columns=[p for p in POST_PLACEMENTS if p in t.columns])
    out = t.apply(lambda col: col.map(fmt_rate))
    out.index = [POST_NAMES[v] for v in out.index]
    out.columns = [POST_PLACEMENTS[p] for p in out.columns]
    return out.rename_axis("implementation").reset_index()


def variants_table() -> pd.DataFrame:
    """What each variant is, and which kernel runs it."""
    return pd.DataFrame([{"variant": v, "kernel": k.rsplit(".", 1)[-1], "what it is": text}
                         for v, (k, _, _, text) in VARIANTS.items()])


@analysis.by_machine
def comparison(df: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """Per variant and placement: the post's figure, and this machine's per-fork numbers under both protocols
    (median with its 95% interval over forks, and the range of the forks)."""
    pf = per_fork_table(df)
    if pf.empty:
        return pd.DataFrame()
    r = reference_rates(ref)
    post = {(v, p): x for v, p, x in zip(r["variant"], r["placement"], r["value"])}
    out = []
    for (v, pl), g in pf.groupby(["variant", "placement"], sort=False):
        row = {"variant": v, "placement": pl, "the post's figure": fmt_rate(post.get((v, pl)))}
        for proto, name in (("post", "post protocol (best run per JVM)"), ("lab", "lab (median of measured runs)")):
            vals = g.loc[g["protocol"] == proto, "value"].to_numpy(dtype=float)
            est = estimate(lambda a: a, vals)
            row[f"{name}: median over forks"] = est.text("ops/s") if est else ""
            row[f"{name}: forks' range"] = (f"{fmt_rate(vals.min())} .. {fmt_rate(vals.max())}" if len(vals)
                                           else "")
        out.append(row)
    return analysis.sort_by(pd.DataFrame(out), ORDERS)


@analysis.by_machine
def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Every cell's measured runs: median, min, max messages/s, runs and forks."""
    m = rows(df)
    if m.empty:
        return pd.DataFrame()
    keys = ["variant", "placement", "protocol"]
    g = m.groupby(keys)
    out = pd.DataFrame({"median": g["value"].median().map(fmt_rate), "min": g["value"].min().map(fmt_rate),
                        "max": g["value"].max().map(fmt_rate), "runs": g.size(), "forks": g["fork"].nunique()})
    return analysis.sort_by(out.reset_index(), ORDERS)


OFFSETS = ["head_line_offset", "tail_cache_line_offset", "tail_line_offset", "head_cache_line_offset",
           "buffer_line_offset"]


@analysis.by_machine
def alignment_table(df: pd.DataFrame) -> pd.DataFrame:
    """Where each counter sat in its cache line (address mod 64), as the kernels checked and recorded it."""
    m = rows(df)
    if m.empty or "layout" not in m:
        return pd.DataFrame()
    m = m[m["layout"].astype(str).isin(["aligned", "unaligned"])]
    cols = [c for c in OFFSETS if c in m]
    out = []
    for layout, g in m.groupby("layout"):
        out.append({"layout": layout, **{c.removesuffix("_line_offset").replace("_", " "):
                                         ", ".join(str(int(x)) for x in sorted(pd.to_numeric(g[c]).unique()))
                                         for c in cols}, "forks": g[["run_id", "fork"]].drop_duplicates().shape[0]
                    if "run_id" in g else g["fork"].nunique()})
    return pd.DataFrame(out)


@analysis.by_machine
def ratios(df: pd.DataFrame) -> pd.DataFrame:
    """The ratios the claims judge, per placement, from the lab's medians (the verdicts give their intervals)."""
    m = rows(df)
    m = m[m["protocol"] == "lab"]
    if m.empty:
        return pd.DataFrame()
    med = m.groupby(["placement", "variant"])["value"].median().unstack("variant")
    pairs = [("processes", "in-heap"), ("processes", "threads"), ("threads", "in-heap"), ("processes-unaligned",
                                                                                           "processes")]
    out = pd.DataFrame(index=med.index)
    for a, b in pairs:
        if a in med and b in med:
            out[f"{a} / {b}"] = (med[a] / med[b]).map(lambda x: "" if np.isnan(x) else f"{x:.2f}x")
    out = out.reindex(analysis.ordered(out.index, PLACEMENTS))
    return out.reset_index()


# Which CPUs each placement uses on this machine, or why it is missing (the shared table, this experiment's roles).
placements_table = functools.partial(cpus.placements_table,
                                     {p: PLACEMENT_TEXT[p] for p in PLACEMENTS}, ("producer", "consumer"))
