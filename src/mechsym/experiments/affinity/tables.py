"""Tables: the post's numbers (none but its command line), per-fork rates and spreads, losses.

Every function that reads results is split per machine (analysis.by_machine)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from ...judge.analysis import fmt_rate
from .meta import NAME, PLACEMENTS
from .rows import PROTOCOLS, fork_values, rates, totals, trace


def reference_table(ref: pd.DataFrame) -> pd.DataFrame:
    """What the post gives: its command lines and the note that its figure has no numbers."""
    # the value column holds no number (the figure had none): as text before "" fills it, as pandas 4 will require
    return ref[["table", "metric", "value", "unit", "note"]].astype({"value": object}).fillna("")


@analysis.by_machine
def rate_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per placement: the receiver's median messages/s over forks (seconds after the first), the forks' range, and
    the median within-run spread of the per-second rates."""
    out = []
    for pl in PLACEMENTS:
        for p in PROTOCOLS:
            r, cv = fork_values(df, p, placement=pl), fork_values(df, p, "cv", placement=pl)
            if len(r) == 0:
                continue
            out.append({"placement": pl, "forks": len(r),
                        "receiver msg/s (median of forks)": fmt_rate(np.median(r), "msg/s"),
                        "forks' range": f"{fmt_rate(r.min(), 'msg/s')} .. {fmt_rate(r.max(), 'msg/s')}",
                        "per-second spread (CV, median)": f"{np.median(cv) * 100:.1f}%" if len(cv) else ""})
    for pl, why in analysis.unavailable_reasons(df, "placement").items():
        out.append({"placement": pl, "forks": 0, "receiver msg/s (median of forks)":
                    f"not measured: {why}"})
    return pd.DataFrame(out)


@analysis.by_machine
def loss_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per placement: messages sent and received, lost and reordered, summed over forks (UDP may drop)."""
    t = totals(df)
    if t.empty:
        return t
    s = t.groupby("placement").sum()
    s["lost %"] = (s.get("receiver lost", 0) / s.get("sender total", np.nan) * 100).round(3)
    return s.reindex(analysis.ordered(s.index, PLACEMENTS)).reset_index()


@analysis.by_machine
def seconds_table(df: pd.DataFrame) -> pd.DataFrame:
    """Every fork's per-second receiver rates, one row per fork (the post's figure as numbers)."""
    m = rates(df)
    if m.empty:
        return pd.DataFrame()
    t = m.pivot_table(index=["placement", "fork"], columns="iteration", values="value", aggfunc="first")
    return t.map(lambda v: fmt_rate(v, "").strip()).rename(columns=lambda s: f"s{s + 1}").reset_index()


def step_trace(run_id: str, placement: str = "cross-core", fork: int = 0, machine: str | None = None) -> pd.DataFrame:
    """One stored fork's per-second sender and receiver rates, with what else its run recorded about that fork
    (its wall time, other processes' CPU seconds and steal while it ran: the bench's noise record). The run is
    looked up on `machine`, else on every stored machine (a run named in prose stays where it was measured); empty
    when it is stored nowhere."""
    from ...store import runs as store

    df = store.load(NAME, machine, latest=False)
    if df.empty or run_id not in set(df["run_id"]):
        machine = "all"
        df = store.load(NAME, machine, latest=False)
    if df.empty or run_id not in set(df["run_id"]):
        return pd.DataFrame()
    t = trace(df[df["run_id"] == run_id], placement, fork)
    out = t.map(lambda v: fmt_rate(v, "msg/s")).rename(columns=lambda c: f"{c} msg/s")
    out.insert(0, "second", t.index + 1)
    meta = next((m for m in store.runs(NAME, machine) if m["run_id"] == run_id), {})
    noise = meta.get("noise", {})
    cols = noise.get("fork_columns", [])
    rows = [dict(zip(cols, r)) for r in noise.get("forks", []) if dict(zip(cols, r)).get("fork") == fork]
    if rows:
        out.attrs["noise"] = "; ".join(f"{r['wall_s']:.1f} s wall, other processes {r['other_cpu_s']:.2f} CPU s, "
                                       f"steal {r['steal_pct']:.2f}%" for r in rows)
    return out.reset_index(drop=True)
