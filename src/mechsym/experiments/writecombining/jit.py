"""Which code each repetition of the listing ran: the JIT-logged fork (variant listing-jit, one per JDK) with its
compilation events placed on its repetitions (mechsym.harness.jit_event_rows).

The listing runs SingleLoop (loop6) then SplitLoop (splitLoop) three times in one JVM, no warm-up: the first
repetition runs while the JIT compiles the loops (OSR compilations, entered mid-loop at a loop's bytecode index),
later ones enter whatever the JIT installed by then. A later repetition that steps away from the first ran a
recompiled shape: a finding of this JDK, shown here, never the post's result (the verdicts read the first).

Times are the JVM's uptime in ms (both the kernel's uptime rows and the log's decorator read it); a compilation is
logged as the compiler starts on it, and is installed some ms later."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.lines import Line2D

from ... import analysis, plots
from ...harness import COMPILE, JIT_EVENT, UPTIME_END, UPTIME_START
from .figures import CASE_COLORS
from .rows import ORDERS

VARIANT = "listing-jit"
#: The timed loop of each case of the listing (the kernel's method names) and the case it times.
TIMED = {"WriteCombining::loop6": "single loop", "WriteCombining::splitLoop": "split loops"}
CASE_NAMES = {"single loop": "SingleLoop", "split loops": "SplitLoop"}
NOT_RECORDED = ("not recorded in this run: it has no JIT-logged fork of the listing (variant listing-jit); "
                "`make refresh EXPERIMENTS=writecombining` records one per JDK")
TIER_COLORS = {"C1": "#E69F00", "C2": "#009E73", "other": "#999999"}


def _tier_name(tier) -> str:
    if pd.isna(tier):
        return "other"
    return "C2" if int(tier) == 4 else "C1" if 1 <= int(tier) <= 3 else "other"


def code(tier, osr_bci) -> str:
    """'C2 OSR @41' / 'C1 tier 3' / 'native wrapper': what a compilation produced."""
    name = {"C1": f"C1 tier {int(tier)}" if not pd.isna(tier) else "C1", "C2": "C2",
            "other": "native wrapper" if not pd.isna(tier) and int(tier) == 0 else "untiered"}[_tier_name(tier)]
    return name + (f" OSR @{int(osr_bci)}" if not pd.isna(osr_bci) else "")


def forks(df: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """runtime ('JDK 17') -> the rows of its JIT-logged fork (the newest run's first such fork), for runtimes that
    have one with compilation events; {} when the rows have none."""
    m = analysis.ok_rows(df) if df is not None and len(df) else pd.DataFrame()
    if m.empty or "variant" not in m or "jit_method" not in m:
        return {}
    m = m[m["variant"].astype(str) == VARIANT]
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


def spans(fork: pd.DataFrame) -> pd.DataFrame:
    """The fork's timed runs: repetition (1-based), case, start and end (uptime, ms), ns per store."""
    keys = ["iteration", "per_loop"]
    w = fork[fork["metric"].isin([UPTIME_START, UPTIME_END, "ns_per_store"])].pivot_table(
        index=keys, columns="metric", values="value", aggfunc="first").reset_index()
    arrays = pd.to_numeric(fork.loc[fork["metric"] == "ns_per_store", "arrays"]).iloc[0]
    return pd.DataFrame({"repetition": w["iteration"].astype(int) + 1,
                         "case": np.where(pd.to_numeric(w["per_loop"]) == arrays, "single loop", "split loops"),
                         "start": w[UPTIME_START], "end": w[UPTIME_END], "ns_per_store": w["ns_per_store"]}
                        ).sort_values(["repetition", "case"]).reset_index(drop=True)   # the listing's order


def events(fork: pd.DataFrame) -> pd.DataFrame:
    """The fork's compilation events, in the order logged, with the repetition and timed case each fell in."""
    e = fork[fork["metric"] == JIT_EVENT]
    s = spans(fork)
    out = []
    for r in e.itertuples(index=False):
        inside = s[(s["start"] <= r.value) & (r.value <= s["end"])]
        during = (f"{CASE_NAMES[inside['case'].iloc[-1]]}, repetition {inside['repetition'].iloc[-1]}"
                  if len(inside) else f"between runs (repetition {int(r.iteration) + 1})")
        out.append({"uptime ms": int(r.value), "during": during, "method": r.jit_method,
                    "code": code(r.jit_tier, r.jit_osr_bci), "event": r.jit_kind,
                    "reason": r.jit_reason if isinstance(r.jit_reason, str) else "",
                    "compile id": int(r.jit_compile_id)})
    return pd.DataFrame(out, columns=["uptime ms", "during", "method", "code", "event", "reason", "compile id"])


@analysis.by_machine
def events_table(df: pd.DataFrame) -> pd.DataFrame:
    """Every compilation event of the timed loops (loop6, splitLoop) in each JIT-logged fork, with the timed run
    it fell in; :func:`not_recorded` when the rows have none."""
    out = [e[e["method"].isin(list(TIMED))].assign(runtime=rt) for rt, f in forks(df).items() for e in [events(f)]]
    out = [o for o in out if len(o)]
    if not out:
        return not_recorded()
    t = pd.concat(out, ignore_index=True)
    return t[["runtime"] + [c for c in t.columns if c != "runtime"]]


@analysis.by_machine
def runs_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per JIT-logged fork and timed run: its ns per store, the compilations of its loop the JIT started before
    it (not made not entrant by then) and those during it: which code the repetition could have entered;
    :func:`not_recorded` when the rows have none."""
    out = []
    for rt, f in forks(df).items():
        e = f[f["metric"] == JIT_EVENT]
        for s in spans(f).itertuples(index=False):
            method = next(m for m, c in TIMED.items() if c == s.case)
            mine = e[e["jit_method"] == method]
            gone = set(mine.loc[(mine["jit_kind"] != COMPILE) & (mine["value"] <= s.start), "jit_compile_id"])
            before = mine[(mine["jit_kind"] == COMPILE) & (mine["value"] < s.start)
                          & ~mine["jit_compile_id"].isin(gone)]
            during = mine[(mine["value"] >= s.start) & (mine["value"] <= s.end)]
            out.append({"runtime": rt, "repetition": s.repetition, "case": CASE_NAMES[s.case],
                        "ns/store": f"{s.ns_per_store:.3f}", "ms": int(s.end - s.start),
                        "compiled before it, still entrant": _list(before),
                        "events during it": _list(during, kinds=True)})
    return pd.DataFrame(out) if out else not_recorded()


def not_recorded() -> pd.DataFrame:
    """What a table shows for rows without a JIT-logged fork: one row saying so."""
    return pd.DataFrame({"compilation events": [NOT_RECORDED]})


def _list(ev: pd.DataFrame, kinds: bool = False) -> str:
    if ev.empty:
        return "none"
    return "; ".join(f"#{int(r.jit_compile_id)} {code(r.jit_tier, r.jit_osr_bci)}"
                     + (f" {r.jit_kind}" if kinds else "") for r in ev.itertuples(index=False))


def plot_timeline(df: pd.DataFrame):
    """One panel per JIT-logged fork: its timed runs as bands along the JVM's uptime (SingleLoop and SplitLoop
    coloured, labelled with repetition and ns per store), and above them the compilation events of loop6 and
    splitLoop, one row per method: a triangle where a compilation starts (filled: the whole method; hollow: an OSR
    entry, labelled with its bytecode index), a cross where code is made not entrant; colour: C1 or C2."""
    parts = [(machine, rt, f) for machine, sub in analysis.split(df) for rt, f in forks(sub).items()]
    if not parts:
        fig, axes = plots.grid(1, width=9, height=1.6)
        plots.empty(axes[0], NOT_RECORDED)
        return fig
    fig, axes = plt.subplots(len(parts), 1, figsize=(10, 2.9 * len(parts)), squeeze=False)
    rows = {m: i for i, m in enumerate(TIMED)}
    for ax, (machine, rt, f) in zip(axes[:, 0], parts):
        s = spans(f)
        for r in s.itertuples(index=False):
            ax.axvspan(r.start, max(r.end, r.start + 1), ymin=0, ymax=0.28, color=CASE_COLORS[r.case], alpha=0.55,
                       lw=0)
            ax.text((r.start + r.end) / 2, -0.55, f"{r.repetition}\n{r.ns_per_store:.3f}", ha="center", va="center",
                    fontsize=7)
        e = f[(f["metric"] == JIT_EVENT) & f["jit_method"].isin(list(TIMED))]
        for r in e.itertuples(index=False):
            y = rows[r.jit_method] + 0.1 * (int(r.jit_compile_id) % 3)   # spread marks of one instant a little
            color = TIER_COLORS[_tier_name(r.jit_tier)]
            osr = not pd.isna(r.jit_osr_bci)
            if r.jit_kind == COMPILE:
                ax.plot(r.value, y, "^", ms=7, color=color, mfc="none" if osr else color, mew=1.4)
                ax.annotate(f"@{int(r.jit_osr_bci)}" if osr else "", (r.value, y), xytext=(3, 4),
                            textcoords="offset points", fontsize=6, color=color)
            else:
                ax.plot(r.value, y, "x", ms=6, color=color, mew=1.4)
        ax.set_ylim(-0.9, len(TIMED) - 0.5)
        ax.set_yticks([-0.55, *rows.values()], ["repetition\nns/store", *[m.split("::")[1] for m in TIMED]],
                      fontsize=8)
        ax.set_xlabel("JVM uptime (ms)")
        ax.set_title(f"{rt}: the listing with -Xlog:jit+compilation (one fork)" + (f", {machine}" if machine else ""),
                     fontsize=10)
    handles = [plt.Rectangle((0, 0), 1, 1, color=c, alpha=0.55) for c in CASE_COLORS.values()]
    labels = [f"{CASE_NAMES[k]} timed" for k in CASE_COLORS]
    handles += [Line2D([], [], ls="", marker="^", color=TIER_COLORS["C2"], ms=7),
                Line2D([], [], ls="", marker="^", color=TIER_COLORS["C2"], mfc="none", ms=7),
                Line2D([], [], ls="", marker="x", color="#444444", ms=6),
                Line2D([], [], ls="", marker="s", color=TIER_COLORS["C1"], ms=6),
                Line2D([], [], ls="", marker="s", color=TIER_COLORS["C2"], ms=6)]
    labels += ["compilation starts: whole method", "compilation starts: OSR entry @bytecode index",
               "made not entrant", "C1 (tiers 1-3)", "C2 (tier 4)"]
    fig.legend(handles, labels, loc="upper left", bbox_to_anchor=(1.0, 0.95), fontsize=8, frameon=False)
    fig.tight_layout()
    return fig
