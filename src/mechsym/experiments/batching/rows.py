"""The rows as tables, figures and verdicts read them, and the two protocols."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ... import analysis

POST = dataclasses.replace(analysis.POST, text="one burst against an idle device, the first after the warm-up "
                           "bursts in each JVM: the post's worked example")
LAB = dataclasses.replace(analysis.LAB, text="the median over the measured runs in each JVM of each run's figure "
                          "over its bursts (100 in standard)")
PROTOCOLS = (POST, LAB)
ORDERS = {"group": ["table", "device", "load"], "variant": ["serial", "batching"], "protocol": ["post", "lab"]}


def rows(df: pd.DataFrame | None, metric: str = "latency_mean") -> pd.DataFrame:
    """Measured rows of forks that passed their checks, one metric, with burst as int and load as float."""
    m = analysis.measured(df, metric)
    if m.empty:
        return m
    m["burst"] = pd.to_numeric(m["burst"], errors="coerce").astype(int)
    m["load"] = pd.to_numeric(m["load"], errors="coerce") if "load" in m else np.nan
    m["protocol"] = m["protocol"].astype(str)
    m["device"] = m["device"].astype(str) if "device" in m else "spin"
    return m


def forks(df: pd.DataFrame, protocol, metric: str, mode: str, burst: int = 10, group: str = "table",
          load: float | None = None, device: str = "spin") -> np.ndarray:
    """One value per fork (fresh JVM) of one cell under a protocol."""
    m = analysis.where(rows(df, metric), protocol=protocol.name, variant=mode, burst=burst, group=group,
                       device=device)
    if load is not None and not m.empty:
        m = m[np.isclose(m["load"], load)]
    return analysis.fork_values(m, protocol)


def post_value(ref: pd.DataFrame, mode: str, metric: str) -> float:
    """One number of the post's table (µs or packets) for a mode."""
    t = ref[(ref["mode"] == mode) & (ref["metric"] == metric)]["value"]
    return float(t.iloc[0])
