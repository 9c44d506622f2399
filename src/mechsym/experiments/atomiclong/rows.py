"""The rows tables, figures and verdicts read, and the two protocols.

The post's listings time one run per process, from before the threads are created to after they are joined, cold
(no warm-up): the kernels' `post` protocol does exactly that, and the post's verdicts read those cells. The lab's
harness starts the threads outside the clock, runs a warm-up run and takes the median of several measured runs."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ...judge import analysis
from .sweep import PRIMITIVES, VARIANTS

POST = dataclasses.replace(analysis.POST, text="the one run of each fresh process, timed as the listing (thread "
                           "start to join, cold)")
LAB = analysis.LAB
PROTOCOLS = (POST, LAB)
RUNTIMES = ["JDK 17", "JDK 25", "C (gcc)"]
ORDERS = {"primitive": PRIMITIVES, "variant": list(VARIANTS), "runtime": RUNTIMES, "protocol": ["post", "lab"]}


def rows(df: pd.DataFrame | None, metric: str = "ns_per_op", warmup: bool = False) -> pd.DataFrame:
    """Rows of forks that passed their checks (measured runs unless warmup=True) of one metric, with a `runtime`
    column ('JDK 17', 'C (gcc)') and `threads` as a number."""
    m = analysis.measured(df, metric, warmup=warmup)
    if m.empty:
        return m.assign(runtime=pd.Series(dtype=str), protocol=pd.Series(dtype=str))
    m["runtime"] = m["jdk"].map(analysis.runtime_label)
    m["threads"] = pd.to_numeric(m["threads"]).astype(int)
    m["protocol"] = m["protocol"].astype(str)
    return m


def forks(df: pd.DataFrame, protocol, metric: str = "ns_per_op", **cell) -> np.ndarray:
    """One number per fork (fresh process) of one cell: the post cells' one run, or the lab's median."""
    m = rows(df, metric)
    return analysis.fork_values(m[m["protocol"] == protocol.name], protocol, **cell)


def contended_forks(df: pd.DataFrame, protocol, **cell) -> tuple[np.ndarray, int]:
    """The cas-loop cell's per-fork ns/increment, kept only where the fork's threads met (cas_failures_per_op > 0
    in its runs: at least one CAS lost to another thread), and how many forks were left out. Rows without the
    failure metric (runs before the kernel recorded it) are all kept: nothing says they did not contend."""
    m = rows(df)
    m = m[m["protocol"] == protocol.name]
    vals = analysis.per_fork(analysis.where(m, variant="cas-loop", **cell), protocol)
    f = rows(df, "cas_failures_per_op")
    f = analysis.per_fork(analysis.where(f[f["protocol"] == protocol.name], variant="cas-loop", **cell), protocol)
    if f.empty:
        return vals["value"].dropna().to_numpy(dtype=float), 0
    met = set(f.loc[f["value"] > 0, "fork_key"])
    kept = vals[vals["fork_key"].isin(met)]
    return kept["value"].dropna().to_numpy(dtype=float), len(vals) - len(kept)


def per_fork_table(df: pd.DataFrame, metric: str = "ns_per_op") -> pd.DataFrame:
    """Every fork's number, both protocols: primitive, variant, runtime, threads, protocol, fork_key, value."""
    m = rows(df, metric)
    by = ["primitive", "variant", "runtime", "threads"]
    parts = [analysis.per_fork(m[m["protocol"] == p.name], p, by).assign(protocol=p.name) for p in PROTOCOLS
             if (m["protocol"] == p.name).any()]
    out = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=by + ["protocol", "value"])
    return analysis.sort_by(out, ORDERS).sort_values("threads", kind="stable") if len(out) else out


def cpus_online(df: pd.DataFrame) -> int | None:
    """How many CPUs the machine that measured these rows had (the cells record it)."""
    if "cpus_online" not in df or df["cpus_online"].dropna().empty:
        return None
    return int(pd.to_numeric(df["cpus_online"]).max())
