"""The rows as tables, figures and verdicts read them, and the two protocols.

The post prints no code and says only "incrementing a 64-bit counter 500 million times": the simplest program for
its table times one run per JVM, cold (the JIT compiles the loop while it runs). That is the post's protocol here:
the post-protocol cells, one cold run per fresh JVM. The lab's harness takes the median of measured runs after a
warm-up run."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ...judge import analysis
from .meta import POST_ITERATIONS
from .sweep import JAVA_METHODS, TABLE

POST = dataclasses.replace(analysis.POST, text="one cold timed run per fresh JVM: the simplest program for the table")
LAB = analysis.LAB
PROTOCOLS = (POST, LAB)
RUNTIMES = ["JDK 17", "JDK 25", "C (gcc)"]
ORDERS = {"variant": JAVA_METHODS + ["sfence", "lfence", "mfence"], "runtime": RUNTIMES, "protocol": ["post", "lab"],
          "threads": [1, 2], "scale": ["1x", "10x"]}


def rows(df: pd.DataFrame | None, metric: str = "ns_per_op", warmup: bool = False) -> pd.DataFrame:
    """Rows of forks that passed their checks (measured runs unless warmup=True), one metric, with `runtime`
    ('JDK 17', 'C (gcc)'), `threads` as int, and `protocol` and `scale` as text."""
    m = analysis.measured(df, metric, warmup=warmup)
    if m.empty:
        return m.assign(runtime=pd.Series(dtype=str), protocol=pd.Series(dtype=str))
    m["runtime"] = m["jdk"].map(analysis.runtime_label)
    m["threads"] = pd.to_numeric(m["threads"], errors="coerce").astype(int)
    m["protocol"] = m["protocol"].fillna("lab").astype(str)
    m["scale"] = m["scale"].fillna("1x").astype(str) if "scale" in m else "1x"
    return m


def runtimes(df: pd.DataFrame) -> list[str]:
    """The runtimes in these rows as jdk keys, JDKs oldest first, then 'c'."""
    m = rows(df)
    have = set(m["jdk"].astype(str)) if len(m) else set()
    return analysis.jdks(m) + (["c"] if "c" in have else [])


def forks(df: pd.DataFrame, protocol, jdk: str, method: str, threads: int = 1, scale: str = "1x") -> np.ndarray:
    """One ns/op per fork (fresh JVM or process) of one cell under a protocol."""
    m = analysis.where(rows(df), protocol=protocol.name, jdk=jdk, variant=method, threads=threads, scale=scale)
    return analysis.fork_values(m, protocol)


def table_forks(df: pd.DataFrame, protocol, jdk: str) -> dict[str, np.ndarray]:
    """The post's six rows for one runtime: row key -> per-fork ns per increment."""
    return {key: forks(df, protocol, jdk, method, threads) for key, (method, threads, _) in TABLE.items()}


def median(df: pd.DataFrame, metric: str = "ns_per_op", **cell) -> float | None:
    """The median of the lab's measured runs of one cell (None when there are none)."""
    return analysis.runs_median(analysis.where(rows(df, metric), protocol="lab", **cell))


def post_ms(ref: pd.DataFrame) -> pd.Series:
    """The post's table: row key -> ms for 500 M increments."""
    t = ref[ref["metric"] == "duration"].set_index("method")["value"]
    return pd.Series({key: float(t[label]) for key, (_, _, label) in TABLE.items()})


def post_mhz(ref: pd.DataFrame) -> float:
    """The post's CPU clock in MHz, from its table's cpu column ("Westmere 2.4 GHz")."""
    cpu = ref.loc[ref["metric"] == "duration", "cpu"].dropna().astype(str)
    m = cpu.str.extract(r"([0-9.]+)\s*GHz", expand=False).dropna()
    if m.empty:
        raise ValueError("the post's reference rows name no clock (e.g. 'Westmere 2.4 GHz') in their cpu column")
    return float(m.iloc[0]) * 1000


def post_cycles(ref: pd.DataFrame, key: str) -> float:
    """Cycles per increment a thread makes in one of the post's rows: ns per increment x threads x GHz."""
    _, threads, _ = TABLE[key]
    return post_ms(ref)[key] * 1e6 / POST_ITERATIONS * threads * post_mhz(ref) / 1000


def failures(df: pd.DataFrame, protocol, jdk: str, threads: int = 2) -> pd.DataFrame:
    """The cas cell's forks: fork_key, ns per increment and failed CASes per increment (the protocol's reduction
    of each); empty where the kernel did not count failures (runs before it did, and C)."""
    out = []
    for metric in ("ns_per_op", "cas_failures_per_op"):
        m = analysis.where(rows(df, metric), protocol=protocol.name, jdk=jdk, variant="cas", threads=threads,
                           scale="1x")
        pf = analysis.per_fork(m, protocol)
        out.append(pf.set_index("fork_key")["value"].rename(metric))
    if out[1].empty:
        return pd.DataFrame(columns=["ns_per_op", "cas_failures_per_op"])
    return pd.concat(out, axis=1).dropna()
