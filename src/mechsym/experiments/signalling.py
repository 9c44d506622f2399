"""Signalling between two threads: condition variables vs volatile counters, Java vs C.

Notebooks 03 and 08. Posts: "Locks & Condition Variables - Latency Impact"
(2011-11-05) and "Inter Thread Latency" (2011-08-09), Martin Thompson.
Kernels: mechsym.signalling.LockedSignalling (a ReentrantLock and two
Conditions), mechsym.signalling.VolatilePingPong (busy spin on two volatile
counters) and c-src/pingpong.c (the same ping-pong with GCC atomic builtins).

The sweep: variant x CPU placement x JDK (17, 25; C has none) x forks. The
placements come from the topology: cross-core (the posts' `taskset -c 2,4`),
smt (two siblings of one core), same-cpu (both threads on one CPU) and
unpinned. Pinning is per thread, inside the kernel (`--pin=a,b`:
Affinity.pinCurrentThread in Java, pthread_setaffinity_np in C), never by
taskset on the process, which on a 2-CPU machine pins nothing; the kernels
record it in their `pinning` column ("thread" or "none").

A busy spin with both threads on one CPU only moves once per scheduler time
slice: those runs are bounded (`--max-ms`) and report the exchanges they
completed with deadline_hit = 1; the yielding variants show what the same
placement costs when the waiting thread gives the CPU up.
"""

from __future__ import annotations

import dataclasses

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import FuncFormatter

from .. import MechsymError, plots
from ..cpus import Topology
from ..jdk import Jdk
from ..sweep import Cell
from ..verdicts import Claim, Verdict, legacy_judge as judge, unmeasurable

NAME = "signalling"
TITLE = "Thread-to-thread signalling: lock + conditions vs volatile ping-pong, Java vs C, per CPU placement"
NOTEBOOKS = ["03-condition-variables", "08-inter-thread-latency"]
POST_CV = "2011-11-05-locks-condition-variables-latency-impact.md"
POST_ITL = "2011-08-09-inter-thread-latency.md"
REF_CV = "2011-11-05-locks-condition-variables"
REF_ITL = "2011-08-09-inter-thread-latency"

LOCKED = "mechsym.signalling.LockedSignalling"
VOLATILE = "mechsym.signalling.VolatilePingPong"
C_BINARY = "pingpong"

# variant -> (kernel, wait mode or None, language, mechanism, what it stands for)
VARIANTS = {
    "locked": (LOCKED, None, "java", "lock+condition",
               "ReentrantLock + two Conditions (the 2011-11-05 post)"),
    "volatile-spin": (VOLATILE, "spin", "java", "volatile",
                      "two volatile counters, busy spin (the 2011-08-09 post, Java)"),
    "volatile-yield": (VOLATILE, "yield", "java", "volatile",
                       "the same with Thread.yield() in the wait loop (not in the posts)"),
    "c-spin": ("c:" + C_BINARY, "spin", "c", "volatile",
               "two counters, __sync_add_and_fetch, busy spin (the 2011-08-09 post, C++)"),
    "c-yield": ("c:" + C_BINARY, "yield", "c", "volatile",
                "the same with sched_yield() in the wait loop (not in the posts)"),
}
PLACEMENTS = ["cross-core", "smt", "same-cpu", "unpinned"]
PLACEMENT_TEXT = {
    "cross-core": "two CPUs on different cores (the posts' taskset -c 2,4)",
    "smt": "two SMT siblings of one core",
    "same-cpu": "both threads on one CPU",
    "unpinned": "no pinning: the scheduler decides",
}
COLORS = {"locked": "#d62728", "volatile-spin": "#1f77b4", "volatile-yield": "#aec7e8",
          "c-spin": "#2ca02c", "c-yield": "#98df8a"}
PERCENTILES = ["p50", "p90", "p99", "p99.9", "max"]
PCT_VALUE = {"p50": 0.5, "p90": 0.9, "p99": 0.99, "p99.9": 0.999, "max": 0.9999}

PRESETS = {
    "smoke": {"locked_iterations": 2_000, "volatile_iterations": 100_000, "yield_iterations": 20_000,
              "runs": 2, "warmup_runs": 1, "forks": 1, "max_ms": 5_000, "same_cpu_max_ms": 150,
              "same_cpu_runs": 1, "locked_sample_every": 10, "volatile_sample_every": 100,
              "yield_sample_every": 100, "timeout": 60},
    "standard": {"locked_iterations": 10_000, "volatile_iterations": 2_000_000, "yield_iterations": 200_000,
                 "runs": 5, "warmup_runs": 1, "forks": 3, "max_ms": 5_000, "same_cpu_max_ms": 1_000,
                 "same_cpu_runs": 3, "locked_sample_every": 10, "volatile_sample_every": 1_000,
                 "yield_sample_every": 100, "timeout": 240},
    "full": {"locked_iterations": 10_000_000, "volatile_iterations": 500_000_000, "yield_iterations": 10_000_000,
             "runs": 5, "warmup_runs": 1, "forks": 5, "max_ms": 3_600_000, "same_cpu_max_ms": 10_000,
             "same_cpu_runs": 3, "locked_sample_every": 100, "volatile_sample_every": 10_000,
             "yield_sample_every": 1_000, "timeout": 7_200},
}


def pin_for(topo: Topology, placement: str) -> list[int] | None:
    """The two CPUs of a placement ([] = unpinned), None when the machine lacks it.

    An unknown placement is a MechsymError naming the allowed ones."""
    if placement not in PLACEMENTS:
        raise MechsymError(f"placement '{placement}': allowed placements are {', '.join(PLACEMENTS)}")
    return topo.placement(placement)


def cell_for(variant: str, placement: str, preset: str, topo: Topology, jdk: Jdk | None) -> Cell:
    """One cell of the sweep (also used by the tests)."""
    if variant not in VARIANTS:
        raise MechsymError(f"variant '{variant}': allowed variants are {', '.join(VARIANTS)}")
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    p = PRESETS[preset]
    kernel, wait, language, mechanism, _ = VARIANTS[variant]
    cpus = pin_for(topo, placement)
    runs, warmup = p["runs"], p["warmup_runs"]
    if variant == "locked":
        params = {"iterations": p["locked_iterations"], "sample-every": p["locked_sample_every"]}
    else:
        bounded = placement == "same-cpu" and wait == "spin"
        iterations = p["yield_iterations"] if wait == "yield" else p["volatile_iterations"]
        sample = p["yield_sample_every"] if wait == "yield" else p["volatile_sample_every"]
        if bounded:
            # one exchange per time slice: time-bounded, every exchange sampled
            runs, sample = p["same_cpu_runs"], 1
        params = {"iterations": iterations, "wait": wait, "sample-every": sample,
                  "max-ms": p["same_cpu_max_ms"] if bounded else p["max_ms"]}
    params.update({"runs": runs, "warmup-runs": warmup, "pin": ",".join(map(str, cpus or []))})
    labels = {"placement": placement, "language": language, "mechanism": mechanism}
    unavailable = None if cpus is not None else topo.missing_reason(placement)
    return Cell(variant=variant, kernel=kernel, params=params, labels=labels,
                jdk=None if language == "c" else jdk, cpus=None, forks=p["forks"], timeout=p["timeout"],
                unavailable=unavailable)


def cells(preset: str, topo: Topology, jdks: list[Jdk], **_overrides) -> list[Cell]:
    """Every variant x placement x JDK (smoke: the first JDK only, to stay within seconds).

    The forks are interleaved: round r runs one fork of every cell before round r + 1 starts, so a slow drift of
    the machine (on a VM the host may move or share the vCPUs) spreads over every cell instead of biasing the
    placement that happened to run last. The round is the `round` column; `fork` is 0 in every row."""
    if preset == "smoke":
        jdks = list(jdks)[:1]
    one: list[Cell] = []
    for placement in PLACEMENTS:
        for jdk in jdks:
            for variant in ("locked", "volatile-spin", "volatile-yield"):
                one.append(cell_for(variant, placement, preset, topo, jdk))
        for variant in ("c-spin", "c-yield"):
            one.append(cell_for(variant, placement, preset, topo, None))
    rounds = PRESETS[preset]["forks"]
    out: list[Cell] = []
    for r in range(rounds):
        for c in one:
            if c.unavailable and r > 0:
                continue
            out.append(dataclasses.replace(c, forks=1, labels={**c.labels, "round": r}, params=dict(c.params)))
    return out


# ---------------------------------------------------------------- analysis

def _ok(df: pd.DataFrame) -> pd.DataFrame:
    m = df[df["status"] == "ok"].copy() if "status" in df else df.copy()
    m["jdk"] = m["jdk"].astype(str)
    m["warmup"] = m["warmup"].astype(str).str.lower().isin(["true", "1"])
    return m


def measured(df: pd.DataFrame, metric: str = "ns_per_op") -> pd.DataFrame:
    """Measured (not warm-up) rows of one metric from forks that passed their checks."""
    m = _ok(df)
    m = m[(m["metric"] == metric) & (~m["warmup"])]
    m["runtime"] = np.where(m["language"] == "c", "C (gcc)", "JDK " + m["jdk"])
    return m


def summary(df: pd.DataFrame) -> pd.DataFrame:
    """ns/op per variant, runtime and placement: median, spread, runs; runs that hit their deadline counted."""
    m = measured(df)
    s = plots.median_spread(m, ["variant", "runtime", "placement"])
    hits = measured(df, "deadline_hit").groupby(["variant", "runtime", "placement"])["value"].sum()
    s["runs at deadline"] = [int(hits.get((v, r, p), 0)) for v, r, p in zip(s["variant"], s["runtime"], s["placement"])]
    s["placement"] = pd.Categorical(s["placement"], PLACEMENTS, ordered=True)
    s["variant"] = pd.Categorical(s["variant"], list(VARIANTS), ordered=True)
    s = s.sort_values(["variant", "placement", "runtime"]).reset_index(drop=True)
    s["median ns/op"] = s["median"].map(_fmt_ns)
    s["min"] = s["min"].map(_fmt_ns)
    s["max"] = s["max"].map(_fmt_ns)
    s["IQR / median %"] = s["spread %"].round(1)
    return s[["variant", "runtime", "placement", "median ns/op", "min", "max", "IQR / median %", "n", "runs at deadline"]]


def _fmt_ns(v: float) -> str:
    if v is None or pd.isna(v):
        return ""
    if v >= 1e6:
        return f"{v / 1e6:,.2f} ms"
    if v >= 1e3:
        return f"{v / 1e3:,.2f} µs"
    return f"{v:,.1f} ns"


def _median(df: pd.DataFrame, metric: str = "ns_per_op", **where) -> float | None:
    m = measured(df, metric)
    for k, v in where.items():
        m = m[m[k].astype(str) == str(v)]
    return float(m["value"].median()) if len(m) else None


def wide_table(df: pd.DataFrame, variants: list[str] | None = None, metric: str = "ns_per_op") -> pd.DataFrame:
    """placement x (variant, runtime) table of medians, like the posts' results; cells the machine lacks named."""
    m = measured(df, metric)
    if variants:
        m = m[m["variant"].isin(variants)]
    t = m.groupby(["placement", "variant", "runtime"])["value"].median().unstack(["variant", "runtime"])
    t = t.reindex([p for p in PLACEMENTS if p in t.index])
    fmt = _fmt_ns if metric == "ns_per_op" else (lambda v: f"{plots.si(v)} {m['unit'].iloc[0]}" if pd.notna(v) else "")
    t = t.apply(lambda col: col.map(fmt))
    u = unavailable_placements(df)
    for p, why in u.items():
        t.loc[p] = f"not on this machine: {why}"
    t.index.name = "placement"
    t.columns.names = ["variant", "runtime"]
    return t.reindex([p for p in PLACEMENTS if p in t.index])


def unavailable_placements(df: pd.DataFrame) -> dict[str, str]:
    if "status" not in df:
        return {}
    u = df[df["status"] == "unavailable"]
    return {p: n for p, n in zip(u["placement"], u["note"])}


def placements_table(topo: Topology | None = None) -> pd.DataFrame:
    """Which CPUs each placement uses on this machine, or why it is missing."""
    from ..cpus import read_topology

    topo = topo or read_topology()
    rows = []
    for p in PLACEMENTS:
        cpus = topo.placement(p)
        rows.append({"placement": p, "meaning": PLACEMENT_TEXT[p],
                     "threads pinned to": ("not pinned" if cpus == [] else
                                           f"CPU {cpus[0]} and CPU {cpus[1]}" if cpus else
                                           f"not available: {topo.missing_reason(p)}")})
    return pd.DataFrame(rows).set_index("placement")


# ---- the posts' numbers

def reference_cv_table(ref: pd.DataFrame) -> pd.DataFrame:
    """The 2011-11-05 results: system x pinned/unpinned, ns/op and ops/s, with the unpinned/pinned ratio."""
    r = ref[ref["metric"].isin(["ns_per_op", "throughput"])]
    t = r.pivot_table(index=["os", "cpu"], columns=["metric", "placement"], values="value", aggfunc="first", sort=False)
    out = pd.DataFrame(index=t.index)
    for pl in ("pinned", "unpinned"):
        out[f"ns/op {pl}"] = t[("ns_per_op", pl)].map(lambda v: f"{v:,.0f}")
        out[f"ops/s {pl}"] = t[("throughput", pl)].map(lambda v: f"{v:,.0f}")
    out["unpinned / pinned"] = (t[("ns_per_op", "unpinned")] / t[("ns_per_op", "pinned")]).map(lambda v: f"{v:.1f}x")
    return out


def reference_itl_table(ref: pd.DataFrame) -> pd.DataFrame:
    """The 2011-08-09 results: Java vs C++, ns/op and ops/s."""
    r = ref[(ref["table"] == "Results") & ref["metric"].isin(["duration", "ns_per_op", "throughput"])]
    t = r.pivot_table(index=["language", "command"], columns="metric", values="value", aggfunc="first", sort=False)
    t = t[["duration", "ns_per_op", "throughput"]]
    return t.map(lambda v: f"{v:,.0f}")


def plot_reference_cv(ref: pd.DataFrame):
    """The 2011-11-05 post's ns/op, pinned vs unpinned, per system (bars)."""
    r = ref[ref["metric"] == "ns_per_op"].copy()
    r["system"] = r["os"].str.replace(" 64-bit", "").str.replace(" Professional", "") + "\n" + r["cpu"]
    systems = list(dict.fromkeys(r["system"]))
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    for i, pl in enumerate(["pinned", "unpinned"]):
        vals = [r[(r["system"] == s) & (r["placement"] == pl)]["value"].iloc[0] for s in systems]
        xs = np.arange(len(systems)) + (i - 0.5) * 0.38
        bars = ax.bar(xs, vals, 0.36, label=pl, color=["#1f77b4", "#ff7f0e"][i])
        ax.bar_label(bars, labels=[f"{v:,.0f}" for v in vals], fontsize=8)
    ax.set_xticks(range(len(systems)), systems, fontsize=8)
    ax.set_ylabel("ns/op (post, JDK 1.6.0)")
    ax.set_title("2011-11-05: lock + condition ping-pong, 10 M exchanges")
    ax.legend()
    return fig


# ---- this machine

def plot_ns_per_op(df: pd.DataFrame, variants: list[str] | None = None, ref_lines: dict[str, float] | None = None,
                   title: str = ""):
    """ns/op per placement (x), one colour per variant and runtime: every run a dot, the median a bar tick.

    ref_lines: {label: ns/op} drawn as dashed horizontal lines (the posts' numbers)."""
    m = measured(df)
    variants = [v for v in (variants or list(VARIANTS)) if v in set(m["variant"])]
    m = m[m["variant"].isin(variants)]
    groups = [(v, r) for v in variants for r in sorted(m[m["variant"] == v]["runtime"].unique())]
    placements = [p for p in PLACEMENTS if p in set(m["placement"])]
    fig, ax = plt.subplots(figsize=(max(7.0, 1.9 * len(placements) + 2), 4.4))
    width = 0.8 / max(1, len(groups))
    rng = np.random.default_rng(0)
    shades = {"JDK 17": 1.0, "JDK 25": 0.6}
    for gi, (v, rt) in enumerate(groups):
        sub = m[(m["variant"] == v) & (m["runtime"] == rt)]
        color = COLORS.get(v, "#7f7f7f")
        alpha = shades.get(rt, 0.85)
        for pi, p in enumerate(placements):
            vals = sub[sub["placement"] == p]["value"]
            if vals.empty:
                continue
            x = pi + (gi - (len(groups) - 1) / 2) * width
            ax.scatter(x + rng.uniform(-width / 4, width / 4, len(vals)), vals, s=10, color=color, alpha=0.5 * alpha,
                       linewidths=0)
            ax.hlines(vals.median(), x - width * 0.45, x + width * 0.45, color=color, lw=2.2, alpha=alpha,
                      label=f"{v} ({rt})" if pi == 0 or not ax.get_legend_handles_labels()[1].count(f"{v} ({rt})") else None)
    for i, (label, value) in enumerate((ref_lines or {}).items()):
        ax.axhline(value, ls="--", lw=1, color="#555555", alpha=0.7)
        ax.annotate(label, (len(placements) - 0.5, value), fontsize=7, ha="right", va="bottom" if i % 2 == 0 else "top",
                    color="#555555")
    ax.set_xticks(range(len(placements)), placements)
    ax.set_yscale("log")
    ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _p: _fmt_ns(y)))
    ax.set_ylabel("ns/op = duration / (2 x exchanges), log\n(dots = runs, bar = median)")
    ax.set_title(title or "This machine: ns per one-way signal, per CPU placement", fontsize=10)
    handles, labels = ax.get_legend_handles_labels()
    uniq = dict(zip(labels, handles))
    ax.legend(uniq.values(), uniq.keys(), fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def comparison_cv(df: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """The post's Linux numbers beside this machine's: locked ns/op pinned, unpinned, ratio; volatile ns/op."""
    rows = []
    r = ref[(ref["metric"] == "ns_per_op")]
    for (os_, cpu), sub in r.groupby(["os", "cpu"], sort=False):
        pinned = sub[sub["placement"] == "pinned"]["value"].iloc[0]
        unpinned = sub[sub["placement"] == "unpinned"]["value"].iloc[0]
        rows.append({"where": f"post: {os_}, {cpu}, JDK 1.6.0", "lock ns/op pinned (cross-core)": f"{pinned:,.0f}",
                     "lock ns/op unpinned": f"{unpinned:,.0f}", "unpinned / pinned": f"{unpinned / pinned:.1f}x",
                     "lock ns/op same CPU": "", "volatile ns/op pinned": "< 50 (2011-08-09 post)",
                     "lock / volatile": f"~{pinned / 50:,.0f}x (with 50 ns)"})
    m = measured(df)
    for jdk in sorted(m[m["language"] == "java"]["jdk"].unique(), key=lambda j: int(j) if j.isdigit() else 0):
        med = lambda v, p: _median(df, variant=v, jdk=jdk, placement=p)
        lp, lu, ls, vp = med("locked", "cross-core"), med("locked", "unpinned"), med("locked", "same-cpu"), \
            med("volatile-spin", "cross-core")
        rows.append({"where": f"this machine, JDK {jdk}", "lock ns/op pinned (cross-core)": _fmt_ns(lp),
                     "lock ns/op unpinned": _fmt_ns(lu),
                     "unpinned / pinned": f"{lu / lp:.2f}x" if lp and lu else "",
                     "lock ns/op same CPU": _fmt_ns(ls), "volatile ns/op pinned": _fmt_ns(vp),
                     "lock / volatile": f"{lp / vp:,.0f}x" if lp and vp else ""})
    return pd.DataFrame(rows).set_index("where")


def java_vs_c(df: pd.DataFrame) -> pd.DataFrame:
    """Busy-spin ping-pong per placement: median ns/op of each JDK and of C, and Java / C."""
    m = measured(df)
    m = m[m["variant"].isin(["volatile-spin", "c-spin"])]
    t = m.groupby(["placement", "runtime"])["value"].median().unstack("runtime")
    t = t.reindex([p for p in PLACEMENTS if p in t.index])
    out = t.apply(lambda col: col.map(_fmt_ns))
    if "C (gcc)" in t:
        for rt in [c for c in t.columns if c != "C (gcc)"]:
            out[f"{rt} / C"] = (t[rt] / t["C (gcc)"]).map(lambda v: f"{v:.2f}" if pd.notna(v) else "")
    for p, why in unavailable_placements(df).items():
        out.loc[p] = f"not on this machine: {why}"
    hits = measured(df, "deadline_hit")
    hits = hits[hits["variant"].isin(["volatile-spin", "c-spin"])].groupby("placement")["value"].agg(["sum", "count"])
    out["runs stopped at deadline"] = [f"{int(hits.loc[p, 'sum'])} of {int(hits.loc[p, 'count'])}" if p in hits.index
                                       else "" for p in out.index]
    return out.reindex([p for p in PLACEMENTS if p in out.index])


def comparison_itl(df: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """The post's Java and C++ results beside this machine's cross-core busy-spin numbers."""
    rows = []
    r = ref[ref["table"] == "Results"]
    for lang, sub in r.groupby("language", sort=False):
        get = lambda k: sub[sub["metric"] == k]["value"].iloc[0]
        rows.append({"where": f"post: {lang}, Sandy Bridge 2.2 GHz, taskset -c 2,4", "ns/op": f"{get('ns_per_op'):,.0f}",
                     "ops/s": f"{get('throughput'):,.0f}", "round trip p50": "", "round trip p99.9": ""})
    m = measured(df)
    for rt in sorted(m[m["variant"].isin(["volatile-spin", "c-spin"])]["runtime"].unique()):
        v = "c-spin" if rt.startswith("C") else "volatile-spin"
        where = dict(variant=v, runtime=rt, placement="cross-core")
        ns, ops = _median(df, **where), _median(df, "throughput", **where)
        p50, p999 = _median(df, "round_trip_p50", **where), _median(df, "round_trip_p99.9", **where)
        rows.append({"where": f"this machine: {rt}, cross-core", "ns/op": _fmt_ns(ns),
                     "ops/s": f"{ops:,.0f}" if ops else "", "round trip p50": _fmt_ns(p50),
                     "round trip p99.9": _fmt_ns(p999)})
    return pd.DataFrame(rows).set_index("where")


def percentiles(df: pd.DataFrame, variants: list[str] | None = None) -> pd.DataFrame:
    """Round-trip percentiles (median over runs) per variant, runtime and placement, and how many samples."""
    m = _ok(df)
    m = m[(~m["warmup"]) & m["metric"].str.startswith("round_trip_")]
    if variants:
        m = m[m["variant"].isin(variants)]
    m["runtime"] = np.where(m["language"] == "c", "C (gcc)", "JDK " + m["jdk"])
    m["stat"] = m["metric"].str.removeprefix("round_trip_")
    t = m.groupby(["variant", "runtime", "placement", "stat"])["value"]
    med = t.median().unstack("stat")
    if "samples" in med:
        med["samples"] = t.sum().unstack("stat")["samples"]
        if "max" in med:
            med["max"] = t.max().unstack("stat")["max"]
    cols = [c for c in ["mean", *PERCENTILES, "samples"] if c in med.columns]
    med = med[cols].reset_index()
    med["placement"] = pd.Categorical(med["placement"], PLACEMENTS, ordered=True)
    med["variant"] = pd.Categorical(med["variant"], list(VARIANTS), ordered=True)
    med = med.sort_values(["variant", "placement", "runtime"]).set_index(["variant", "runtime", "placement"])
    out = med.copy().astype(object)
    for c in cols:
        out[c] = med[c].map(lambda v: f"{v:,.0f}" if c == "samples" else _fmt_ns(v))
    return out


def plot_percentiles(df: pd.DataFrame, variants: list[str] | None = None, runtime: str | None = None):
    """Round-trip latency by percentile, HdrHistogram style (x = 1/(1-p), log), one line per placement.

    One panel per variant (and runtime); each line is the median over runs of that percentile; max at the right."""
    m = _ok(df)
    m = m[(~m["warmup"]) & m["metric"].isin([f"round_trip_{p}" for p in PERCENTILES])]
    m["runtime"] = np.where(m["language"] == "c", "C (gcc)", "JDK " + m["jdk"])
    variants = [v for v in (variants or list(VARIANTS)) if v in set(m["variant"])]
    if runtime:
        m = m[(m["runtime"] == runtime) | (m["language"] == "c")]
    panels = [(v, r) for v in variants for r in sorted(m[m["variant"] == v]["runtime"].unique())]
    if not panels:
        fig, ax = plt.subplots(figsize=(5, 2))
        ax.text(0.5, 0.5, "no round-trip samples", ha="center")
        return fig
    cols = 2 if len(panels) == 4 else min(3, len(panels))
    rows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(4.6 * cols, 3.6 * rows), squeeze=False, sharey=True)
    pcolors = {"cross-core": "#1f77b4", "smt": "#9467bd", "same-cpu": "#d62728", "unpinned": "#ff7f0e"}
    xs = {p: 1 / (1 - PCT_VALUE[p]) for p in PERCENTILES}
    for ax, (v, rt) in zip(axes.flat, panels):
        sub = m[(m["variant"] == v) & (m["runtime"] == rt)]
        for p in PLACEMENTS:
            s = sub[sub["placement"] == p]
            if s.empty:
                continue
            s = s.assign(pct=s["metric"].str.removeprefix("round_trip_"))
            med = s.groupby("pct")["value"].median().reindex(PERCENTILES).dropna()
            ax.plot([xs[k] for k in med.index], med.values, "-o", ms=4, color=pcolors[p], label=p)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks([xs[k] for k in PERCENTILES], PERCENTILES)
        ax.minorticks_off()
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _p: _fmt_ns(y)))
        ax.set_title(f"{v} ({rt})", fontsize=9)
        ax.set_xlabel("percentile")
    for ax in axes.flat[len(panels):]:
        ax.set_visible(False)
    axes[0][0].set_ylabel("round trip (ping -> pong -> ping), log")
    axes[0][0].legend(fontsize=7)
    fig.suptitle("Sampled round trips: each point is the median over measured runs of that percentile", fontsize=10)
    return fig


def timer_table(df: pd.DataFrame) -> pd.DataFrame:
    """The timer's own cost per runtime: System.nanoTime (Java) / clock_gettime (C) back to back."""
    m = _ok(df)
    m = m[m["metric"].isin(["timer_cost", "timer_step"])]
    if m.empty:
        return pd.DataFrame()
    m["runtime"] = np.where(m["language"] == "c", "C (gcc), clock_gettime(CLOCK_MONOTONIC)",
                            "JDK " + m["jdk"] + ", System.nanoTime()")
    t = m.groupby(["runtime", "metric"])["value"].agg(["median", "min", "max", "count"]).unstack("metric")
    out = pd.DataFrame(index=t.index)
    out["ns per call (median over forks)"] = t[("median", "timer_cost")].map(lambda v: f"{v:.1f}")
    out["range"] = [f"{a:.1f} .. {b:.1f}" for a, b in zip(t[("min", "timer_cost")], t[("max", "timer_cost")])]
    out["smallest step seen (ns)"] = t[("min", "timer_step")].map(lambda v: f"{v:.0f}")
    out["forks"] = t[("count", "timer_cost")].astype(int)
    return out


def bounded_runs(df: pd.DataFrame) -> pd.DataFrame:
    """The runs that stopped at their deadline: how many exchanges they completed and in how long."""
    m = _ok(df)
    m = m[~m["warmup"]]
    key = ["variant", "jdk", "placement", "fork", "iteration"] + (["round"] if "round" in m else [])
    if m.empty or "deadline_hit" not in set(m["metric"]):
        return pd.DataFrame()
    w = m[m["metric"].isin(["deadline_hit", "exchanges", "duration", "ns_per_op"])].pivot_table(
        index=key, columns="metric", values="value", aggfunc="first")
    w = w[w["deadline_hit"] == 1]
    if w.empty:
        return pd.DataFrame()
    g = w.reset_index().groupby(["variant", "jdk", "placement"])
    out = pd.DataFrame({"runs": g.size(), "exchanges per run (median)": g["exchanges"].median(),
                        "run length (s)": g["duration"].median() / 1e9,
                        "ns/op (median)": g["ns_per_op"].median().map(_fmt_ns)})
    return out


def run_to_run(df: pd.DataFrame, variants: list[str] | None = None, placement: str | None = None) -> pd.DataFrame:
    """Median ns/op of every stored run of the same preset on the machine(s) shown, one column per run.

    On a shared or virtual machine one run is not the machine: the same cell can move by several times between
    runs an hour apart. Falls back to the rows given when the store has no other run."""
    from .. import store

    preset = None
    if "run_id" in df and len(df):
        preset = str(df["run_id"].iloc[0]).split("-")[1] if "-" in str(df["run_id"].iloc[0]) else None
    frames = []
    for machine in sorted(df["machine"].astype(str).unique()) if "machine" in df else [None]:
        try:
            frames.append(store.load(NAME, machine, preset=preset, latest=False))
        except MechsymError:
            pass
    allruns = pd.concat([f for f in frames if len(f)], ignore_index=True) if any(len(f) for f in frames) else df
    m = measured(allruns)
    if variants:
        m = m[m["variant"].isin(variants)]
    if placement:
        m = m[m["placement"] == placement]
    if m.empty or "run_id" not in m:
        return pd.DataFrame()
    t = m.groupby(["variant", "runtime", "placement", "run_id"])["value"].median().unstack("run_id")
    t = t.reset_index()
    t["placement"] = pd.Categorical(t["placement"], PLACEMENTS, ordered=True)
    t["variant"] = pd.Categorical(t["variant"], list(VARIANTS), ordered=True)
    t = t.sort_values(["variant", "placement", "runtime"]).set_index(["variant", "runtime", "placement"])
    runs = list(t.columns)
    out = t.apply(lambda col: col.map(_fmt_ns))
    if len(runs) > 1:
        out["max / min"] = (t[runs].max(axis=1) / t[runs].min(axis=1)).map(lambda v: f"{v:.1f}x")
    out.columns.name = "median ns/op per stored run"
    return out


# ---------------------------------------------------------------- claims and verdicts

CLAIMS = [
    Claim("signalling.lock-1000x-volatile", POST_CV, "03-condition-variables",
          "Signalling through a lock and condition variables costs about three orders of magnitude more latency than "
          "signalling through volatile counters (memory barriers).",
          "'3 orders of magnitude'; the posts' own numbers: 2,023 ns/op (Nehalem, pinned) vs < 50 ns/op = ~40x",
          "cross-core placement, same JDK: median ns/op of LockedSignalling over VolatilePingPong (busy spin); "
          "holds if at least 300x (rounds to 3 orders of magnitude)."),
    Claim("signalling.unpinned-several-times-slower", POST_CV, "03-condition-variables",
          "On Linux, letting the OS schedule the threads (unpinned) is several times slower than pinning them.",
          "8,489 vs 2,023 ns/op = 4.2x (Nehalem); 16,808 vs 2,360 = 7.1x (Sandy Bridge); Windows 3,689 vs 2,082 = 1.8x",
          "LockedSignalling median ns/op unpinned over pinned to two CPUs on different cores; holds if at least 2x."),
    Claim("signalling.lock-latency-microseconds", POST_CV, "03-condition-variables",
          "The one-way latency to signal a change through a lock and condition is microseconds, like a network hop "
          "(~1 µs InfiniBand, < 5 µs 10GigE).",
          "2,023-2,360 ns/op pinned (Linux), 2,082 (Windows)",
          "LockedSignalling median ns/op (one-way, the post's definition), cross-core; holds if 1 µs <= it < 10 µs."),
    Claim("signalling.volatile-under-50ns", POST_ITL, "08-inter-thread-latency",
          "Signalling a change between two threads through volatile counters costs less than 50 ns per exchange.",
          "Java 50 ns/op, C++ 45 ns/op (Sandy Bridge 2.2 GHz, taskset -c 2,4)",
          "busy-spin ping-pong, cross-core: median ns/op per runtime (each JDK, C); holds if below 50 ns."),
    Claim("signalling.20-30m-exchanges", POST_ITL, "08-inter-thread-latency",
          "Processing events in series, current processors can do 20-30 million exchanges per second.",
          "Java 19,688,810 ops/s, C++ 22,178,872 ops/s",
          "busy-spin ping-pong, cross-core: median ops/s (2 x exchanges / duration, the post's op/sec) per runtime; "
          "holds if at least 20 M/s (faster than 30 M/s is noted, not failed)."),
    Claim("signalling.java-c-equal", POST_ITL, "08-inter-thread-latency",
          "Java and C++ signal between threads at about the same cost (C++ ~10% faster).",
          "50 vs 45 ns/op: Java / C++ = 1.11",
          "busy-spin ping-pong, cross-core: median ns/op of each JDK over C (gcc -O2); holds if the ratio is within "
          "0.75..1.33."),
]
CLAIM = {c.id: c for c in CLAIMS}


def _machine(df: pd.DataFrame) -> str:
    return ",".join(sorted(df["machine"].astype(str).unique())) if "machine" in df else ""


def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """One verdict per claim and runtime (JDK or C) where the runtime matters."""
    out: list[Verdict] = []
    machine = _machine(df)
    if df is None or df.empty or measured(df).empty:
        return [unmeasurable(c, "no measured results", machine) for c in CLAIMS]
    m = measured(df)
    jdks = sorted(m[m["language"] == "java"]["jdk"].unique(), key=lambda j: int(j) if j.isdigit() else 0)
    pinned = "cross-core"
    if _median(df, variant="locked", placement=pinned) is None and _median(df, variant="c-spin", placement=pinned) is None:
        why = unavailable_placements(df).get(pinned, "no cross-core results")
        return [unmeasurable(c, f"needs two CPUs on different cores: {why}", machine) for c in CLAIMS]

    for j in jdks:
        lock = _median(df, variant="locked", jdk=j, placement=pinned)
        vol = _median(df, variant="volatile-spin", jdk=j, placement=pinned)
        unp = _median(df, variant="locked", jdk=j, placement="unpinned")
        c = CLAIM["signalling.lock-1000x-volatile"]
        if lock and vol:
            r = lock / vol
            out.append(judge(c, r >= 300, f"JDK {j}: {_fmt_ns(lock)} vs {_fmt_ns(vol)} per op = {r:,.0f}x "
                             f"(10^{np.log10(r):.1f})", then_value=2023 / 50, now_value=r, machine=machine))
        else:
            out.append(unmeasurable(c, f"JDK {j}: locked or volatile cross-core cell missing", machine))
        c = CLAIM["signalling.unpinned-several-times-slower"]
        if lock and unp:
            r = unp / lock
            out.append(judge(c, r >= 2, f"JDK {j}: unpinned {_fmt_ns(unp)} vs pinned {_fmt_ns(lock)} = {r:.2f}x",
                             why="" if r >= 2 else "unpinned is not several times slower here",
                             then_value=8489 / 2023, now_value=r, machine=machine))
        else:
            out.append(unmeasurable(c, f"JDK {j}: locked unpinned or cross-core cell missing", machine))
        c = CLAIM["signalling.lock-latency-microseconds"]
        if lock:
            out.append(judge(c, 1e3 <= lock < 1e4, f"JDK {j}: {_fmt_ns(lock)} one-way",
                             why="" if 1e3 <= lock < 1e4 else ("tens of µs or more" if lock >= 1e4 else "below 1 µs"),
                             then_value=2023, now_value=lock, machine=machine))
        else:
            out.append(unmeasurable(c, f"JDK {j}: locked cross-core cell missing", machine))

    runtimes = [(f"JDK {j}", "volatile-spin", dict(jdk=j)) for j in jdks] + [("C (gcc)", "c-spin", {})]
    c_ns = _median(df, variant="c-spin", placement=pinned)
    for label, variant, where in runtimes:
        ns = _median(df, variant=variant, placement=pinned, **where)
        ops = _median(df, "throughput", variant=variant, placement=pinned, **where)
        then_ns = 45 if variant == "c-spin" else 50
        c = CLAIM["signalling.volatile-under-50ns"]
        if ns is None:
            out.append(unmeasurable(c, f"{label}: no cross-core busy-spin results", machine))
            continue
        rt50 = _median(df, "round_trip_p50", variant=variant, placement=pinned, **where)
        rtmax = _median(df, "round_trip_max", variant=variant, placement=pinned, **where)
        typical = (f"a typical sampled exchange is faster: median round trip {rt50:.0f} ns (~{rt50 / 2:.0f} ns one-way, "
                   f"including ~1 timer call); the mean also carries stalls (round-trip max ~{_fmt_ns(rtmax)}) and the "
                   f"back-to-back exchanges that a sampled one, preceded by a timer call, does not have") if rt50 else ""
        out.append(judge(c, ns < 50, f"{label}: {ns:.1f} ns/op", why=typical if ns >= 50 else "",
                         then_value=then_ns, now_value=ns, machine=machine))
        c = CLAIM["signalling.20-30m-exchanges"]
        out.append(judge(c, ops >= 20e6, f"{label}: {ops / 1e6:,.1f} M ops/s",
                         why="faster than the post's 20-30 M range" if ops > 30e6 else (
                             f"{typical}; at that pace {1e9 / (rt50 / 2) / 1e6:,.0f} M ops/s" if rt50 and ops < 20e6
                             else ""),
                         then_value=22178872 if variant == "c-spin" else 19688810, now_value=ops, machine=machine))
        if variant != "c-spin":
            c = CLAIM["signalling.java-c-equal"]
            if c_ns:
                r = ns / c_ns
                out.append(judge(c, 0.75 <= r <= 1.33, f"{label} {ns:.1f} vs C {c_ns:.1f} ns/op: Java / C = {r:.2f}",
                                 then_value=50 / 45, now_value=r, machine=machine))
            else:
                out.append(unmeasurable(c, "no C results (build it with `make`)", machine))
    return out


def notebook_verdicts(df: pd.DataFrame, notebook: str) -> list[Verdict]:
    """The verdicts of one notebook's claims."""
    return [v for v in verdicts(df) if v.claim.notebook == notebook]
