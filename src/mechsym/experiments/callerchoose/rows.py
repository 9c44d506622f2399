"""The rows as tables, figures and verdicts read them, and the two protocols."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ...judge import analysis

POST = dataclasses.replace(analysis.POST, text="the first measured run after one warm-up run in each JVM (the post "
                           "prints no benchmark: the simplest one)")
LAB = analysis.LAB
PROTOCOLS = (POST, LAB)
ORDERS = {"runtime": ["JDK 17", "JDK 25"], "collector": ["G1", "Parallel"], "size": ["small", "medium", "large"], "variant": ["split", "list", "set"]}


def rows(df: pd.DataFrame | None, metric: str = "ns_per_op") -> pd.DataFrame:
    """Measured rows of forks that passed their checks, one metric."""
    return analysis.measured(df, metric)


def forks(df: pd.DataFrame, protocol, metric: str, method: str, size: str, collector: str,
          jdk: str | None = None) -> np.ndarray:
    """One value per fork (fresh JVM) of one cell under a protocol (of one JDK, when given)."""
    m = analysis.where(rows(df, metric), variant=method, size=size, collector=collector,
                       **({} if jdk is None else {"jdk": jdk}))
    return analysis.fork_values(m, protocol)


def per_jdk(df: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """(runtime label, that JDK's rows) for each JDK in the results, in order."""
    return [(analysis.runtime_label(j), analysis.where(df, jdk=j)) for j in analysis.jdks(rows(df))]


def collectors(df: pd.DataFrame) -> list[str]:
    m = rows(df)
    return analysis.ordered(m["collector"].astype(str), ORDERS["collector"]) if len(m) else []
