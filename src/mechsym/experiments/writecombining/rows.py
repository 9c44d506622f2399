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

from ...judge import analysis
from ...run.harness import JIT_EVENT, UPTIME_END, UPTIME_START
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
    cases = ["single loop", "split loops"]
    m = analysis.where(rows(df, metric), variant="listing", runtime=runtime)
    if m.empty:
        return pd.DataFrame(columns=cases)
    pf = analysis.per_fork(m, POST, ["case"])
    # both columns even when one case has no runs left (its post runs set aside for JIT or GC time): no forks then
    return pf.pivot(index="fork_key", columns="case", values="value").reindex(columns=cases).dropna()


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


# The JIT-logged fork of the listing (sweep.listing_jit_cell): which code each repetition ran. Its compilation events
# (mechsym.run.harness.jit_event_rows) and its timed runs share one clock, the JVM's uptime in ms; a compilation is logged
# as the compiler starts on it and installed some ms later. A later repetition that steps away from the first ran a
# recompiled shape: a finding of this JDK, shown, never the post's result (the verdicts read the first).
JIT_VARIANT = "listing-jit"
#: The timed loop of each case of the listing (the kernel's method names) and the case it times.
TIMED = {"WriteCombining::loop6": "single loop", "WriteCombining::splitLoop": "split loops"}
CASE_NAMES = {"single loop": "SingleLoop", "split loops": "SplitLoop"}


def tier_name(tier) -> str:
    if pd.isna(tier):
        return "other"
    return "C2" if int(tier) == 4 else "C1" if 1 <= int(tier) <= 3 else "other"


def jit_code(tier, osr_bci) -> str:
    """'C2 OSR @41' / 'C1 tier 3' / 'native wrapper': what a compilation produced."""
    name = {"C1": f"C1 tier {int(tier)}" if not pd.isna(tier) else "C1", "C2": "C2",
            "other": "native wrapper" if not pd.isna(tier) and int(tier) == 0 else "untiered"}[tier_name(tier)]
    return name + (f" OSR @{int(osr_bci)}" if not pd.isna(osr_bci) else "")


def jit_forks(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """runtime ('JDK 17') -> the rows of its JIT-logged fork (the newest run's first such fork), for runtimes that
    have one with compilation events; {} when the rows have none."""
    m = analysis.ok_rows(df) if df is not None and len(df) else pd.DataFrame()
    if m.empty or "variant" not in m or "jit_method" not in m:
        return {}
    m = m[m["variant"].astype(str) == JIT_VARIANT]
    if m.empty or not (m["metric"] == JIT_EVENT).any():
        return {}
    m = m.assign(runtime=m["jdk"].map(analysis.runtime_label))
    out = {}
    for rt in analysis.ordered(m["runtime"], ORDERS["runtime"]):
        r = m[m["runtime"] == rt]
        run = sorted(r["run_id"].astype(str).unique())[-1] if "run_id" in r else None
        r = r if run is None else r[r["run_id"].astype(str) == run]
        r = r[r["fork"] == r["fork"].min()]
        if (r["metric"] == JIT_EVENT).any():
            out[rt] = r
    return out


def jit_spans(fork: pd.DataFrame) -> pd.DataFrame:
    """The fork's timed runs: repetition (1-based), case, start and end (uptime, ms), ns per store."""
    keys = ["iteration", "per_loop"]
    w = fork[fork["metric"].isin([UPTIME_START, UPTIME_END, "ns_per_store"])].pivot_table(
        index=keys, columns="metric", values="value", aggfunc="first").reset_index()
    arrays = pd.to_numeric(fork.loc[fork["metric"] == "ns_per_store", "arrays"]).iloc[0]
    return pd.DataFrame({"repetition": w["iteration"].astype(int) + 1,
                         "case": np.where(pd.to_numeric(w["per_loop"]) == arrays, "single loop", "split loops"),
                         "start": w[UPTIME_START], "end": w[UPTIME_END], "ns_per_store": w["ns_per_store"]}
                        ).sort_values(["repetition", "case"]).reset_index(drop=True)   # the listing's order
