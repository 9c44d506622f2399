"""Lock implementations and biased locking: notebooks 01 and 02.

Posts: "Java Lock Implementations" (2011-11-19) and "Biased Locking, OSR, and
Benchmarking Fun" (2011-11-22), Martin Thompson. Kernel:
mechsym.locks.LockContention.

Two grids:
- main: the posts' harness (new threads for every run, the JIT's defaults),
  every lock variant x threads 1..max(4, 2 x CPUs) x both warm-up policies x
  every JDK;
- why: one thread only, the monitor variants with the harness changed one
  factor at a time: the same worker thread for every run (so a bias is never
  revoked by a new thread) and lock coarsening off (-XX:-EliminateLocks, so
  the JIT cannot merge the lock of many loop iterations into one).
"""

from __future__ import annotations

import re

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import plots
from .. import store
from ..cpus import Topology
from ..jdk import Jdk
from ..sweep import Cell
from ..verdicts import Claim, Verdict, legacy_judge as judge, unmeasurable

NAME = "locks"
TITLE = "Counter increments under JVM monitors (biased or not), ReentrantLock, AtomicLong, StampedLock"
NOTEBOOKS = ["01-lock-implementations", "02-biased-locking"]
KERNEL = "mechsym.locks.LockContention"
POST1 = "2011-11-19-java-lock-implementations.md"
POST2 = "2011-11-22-biased-locking-osr-and-benchmarking-fun.md"

# variant -> (lock, JVM flags, what it stands for)
VARIANTS = {
    "monitor-thin": ("monitor", ("-XX:-UseBiasedLocking",), "synchronized, biased locking off: CAS ('atomic') locking"),
    "monitor-biased-delayed": ("monitor", ("-XX:+UseBiasedLocking", "-XX:BiasedLockingStartupDelay=4000"),
                               "synchronized, biased locking on with JDK 6's 4 s start-up delay: the first post's +UseBiasedLocking"),
    "monitor-biased": ("monitor", ("-XX:+UseBiasedLocking", "-XX:BiasedLockingStartupDelay=0"),
                       "synchronized, biased locking on from the start: the second post's +UseBiasedLocking"),
    "monitor-default": ("monitor", (), "synchronized with this JDK's defaults (no biased locking since JDK 15)"),
    "reentrant": ("reentrant", (), "java.util.concurrent.locks.ReentrantLock (non-fair)"),
    "atomic": ("atomic", (), "AtomicLong.incrementAndGet, no lock (not in the posts)"),
    "stamped": ("stamped", (), "StampedLock write lock (not in the posts)"),
}
MONITORS = ["monitor-thin", "monitor-biased-delayed", "monitor-biased", "monitor-default"]
COLORS = {"monitor-thin": "#1f77b4", "monitor-biased-delayed": "#aec7e8", "monitor-biased": "#d62728",
          "monitor-default": "#9467bd", "reentrant": "#2ca02c", "atomic": "#7f7f7f", "stamped": "#ff7f0e"}

PRESETS = {
    "smoke": {"iterations": 200_000, "warmup_iterations": 10_000, "runs": 2, "forks": 1, "max_threads": 2,
              "variants": list(VARIANTS), "timeout": 60},
    "standard": {"iterations": 20_000_000, "warmup_iterations": 100_000, "runs": 5, "forks": 4, "max_threads": None,
                 "variants": list(VARIANTS), "timeout": 300},
    "full": {"iterations": 500_000_000, "warmup_iterations": 100_000, "runs": 10, "forks": 10, "max_threads": None,
             "variants": list(VARIANTS), "timeout": 3600},
}
NO_COARSENING = "-XX:-EliminateLocks"


def thread_counts(topo: Topology, preset: str) -> list[int]:
    cap = PRESETS[preset]["max_threads"]
    top = max(4, 2 * topo.logical) if preset != "full" else max(8, 2 * topo.logical)
    return list(range(1, (cap or top) + 1))


def cells(preset: str, topo: Topology, jdks: list[Jdk]) -> list[Cell]:
    p = PRESETS[preset]
    out: list[Cell] = []

    def cell(variant, jdk, threads, policy, workers, coarsening, grid):
        lock, flags, _ = VARIANTS[variant]
        flags = tuple(flags) + ((NO_COARSENING,) if coarsening == "off" else ())
        return Cell(variant=variant, kernel=KERNEL, jdk=jdk, flags=flags, forks=p["forks"], timeout=p["timeout"],
                    params={"lock": lock, "threads": threads, "iterations": p["iterations"],
                            "warmup-policy": policy, "warmup-iterations": p["warmup_iterations"],
                            "runs": p["runs"], "workers": workers},
                    labels={"grid": grid, "coarsening": coarsening})

    for jdk in jdks:
        for policy in ("single", "short"):
            for variant in p["variants"]:
                for threads in thread_counts(topo, preset):
                    out.append(cell(variant, jdk, threads, policy, "fresh", "on", "main"))
        for variant in MONITORS + ["reentrant"]:
            for workers in ("fresh", "reused"):
                for coarsening in ("on", "off"):
                    if workers == "fresh" and coarsening == "on":
                        continue  # that is the main grid's cell
                    out.append(cell(variant, jdk, 1, "short", workers, coarsening, "why"))
    return out


# ---------------------------------------------------------------- analysis

def measured(df: pd.DataFrame, metric: str = "throughput") -> pd.DataFrame:
    """Measured (not warm-up) rows of one metric from runs that passed their checks."""
    m = df[(df["status"] == "ok") & (df["metric"] == metric) & (~df["warmup"].astype(bool))].copy()
    m["threads"] = m["threads"].astype(int)
    m["jdk"] = m["jdk"].astype(str)
    return m


def _median(df, **where) -> float | None:
    sub = df
    for k, v in where.items():
        sub = sub[sub[k].astype(str) == str(v)]
    return float(sub["value"].median()) if len(sub) else None


def _machines(df: pd.DataFrame) -> list[str]:
    """The machines whose results these rows are (MACHINE = "all" gives several)."""
    return sorted(df["machine"].astype(str).unique()) if "machine" in df and len(df) else []


def _on(df: pd.DataFrame, machine: str | None):
    """Row mask of one machine (all rows when machine is None)."""
    return (df["machine"].astype(str) == machine) if machine is not None else pd.Series(True, index=df.index)


def _per_machine(fn, df: pd.DataFrame, *args) -> pd.DataFrame:
    """fn's table for each machine, stacked with the machine as the first index level."""
    parts = {m: fn(df[_on(df, m)], *args) for m in _machines(df)}
    return pd.concat({m: t for m, t in parts.items() if len(t)}, names=["machine"])


def summary(df: pd.DataFrame, grid: str = "main") -> pd.DataFrame:
    """Median ops/s (and spread) per JDK, warm-up policy, variant and threads (and machine, when several)."""
    if len(_machines(df)) > 1:
        return _per_machine(summary, df, grid).reset_index(level=0).reset_index(drop=True)
    m = measured(df)
    m = m[m["grid"] == grid]
    by = ["jdk", "warmup_policy", "workers", "coarsening", "variant", "threads"]
    s = plots.median_spread(m, by)
    for col in ("median", "min", "p25", "p75", "max"):
        s[col] = (s[col] / 1e6).round(1)
    s["spread %"] = s["spread %"].round(1)
    return s.rename(columns={"median": "median M ops/s", "min": "min", "p25": "p25", "p75": "p75", "max": "max",
                             "spread %": "IQR / median %"})


def wide_table(df: pd.DataFrame, jdk: str, policy: str) -> pd.DataFrame:
    """Threads x variant table of median ops/s, like the posts' tables, with unavailable cells named
    (machine x threads when the rows hold several machines)."""
    if len(_machines(df)) > 1:
        t = _per_machine(wide_table, df, jdk, policy).fillna("")
        t.columns.name = f"JDK {jdk}, {policy} warm-up: median ops/s"
        return t
    m = measured(df)
    m = m[(m["grid"] == "main") & (m["jdk"] == str(jdk)) & (m["warmup_policy"] == policy)]
    t = m.groupby(["threads", "variant"])["value"].median().unstack("variant")
    t = t.reindex(columns=[v for v in VARIANTS if v in t.columns])
    t = t.apply(lambda col: col.map(lambda v: f"{v:,.0f}" if pd.notna(v) else ""))
    u = df[(df["status"] == "unavailable") & (df["jdk"].astype(str) == str(jdk))]
    for v in u["variant"].unique():
        if v not in t.columns:
            t[v] = f"not available on JDK {jdk}"
    t.columns.name = f"JDK {jdk}, {policy} warm-up: median ops/s"
    return t


def reference_table(ref: pd.DataFrame) -> pd.DataFrame:
    r = ref[ref["metric"] == "throughput"]
    t = r.pivot_table(index=["threads"], columns=["cpu", "column"], values="value", aggfunc="first")
    return t.map(lambda v: f"{v:,.0f}")


def plot_reference(ref: pd.DataFrame):
    r = ref[ref["metric"] == "throughput"]
    cpus = list(dict.fromkeys(r["cpu"]))
    fig, axes = plt.subplots(1, len(cpus), figsize=(5.2 * len(cpus), 3.8), sharey=True)
    for ax, cpu in zip(np.atleast_1d(axes), cpus):
        for variant, sub in r[r["cpu"] == cpu].groupby("variant", sort=False):
            ax.plot(sub["threads"], sub["value"], "-o", color=COLORS[variant], label=f"{variant} ({sub['column'].iloc[0]})")
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(plots.SI)
        ax.set_title(f"{cpu}, JDK 1.6.0_29 (2011-11-22 post)")
        ax.set_xlabel("threads")
    np.atleast_1d(axes)[0].set_ylabel("ops/s (log)")
    np.atleast_1d(axes)[0].legend(fontsize=8)
    return fig


def plot_scaling(df: pd.DataFrame, policy: str, variants: list[str] | None = None, ref: pd.DataFrame | None = None):
    """ops/s vs threads per JDK: every measured run a dot, the median a line; the post's Nehalem numbers dashed."""
    m = measured(df)
    m = m[(m["grid"] == "main") & (m["warmup_policy"] == policy)]
    variants = [v for v in (variants or list(VARIANTS)) if v in set(m["variant"])]
    jdks = sorted(m["jdk"].unique(), key=int)
    machines = _machines(m) if len(_machines(m)) > 1 else [None]
    fig, axes = plt.subplots(len(machines), len(jdks), figsize=(5.6 * len(jdks), 4.2 * len(machines)), sharey=True,
                             squeeze=False)
    for ax, (machine, jdk) in zip(axes.flat, [(mc, j) for mc in machines for j in jdks]):
        sub = m[(m["jdk"] == jdk) & m["variant"].isin(variants) & _on(m, machine)]
        plots.points_and_median(ax, sub, "threads", "value", "variant", order=variants, colors=COLORS, log=True)
        if ref is not None and len(sub):
            top = sub["threads"].max()
            r = ref[(ref["metric"] == "throughput") & ref["cpu"].str.startswith("Nehalem") & (ref["threads"] <= top)]
            for v, rs in r.groupby("variant"):
                if v in variants:
                    ax.plot(rs["threads"], rs["value"], "--", color=COLORS[v], alpha=0.6, lw=1)
        missing = [v for v in variants if v not in set(sub["variant"])]
        title = (f"{machine}: " if machine else "") + f"JDK {jdk}, {policy} warm-up"
        if missing:
            title += f"\n(not available on JDK {jdk}: {', '.join(missing)})"
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("threads")
        ax.set_xticks(sorted(sub["threads"].unique()) if len(sub) else [])
    axes[0][0].set_ylabel("ops/s (log)")
    handles = {}
    for ax in axes.flat:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    if ref is not None:
        handles["the post, Nehalem (dashed)"] = plt.Line2D([], [], ls="--", color="grey")
    handles["one run (dot) / median (line)"] = plt.Line2D([], [], ls="", marker="o", color="grey", alpha=0.4)
    fig.legend(handles.values(), handles.keys(), loc="outside right center", fontsize=8)
    return fig


def why_table(df: pd.DataFrame) -> pd.DataFrame:
    """One thread: median ops/s of each monitor variant as the harness changes one factor at a time."""
    m = measured(df)
    m = m[m["threads"] == 1]
    m = m[(m["grid"] == "why") | ((m["grid"] == "main") & (m["warmup_policy"] == "short"))]
    m["harness"] = ("workers " + m["workers"].astype(str) + ", coarsening " + m["coarsening"].astype(str))
    keys = (["machine"] if len(_machines(m)) > 1 else []) + ["jdk", "variant", "harness"]
    t = m.groupby(keys)["value"].median().unstack("harness")
    order = ["workers fresh, coarsening on", "workers fresh, coarsening off",
             "workers reused, coarsening on", "workers reused, coarsening off"]
    t = t.reindex(columns=[c for c in order if c in t.columns])
    return t.map(lambda v: f"{v:,.0f}" if pd.notna(v) else "")


def plot_why(df: pd.DataFrame):
    """One thread, the oldest JDK: each monitor variant as the harness changes (one panel per machine when several)."""
    m = measured(df)
    m = m[(m["threads"] == 1) & (m["jdk"] == m["jdk"].min())]
    m = m[(m["grid"] == "why") | ((m["grid"] == "main") & (m["warmup_policy"] == "short"))]
    m = m[m["variant"].isin(MONITORS + ["reentrant"])]
    harness = [("fresh", "on", "post's harness"), ("fresh", "off", "coarsening off"),
               ("reused", "on", "same thread"), ("reused", "off", "same thread,\ncoarsening off")]
    variants = [v for v in MONITORS + ["reentrant"] if v in set(m["variant"])]
    machines = _machines(m) if len(_machines(m)) > 1 else [None]
    fig, axes = plt.subplots(len(machines), 1, figsize=(10, 4.2 * len(machines)), sharey=True, squeeze=False)
    width = 0.8 / max(1, len(variants))
    rng = np.random.default_rng(1)
    for ax, machine in zip(axes[:, 0], machines):
        mm = m[_on(m, machine)]
        for i, v in enumerate(variants):
            for j, (w, c, _) in enumerate(harness):
                sub = mm[(mm["variant"] == v) & (mm["workers"] == w) & (mm["coarsening"] == c)]["value"]
                if sub.empty:
                    continue
                x = j + (i - (len(variants) - 1) / 2) * width
                ax.bar(x, sub.median(), width * 0.9, color=COLORS[v], alpha=0.8, label=v if j == 0 else None)
                ax.scatter(x + rng.uniform(-width / 4, width / 4, len(sub)), sub, s=7, color="black", alpha=0.5, zorder=3)
        ax.set_xticks(range(len(harness)), [h[2] for h in harness])
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(plots.SI)
        ax.set_ylabel("ops/s, 1 thread (log); bar = median, dots = runs")
        ax.set_title((f"{machine}: " if machine else "") + f"One thread, JDK {m['jdk'].min() if len(m) else '?'}: "
                     "what the harness does to the lock being measured")
        ax.legend(fontsize=8, ncol=3)
    return fig


def policy_ratio(df: pd.DataFrame) -> pd.DataFrame:
    """short / single warm-up median ratio per variant and thread count (OSR check)."""
    m = measured(df)
    m = m[m["grid"] == "main"]
    keys = (["machine"] if len(_machines(m)) > 1 else []) + ["jdk", "variant", "threads", "warmup_policy"]
    med = m.groupby(keys)["value"].median().unstack("warmup_policy")
    if not {"short", "single"} <= set(med.columns):
        return pd.DataFrame()
    med["short / single"] = med["short"] / med["single"]
    return med[["short / single"]].unstack("threads").round(2)


# ---------------------------------------------------------------- claims and verdicts

CLAIMS = [
    Claim("locks.biased-costs-10pct", POST1, "01-lock-implementations",
          "Biased locking, in the un-contended case, is ~10% more expensive than atomic locking.",
          "~10% more expensive (Figures 1-3; JDK 1.6.0_29)",
          "1 thread, single warm-up, new threads per run (the post's harness): median ops/s of -UseBiasedLocking over "
          "+UseBiasedLocking with JDK 6's 4 s start-up delay; holds if biased is 3-25% slower."),
    Claim("locks.monitor-throughput-limit", POST1, "01-lock-implementations",
          "As contention increases, language monitor locks quickly reach a throughput limit regardless of thread count.",
          "flat from 2 threads on (Figures 1-3)",
          "monitor-thin, single warm-up: median ops/s at 2..N threads stay within a factor 1.5 of each other."),
    Claim("locks.reentrant-best-uncontended", POST1, "01-lock-implementations",
          "ReentrantLock gives the best un-contended performance.",
          "62,876,566 vs 53,283,461 ops/s (Nehalem, 1 thread, 2011-11-22 table)",
          "1 thread, single warm-up, post's harness: ReentrantLock median ops/s above every synchronized variant's."),
    Claim("locks.reentrant-scales-better", POST1, "01-lock-implementations",
          "ReentrantLock scales significantly better with increasing contention than synchronized.",
          "e.g. 19,010,725 vs 5,514,056 ops/s at 8 threads (Nehalem)",
          "2..N threads, single warm-up: ReentrantLock median at least 1.2x monitor-thin's at most thread counts."),
    Claim("locks.reentrant-dip-at-2", POST1, "01-lock-implementations",
          "ReentrantLock has reduced performance when 2 threads are contending.",
          "10,217,186 at 2 threads vs 14,108,622 at 3 (Nehalem); 6,038,923 vs 24,147,807 (Sandy Bridge)",
          "ReentrantLock median at 2 threads below 0.9x its median at 3 threads (single warm-up)."),
    Claim("locks.sandybridge-vs-nehalem", POST1, "01-lock-implementations",
          "Sandy Bridge suffers from slower atomic instructions at low contention and shows its strength at high contention.",
          "Figures 1-3 (Nehalem, Westmere, Sandy Bridge)",
          "needs two CPU generations side by side: compare machines with `mechsym import`."),
    Claim("locks.biased-huge-benefit", POST2, "02-biased-locking",
          "Biased locking has a huge benefit in the un-contended single threaded case.",
          "450,950,969 vs 53,283,461 ops/s = 8.5x (Nehalem); 396,511,324 vs 34,500,407 = 11.5x (Sandy Bridge)",
          "1 thread, short warm-ups, the post's harness (new threads per run, JIT defaults): +UseBiasedLocking "
          "(delay 0) over -UseBiasedLocking; holds if at least 2x."),
    Claim("locks.biased-huge-benefit-same-thread", POST2, "02-biased-locking",
          "Biased locking has a huge benefit un-contended, when the lock stays biased to one thread and is not coarsened away.",
          "8.5x (Nehalem), 11.5x (Sandy Bridge)",
          "1 thread, short warm-ups, the same worker thread for every run and -XX:-EliminateLocks: biased (delay 0) over "
          "thin; holds if at least 2x."),
    Claim("locks.biased-4-5-cycles", POST2, "02-biased-locking",
          "Biased locking when un-contended, and not revoked, only adds 4-5 cycles of cost.",
          "4-5 cycles",
          "ns per lock + increment + unlock of the biased lock (same thread, no coarsening), in cycles at this CPU's "
          "nominal clock: an upper bound on what the bias itself adds; holds if at most 5 cycles."),
    Claim("locks.startup-delay-matters", POST2, "02-biased-locking",
          "-XX:BiasedLockingStartupDelay=0 needs to be set for lean applications and micro-benchmarks.",
          "4 s default delay hid biasing in the first post",
          "1 thread, same thread, no coarsening: biased with delay 0 over biased with a 4 s delay (lock allocated at start-up); holds if at least 2x."),
    Claim("locks.osr-no-difference", POST2, "02-biased-locking",
          "Avoiding OSR (ten short warm-ups instead of one long one) does not make a material difference.",
          "no material difference",
          "median of short/single warm-up ratios over every variant and thread count within 10% of 1, on every JDK."),
    Claim("locks.reentrant-scales-except-2", POST2, "02-biased-locking",
          "ReentrantLocks scale better than synchronised locks under contention, except with 2 contending threads.",
          "Nehalem: 14.1M vs 13.3M at 3 threads, 19.0M vs 5.5M at 8; but 10.2M vs 18.5M at 2",
          "short warm-ups: ReentrantLock above monitor-thin at 3..N threads (median) and below it at 2 threads."),
]
CLAIM = {c.id: c for c in CLAIMS}


def _clock_ghz(df: pd.DataFrame, machine: str) -> float | None:
    """The CPU clock of the machine the results come from: its run metadata, or this machine's own /proc/cpuinfo."""
    ids = set(df["run_id"].unique()) if "run_id" in df else set()
    try:
        for meta in store.runs(NAME, machine or None, include_incomplete=True):
            if meta["run_id"] in ids and meta.get("machine", {}).get("cpu_mhz"):
                return float(meta["machine"]["cpu_mhz"]) / 1000
    except Exception:  # no store, or an unknown machine: fall back to this machine only
        pass
    mhz = store.cpu_mhz() if machine in ("", store.machine_id()) else None
    return mhz / 1000 if mhz else None


def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """One verdict per claim (per JDK where biased locking is not the subject), per machine when several."""
    if len(_machines(df)) > 1:
        return [v for machine in _machines(df) for v in verdicts(df[_on(df, machine)].reset_index(drop=True))]
    out: list[Verdict] = []
    m = measured(df)
    machine = ",".join(sorted(df["machine"].astype(str).unique())) if "machine" in df else ""
    if m.empty:
        return [unmeasurable(c, "no measured results", machine) for c in CLAIMS]
    jdks = sorted(m["jdk"].unique(), key=int)
    biased_jdks = [j for j in jdks if len(m[(m["jdk"] == j) & (m["variant"] == "monitor-biased")])]
    main, why = m[m["grid"] == "main"], m
    fmt = lambda v: f"{v / 1e6:,.1f}M ops/s"

    def biased_claim(cid, a_where, b_where, threshold, lo=None):
        c = CLAIM[cid]
        if not biased_jdks:
            return unmeasurable(c, "no JDK here has biased locking (removed in JDK 18); add a JDK <= 17 to MECHSYM_JDKS", machine)
        j = biased_jdks[0]
        a, b = _median(why, jdk=j, **a_where), _median(why, jdk=j, **b_where)
        if a is None or b is None:
            return unmeasurable(c, "cells missing from these results", machine)
        ratio = a / b
        holds = ratio >= threshold if lo is None else lo <= ratio <= threshold
        return judge(c, holds, f"JDK {j}: {fmt(a)} vs {fmt(b)} = {ratio:.2f}x", then_value=None, now_value=ratio, machine=machine)

    # post 1: biased costs ~10%: thin / biased-delayed in [1.03, 1.25]
    v = biased_claim("locks.biased-costs-10pct",
                     dict(grid="main", variant="monitor-thin", threads=1, warmup_policy="single"),
                     dict(grid="main", variant="monitor-biased-delayed", threads=1, warmup_policy="single"), 1.25, lo=1.03)
    out.append(Verdict(v.claim, v.outcome, v.now.replace("x", "x (thin / biased)"), v.why, 1.10, v.now_value, machine) if v.now_value else v)

    for j in jdks:
        scope = f"JDK {j}"
        sub = main[(main["jdk"] == j) & (main["warmup_policy"] == "single")]
        thin_name = "monitor-thin" if len(sub[sub["variant"] == "monitor-thin"]) else "monitor-default"
        med = sub.groupby(["variant", "threads"])["value"].median()
        threads = sorted(sub["threads"].unique())
        contended = [t for t in threads if t >= 2]
        # throughput limit
        c = CLAIM["locks.monitor-throughput-limit"]
        vals = [med.get((thin_name, t)) for t in contended]
        vals = [x for x in vals if x is not None and not np.isnan(x)]
        if len(vals) >= 2:
            spread = max(vals) / min(vals)
            out.append(judge(c, spread <= 1.5, f"{scope} ({thin_name}): 2..{max(contended)} threads span "
                             f"{fmt(min(vals))}..{fmt(max(vals))} ({spread:.2f}x)", now_value=spread, machine=machine))
        else:
            out.append(unmeasurable(c, f"{scope}: fewer than two contended thread counts", machine))
        # reentrant best uncontended
        c = CLAIM["locks.reentrant-best-uncontended"]
        r1 = med.get(("reentrant", 1))
        mons = {v: med.get((v, 1)) for v in MONITORS if (v, 1) in med}
        if r1 is not None and mons:
            best = max(mons, key=mons.get)
            out.append(judge(c, all(r1 > x for x in mons.values()),
                             f"{scope}: ReentrantLock {fmt(r1)}, best monitor {best} {fmt(mons[best])}",
                             then_value=62876566 / 53283461, now_value=r1 / mons[best], machine=machine))
        # reentrant scales better
        c = CLAIM["locks.reentrant-scales-better"]
        wins = [t for t in contended if med.get(("reentrant", t), 0) >= 1.2 * med.get((thin_name, t), np.inf)]
        if contended:
            ratios = [med.get(("reentrant", t), np.nan) / med.get((thin_name, t), np.nan) for t in contended]
            out.append(judge(c, len(wins) > len(contended) / 2,
                             f"{scope}: ReentrantLock / {thin_name} = " + ", ".join(f"{t}t {r:.2f}x" for t, r in zip(contended, ratios)),
                             then_value=19010725 / 5514056, now_value=float(np.nanmedian(ratios)), machine=machine))
        # dip at 2
        c = CLAIM["locks.reentrant-dip-at-2"]
        r2, r3 = med.get(("reentrant", 2)), med.get(("reentrant", 3))
        if r2 is not None and r3 is not None:
            out.append(judge(c, r2 < 0.9 * r3, f"{scope}: {fmt(r2)} at 2 threads vs {fmt(r3)} at 3 ({r2 / r3:.2f}x)",
                             then_value=10217186 / 14108622, now_value=r2 / r3, machine=machine))
        else:
            out.append(unmeasurable(c, f"{scope}: needs 2 and 3 threads", machine))
    out.append(unmeasurable(CLAIM["locks.sandybridge-vs-nehalem"],
                            "one CPU generation per machine; import another machine's results to compare", machine))

    # post 2
    v = biased_claim("locks.biased-huge-benefit",
                     dict(grid="main", variant="monitor-biased", threads=1, warmup_policy="short"),
                     dict(grid="main", variant="monitor-thin", threads=1, warmup_policy="short"), 2.0)
    out.append(Verdict(v.claim, v.outcome, v.now.replace("x", "x (biased / thin)", 1) if v.now_value else v.now, v.why,
                       450950969 / 53283461 if v.now_value else None, v.now_value, machine))
    v = biased_claim("locks.biased-huge-benefit-same-thread",
                     dict(grid="why", variant="monitor-biased", workers="reused", coarsening="off"),
                     dict(grid="why", variant="monitor-thin", workers="reused", coarsening="off"), 2.0)
    out.append(Verdict(v.claim, v.outcome, v.now, v.why, 450950969 / 53283461 if v.now_value else None, v.now_value, machine))
    c = CLAIM["locks.biased-4-5-cycles"]
    if biased_jdks:
        b = _median(why, jdk=biased_jdks[0], grid="why", variant="monitor-biased", workers="reused", coarsening="off")
        ghz = _clock_ghz(df, machine)
        if b and ghz:
            cycles = 1e9 / b * ghz
            out.append(judge(c, cycles <= 5, f"JDK {biased_jdks[0]}: {1e9 / b:.2f} ns = {cycles:.1f} cycles at the nominal {ghz:.2f} GHz "
                             "for lock + increment + unlock", then_value=4.5, now_value=cycles, machine=machine))
        else:
            out.append(unmeasurable(c, "no same-thread biased cell, or the CPU clock of these results is not recorded "
                                       "(runs stored before cpu_mhz was recorded can only be judged on their own machine)", machine))
    else:
        out.append(unmeasurable(c, "no JDK here has biased locking", machine))
    out.append(biased_claim("locks.startup-delay-matters",
                            dict(grid="why", variant="monitor-biased", workers="reused", coarsening="off"),
                            dict(grid="why", variant="monitor-biased-delayed", workers="reused", coarsening="off"), 2.0))
    # OSR
    c = CLAIM["locks.osr-no-difference"]
    for j in jdks:
        med = main[main["jdk"] == j].groupby(["variant", "threads", "warmup_policy"])["value"].median().unstack("warmup_policy")
        if {"short", "single"} <= set(med.columns):
            r = (med["short"] / med["single"]).dropna()
            mid = float(r.median())
            out.append(judge(c, abs(mid - 1) <= 0.10, f"JDK {j}: short/single median ratio {mid:.2f} "
                             f"(range {r.min():.2f}..{r.max():.2f} over {len(r)} cells)", then_value=1.0, now_value=mid, machine=machine))
    # reentrant vs synchronized except at 2
    c = CLAIM["locks.reentrant-scales-except-2"]
    for j in jdks:
        sub = main[(main["jdk"] == j) & (main["warmup_policy"] == "short")]
        thin_name = "monitor-thin" if len(sub[sub["variant"] == "monitor-thin"]) else "monitor-default"
        med = sub.groupby(["variant", "threads"])["value"].median()
        ts = sorted(t for t in sub["threads"].unique() if t >= 2)
        if len(ts) >= 2:
            ratios = {t: med.get(("reentrant", t), np.nan) / med.get((thin_name, t), np.nan) for t in ts}
            holds = ratios[2] < 1 and all(ratios[t] > 1 for t in ts if t >= 3)
            out.append(judge(c, holds, f"JDK {j}: ReentrantLock / {thin_name} = " + ", ".join(f"{t}t {r:.2f}x" for t, r in ratios.items()),
                             then_value=10217186 / 18519295, now_value=ratios[2], machine=machine))
    return out


def notebook_verdicts(df: pd.DataFrame, notebook: str) -> list[Verdict]:
    return [v for v in verdicts(df) if v.claim.notebook == notebook]
