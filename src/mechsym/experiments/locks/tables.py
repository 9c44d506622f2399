"""The locks tables: the posts' own tables, and this machine's beside them, one number per fork (a fresh JVM)
read under a protocol (the post's first timed run after the warm-up, or the lab's median of the measured runs)."""

from __future__ import annotations

import pandas as pd

from ...judge import analysis
from ...judge.analysis import LAB, POST, Protocol
from .meta import VARIANTS
from .rows import KEYS, ORDER, forks, one_thread, throughput
from .sweep import HARNESS, POLICIES

def _mops(v) -> str:
    return "" if pd.isna(v) else f"{v / 1e6:,.1f}"


@analysis.by_machine
def summary(df: pd.DataFrame, grid: str = "main", policy: str | None = None) -> pd.DataFrame:
    """Every measured run of every cell: median, quartiles, range in M ops/s, n = forks x runs."""
    m = analysis.where(throughput(df), grid=grid, **({"warmup_policy": policy} if policy else {}))
    s = analysis.sort_by(analysis.summary(m, KEYS), ORDER)
    for col in ("median", "min", "p25", "p75", "max"):
        s[col] = (s[col] / 1e6).round(1)
    s["spread %"] = s["spread %"].round(1)
    return s.rename(columns={"median": "median M ops/s", "spread %": "IQR / median %"})


@analysis.by_machine
def scaling_table(df: pd.DataFrame, policy: str, protocol: Protocol = POST) -> pd.DataFrame:
    """Threads x variant, per JDK, like the posts' tables: the median over forks of each fork's ops/s under the
    protocol, in M ops/s; a variant the JDK cannot run reads "n/a on JDK N" (see `unavailable` for why)."""
    pf = forks(df, protocol, grid="main", warmup_policy=policy)
    if pf.empty:
        return pd.DataFrame()
    t = pf.groupby(["jdk", "threads", "variant"])["value"].median().unstack("variant")
    t = t.reindex(columns=analysis.ordered(t.columns, VARIANTS)).map(_mops)
    for (jdk, variant), why in _unavailable(df).items():
        if variant in VARIANTS and jdk in set(t.index.get_level_values("jdk")):
            if variant not in t.columns:
                t[variant] = ""
            t.loc[jdk, variant] = why
    t = t.reindex(columns=analysis.ordered(t.columns, VARIANTS))
    t.columns.name = f"M ops/s, {policy} warm-up, {protocol.name} protocol"
    return t.sort_index(level=["jdk", "threads"], key=lambda s: s.astype(int))


def _unavailable(df: pd.DataFrame) -> dict[tuple[str, str], str]:
    """(jdk, variant) -> 'n/a on JDK N' for the cells this JDK could not run."""
    if df is None or "status" not in df:
        return {}
    u = df[df["status"] == "unavailable"]
    return {(str(j), str(v)): f"n/a on JDK {j}" for j, v in zip(u["jdk"], u["variant"])}


def unavailable(df: pd.DataFrame) -> pd.DataFrame:
    """The cells this machine or JDK could not run, with the reason."""
    return analysis.unavailable(df, keys=("variant", "jdk"))


def reference_table(ref: pd.DataFrame) -> pd.DataFrame:
    """The second post's two tables (ops/s), threads x (CPU, column)."""
    r = ref[ref["metric"] == "throughput"].astype({"threads": int})
    t = r.pivot_table(index=["threads"], columns=["cpu", "column"], values="value", aggfunc="first", sort=False)
    return t.map(lambda v: f"{v:,.0f}")


@analysis.by_machine
def why_table(df: pd.DataFrame, protocol: Protocol = POST) -> pd.DataFrame:
    """One thread: median M ops/s of each monitor variant (and ReentrantLock) as the harness changes one factor at
    a time: new threads per run or the same thread, lock coarsening on or off."""
    pf = one_thread(df, protocol)
    if pf.empty:
        return pd.DataFrame()
    t = pf.groupby(["jdk", "variant", "harness"])["value"].median().unstack("harness")
    t = t.reindex(columns=[h for _, _, h in HARNESS if h in t.columns]).map(_mops)
    t.columns.name = f"M ops/s, 1 thread, {protocol.name} protocol"
    order = {v: i for i, v in enumerate(VARIANTS)}
    return t.sort_index(key=lambda s: s.map(order) if s.name == "variant" else s.astype(int))


@analysis.by_machine
def osr_table(df: pd.DataFrame) -> pd.DataFrame:
    """Ten short warm-ups over one long one (the OSR question): median ops/s ratio per variant and thread count,
    under the post's protocol (the first timed run after the warm-up) and the lab's (median of the runs)."""
    parts = {}
    for protocol in (POST, LAB):
        pf = forks(df, protocol, grid="main")
        if pf.empty:
            continue
        med = pf.groupby(["jdk", "variant", "threads", "warmup_policy"])["value"].median().unstack("warmup_policy")
        if not set(POLICIES) <= set(med.columns):
            continue
        parts[protocol.name] = (med["short"] / med["single"]).unstack("threads")
    if not parts:
        return pd.DataFrame()
    t = pd.concat(parts, axis=1, names=["protocol", "threads"]).map(analysis.fmt_ratio)
    t.columns.name = "short / single warm-up"
    order = {v: i for i, v in enumerate(VARIANTS)}
    return t.sort_index(key=lambda s: s.map(order) if s.name == "variant" else s.astype(int))


@analysis.by_machine
def protocol_table(df: pd.DataFrame) -> pd.DataFrame:
    """One thread, the posts' harness: the first timed run after the warm-up (the post's protocol) against the
    median of the measured runs (the lab's), per JDK, warm-up policy and variant, in M ops/s."""
    a, b = forks(df, POST, grid="main", threads=1), forks(df, LAB, grid="main", threads=1)
    if a.empty:
        return pd.DataFrame()
    keys = ["jdk", "warmup_policy", "variant"]
    t = pd.DataFrame({"post: first run": a.groupby(keys)["value"].median(),
                      "lab: median of runs": b.groupby(keys)["value"].median()})
    t["lab / post"] = (t["lab: median of runs"] / t["post: first run"]).map(analysis.fmt_ratio)
    t[["post: first run", "lab: median of runs"]] = t[["post: first run", "lab: median of runs"]].map(_mops)
    t.columns.name = "M ops/s, 1 thread, median over forks"
    t = t.reset_index()
    return analysis.sort_by(t, ORDER).set_index(keys)
