"""The rows as the tables, figures and verdicts read them: throughput per fork and cell under a protocol (the
post's first timed run after the warm-up, or the lab's median of the measured runs), one thread per harness, and the
CPU clock each stored run recorded."""

from __future__ import annotations

import pandas as pd

from ...judge import analysis
from ...store import runs as store
from ...judge.analysis import LAB, POST, Protocol
from .meta import NAME, VARIANTS
from .sweep import HARNESS, MONITORS, POLICIES

PROTOCOLS = (POST, LAB)
KEYS = ["jdk", "grid", "warmup_policy", "workers", "coarsening", "variant", "threads"]
ORDER = {"jdk": None, "warmup_policy": POLICIES, "variant": list(VARIANTS)}


def throughput(df: pd.DataFrame) -> pd.DataFrame:
    """Measured throughput rows (ops/s) of the forks that passed their checks."""
    return analysis.measured(df, "throughput")


def forks(df: pd.DataFrame, protocol: Protocol = POST, **conditions) -> pd.DataFrame:
    """One ops/s value per fork and cell under the protocol: the cell's columns, fork_key, value."""
    m = analysis.where(throughput(df), **conditions)
    return analysis.per_fork(m, protocol, by=KEYS)


def _harness(workers, coarsening) -> str:
    return next((label for w, c, label in HARNESS if (w, c) == (workers, coarsening)), f"{workers}/{coarsening}")


def one_thread(df: pd.DataFrame, protocol: Protocol = POST) -> pd.DataFrame:
    """Per-fork ops/s of one thread, short warm-ups, each harness (the why grid plus the main grid's own cell)."""
    pf = forks(df, protocol, threads=1, warmup_policy="short")
    pf = pf[(pf["grid"] == "why") | (pf["grid"] == "main")]
    pf = pf[pf["variant"].isin(MONITORS + ["reentrant"])].copy()
    pf["harness"] = [_harness(w, c) for w, c in zip(pf["workers"], pf["coarsening"])]
    return pf


def run_clocks(df: pd.DataFrame) -> dict[str, float]:
    """run id -> the CPU clock in MHz recorded in that run's metadata (store.run_clocks)."""
    return store.run_clocks(NAME, df)
