"""The ping buffet's rows as tables, figures and verdicts read them, and the two protocols.

The post's tool prints one row of percentiles per batch of 100,000 pings, every batch, and the post quotes one
row per transport; its own sample shows the first row's tail swollen by the JVM's warm-up. So the post's protocol
here is the kernel's post protocol (the raw round trips sorted, percentile at index (int)(N*p)), its first run
after one warm-up run; the lab's is the median of the lab cells' measured runs (HdrHistogram) after a warm-up."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ...judge import analysis
from .meta import PLACEMENTS, VARIANTS

POST = dataclasses.replace(analysis.POST, text="the kernel's post protocol (raw round trips sorted, as the post's "
                           "tool read them): the first run after one warm-up run in each JVM")
LAB = analysis.LAB
PROTOCOLS = (POST, LAB)
SUMMARY = "A Java Ping Buffet: sample results (pinned with taskset, default settings)"   # the post's table of its sample results
STATS = ["min", "p50", "p90", "p99", "p99.9", "p99.99", "max"]
P = {"min": 0.0, "p50": 0.5, "p90": 0.9, "p99": 0.99, "p99.9": 0.999, "p99.99": 0.9999, "max": 1.0}
ORDERS = {"variant": list(VARIANTS), "placement": list(PLACEMENTS), "protocol": ["post", "lab"],
          "stat": ["mean", *STATS]}


def rows(df: pd.DataFrame | None, metric: str | list[str] | None = "rtt_p50", warmup: bool = False,
         protocol: str | None = None) -> pd.DataFrame:
    """Measured rows of forks that passed their checks, one metric (rtt_<stat>), of one protocol's cells."""
    m = analysis.measured(df, metric, warmup=warmup)
    if m.empty or protocol is None:
        return m
    return m[m["protocol"].astype(str) == protocol]


def forks(df: pd.DataFrame, protocol, stat: str = "p50", **cell) -> np.ndarray:
    """One number per fork (fresh JVM) of one cell under a protocol."""
    m = rows(df, f"rtt_{stat}", protocol=protocol.name)
    return analysis.fork_values(m, protocol, **cell)


def median(df: pd.DataFrame, stat: str = "p50", protocol: str = "lab", **cell) -> float | None:
    """The median over a cell's measured runs of one statistic (None when there are none)."""
    return analysis.runs_median(analysis.where(rows(df, f"rtt_{stat}", protocol=protocol), **cell))
