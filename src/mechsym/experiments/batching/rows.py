"""The rows as tables, figures and verdicts read them, the two protocols, and the floor gate.

The gate: a fork decides a latency claim only when its sends left on time, i.e. the median lateness of its sends
against the moment the producer could have made them (`wakeup_late_median`) is at most GATE of the device time.
A later fork measured the harness's scheduling, not the post's device; it is shown, never judged."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ...judge import analysis

POST = dataclasses.replace(analysis.POST, text="one burst against an idle device, the first after the warm-up "
                           "bursts in each JVM: the post's worked example")
LAB = dataclasses.replace(analysis.LAB, text="the median over the measured runs in each JVM of each run's figure "
                          "over its bursts (100 in standard)")
# packets per burst over every measured burst of a fork (runs hold equally many bursts: the mean of the runs' means)
LAB_ALL_BURSTS = dataclasses.replace(LAB, text="packets per burst over every measured burst of the JVM (300 in "
                                     "standard)", reduce=analysis.mean_run)
PROTOCOLS = (POST, LAB)
ORDERS = {"group": ["table", "device", "load"], "variant": ["serial", "batching"], "protocol": ["post", "lab"]}
GATE = 0.10                  # the largest median lateness of a fork's sends that decides, as a share of device time
LATE = "wakeup_late_median"  # the kernel's column: each send's lateness against its schedule, median over the run


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


def _cell(df, protocol, metric, mode, burst, group, load, device) -> pd.DataFrame:
    m = analysis.where(rows(df, metric), protocol=protocol.name, variant=mode, burst=burst, group=group,
                       device=device)
    if load is not None and not m.empty:
        m = m[np.isclose(m["load"], load)]
    return m


def forks(df: pd.DataFrame, protocol, metric: str, mode: str, burst: int = 10, group: str = "table",
          load: float | None = None, device: str = "spin") -> np.ndarray:
    """One value per fork (fresh JVM) of one cell under a protocol."""
    return analysis.fork_values(_cell(df, protocol, metric, mode, burst, group, load, device), protocol)


def gated(df: pd.DataFrame, protocol, metric: str, mode: str, device_ns: float, burst: int = 10,
          group: str = "table", load: float | None = None, device: str = "spin",
          reduce=None) -> tuple[np.ndarray, np.ndarray]:
    """(the values of the forks whose median send lateness is at most GATE x device_ns, every fork's lateness in ns).

    The lateness is read under the same protocol as the value (the post's one burst, or the lab's median run);
    `reduce` reads the value under another protocol of the same name (packets over every burst)."""
    val = analysis.per_fork(_cell(df, protocol, metric, mode, burst, group, load, device), reduce or protocol)
    late = analysis.per_fork(_cell(df, protocol, LATE, mode, burst, group, load, device), protocol)
    if val.empty:
        return np.array([]), late["value"].to_numpy(dtype=float)
    both = val.merge(late, on="fork_key", how="left", suffixes=("", "_late"))
    ok = both["value_late"] <= GATE * device_ns
    return (both.loc[ok, "value"].dropna().to_numpy(dtype=float),
            both["value_late"].dropna().to_numpy(dtype=float))


def post_value(ref: pd.DataFrame, mode: str, metric: str) -> float:
    """One number of the post's table (µs or packets) for a mode."""
    t = ref[(ref["mode"] == mode) & (ref["metric"] == metric)]["value"]
    return float(t.iloc[0])
