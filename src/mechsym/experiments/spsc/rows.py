"""The rows as the tables, figures and verdicts read them: one summary per run (fresh JVM) under the post's
protocol, the runs of one cell, their spread; and the queues' field offsets as JOL read them."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from .meta import OPTION_SETS, QUEUES
from .sweep import PLACEMENTS

# The post's protocol, which is also the lab's here: "each test runs 20 iterations, the summary is the average of
# the last 10 test iterations", one run per fresh JVM. The kernel marks the first iterations as warm-up.
POST = analysis.Protocol(
    "post", "one fresh JVM per run, 20 iterations; the run's summary is the mean throughput of the last 10",
    analysis.mean_run)
PROTOCOLS = (POST,)
_WITHIN_CV = analysis.Protocol("within-run CV", "iteration-to-iteration CV inside one run",
                               lambda values: float(values.std(ddof=0) / values.mean()))

LOW = 0.6   # a run below 0.6x its cell's median run is at "half the performance" (the post's words, generously read)
KEYS = ["jdk", "options", "placement", "variant"]
EXTRA = ["pinning", "vm_cond_card_mark", "vm_tiered_compilation", "vm_numa", "queue_line_offset", "buffer_line_offset"]
ORDERS = {"jdk": [], "options": list(OPTION_SETS), "placement": PLACEMENTS, "variant": list(QUEUES)}


def throughput_rows(df: pd.DataFrame) -> pd.DataFrame:
    """Measured throughput rows of the runs that passed their checks (the JOL layout rows left out)."""
    m = analysis.measured(df, "throughput")
    if "kind" in m:
        m = m[m["kind"].astype(str) == "throughput"]
    for c in ("options", "placement", "variant"):
        if c in m:
            m[c] = m[c].astype(str)
    return m


def run_summaries(df: pd.DataFrame) -> pd.DataFrame:
    """One row per run (fresh JVM, the unit of replication): KEYS, fork_key, `summary` (the post's: mean throughput
    of the measured iterations), `within_cv` (iteration-to-iteration CV inside the run) and what the kernel recorded
    about the run (pinning, JVM options as set, where the queue and its buffer sat in a cache line)."""
    m = throughput_rows(df)
    cols = KEYS + ["fork_key", "summary", "within_cv"]
    if m.empty:
        return pd.DataFrame(columns=cols)
    extra = [c for c in EXTRA if c in m]
    s = analysis.per_fork(m, POST, by=KEYS + extra).rename(columns={"value": "summary"})
    cv = analysis.per_fork(m, _WITHIN_CV, by=KEYS).rename(columns={"value": "within_cv"})
    keys = [k for k in KEYS if k in m] + ["fork_key"]
    s = s.merge(cv, on=keys, how="left")
    for c in ("queue_line_offset", "buffer_line_offset"):
        if c in s:
            s[c] = pd.to_numeric(s[c], errors="coerce").astype("Int64")
    return analysis.sort_by(s, ORDERS)


def cell(s: pd.DataFrame, **eq) -> np.ndarray:
    """The run summaries of one cell (jdk=, options=, placement=, variant=) as an array, one value per run."""
    return analysis.where(s, **eq)["summary"].to_numpy(dtype=float)


def cv(a: np.ndarray) -> float:
    """Coefficient of variation across runs (sample standard deviation / mean)."""
    return np.std(a, ddof=1) / np.mean(a) if len(a) > 1 else np.float64("nan")   # numpy: x/0 is inf, not an error


def share_low(a: np.ndarray, below: float = LOW) -> float:
    """Share of runs whose summary is below `below` x the cell's median run."""
    return float(np.mean(a < below * np.median(a))) if len(a) else float("nan")


def layout_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The JOL rows (variant "layout") of runs that passed, with `jdk` and `queue` as text and `key` the field's name."""
    if df is None or df.empty or "variant" not in df:
        return pd.DataFrame()
    lay = analysis.ok_rows(df)
    lay = lay[lay["variant"].astype(str) == "layout"].copy()
    if lay.empty:
        return lay
    lay["queue"] = lay["queue"].astype(str)
    lay["key"] = lay["field"].astype(str).str.rsplit(".", n=1).str[-1]
    lay.loc[lay["metric"] == "instance_size", "key"] = "(instance)"
    return lay


def offsets(df: pd.DataFrame, jdk) -> dict[tuple[str, str], float]:
    """{(queue, field name): offset in bytes} on one JDK (instance sizes under the field name "(instance)")."""
    lay = analysis.where(layout_rows(df), jdk=jdk)
    if lay.empty:
        return {}
    lay = lay[lay["metric"].isin(["offset", "instance_size"])].drop_duplicates(["queue", "key"])
    return {(q, k): v for q, k, v in zip(lay["queue"], lay["key"], lay["value"])}
