"""SPSC queue run-to-run variance: notebook 05.

Post: "Single Producer Single Consumer Queue Revisited: An empiricist tale -
part I" (Nitsan Wakart, 2013-07-15). Kernels: mechsym.spsc.SpscThroughput
(one run = one fresh JVM, 20 iterations, the run's summary = the mean
throughput of the last 10) and mechsym.spsc.SpscLayout (JOL field offsets).

The sweep: queue variant x CPU placement x JVM option set x JDK, `runs`
fresh JVMs per cell. Placements: both threads on one logical CPU
(same-cpu), two CPUs on different cores (cross-core), SMT siblings (smt) and
two sockets (cross-socket) where the machine has them; each thread is pinned
inside the kernel (Affinity), and the process runs under taskset with the
placement's CPUs. Option sets: the post's four plus the post's set with
-XX:-TieredCompilation, which is how JDK 7 (tiered off by default) ran it:
CompileThreshold is ignored while tiered compilation is on.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import plots
from ..cpus import Topology
from ..jdk import Jdk
from ..sweep import Cell
from ..verdicts import Claim, Verdict, legacy_judge as judge, unmeasurable

NAME = "spsc"
TITLE = "SPSC queue run-to-run variance: original, inlined counters, padded class, padded data, JCTools"
NOTEBOOKS = ["05-spsc-variance"]
KERNEL = "mechsym.spsc.SpscThroughput"
LAYOUT_KERNEL = "mechsym.spsc.SpscLayout"
POST = "2013-07-15-spsc-queue-revisited-variance.md"
NOTEBOOK = "05-spsc-variance"
REFERENCE = "2013-07-15-spsc-queue-variance"

QUEUES = {
    "O1": "original: AtomicLong head/tail with lazySet, cached counters, one-side-padded holder objects",
    "O2": "O1 + padded data buffer (16 unused slots on each end)",
    "I1": "counters inlined in the queue object, 64 bytes apart (class-hierarchy padding)",
    "I2": "I1 + padded data buffer",
    "I3": "I1 + padding before the cold fields (capacity, mask, buffer)",
    "I4": "I3 + padded data buffer",
    "jctools": "JCTools 4.0.5 SpscArrayQueue (not in the post: today's reference)",
}
POST_QUEUES = ["O1", "O2", "I1", "I2", "I3", "I4"]
COLORS = {"O1": "#d62728", "O2": "#ff9896", "I1": "#1f77b4", "I2": "#aec7e8", "I3": "#2ca02c", "I4": "#9467bd",
          "jctools": "#7f7f7f"}

# name -> (JVM flags, what it stands for)
OPTION_SETS = {
    "none": ((), "no JVM options"),
    "condcard": (("-XX:+UseCondCardMark",), "-XX:+UseCondCardMark"),
    "condcard-ct": (("-XX:+UseCondCardMark", "-XX:CompileThreshold=100000"),
                    "+ -XX:CompileThreshold=100000 (ignored under tiered compilation, the default since JDK 8)"),
    "post": (("-XX:+UseNUMA", "-XX:+UseCondCardMark", "-XX:CompileThreshold=100000"),
             "the post's options as written: + -XX:+UseNUMA"),
    "post-notiered": (("-XX:+UseNUMA", "-XX:+UseCondCardMark", "-XX:CompileThreshold=100000", "-XX:-TieredCompilation"),
                      "the post's options as JDK 7 ran them: + -XX:-TieredCompilation (C2 only, so CompileThreshold acts)"),
}
MAIN_OPTIONS = "post-notiered"   # the option set of the post's first four figures, as JDK 7u17 ran it
PLACEMENTS = ["same-cpu", "cross-core", "smt", "cross-socket"]
PLACEMENT_LABELS = {"same-cpu": "same CPU (one logical CPU)", "cross-core": "cross core", "smt": "SMT siblings",
                    "cross-socket": "cross socket"}

PRESETS = {
    # seconds: every queue, both placements, the main option set on the lowest JDK, one JVM each
    "smoke": {"ops": 50_000, "iterations": 4, "measured": 2, "capacity": 32768, "queues": list(QUEUES),
              "sets": {"lowest": [MAIN_OPTIONS]}, "runs": {"main": 1, "other": 1}, "timeout": 60},
    # ~11 minutes on 2 vCPUs (648 fresh JVMs of ~1.05 s each): 2M values per iteration (the post does not state
    # its size; 2M keeps an iteration at 5-100 ms and a run near 1 s); the post's 30 runs in the main cells (lowest
    # JDK, the post's options as JDK 7 ran them), 4 in every other cell; JDK 25 gets only "none" and the main
    # set; I2 (the post's side variant) only in full.
    "standard": {"ops": 2_000_000, "iterations": 20, "measured": 10, "capacity": 32768,
                 "queues": ["O1", "O2", "I1", "I3", "I4", "jctools"],
                 "sets": {"lowest": list(OPTION_SETS), "other": ["none", MAIN_OPTIONS]},
                 "runs": {"main": 30, "other": 4}, "timeout": 120},
    # the post's protocol: 30 runs per cell, every queue, every option set, every JDK
    "full": {"ops": 50_000_000, "iterations": 20, "measured": 10, "capacity": 32768, "queues": list(QUEUES),
             "sets": {"lowest": list(OPTION_SETS), "other": list(OPTION_SETS)},
             "runs": {"main": 30, "other": 30}, "timeout": 900},
}


def option_sets_for(preset: str, jdk: Jdk, lowest: int) -> list[str]:
    sets = PRESETS[preset]["sets"]
    return sets["lowest"] if jdk.feature == lowest else sets.get("other", [])


def cells(preset: str, topo: Topology, jdks: list[Jdk]) -> list[Cell]:
    p = PRESETS[preset]
    out: list[Cell] = []
    if not jdks:
        return out
    lowest = min(j.feature for j in jdks)
    for jdk in jdks:
        # the layout of every queue on this JDK (one JVM, no timing)
        out.append(Cell(variant="layout", kernel=LAYOUT_KERNEL, jdk=jdk, forks=1, timeout=120,
                        params={"queue": "all", "check": "false"},
                        labels={"placement": "none", "options": "none", "kind": "layout"}))
        for options in option_sets_for(preset, jdk, lowest):
            flags = OPTION_SETS[options][0]
            main = jdk.feature == lowest and options == MAIN_OPTIONS
            runs = p["runs"]["main" if main else "other"]
            for placement in PLACEMENTS:
                cpus = topo.placement(placement)
                for queue in p["queues"]:
                    params = {"queue": queue, "ops": p["ops"], "iterations": p["iterations"],
                              "measured": p["measured"], "capacity": p["capacity"]}
                    labels = {"placement": placement, "options": options, "kind": "throughput"}
                    if cpus is None:
                        out.append(Cell(variant=queue, kernel=KERNEL, jdk=jdk, flags=flags, params=params,
                                        labels=labels, forks=runs, unavailable=topo.missing_reason(placement)))
                        continue
                    params["pin"] = f"{cpus[0]},{cpus[1]}"
                    out.append(Cell(variant=queue, kernel=KERNEL, jdk=jdk, flags=flags, params=params, labels=labels,
                                    cpus=list(cpus), forks=runs, timeout=p["timeout"]))
    return out


# ---------------------------------------------------------------- analysis

def _str(df: pd.DataFrame, cols) -> pd.DataFrame:
    for c in cols:
        if c in df:
            df[c] = df[c].astype(str)
    return df


def run_summaries(df: pd.DataFrame) -> pd.DataFrame:
    """One row per run (fresh JVM): the post's summary = mean throughput of the measured (last) iterations,
    with the within-run coefficient of variation beside it."""
    m = df[(df["status"] == "ok") & (df["metric"] == "throughput") & (df.get("kind", "throughput") == "throughput")]
    m = m[~m["warmup"].astype(bool)].copy()
    if m.empty:
        return pd.DataFrame(columns=["jdk", "options", "placement", "variant", "fork", "summary", "within_cv"])
    m = _str(m, ["jdk", "options", "placement", "variant"])
    keys = [k for k in ("run_id", "jdk", "options", "placement", "variant", "fork") if k in m]
    g = m.groupby(keys)["value"]
    out = pd.DataFrame({"summary": g.mean(), "within_cv": g.std(ddof=0) / g.mean(), "iterations": g.count()})
    extra = [c for c in ("pinning", "vm_numa", "vm_tiered_compilation", "vm_cond_card_mark",
                         "queue_line_offset", "buffer_line_offset") if c in m]
    if extra:
        out = out.join(m.groupby(keys)[extra].first())
    return out.reset_index()


def variance(runs: pd.Series) -> dict:
    """The variance measures of one cell's run summaries."""
    r = runs.dropna().astype(float)
    if r.empty:
        return {}
    med = r.median()
    return {"runs": len(r), "median": med, "min": r.min(), "max": r.max(),
            "CV %": 100 * r.std(ddof=1) / r.mean() if len(r) > 1 else np.nan,
            "max/min": r.max() / r.min(),
            "< 1/2 median %": 100 * (r < 0.5 * med).mean(),
            "< 0.6 median %": 100 * (r < 0.6 * med).mean()}


def variance_table(df: pd.DataFrame, jdk=None, options=None) -> pd.DataFrame:
    """Per cell: runs, median/min/max run summary (ops/s), coefficient of variation across runs, max/min, share of
    runs below half (and below 0.6 of) the median, and the median within-run CV."""
    s = run_summaries(df)
    if jdk is not None:
        s = s[s["jdk"] == str(jdk)]
    if options is not None:
        s = s[s["options"] == options]
    rows = []
    for (j, o, p, v), sub in s.groupby(["jdk", "options", "placement", "variant"]):
        rows.append({"jdk": j, "options": o, "placement": p, "variant": v, **variance(sub["summary"]),
                     "within-run CV %": 100 * sub["within_cv"].median()})
    t = pd.DataFrame(rows)
    if t.empty:
        return t
    t["_o"] = t["options"].map(list(OPTION_SETS).index)
    t["_v"] = t["variant"].map(list(QUEUES).index)
    t["_p"] = t["placement"].map(PLACEMENTS.index)
    return t.sort_values(["jdk", "_o", "_p", "_v"]).drop(columns=["_o", "_v", "_p"]).reset_index(drop=True)


def variance_display(df: pd.DataFrame, jdk=None, options=None) -> pd.DataFrame:
    """variance_table with M ops/s and rounded percentages, for a notebook."""
    t = variance_table(df, jdk, options)
    if t.empty:
        return t
    for c in ("median", "min", "max"):
        t[c] = (t[c] / 1e6).round(1)
    t = t.rename(columns={"median": "median Mops/s", "min": "min Mops/s", "max": "max Mops/s"})
    return t.round(2).set_index(["jdk", "options", "placement", "variant"])


def unavailable_cells(df: pd.DataFrame) -> pd.DataFrame:
    u = df[df["status"] == "unavailable"]
    if u.empty:
        return pd.DataFrame(columns=["placement", "options", "jdk", "reason"])
    u = _str(u.copy(), ["jdk"])
    return (u.groupby(["placement", "note"])
             .agg(jdks=("jdk", lambda s: ", ".join(sorted(set(s)))),
                  option_sets=("options", lambda s: ", ".join(o for o in OPTION_SETS if o in set(s))),
                  variants=("variant", lambda s: ", ".join(v for v in QUEUES if v in set(s))))
             .reset_index().rename(columns={"note": "reason"}))


def vm_options_table(df: pd.DataFrame) -> pd.DataFrame:
    """What each option set actually set in the JVM (the kernel reads the HotSpot options back)."""
    s = run_summaries(df)
    cols = [c for c in ("vm_cond_card_mark", "vm_tiered_compilation", "vm_numa") if c in s]
    if s.empty or not cols:
        return pd.DataFrame()
    t = s.groupby(["jdk", "options"])[cols].agg(lambda x: ", ".join(sorted(set(map(str, x))))).reset_index()
    t["flags"] = t["options"].map(lambda o: " ".join(OPTION_SETS[o][0]) or "(none)")
    t["_o"] = t["options"].map(list(OPTION_SETS).index)
    return t.sort_values(["jdk", "_o"]).drop(columns="_o").set_index(["jdk", "options"])


def _panel_sorted(ax, s: pd.DataFrame, variants: list[str]):
    for v in variants:
        r = np.sort(s[s["variant"] == v]["summary"].to_numpy())
        if len(r):
            ax.plot(np.arange(1, len(r) + 1), r, "-o", ms=3, lw=1.2, color=COLORS.get(v), label=v)
    ax.yaxis.set_major_formatter(plots.SI)
    ax.set_ylim(bottom=0)


def plot_sorted_runs(df: pd.DataFrame, jdk=None, options: str = MAIN_OPTIONS, variants: list[str] | None = None):
    """The post's figures: every run's summary (mean of its last iterations), sorted, one line per variant;
    one panel per placement."""
    s = run_summaries(df)
    jdk = str(jdk if jdk is not None else min(s["jdk"].astype(int), default=""))
    s = s[(s["jdk"] == jdk) & (s["options"] == options)]
    places = [p for p in PLACEMENTS if p in set(s["placement"])]
    variants = [v for v in (variants or list(QUEUES)) if v in set(s["variant"])]
    fig, axes = plt.subplots(1, max(1, len(places)), figsize=(5.6 * max(1, len(places)), 3.8), squeeze=False)
    for ax, p in zip(axes[0], places):
        _panel_sorted(ax, s[s["placement"] == p], variants)
        ax.set_title(f"{PLACEMENT_LABELS[p]}, JDK {jdk}, options: {options}", fontsize=9)
        ax.set_xlabel("run (sorted by its summary)")
    axes[0][0].set_ylabel("run summary, ops/s\n(mean of the last iterations)")
    axes[0][-1].legend(fontsize=8, ncol=2, loc="lower right")
    return fig


def plot_sorted_grid(df: pd.DataFrame, jdk=None, variants: list[str] | None = None):
    """Sorted runs for every option set (rows) and placement (columns) of one JDK: do the winners reorder?"""
    s = run_summaries(df)
    jdk = str(jdk if jdk is not None else min(s["jdk"].astype(int), default=""))
    s = s[s["jdk"] == jdk]
    sets = [o for o in OPTION_SETS if o in set(s["options"])]
    places = [p for p in PLACEMENTS if p in set(s["placement"])]
    variants = [v for v in (variants or list(QUEUES)) if v in set(s["variant"])]
    fig, axes = plt.subplots(max(1, len(sets)), max(1, len(places)), figsize=(5.0 * max(1, len(places)),
                             2.4 * max(1, len(sets))), squeeze=False, sharey="col")
    for i, o in enumerate(sets):
        for k, p in enumerate(places):
            ax = axes[i][k]
            _panel_sorted(ax, s[(s["options"] == o) & (s["placement"] == p)], variants)
            ax.set_title(f"{o} | {PLACEMENT_LABELS[p]}", fontsize=8)
            if k == 0:
                ax.set_ylabel("ops/s", fontsize=8)
    axes[0][-1].legend(fontsize=7, ncol=4, loc="lower right")
    fig.suptitle(f"JDK {jdk}: sorted run summaries per option set (rows) and placement (columns)", fontsize=10)
    return fig


def winners_table(df: pd.DataFrame, variants: list[str] | None = None) -> pd.DataFrame:
    """The post's variants ranked by median run summary, per JDK, option set and placement."""
    s = run_summaries(df)
    variants = variants or POST_QUEUES
    s = s[s["variant"].isin(variants)]
    rows = []
    for (j, o, p), sub in s.groupby(["jdk", "options", "placement"]):
        med = sub.groupby("variant")["summary"].median().sort_values(ascending=False)
        rows.append({"jdk": j, "options": o, "placement": p,
                     "ranking (median Mops/s)": " > ".join(f"{v} {m / 1e6:.0f}" for v, m in med.items()),
                     "winner": med.index[0], "runs per variant": int(sub.groupby("variant").size().min())})
    t = pd.DataFrame(rows)
    if t.empty:
        return t
    t["_o"] = t["options"].map(list(OPTION_SETS).index)
    t["_p"] = t["placement"].map(PLACEMENTS.index)
    return t.sort_values(["jdk", "_p", "_o"]).drop(columns=["_o", "_p"]).set_index(["jdk", "placement", "options"])


def jctools_table(df: pd.DataFrame) -> pd.DataFrame:
    """Beyond the post: the fastest of the post's variants (by median) against JCTools' SpscArrayQueue."""
    s = run_summaries(df)
    rows = []
    for (j, o, p), sub in s.groupby(["jdk", "options", "placement"]):
        med = sub.groupby("variant")["summary"].median()
        post = med[[v for v in med.index if v in POST_QUEUES]]
        if post.empty or "jctools" not in med:
            continue
        best = post.idxmax()
        jc = sub[sub["variant"] == "jctools"]["summary"]
        rows.append({"jdk": j, "options": o, "placement": p, "fastest post variant": best,
                     "its median Mops/s": round(post[best] / 1e6, 1), "JCTools median Mops/s": round(med["jctools"] / 1e6, 1),
                     "JCTools / fastest": round(med["jctools"] / post[best], 2),
                     "JCTools CV %": round(100 * jc.std(ddof=1) / jc.mean(), 1) if len(jc) > 1 else np.nan})
    t = pd.DataFrame(rows)
    if t.empty:
        return t
    t["_o"] = t["options"].map(list(OPTION_SETS).index)
    t["_p"] = t["placement"].map(PLACEMENTS.index)
    return t.sort_values(["jdk", "_p", "_o"]).drop(columns=["_o", "_p"]).set_index(["jdk", "placement", "options"])


def alignment_table(df: pd.DataFrame, jdk=None, options: str = MAIN_OPTIONS) -> pd.DataFrame:
    """Beyond the post: where the queue object and its buffer started within a 64-byte line, per run, against the
    run's summary (median per alignment). -1 = JOL could not tell."""
    s = run_summaries(df)
    if "queue_line_offset" not in s:
        return pd.DataFrame()
    jdk = str(jdk if jdk is not None else min(s["jdk"].astype(int), default=""))
    s = s[(s["jdk"] == jdk) & (s["options"] == options)]
    g = s.groupby(["placement", "variant", "queue_line_offset", "buffer_line_offset"])["summary"]
    t = pd.DataFrame({"runs": g.size(), "median Mops/s": (g.median() / 1e6).round(1)}).reset_index()
    return t.set_index(["placement", "variant", "queue_line_offset", "buffer_line_offset"])


# ---------------------------------------------------------------- layout (JOL)

def layout_rows(df: pd.DataFrame) -> pd.DataFrame:
    lay = df[(df["status"] == "ok") & (df["variant"] == "layout")].copy()
    if lay.empty:
        return lay
    lay = _str(lay, ["jdk"])
    lay["queue"] = lay["queue"].astype(str)
    return lay


def layout_table(df: pd.DataFrame, queues=("I1", "I3", "I4", "O1", "jctools")) -> pd.DataFrame:
    """Offsets (bytes) of the non-padding fields of each queue's object, per JDK, as JOL reads them; O1's holder
    classes too. Pad fields (p00.., b000..) are left out."""
    lay = layout_rows(df)
    if lay.empty:
        return pd.DataFrame()
    off = lay[(lay["metric"] == "offset") & lay["queue"].isin(queues)].copy()
    name = off["field"].str.rsplit(".", n=1).str[-1]
    off = off[~name.str.match(r"^(p\d+|p0i|b\d+)$")]
    off["class"] = off["class"].str.replace("mechsym.spsc.", "", regex=False).str.replace("org.jctools.queues.", "", regex=False)
    off["field"] = off["field"].str.split(".").str[-2:].str.join(".")
    t = off.pivot_table(index=["queue", "class", "field"], columns="jdk", values="value", aggfunc="first")
    t.columns = [f"offset on JDK {c}" for c in t.columns]
    order = {q: i for i, q in enumerate(queues)}
    t = t.reset_index()
    t["_q"] = t["queue"].map(order)
    t["_o"] = t[[c for c in t.columns if c.startswith("offset")][0]]
    return t.sort_values(["_q", "class", "_o"]).drop(columns=["_q", "_o"]).set_index(["queue", "class", "field"])


def layout_checks(df: pd.DataFrame) -> pd.DataFrame:
    """Per queue and JDK: smallest gap between hot fields, between a producer and a consumer field, the first cold
    field's offset and the instance size (bytes)."""
    lay = layout_rows(df)
    if lay.empty:
        return pd.DataFrame()
    first_class = lay.groupby(["jdk", "queue"])["class"].first()
    d = lay[lay["metric"].isin(["min_hot_gap", "min_cross_gap", "cold_offset", "instance_size", "jol_unavailable"])]
    d = d[d.apply(lambda r: r["class"] == first_class.get((r["jdk"], r["queue"])), axis=1)]
    t = d.pivot_table(index=["queue", "jdk"], columns="metric", values="value", aggfunc="first")
    t = t.reindex([q for q in QUEUES if q in t.index.get_level_values(0)], level=0)
    return t


def layout_vs_post(df: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """The post's java-object-layout offsets of I1 and I3 beside JOL's on each JDK here."""
    r = ref[ref["metric"].isin(["offset", "instance_size"])][["variant", "field", "metric", "value"]].copy()
    r["key"] = r["field"].str.rsplit(".", n=1).str[-1]
    lay = layout_rows(df)
    out = r.rename(columns={"value": "post (JDK 7u17)"})
    if lay.empty:
        return out.drop(columns="key")
    here = lay[lay["metric"].isin(["offset", "instance_size"])].copy()
    here["key"] = here["field"].str.rsplit(".", n=1).str[-1]
    here.loc[here["metric"] == "instance_size", "key"] = "(instance)"
    for j in sorted(here["jdk"].unique(), key=int):
        h = here[(here["jdk"] == j)]
        h = h.drop_duplicates(["queue", "key", "metric"])
        col = {(q, k, m): v for q, k, m, v in zip(h["queue"], h["key"], h["metric"], h["value"])}
        out[f"JDK {j}"] = [col.get((v, k, m)) for v, k, m in zip(out["variant"], out["key"], out["metric"])]
    return out.drop(columns="key").set_index(["variant", "field"])


# ---------------------------------------------------------------- claims and verdicts

CLAIMS = [
    Claim("spsc.o1-bimodal-cross-core", POST, NOTEBOOK,
          "The original queue (O1), producer and consumer on different cores, gives half the performance 20% of the "
          "time, while each run is stable within itself.",
          "20% of 30 runs at half performance (dual-socket Xeon, JDK 7u17, the post's options)",
          "O1, cross-core, the post's options as JDK 7 ran them (main set): share of runs whose summary is below 0.6x the "
          "median; holds if at least 10% of runs are that low and runs are stable within themselves (median within-run CV "
          "at most half the across-run CV)."),
    Claim("spsc.inline-helps-same-core-hurts-cross-core", POST, NOTEBOOK,
          "Inlining the counters (I1) gives a small improvement on the same core, but the cross-core behaviour is worse.",
          "same core: average +3% over O1; cross core: worse (figure)",
          "main set: I1 / O1 median run summary; holds if > 1 on the same CPU and < 1 cross-core. The post's "
          "'same core' was most likely two hyperthreads of one core; this machine has no SMT, so one logical CPU stands in."),
    Claim("spsc.i4-removes-variance", POST, NOTEBOOK,
          "Inlined counters + padded class + padded data (I4) removes most of the run-to-run variance cross-core.",
          "'pretty flat indeed ... Very little variance remains'",
          "main set, cross-core: coefficient of variation of I4's run summaries; holds if at most half of O1's and no I4 "
          "run below 0.6x its median."),
    Claim("spsc.i4-10pct-faster", POST, NOTEBOOK,
          "I4 is about 10% faster than the original, on the same core and on average cross-core.",
          "+10% same core; +10% average cross core",
          "main set: I4 / O1 median run summary per placement; holds if at least 1.05 in both."),
    Claim("spsc.i4-110-120m", POST, NOTEBOOK,
          "Even the best variant still moves: I4 between 110M and 120M ops/s, with a spike on either side.",
          "110M-120M ops/s (a band of about +-4% around 115M)",
          "main set, cross-core: I4's 10th-90th percentile band of run summaries relative to its median; holds if the "
          "band is at most 10% wide (absolute numbers depend on the CPU)."),
    Claim("spsc.condcard-i1-best-cross-core", POST, NOTEBOOK,
          "With -XX:+UseCondCardMark alone, I1 has the best average cross-core (133M).",
          "I1 133M ops/s, best average, cross core",
          "option set 'condcard', cross-core, the post's variants: I1 has the highest mean run summary."),
    Claim("spsc.compile-threshold-sinks-i1", POST, NOTEBOOK,
          "Adding -XX:CompileThreshold=100000 turns I1 from the cross-core winner into 'rubbish'.",
          "I1 best with CondCardMark; with CompileThreshold=100000 O2 leads and I1 is 'rubbish'",
          "cross-core, I1's rank among the post's variants (by median) under 'condcard' vs 'post-notiered' (where "
          "CompileThreshold acts); holds if I1 ranks first under condcard and in the bottom half under post-notiered."),
    Claim("spsc.options-reorder-winners", POST, NOTEBOOK,
          "The JVM options reorder which layout wins.",
          "winner changes between the four option sets (figures), e.g. I3 (none, same core) vs I1 (CondCardMark) vs I4",
          "per placement, the post's variants ranked by median under every option set of the lowest JDK; holds if two "
          "sets have different winners and, in its own set, each winner's runs beat the other winner's runs in at least "
          "75% of all run pairs (probability of superiority; medians alone would reorder on noise)."),
    Claim("spsc.layout-as-post", POST, NOTEBOOK,
          "Inlined counters sit 64 bytes apart (I1); the padded class moves the cold fields to offset 80 and the hot "
          "fields to 152/216/280/344 (I3), as java-object-layout showed.",
          "I1: tail 80, headCache 144, head 208, tailCache 272; I3: capacity 80, tail 152 ... tailCache 344",
          "JOL 0.17 field offsets of I1 and I3 on every JDK here, compared field by field with the post's tables."),
    Claim("spsc.cross-socket", POST, NOTEBOOK,
          "Cross-socket runs were made too; no improvement was made on that front.",
          "data included, not discussed",
          "needs a machine with two sockets."),
]
CLAIM = {c.id: c for c in CLAIMS}


def _machine(df: pd.DataFrame) -> str:
    return str(df["machine"].iloc[0]) if "machine" in df and len(df) else ""


def _cell(s: pd.DataFrame, jdk, options, placement, variant) -> pd.Series:
    return s[(s["jdk"] == str(jdk)) & (s["options"] == options) & (s["placement"] == placement)
             & (s["variant"] == variant)]["summary"]


def superiority(sub: pd.DataFrame, a: str, b: str) -> float:
    """Share of (run of a, run of b) pairs in which a's run summary is higher (ties count half)."""
    x = sub[sub["variant"] == a]["summary"].to_numpy()[:, None]
    y = sub[sub["variant"] == b]["summary"].to_numpy()[None, :]
    if x.size == 0 or y.size == 0:
        return float("nan")
    return float(((x > y) + 0.5 * (x == y)).mean())


def _fmt(x: float) -> str:
    return f"{x / 1e6:.1f}M"


def verdicts(df: pd.DataFrame) -> list[Verdict]:
    machine = _machine(df)
    s = run_summaries(df)
    out: list[Verdict] = []
    if s.empty:
        return [unmeasurable(c, "no throughput runs stored", machine) for c in CLAIMS]
    jdk = str(min(s["jdk"].astype(int)))
    M = MAIN_OPTIONS
    need_var, need_med = 5, 3

    def few(*series, n):
        return any(len(x) < n for x in series)

    # 1. O1 bimodal cross-core
    c = CLAIM["spsc.o1-bimodal-cross-core"]
    o1 = _cell(s, jdk, M, "cross-core", "O1")
    if few(o1, n=need_var):
        out.append(unmeasurable(c, f"fewer than {need_var} runs of O1 cross-core under '{M}' on JDK {jdk} "
                                   f"(have {len(o1)}): run the standard preset", machine))
    else:
        v = variance(o1)
        sub = s[(s["jdk"] == jdk) & (s["options"] == M) & (s["placement"] == "cross-core") & (s["variant"] == "O1")]
        within = 100 * sub["within_cv"].median()
        holds = v["< 0.6 median %"] >= 10 and within <= 0.5 * v["CV %"]
        same = _cell(s, jdk, M, "same-cpu", "O1")
        why = ""
        if len(same) >= need_var:
            vs = variance(same)
            why = (f"for comparison, O1 on one CPU: {vs['< 0.6 median %']:.0f}% of runs below 0.6x its median "
                   f"({_fmt(vs['median'])}), max/min {vs['max/min']:.2f}, CV {vs['CV %']:.1f}%")
        out.append(judge(c, holds, f"JDK {jdk}: {v['< 0.6 median %']:.0f}% of {v['runs']} runs below 0.6x median "
                         f"({_fmt(v['median'])} ops/s; min {_fmt(v['min'])}, max {_fmt(v['max'])}); CV across runs "
                         f"{v['CV %']:.1f}%, within a run {within:.1f}%", why=why, then_value=20.0,
                         now_value=v["< 0.6 median %"], machine=machine))

    # 2. inlining helps same core, hurts cross core
    c = CLAIM["spsc.inline-helps-same-core-hurts-cross-core"]
    r = {}
    for p in ("same-cpu", "cross-core"):
        a, b = _cell(s, jdk, M, p, "I1"), _cell(s, jdk, M, p, "O1")
        if not few(a, b, n=need_med):
            r[p] = a.median() / b.median()
    if len(r) < 2:
        out.append(unmeasurable(c, f"fewer than {need_med} runs of I1 and O1 per placement under '{M}'", machine))
    else:
        out.append(judge(c, r["same-cpu"] > 1 and r["cross-core"] < 1,
                         f"JDK {jdk}: I1/O1 = {r['same-cpu']:.2f} on one CPU, {r['cross-core']:.2f} cross-core",
                         why="SMT siblings not available here: 'same core' measured on one logical CPU",
                         then_value=1.03, now_value=r["same-cpu"], machine=machine))

    # 3. I4 removes the variance
    c = CLAIM["spsc.i4-removes-variance"]
    i4 = _cell(s, jdk, M, "cross-core", "I4")
    if few(o1, i4, n=need_var):
        out.append(unmeasurable(c, f"fewer than {need_var} runs of I4 and O1 cross-core under '{M}'", machine))
    else:
        vi, vo = variance(i4), variance(o1)
        holds = vi["CV %"] <= 0.5 * vo["CV %"] and vi["< 0.6 median %"] == 0
        out.append(judge(c, holds, f"JDK {jdk}, cross-core: CV I4 {vi['CV %']:.1f}% vs O1 {vo['CV %']:.1f}%; "
                         f"I4 runs below 0.6x median: {vi['< 0.6 median %']:.0f}%",
                         then_value=None, now_value=vi["CV %"], machine=machine))

    # 4. I4 10% faster
    c = CLAIM["spsc.i4-10pct-faster"]
    r = {}
    for p in ("same-cpu", "cross-core"):
        a, b = _cell(s, jdk, M, p, "I4"), _cell(s, jdk, M, p, "O1")
        if not few(a, b, n=need_med):
            r[p] = a.median() / b.median()
    if len(r) < 2:
        out.append(unmeasurable(c, f"fewer than {need_med} runs of I4 and O1 per placement under '{M}'", machine))
    else:
        out.append(judge(c, all(x >= 1.05 for x in r.values()),
                         f"JDK {jdk}: I4/O1 = {r['same-cpu']:.2f} on one CPU, {r['cross-core']:.2f} cross-core",
                         why="SMT siblings not available here: 'same core' measured on one logical CPU",
                         then_value=1.10, now_value=r["cross-core"], machine=machine))

    # 5. I4 band 110-120M
    c = CLAIM["spsc.i4-110-120m"]
    if few(i4, n=need_var):
        out.append(unmeasurable(c, f"fewer than {need_var} runs of I4 cross-core under '{M}'", machine))
    else:
        lo, hi, med = i4.quantile(0.1), i4.quantile(0.9), i4.median()
        width = (hi - lo) / med
        out.append(judge(c, width <= 0.10, f"JDK {jdk}, cross-core: I4 p10-p90 {_fmt(lo)}-{_fmt(hi)} ops/s "
                         f"(median {_fmt(med)}; band {100 * width:.0f}% of the median); min {_fmt(i4.min())}, "
                         f"max {_fmt(i4.max())}", then_value=115e6, now_value=med, machine=machine))

    # 6. condcard: I1 best cross-core
    c = CLAIM["spsc.condcard-i1-best-cross-core"]
    sub = s[(s["jdk"] == jdk) & (s["options"] == "condcard") & (s["placement"] == "cross-core")
            & s["variant"].isin(POST_QUEUES)]
    counts = sub.groupby("variant").size()
    if sub.empty or counts.min() < need_med or "I1" not in counts:
        out.append(unmeasurable(c, f"option set 'condcard' not run with at least {need_med} runs per variant "
                                   f"cross-core on JDK {jdk}", machine))
    else:
        means = sub.groupby("variant")["summary"].mean().sort_values(ascending=False)
        rival = means.index[1] if means.index[0] == "I1" else means.index[0]
        out.append(judge(c, means.index[0] == "I1", f"JDK {jdk}: best mean {means.index[0]} {_fmt(means.iloc[0])}; "
                         f"I1 {_fmt(means['I1'])} (rank {list(means.index).index('I1') + 1} of {len(means)}; I1 beats "
                         f"{rival} in {superiority(sub, 'I1', rival):.0%} of run pairs, {counts.min()} runs each)",
                         then_value=133e6, now_value=float(means["I1"]), machine=machine))

    # 7. CompileThreshold sinks I1
    c = CLAIM["spsc.compile-threshold-sinks-i1"]
    ranks = {}
    for o in ("condcard", M):
        sub = s[(s["jdk"] == jdk) & (s["options"] == o) & (s["placement"] == "cross-core") & s["variant"].isin(POST_QUEUES)]
        if not sub.empty and sub.groupby("variant").size().min() >= need_med and "I1" in set(sub["variant"]):
            med = sub.groupby("variant")["summary"].median().sort_values(ascending=False)
            ranks[o] = (list(med.index).index("I1") + 1, len(med))
    if len(ranks) < 2:
        out.append(unmeasurable(c, f"needs option sets 'condcard' and '{M}' with at least {need_med} runs per variant",
                                machine))
    else:
        (r1, n1), (r2, n2) = ranks["condcard"], ranks[M]
        out.append(judge(c, r1 == 1 and r2 > n2 / 2, f"JDK {jdk}, cross-core: I1 ranks {r1}/{n1} under condcard, "
                         f"{r2}/{n2} under {M}", machine=machine))

    # 8. options reorder the winners
    c = CLAIM["spsc.options-reorder-winners"]
    found, details, tested = [], [], 0
    for p in ("same-cpu", "cross-core"):
        meds, runs = {}, {}
        for o in OPTION_SETS:
            sub = s[(s["jdk"] == jdk) & (s["options"] == o) & (s["placement"] == p) & s["variant"].isin(POST_QUEUES)]
            if not sub.empty and sub.groupby("variant").size().min() >= need_med:
                meds[o] = sub.groupby("variant")["summary"].median()
                runs[o] = sub
        if len(meds) < 2:
            continue
        tested += 1
        winners = {o: m.idxmax() for o, m in meds.items()}
        details.append(f"{p}: " + ", ".join(f"{o} {w}" for o, w in winners.items()))
        for a in meds:
            for b in meds:
                wa, wb = winners[a], winners[b]
                if a < b and wa != wb and wb in meds[a].index and wa in meds[b].index:
                    pa, pb = superiority(runs[a], wa, wb), superiority(runs[b], wb, wa)
                    if pa >= 0.75 and pb >= 0.75:
                        found.append(f"{p}: {wa} under {a} (beats {wb} in {pa:.0%} of run pairs) vs {wb} under {b} "
                                     f"({pb:.0%})")
    if not tested:
        out.append(unmeasurable(c, f"needs two or more option sets with at least {need_med} runs per variant", machine))
    else:
        now = f"JDK {jdk}: winners " + "; ".join(details)
        now += ((". Clear reorderings: " + "; ".join(found[:3])) if found else
                ". No clear reordering (no pair of winners that each beat the other in >= 75% of run pairs)")
        out.append(judge(c, bool(found), now, machine=machine))

    # 9. layout
    c = CLAIM["spsc.layout-as-post"]
    lay = layout_rows(df)
    if lay.empty:
        out.append(unmeasurable(c, "no layout stored (SpscLayout cell missing)", machine))
    elif (lay["metric"] == "jol_unavailable").any():
        out.append(unmeasurable(c, "JOL could not read the layout: " + str(lay[lay["metric"] == "jol_unavailable"]
                                                                              ["jol_error"].iloc[0]), machine))
    else:
        post = {("I1", "tail"): 80, ("I1", "headCache"): 144, ("I1", "head"): 208, ("I1", "tailCache"): 272,
                ("I3", "capacity"): 80, ("I3", "tail"): 152, ("I3", "headCache"): 216, ("I3", "head"): 280,
                ("I3", "tailCache"): 344}
        off = lay[lay["metric"] == "offset"].copy()
        off["key"] = off["field"].str.rsplit(".", n=1).str[-1]
        bad, jdks = [], sorted(off["jdk"].unique(), key=int)
        for j in jdks:
            got = {(q, k): v for q, k, v in zip(off[off["jdk"] == j]["queue"], off[off["jdk"] == j]["key"],
                                                off[off["jdk"] == j]["value"])}
            bad += [f"JDK {j} {q}.{k} at {got.get((q, k))} (post {v})" for (q, k), v in post.items() if got.get((q, k)) != v]
        out.append(judge(c, not bad, ("every offset as in the post on JDK " + ", ".join(jdks)) if not bad else "; ".join(bad),
                         machine=machine))

    # 10. cross socket
    c = CLAIM["spsc.cross-socket"]
    un = df[(df["status"] == "unavailable") & (df.get("placement", "") == "cross-socket")]
    out.append(unmeasurable(c, str(un["note"].iloc[0]) if len(un) else "no cross-socket cells in this run", machine))
    return out
