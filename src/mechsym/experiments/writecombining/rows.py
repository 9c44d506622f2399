"""The rows as tables, figures and verdicts read them, and the two protocols.

The listing prints three SingleLoop/SplitLoop pairs per JVM, the first one cold (the JIT compiles the loops while
they run); the post's protocol here reads a JVM's first timed repetition, the code the post's own run measured,
from the kernels' `post` protocol (the listing's structure); later repetitions are shown apart (repetitions). The lab's harness runs one configuration
per JVM, a warm-up run, then several measured runs, and takes their median. For the sweep, which the post never
ran, the post's reading is the first (cold) run of each JVM: how the listing's first repetition ran."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd

from ... import analysis
from .sweep import VARIANTS

# The post's verdicts read each JVM's first repetition: the code the listing's first pair ran. In the lab's runs the
# JIT recompiles SplitLoop during the pairs that follow and its time steps up; repetitions_table shows every
# repetition, and the recompiled shape is a labelled finding there, not the post's result.
POST = dataclasses.replace(analysis.POST, text="the listing's first timed repetition in each fresh JVM (the code "
                           "the post's own run measured; later repetitions: repetitions_table)")
COLD = dataclasses.replace(analysis.POST, text="the first (cold) run of each fresh JVM of the sweep, as the "
                           "listing's first repetition ran")
LAB = analysis.LAB
PROTOCOLS = (POST, LAB)   # COLD reads the sweep's forks under the post's protocol
RUNTIMES = ["JDK 17", "JDK 25", "C (gcc)"]
ORDERS = {"variant": list(VARIANTS), "runtime": RUNTIMES, "case": ["single loop", "split loops"],
          "protocol": ["post", "lab"]}


def rows(df: pd.DataFrame | None, metric: str = "ns_per_store", warmup: bool = False) -> pd.DataFrame:
    """Rows of runs that passed their checks (measured runs only unless warmup=True), one metric, with `runtime`
    ('JDK 17', 'C (gcc)'), `arrays` and `per_loop` as numbers and `case` ('single loop' when one loop writes every
    array, else 'split loops')."""
    m = analysis.measured(df, metric, warmup=warmup)
    if m.empty:
        return m.assign(runtime=pd.Series(dtype=str), case=pd.Series(dtype=str))
    m["runtime"] = m["jdk"].map(analysis.runtime_label)
    for col in ("arrays", "per_loop"):
        m[col] = pd.to_numeric(m[col]).astype(int)
    m["case"] = np.where(m["per_loop"] == m["arrays"], "single loop", "split loops")
    return m


def listing_forks(df: pd.DataFrame, runtime: str, metric: str = "duration") -> pd.DataFrame:
    """The listing's cells of one runtime: per fork, the post's protocol value (its first repetition) of
    each case, one row per fork with columns 'single loop' and 'split loops'."""
    m = analysis.where(rows(df, metric), variant="listing", runtime=runtime)
    if m.empty:
        return pd.DataFrame(columns=["single loop", "split loops"])
    pf = analysis.per_fork(m, POST, ["case"])
    return pf.pivot(index="fork_key", columns="case", values="value").dropna()


def sweep_forks(df: pd.DataFrame, runtime: str, variant: str, protocol=LAB) -> pd.DataFrame:
    """The sweep's cells of one runtime and variant: one value per fork (lab: median of the measured runs; COLD: the
    first, warm-up, run), forks as rows (a fork key names a round: fork i of every cell of a run ran in the same
    round), arrays as columns."""
    m = analysis.where(rows(df, warmup=protocol is COLD), variant=variant, runtime=runtime)
    if m.empty:
        return pd.DataFrame()
    pf = analysis.per_fork(m, protocol, ["arrays"])
    return pf.pivot(index="fork_key", columns="arrays", values="value")


def runtimes(df: pd.DataFrame) -> list[str]:
    """The runtimes present in these rows, in the lab's order."""
    m = rows(df)
    return analysis.ordered(m["runtime"], RUNTIMES) if len(m) else []
