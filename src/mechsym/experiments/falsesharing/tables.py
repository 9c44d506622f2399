"""Tables: the posts' numbers, JOL's layouts per JDK, durations per thread count, placements, forks, L1D misses.

Every function of this file that reads results is split per machine (analysis.by_machine)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from ...judge.analysis import fmt_ns, fmt_rate, fmt_ratio
from ...judge.verdicts import estimate
from .rows import ORDERS, PLACEMENT_OF, PROTOCOLS, forks, layout_rows, rows
from .sweep import LAB_PLACEMENT, LAYOUTS, PLACEMENT_THREADS


def reference_table(*refs: pd.DataFrame) -> pd.DataFrame:
    """The posts' own numbers and statements, as transcribed: post, where, what, value."""
    r = pd.concat(refs, ignore_index=True)
    value = [analysis.fmt_number(v) if pd.notna(v) else "" for v in pd.to_numeric(r["value"], errors="coerce")]
    return pd.DataFrame({"post": r["post"].str.removesuffix(".md"), "where": r["table"], "what": r["metric"],
                         "value": [f"{v} {u}".strip() if v else "" for v, u in zip(value, r["unit"].fillna(""))],
                         "note": r["note"].fillna("")})


@analysis.by_machine
def layout_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per JDK and layout, from JOL: the value's offset, the instance size, the smallest gap between two threads'
    counters as allocated (median and range over fresh JVMs), whether two shared a 64-byte line in any JVM."""
    lay = layout_rows(df)
    if lay.empty:
        return pd.DataFrame()
    out = []
    for (jdk, layout), g in lay.groupby(["jdk", "layout"], sort=False):
        get = lambda metric: g.loc[g["metric"] == metric, "value"]
        value = g[(g["metric"] == "offset") & g["field"].astype(str).str.endswith(".value")]["value"]
        gap, kept = get("counter_gap_min"), get("padding_fields_kept")
        out.append({"runtime": analysis.runtime_label(jdk), "layout": layout,
                    "value at offset": f"{value.median():.0f}" if len(value) else "(array element)",
                    "instance size (bytes)": f"{get('instance_size').median():.0f}",
                    "smallest gap between counters (bytes)": (f"{gap.median():.0f}" if gap.min() == gap.max()
                                                              else f"{gap.median():.0f} ({gap.min():.0f}..{gap.max():.0f})"),
                    "two in one 64-byte line": f"{int(get('shares_line').sum())} of {len(get('shares_line'))} JVMs",
                    "a counter on the array's line": (f"{int(get('array_shares_line').sum())} of "
                                                      f"{len(get('array_shares_line'))} JVMs"
                                                      if len(get('array_shares_line')) else "(no array of references)"),
                    "padding fields kept": f"{kept.median():.0f} of 6" if len(kept) else "",
                    "RestrictContended": str(g["restrict_contended"].iloc[0])})
    return analysis.sort_by(pd.DataFrame(out), ORDERS)


@analysis.by_machine
def offsets(df: pd.DataFrame, layout: str) -> pd.DataFrame:
    """One layout's fields as JOL reads them, per JDK: field x JDK offsets (the first JVM's)."""
    lay = analysis.where(layout_rows(df), layout=layout, metric="offset")
    if lay.empty:
        return pd.DataFrame()
    first = lay[lay["fork"] == lay["fork"].min()]
    t = first.pivot_table(index="field", columns="runtime", values="value", aggfunc="first")
    t = t.sort_values(t.columns[0])
    return t.map(lambda v: f"{v:.0f}").rename_axis(columns=f"{layout}: field offset (bytes)")


@analysis.by_machine
def scaling_table(df: pd.DataFrame, protocol: str = "lab") -> pd.DataFrame:
    """Median duration per layout (rows) and thread count (columns), per JDK, and N threads over 1 thread."""
    m = analysis.where(rows(df), protocol=protocol, placement=LAB_PLACEMENT if protocol == "lab" else "unpinned")
    if m.empty:
        return pd.DataFrame()
    p = PROTOCOLS[0] if protocol == "post" else PROTOCOLS[1]
    pf = analysis.per_fork(m, p, ["runtime", "variant", "threads"])
    t = pf.groupby(["runtime", "variant", "threads"])["value"].median().unstack("threads")
    t = t.reindex(analysis.sort_by(t.reset_index()[["runtime", "variant"]], ORDERS).itertuples(index=False, name=None))
    out = t.apply(lambda col: col.map(fmt_ns))
    out.columns = [f"{c:.0f} thread{'s' if c > 1 else ''}" for c in t.columns]
    if 1 in t.columns:
        for c in [c for c in t.columns if c > 1]:
            out[f"{c:.0f} / 1"] = (t[c] / t[1]).map(fmt_ratio)
    out.index.names = ["runtime", "layout"]
    return out


@analysis.by_machine
def placement_table(df: pd.DataFrame) -> pd.DataFrame:
    """2 threads on every placement (lab's harness): median duration of unpadded and padded-atomic, and the ratio;
    placements the machine lacks named."""
    m = analysis.where(rows(df), protocol="lab", threads=PLACEMENT_THREADS)
    if m.empty:
        return pd.DataFrame()
    t = m.groupby(["runtime", "placement", "variant"])["value"].median().unstack("variant")
    cols = [c for c in ("unpadded", "padded-atomic") if c in t]
    out = t[cols].apply(lambda col: col.map(fmt_ns))
    if len(cols) == 2:
        out["unpadded / padded-atomic"] = (t["unpadded"] / t["padded-atomic"]).map(fmt_ratio)
    out = out.reset_index()
    timing = df[df["kind"].astype(str) == "time"] if "kind" in df else df
    for p, why in analysis.unavailable_reasons(timing, "placement").items():
        out.loc[len(out)] = {"runtime": "", "placement": p, cols[0] if cols else "unpadded": f"not on this machine: {why}"}
    return analysis.sort_by(out, ORDERS).set_index(["runtime", "placement"])


@analysis.by_machine
def forks_table(df: pd.DataFrame, threads: int = 2) -> pd.DataFrame:
    """Each cell at `threads` under the post's protocol (one cold run per JVM, unpinned) and the lab's (median of
    the measured runs, cross-core): the median over forks with its 95% interval, and every fork's duration."""
    m = rows(df)
    out = []
    for protocol in PROTOCOLS:
        for jdk in analysis.jdks(m):
            for layout in LAYOUTS:
                vals = forks(df, protocol, variant=layout, jdk=jdk, threads=threads)
                if not len(vals):
                    continue
                est = estimate(lambda a: a, vals)
                out.append({"runtime": analysis.runtime_label(jdk), "layout": layout, "protocol": protocol.name,
                            "median [95% interval], forks": est.text("ns"),
                            "every fork, sorted": ", ".join(fmt_ns(v) for v in np.sort(vals))})
    if not out:
        return pd.DataFrame()
    return analysis.sort_by(pd.DataFrame(out), ORDERS).set_index(["runtime", "layout", "protocol"])


@analysis.by_machine
def array_line_table(df: pd.DataFrame, threads: int = 2) -> pd.DataFrame:
    """Each run at `threads`, split by where the kernel placed the `longs` array (lab: a random byte of a line per
    run; post: as allocated):
    with a counter on the array's line, which every thread reads on every write, or not. Median and count of runs
    per protocol and layout."""
    t = _runs_by_line(df, threads)
    if t.empty:
        return pd.DataFrame()
    out = []
    for (rt, protocol, layout), g in t.groupby(["runtime", "protocol", "variant"], sort=False):
        row = {"runtime": rt, "protocol": protocol, "layout": layout}
        for shared, label in ((1, "a counter on the array's line"), (0, "no counter on it")):
            d = g.loc[g["array_shares_line"] == shared, "duration"]
            row[label] = f"{fmt_ns(d.median())} ({len(d)} runs)" if len(d) else "(no run)"
        on, off = (g.loc[g["array_shares_line"] == s, "duration"].median() for s in (1, 0))
        row["on / off"] = fmt_ratio(on / off) if pd.notna(on) and pd.notna(off) else ""
        out.append(row)
    return analysis.sort_by(pd.DataFrame(out), ORDERS).set_index(["runtime", "layout", "protocol"])


def _runs_by_line(df: pd.DataFrame, threads: int) -> pd.DataFrame:
    """One row per timed run at `threads` on its protocol's placement: runtime, protocol, variant, duration and
    array_shares_line (1: counter 0 shares the `longs` array's line)."""
    m = rows(df, ["duration", "array_shares_line"])
    m = m[m["threads"] == threads] if len(m) else m
    if m.empty or not (m["metric"] == "array_shares_line").any():
        return pd.DataFrame()
    key = ["runtime", "protocol", "variant", "placement", "fork", "iteration"]
    t = m.pivot_table(index=key, columns="metric", values="value", aggfunc="first").dropna().reset_index()
    return t[t["placement"] == t["protocol"].map(PLACEMENT_OF)]


def findings(df: pd.DataFrame) -> str:
    """The placement finding and what the padded layouts' 2-thread slowdown comes from, in sentences computed from
    these runs (Markdown), machine by machine."""
    return analysis.per_machine_text(df, _findings)


def _findings(df: pd.DataFrame) -> str:
    two, one = _runs_by_line(df, 2), rows(df)
    if two.empty:
        return "No timed runs at 2 threads that record where the array landed."
    lines = []
    for (rt, protocol, layout), g in two.groupby(["runtime", "protocol", "variant"], sort=False):
        if layout not in ("padded-longs", "padded-atomic"):
            continue
        base = analysis.where(one, runtime=rt, protocol=protocol, variant=layout, threads=1,
                              placement=PLACEMENT_OF[protocol])["value"]
        on, off = (g.loc[g["array_shares_line"] == s, "duration"] for s in (1, 0))
        how = ("the array at a random byte of its line" if protocol == "lab"
               else "the array where the allocator put it, as the listing")
        txt = (f"- **{rt}, {layout}, {protocol} protocol** ({how}): counter 0 shared the array's line in "
               f"{len(on)} of {len(g)} runs")
        for label, d in (("on the array's line", on), ("off it", off)):
            if len(d):
                txt += f"; {label} {fmt_ns(d.median())}"
                if len(base):
                    txt += f" ({fmt_ratio(d.median() / base.median())} one thread's {fmt_ns(base.median())})"
        lines.append(txt + ".")
    if not lines:
        return "No padded runs at 2 threads in these results."
    return "\n".join(lines)


@analysis.by_machine
def throughput_table(df: pd.DataFrame) -> pd.DataFrame:
    """Writes per second over all threads (lab, cross-core), median per layout and thread count."""
    m = analysis.where(rows(df, "throughput"), protocol="lab", placement=LAB_PLACEMENT)
    if m.empty:
        return pd.DataFrame()
    t = m.groupby(["runtime", "variant", "threads"])["value"].median().unstack("threads")
    t = t.reindex(analysis.sort_by(t.reset_index()[["runtime", "variant"]], ORDERS).itertuples(index=False, name=None))
    out = t.apply(lambda col: col.map(fmt_rate))
    out.columns = [f"{c:.0f} thread{'s' if c > 1 else ''}" for c in t.columns]
    out.index.names = ["runtime", "layout"]
    return out


@analysis.by_machine
def l1d_table(df: pd.DataFrame) -> pd.DataFrame:
    """L1D load misses per write beside the duration (2 threads, cross-core), or why the machine cannot count them."""
    u = df[(df["status"] == "unavailable") & (df["kind"].astype(str) == "l1d")] if "kind" in df else df.iloc[0:0]
    m = rows(df, ["l1d_misses_per_op", "duration"], kind="l1d")
    out = []
    for (rt, layout), g in m.groupby(["runtime", "variant"], sort=False):
        misses = g.loc[g["metric"] == "l1d_misses_per_op", "value"].dropna()
        out.append({"runtime": rt, "layout": layout,
                    "L1D misses per write": f"{misses.median():.3f}" if len(misses) else "not counted",
                    "median duration": fmt_ns(g.loc[g["metric"] == "duration", "value"].median())})
    for _, r in u.iterrows():
        out.append({"runtime": analysis.runtime_label(r["jdk"]), "layout": r["variant"],
                    "L1D misses per write": f"unavailable: {r['note']}", "median duration": ""})
    return analysis.sort_by(pd.DataFrame(out), ORDERS) if out else pd.DataFrame()
