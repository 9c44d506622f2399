"""Tables: the post's output, this machine's listing runs beside it, the sweep, every fork under both protocols.

Every function of this file that reads results is split per machine (analysis.by_machine)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from ...judge.analysis import fmt_ratio
from ...run.harness import COMPILE, JIT_EVENT
from ...judge.verdicts import estimate
from .rows import (
    CASE_NAMES, COLD, LAB, ORDERS, POST, TIMED, jit_code, jit_forks, jit_spans, listing_forks, rows, runtimes,
    sweep_forks)
from .sweep import POST_ARRAYS, SPLIT


def _post_iterations(ref: pd.DataFrame) -> int:
    return int(ref.loc[ref["metric"] == "iterations", "value"].iloc[0])


def reference_table(ref: pd.DataFrame) -> pd.DataFrame:
    """The post's output: per repetition, SingleLoop and SplitLoop duration, ns per store, and their ratio."""
    r = ref[ref["table"] == "Output"]
    t = r.pivot(index="repetition", columns="case", values="value")
    stores = (_post_iterations(ref) - 1) * POST_ARRAYS
    out = pd.DataFrame(index=t.index.astype(int).rename("repetition"))
    for case in ("SingleLoop", "SplitLoop"):
        out[f"{case} duration"] = t[case].map(lambda v: f"{v:,.0f} ns")
        out[f"{case} ns/store"] = (t[case] / stores).map(lambda v: f"{v:.3f}")
    out["SingleLoop / SplitLoop"] = (t["SingleLoop"] / t["SplitLoop"]).map(fmt_ratio)
    return out


@analysis.by_machine
def listing_table(df: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """The listing's main, the post's run beside this machine's per runtime: ns per store of each case (median over
    forks of each fork's first repetition) and SingleLoop / SplitLoop with its 95% interval over forks."""
    r = ref[ref["table"] == "Output"]
    stores = (_post_iterations(ref) - 1) * POST_ARRAYS
    means = r.groupby("case")["value"].mean() / stores
    out = [{"where": "post: Core i7 860 2.8 GHz, Windows 7, 2^31 iterations",
            "SingleLoop ns/store": f"{means['SingleLoop']:.3f}", "SplitLoop ns/store": f"{means['SplitLoop']:.3f}",
            "SingleLoop / SplitLoop": fmt_ratio(means["SingleLoop"] / means["SplitLoop"]), "forks": "1 run"}]
    for rt in runtimes(df):
        f = listing_forks(df, rt, "ns_per_store")
        if f.empty:
            continue
        est = estimate(lambda a: a, (f["single loop"] / f["split loops"]).to_numpy(float))
        its = analysis.where(rows(df), variant="listing", runtime=rt)["iterations"]
        out.append({"where": f"this machine: {rt}, 2^{round(np.log2(float(its.iloc[0])))} iterations",
                    "SingleLoop ns/store": f"{f['single loop'].median():.3f}",
                    "SplitLoop ns/store": f"{f['split loops'].median():.3f}",
                    "SingleLoop / SplitLoop": est.text("x"), "forks": len(f)})
    return pd.DataFrame(out).set_index("where")


@analysis.by_machine
def repetitions(df: pd.DataFrame) -> pd.DataFrame:
    """The listing's three repetitions, median over forks, per runtime: how much the cold first pair differs."""
    m = analysis.where(rows(df, "ns_per_store"), variant="listing")
    if m.empty:
        return pd.DataFrame()
    t = m.groupby(["runtime", "iteration", "case"])["value"].median().unstack("case")
    t["single / split"] = t["single loop"] / t["split loops"]
    t = analysis.sort_by(t.reset_index(), ORDERS)
    t["repetition"] = t.pop("iteration") + 1
    return pd.DataFrame({"runtime": t["runtime"], "repetition": t["repetition"],
                         "SingleLoop ns/store": t["single loop"].map(lambda v: f"{v:.3f}"),
                         "SplitLoop ns/store": t["split loops"].map(lambda v: f"{v:.3f}"),
                         "single / split": t["single / split"].map(fmt_ratio)})


@analysis.by_machine
def sweep_table(df: pd.DataFrame, protocol=LAB) -> pd.DataFrame:
    """arrays x runtime: median ns per store of one loop of N (over forks), and its ratio to one loop of 3; at six
    arrays, the listing's SplitLoop beside it."""
    out = []
    for rt in runtimes(df):
        single, split = (sweep_forks(df, rt, v, protocol) for v in ("single-loop", "split-loops"))
        if single.empty:
            continue
        base = single[SPLIT].median() if SPLIT in single else np.nan
        for n in single.columns:
            one = single[n].median()
            out.append({"runtime": rt, "arrays": int(n), "one loop ns/store": f"{one:.3f}",
                        f"ratio to one loop of {SPLIT}": fmt_ratio(one / base) if np.isfinite(base) else "",
                        f"SplitLoop (two loops of {SPLIT}) ns/store":
                            f"{split[n].median():.3f}" if n in split else "",
                        "forks": int(single[n].notna().sum())})
    return pd.DataFrame(out)


@analysis.by_machine
def forks_table(df: pd.DataFrame) -> pd.DataFrame:
    """SingleLoop / SplitLoop at six arrays per fork, under the post's protocol (the listing's main) and the lab's
    (separate forks for each case: the ratio of their medians), per runtime, with every fork's own number."""
    out = []
    for rt in runtimes(df):
        f = listing_forks(df, rt)
        if len(f):
            ratios = (f["single loop"] / f["split loops"]).to_numpy(float)
            est = estimate(lambda a: a, ratios)
            out.append({"runtime": rt, "protocol": POST.name, "read from": "the listing's main, first repetition",
                        "SingleLoop / SplitLoop [95% interval]": est.text("x"),
                        "every fork, sorted": ", ".join(fmt_ratio(v) for v in np.sort(ratios))})
        one, three = (sweep_forks(df, rt, v) for v in ("single-loop", "split-loops"))
        if POST_ARRAYS in one and POST_ARRAYS in three:
            a, b = one[POST_ARRAYS].dropna().to_numpy(float), three[POST_ARRAYS].dropna().to_numpy(float)
            est = estimate(lambda x, y: x / y, a, b)
            out.append({"runtime": rt, "protocol": LAB.name, "read from": "sweep cells at 6 arrays, median of runs",
                        "SingleLoop / SplitLoop [95% interval]": est.text("x"),
                        "every fork, sorted": "ns per store, one loop: " + ", ".join(f"{v:.3f}" for v in np.sort(a))
                        + f"; loops of {SPLIT}: " + ", ".join(f"{v:.3f}" for v in np.sort(b))})
    return pd.DataFrame(out)


@analysis.by_machine
def protocols_table(df: pd.DataFrame) -> pd.DataFrame:
    """The sweep read both ways: one loop of N / one loop of 3 per store, first (cold) run of each fork vs the median
    of the warmed-up runs."""
    cold, lab = sweep_table(df, COLD), sweep_table(df, LAB)
    if lab.empty:
        return pd.DataFrame()
    keys, col = ["runtime", "arrays"], f"ratio to one loop of {SPLIT}"
    t = lab[keys + [col]].merge(cold[keys + [col]], on=keys, suffixes=("", " cold"))
    return t.rename(columns={col: "lab: median of warmed-up runs", col + " cold": "post: first, cold run"})


@analysis.by_machine
def summary(df: pd.DataFrame) -> pd.DataFrame:
    """ns per store per cell over the measured runs: median, range, spread, runs, forks."""
    m = rows(df)
    if m.empty:
        return pd.DataFrame()
    keys = ["variant", "runtime", "arrays", "per_loop"]
    out, _ = analysis.cell_table(m, keys, {**ORDERS, "arrays": []}, lambda v: f"{v:.3f}",
                                 labels=("median ns/store", "min ns/store", "max ns/store"))
    return out.reset_index(drop=True)




NOT_RECORDED = ("not recorded in this run: it has no JIT-logged fork of the listing (variant listing-jit); "
                "`make refresh EXPERIMENTS=writecombining` records one per JDK")


def jit_events(fork: pd.DataFrame) -> pd.DataFrame:
    """The fork's compilation events, in the order logged, with the repetition and timed case each fell in."""
    e = fork[fork["metric"] == JIT_EVENT]
    s = jit_spans(fork)
    out = []
    for r in e.itertuples(index=False):
        inside = s[(s["start"] <= r.value) & (r.value <= s["end"])]
        during = (f"{CASE_NAMES[inside['case'].iloc[-1]]}, repetition {inside['repetition'].iloc[-1]}"
                  if len(inside) else f"between runs (repetition {int(r.iteration) + 1})")
        out.append({"uptime ms": int(r.value), "during": during, "method": r.jit_method,
                    "code": jit_code(r.jit_tier, r.jit_osr_bci), "event": r.jit_kind,
                    "reason": r.jit_reason if isinstance(r.jit_reason, str) else "",
                    "compile id": int(r.jit_compile_id)})
    return pd.DataFrame(out, columns=["uptime ms", "during", "method", "code", "event", "reason", "compile id"])


@analysis.by_machine
def jit_events_table(df: pd.DataFrame) -> pd.DataFrame:
    """Every compilation event of the timed loops (loop6, splitLoop) in each JIT-logged fork, with the timed run
    it fell in; :func:`jit_not_recorded` when the rows have none."""
    out = [e[e["method"].isin(list(TIMED))].assign(runtime=rt)
           for rt, f in jit_forks(df).items() for e in [jit_events(f)]]
    out = [o for o in out if len(o)]
    if not out:
        return jit_not_recorded()
    t = pd.concat(out, ignore_index=True)
    return t[["runtime"] + [c for c in t.columns if c != "runtime"]]


@analysis.by_machine
def jit_runs_table(df: pd.DataFrame) -> pd.DataFrame:
    """Per JIT-logged fork and timed run: its ns per store, the compilations of its loop the JIT started before
    it (not made not entrant by then) and those during it: which code the repetition could have entered;
    :func:`jit_not_recorded` when the rows have none."""
    out = []
    for rt, f in jit_forks(df).items():
        e = f[f["metric"] == JIT_EVENT]
        for s in jit_spans(f).itertuples(index=False):
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
    return pd.DataFrame(out) if out else jit_not_recorded()


def jit_not_recorded() -> pd.DataFrame:
    """What a table shows for rows without a JIT-logged fork: one row saying so."""
    return pd.DataFrame({"compilation events": [NOT_RECORDED]})


def _list(ev: pd.DataFrame, kinds: bool = False) -> str:
    if ev.empty:
        return "none"
    return "; ".join(f"#{int(r.jit_compile_id)} {jit_code(r.jit_tier, r.jit_osr_bci)}"
                     + (f" {r.jit_kind}" if kinds else "") for r in ev.itertuples(index=False))
