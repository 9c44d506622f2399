"""Tables: the posts' numbers, this machine's beside them, the tail, the timer, forks and runs side by side.

Every function of this file that reads results is split per machine (analysis.by_machine)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from ...judge.analysis import fmt_ns, fmt_rate, fmt_ratio
from ...judge.verdicts import estimate
from .meta import NAME
from .rows import ORDERS, lab_rows, median, per_fork_table, rows
from .sweep import PLACEMENTS

PERCENTILES = ["p50", "p90", "p99", "p99.9", "max"]
SPIN = ["volatile-spin", "c-spin"]


def _not_here(t: pd.DataFrame, df: pd.DataFrame) -> pd.DataFrame:
    """The placements this machine lacks, named as rows of a placement-indexed table."""
    for p, why in analysis.unavailable_reasons(df, "placement").items():
        t.loc[p] = f"not on this machine: {why}"
    return t.reindex(analysis.ordered(t.index, PLACEMENTS))


# ---------------------------------------------------------------- the posts' numbers

def reference_cv_table(ref: pd.DataFrame) -> pd.DataFrame:
    """The 2011-11-05 results: system x pinned/unpinned, ns/op and ops/s, with the unpinned/pinned ratio."""
    r = ref[ref["metric"].isin(["ns_per_op", "throughput"])]
    t = r.pivot_table(index=["os", "cpu"], columns=["metric", "placement"], values="value", aggfunc="first", sort=False)
    out = pd.DataFrame(index=t.index)
    for pl in ("pinned", "unpinned"):
        out[f"ns/op {pl}"] = t[("ns_per_op", pl)].map(lambda v: f"{v:,.0f}")
        out[f"ops/s {pl}"] = t[("throughput", pl)].map(fmt_rate)
    out["unpinned / pinned"] = (t[("ns_per_op", "unpinned")] / t[("ns_per_op", "pinned")]).map(fmt_ratio)
    return out


def reference_itl_table(ref: pd.DataFrame) -> pd.DataFrame:
    """The 2011-08-09 results: Java vs C++, duration, ns/op as printed and exact, ops/s."""
    r = ref[(ref["table"] == "Results") & ref["metric"].isin(["duration", "ns_per_op", "throughput"])]
    t = r.pivot_table(index=["language", "command"], columns="metric", values="value", aggfunc="first", sort=False)
    iterations = ref.loc[ref["metric"] == "iterations", "value"].iloc[0]
    out = t[["duration", "ns_per_op", "throughput"]].map(lambda v: f"{v:,.0f}")
    out["throughput"] = t["throughput"].map(fmt_rate)
    out["duration"] = t["duration"].map(fmt_ns)
    out.insert(2, "ns/op exact", (t["duration"] / (2 * iterations)).map(lambda v: f"{v:.2f}"))
    return out.rename(columns={"ns_per_op": "ns/op printed"}).rename_axis(columns=None)


# ---------------------------------------------------------------- this machine

@analysis.by_machine
def summary(df: pd.DataFrame) -> pd.DataFrame:
    """ns/op per variant, runtime and placement over the lab's measured runs: median, range, spread, runs, forks;
    runs that hit their deadline counted."""
    m = lab_rows(df)
    if m.empty:
        return pd.DataFrame()
    keys = ["variant", "runtime", "placement"]
    out, s = analysis.cell_table(m, keys, ORDERS, fmt_ns, labels=("median ns/op", "min", "max"))
    hits = lab_rows(df, "deadline_hit").groupby(keys)["value"].sum()
    out["runs at deadline"] = [int(hits.get(tuple(k), 0)) for k in s[keys].values]
    return out


@analysis.by_machine
def wide_table(df: pd.DataFrame, variants: list[str] | None = None, metric: str = "ns_per_op") -> pd.DataFrame:
    """placement x (variant, runtime) table of medians (lab's runs), like the posts' results; cells the machine
    lacks named."""
    m = lab_rows(df, metric)
    if variants:
        m = m[m["variant"].isin(variants)]
    if m.empty:
        return pd.DataFrame()
    fmt = fmt_ns if metric == "ns_per_op" else (lambda v: analysis.fmt_value(v, str(m["unit"].iloc[0])))
    t = m.groupby(["placement", "variant", "runtime"])["value"].median().unstack(["variant", "runtime"])
    cols = [c for c in analysis.sort_by(pd.DataFrame(list(t.columns), columns=["variant", "runtime"]), ORDERS)
            .itertuples(index=False, name=None)]
    t = t[cols].apply(lambda col: col.map(fmt))
    t.index.name = "placement"
    return _not_here(t, df)


@analysis.by_machine
def java_vs_c(df: pd.DataFrame) -> pd.DataFrame:
    """Busy-spin ping-pong per placement: median ns/op of each JDK and of C, and Java / C."""
    m = lab_rows(df)
    m = m[m["variant"].isin(SPIN)]
    if m.empty:
        return pd.DataFrame()
    t = m.groupby(["placement", "runtime"])["value"].median().unstack("runtime")
    t = t[analysis.ordered(t.columns, ORDERS["runtime"])]
    out = t.apply(lambda col: col.map(fmt_ns))
    if "C (gcc)" in t:
        for rt in [c for c in t.columns if c != "C (gcc)"]:
            out[f"{rt} / C"] = (t[rt] / t["C (gcc)"]).map(fmt_ratio)
    hits = lab_rows(df, "deadline_hit")
    hits = hits[hits["variant"].isin(SPIN)].groupby("placement")["value"].agg(["sum", "count"])
    out["runs stopped at deadline"] = [f"{int(hits.loc[p, 'sum'])} of {int(hits.loc[p, 'count'])}"
                                       if p in hits.index else "" for p in out.index]
    return _not_here(out, df)


@analysis.by_machine
def comparison_cv(df: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """The post's numbers beside this machine's: locked ns/op pinned, unpinned, ratio; volatile ns/op."""
    rows_ = []
    r = ref[ref["metric"] == "ns_per_op"]
    vol = ref.loc[ref["metric"] == "volatile_signalling_latency", "value"].iloc[0]
    for (os_, cpu), sub in r.groupby(["os", "cpu"], sort=False):
        pinned, unpinned = (sub.loc[sub["placement"] == p, "value"].iloc[0] for p in ("pinned", "unpinned"))
        rows_.append({"where": f"post: {os_}, {cpu}, JDK 1.6.0", "lock pinned (cross-core)": f"{pinned:,.0f} ns",
                      "lock unpinned": f"{unpinned:,.0f} ns", "unpinned / pinned": fmt_ratio(unpinned / pinned),
                      "lock same CPU": "", "volatile pinned": f"< {vol:.0f} ns (2011-08-09 post)",
                      "lock / volatile": f"> {fmt_ratio(pinned / vol)}"})
    for jdk in analysis.jdks(rows(df)):
        med = lambda v, p: median(df, variant=v, jdk=jdk, placement=p)
        lp, lu, ls, vp = med("locked", "cross-core"), med("locked", "unpinned"), med("locked", "same-cpu"), \
            med("volatile-spin", "cross-core")
        rows_.append({"where": f"this machine, JDK {jdk}", "lock pinned (cross-core)": fmt_ns(lp),
                      "lock unpinned": fmt_ns(lu), "unpinned / pinned": fmt_ratio(lu / lp) if lp and lu else "",
                      "lock same CPU": fmt_ns(ls), "volatile pinned": fmt_ns(vp),
                      "lock / volatile": fmt_ratio(lp / vp) if lp and vp else ""})
    return pd.DataFrame(rows_).set_index("where")


@analysis.by_machine
def comparison_itl(df: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """The post's Java and C++ results beside this machine's cross-core busy-spin numbers."""
    out = []
    iterations = ref.loc[ref["metric"] == "iterations", "value"].iloc[0]
    for lang, sub in ref[ref["table"] == "Results"].groupby("language", sort=False):
        get = lambda k: sub.loc[sub["metric"] == k, "value"].iloc[0]
        out.append({"where": f"post: {lang}, Sandy Bridge 2.2 GHz, taskset -c 2,4",
                    "ns/op": fmt_ns(get("duration") / (2 * iterations)), "ops/s": fmt_rate(get("throughput")),
                    "round trip p50": "", "round trip p99.9": ""})
    m = lab_rows(df)
    for rt in analysis.ordered(m.loc[m["variant"].isin(SPIN), "runtime"], ORDERS["runtime"]):
        cell = dict(variant="c-spin" if rt.startswith("C") else "volatile-spin", runtime=rt, placement="cross-core")
        out.append({"where": f"this machine: {rt}, cross-core", "ns/op": fmt_ns(median(df, **cell)),
                    "ops/s": fmt_rate(median(df, "throughput", **cell)),
                    "round trip p50": fmt_ns(median(df, "round_trip_p50", **cell)),
                    "round trip p99.9": fmt_ns(median(df, "round_trip_p99.9", **cell))})
    return pd.DataFrame(out).set_index("where")


@analysis.by_machine
def percentiles(df: pd.DataFrame, variants: list[str] | None = None) -> pd.DataFrame:
    """Round-trip percentiles (median over runs; max: the largest seen) per variant, runtime and placement."""
    m = lab_rows(df, [f"round_trip_{p}" for p in ["mean", *PERCENTILES, "samples"]])
    if variants:
        m = m[m["variant"].isin(variants)]
    if m.empty:
        return pd.DataFrame()
    m = m.assign(stat=m["metric"].str.removeprefix("round_trip_"))
    keys = ["variant", "runtime", "placement"]
    g = m.groupby(keys + ["stat"])["value"]
    med = g.median().unstack("stat")
    if "samples" in med:
        med["samples"] = g.sum().unstack("stat")["samples"]
    if "max" in med:
        med["max"] = g.max().unstack("stat")["max"]
    cols = [c for c in ["mean", *PERCENTILES, "samples"] if c in med.columns]
    med = analysis.sort_by(med[cols].reset_index(), ORDERS).set_index(keys)
    return pd.DataFrame({c: med[c].map(lambda v: f"{v:,.0f}" if c == "samples" else fmt_ns(v)) for c in cols})


@analysis.by_machine
def timer_table(df: pd.DataFrame) -> pd.DataFrame:
    """The timer's own cost per runtime: System.nanoTime (Java) / clock_gettime (C) back to back."""
    m = rows(df, ["timer_cost", "timer_step"])
    if m.empty:
        return pd.DataFrame()
    m["runtime"] = np.where(m["jdk"] == "c", "C (gcc), clock_gettime(CLOCK_MONOTONIC)",
                            m["runtime"] + ", System.nanoTime()")
    cost, step = (m[m["metric"] == k].groupby("runtime")["value"] for k in ("timer_cost", "timer_step"))
    return pd.DataFrame({"ns per call (median over forks)": cost.median().map(lambda v: f"{v:.1f}"),
                         "range": [f"{a:.1f} .. {b:.1f}" for a, b in zip(cost.min(), cost.max())],
                         "smallest step seen (ns)": step.min().map(lambda v: f"{v:.0f}"), "forks": cost.count()})


@analysis.by_machine
def bounded_runs(df: pd.DataFrame) -> pd.DataFrame:
    """The runs that stopped at their deadline: how many exchanges they completed and in how long."""
    m = lab_rows(df, ["deadline_hit", "exchanges", "duration", "ns_per_op"])
    if m.empty or "deadline_hit" not in set(m["metric"]):
        return pd.DataFrame()
    key = ["variant", "runtime", "placement", "run_id", "fork", "iteration"]
    w = m.pivot_table(index=[k for k in key if k in m], columns="metric", values="value", aggfunc="first")
    w = w[w["deadline_hit"] == 1].reset_index()
    if w.empty:
        return pd.DataFrame()
    g = w.groupby(["variant", "runtime", "placement"])
    return pd.DataFrame({"runs": g.size(), "exchanges per run (median)": g["exchanges"].median(),
                         "run length (s)": g["duration"].median() / 1e9,
                         "ns/op (median)": g["ns_per_op"].median().map(fmt_ns)})


# ---------------------------------------------------------------- forks, protocols and runs side by side

@analysis.by_machine
def forks_table(df: pd.DataFrame, variants: list[str] | None = None, placement: str | list[str] | None = "cross-core",
                metric: str = "ns_per_op") -> pd.DataFrame:
    """Each cell's forks under the post's protocol (first, cold run of each JVM) and the lab's (median of the
    measured runs): every fork's number, sorted, and the median with its 95% interval over forks.

    A cell whose forks split into two clusters shows it here (and in a wide interval); a median alone hides it."""
    pf = per_fork_table(df, metric)
    if variants:
        pf = pf[pf["variant"].isin(variants)]
    if placement:
        pf = analysis.where(pf, placement=placement)
    if pf.empty:
        return pd.DataFrame()
    unit = "ns" if metric == "ns_per_op" else "ops/s"
    out = []
    for key, g in pf.groupby(["variant", "runtime", "placement", "protocol", "source"], sort=False):
        vals = g["value"].to_numpy(dtype=float)
        est = estimate(lambda a: a, vals)
        out.append(dict(zip(["variant", "runtime", "placement", "protocol", "read from"], key),
                        **{"median [95% interval], forks": est.text(unit) if est else "",
                           "every fork, sorted": ", ".join(analysis.fmt_value(v, unit) for v in np.sort(vals))}))
    return analysis.sort_by(pd.DataFrame(out), ORDERS).set_index(["variant", "runtime", "placement", "protocol"])


@analysis.by_machine
def run_to_run(df: pd.DataFrame, variants: list[str] | None = None, placement: str | None = None) -> pd.DataFrame:
    """Median ns/op of every stored run of the same preset on this machine, one column per run (lab's runs).

    On a shared or virtual machine one run is not the machine: a cell can move by several times between runs an
    hour apart. Falls back to the rows given when the store has no other run."""
    from ... import MechsymError
    from ...store import runs as store

    run = str(df["run_id"].iloc[0]) if "run_id" in df and len(df) else ""
    preset = run.split("-")[1] if run.count("-") >= 2 else None
    machine = analysis.machines(df)
    allruns = df
    if machine:
        try:
            stored = store.load(NAME, machine[0], preset=preset, latest=False)
            allruns = stored if len(stored) else df
        except MechsymError:
            pass
    m = lab_rows(allruns)
    if variants:
        m = m[m["variant"].isin(variants)]
    if placement:
        m = m[m["placement"] == placement]
    if m.empty or "run_id" not in m:
        return pd.DataFrame()
    keys = ["variant", "runtime", "placement"]
    t = analysis.sort_by(m.groupby(keys + ["run_id"])["value"].median().unstack("run_id").reset_index(), ORDERS)
    t = t.set_index(keys)
    runs = list(t.columns)
    out = t.apply(lambda col: col.map(fmt_ns))
    if len(runs) > 1:
        out["max / min"] = (t[runs].max(axis=1) / t[runs].min(axis=1)).map(fmt_ratio)
    out.columns.name = "median ns/op per stored run"
    return out


@analysis.by_machine
def counter_lines(df: pd.DataFrame) -> pd.DataFrame:
    """Where each fork's two counters sat, and what its forks measured there: per cell and protocol, how many forks
    had both counters in one 64-byte line and how many had them straddling two (left out of every verdict:
    harness.drop_split), with each group's median ns/op over forks. The placement is the JVM's choice for the class's
    statics (the C kernel's, the linker's); a fork whose placement was not read counts under "not read". Empty for
    runs stored before the kernels said."""
    by = ("variant", "runtime", "placement")
    place = per_fork_table(df, "counters_share_line", by)
    if place.empty:
        return pd.DataFrame()
    place = place[place["source"] != "the lab kernel's first run"]   # each fork once, under the protocol it ran
    keys = [*by, "protocol", "source", "fork_key"]
    m = per_fork_table(df, "ns_per_op", by).merge(place.rename(columns={"value": "shared"})[keys + ["shared"]],
                                                  on=keys)
    out = []
    for key, g in m.groupby([*by, "protocol"], sort=False):
        one, two = g.loc[g["shared"] == 1, "value"], g.loc[g["shared"] == 0, "value"]
        out.append(dict(zip([*by, "protocol"], key), **{
            "forks, one line": len(one), "ns/op, one line (median)": fmt_ns(one.median()) if len(one) else "",
            "forks, two lines": len(two), "ns/op, two lines (median)": fmt_ns(two.median()) if len(two) else "",
            "not read": int((~g["shared"].isin([0, 1])).sum())}))
    return analysis.sort_by(pd.DataFrame(out), ORDERS).set_index([*by, "protocol"])
