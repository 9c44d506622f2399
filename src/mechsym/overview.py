"""Every claim of every experiment in one place: what notebooks/00-overview,
`mechsym verdicts` and reports/index.html show.

The one source is each experiment module's CLAIMS and verdicts(df), applied
to the stored results, machine by machine. An experiment without stored
results lists its claims as "not run yet" (not an error); an experiment whose
verdict function fails lists them as "error" with the reason, so one broken
module never hides the others.
"""

from __future__ import annotations

import dataclasses
import re

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from . import MechsymError, analysis, experiments, store
from . import verdicts as verdicts_mod
from .verdicts import FAILS, HOLDS, INCONCLUSIVE, UNMEASURABLE, Verdict

NOT_RUN = "not run yet"
ERROR = "error"
STATUSES = (HOLDS, FAILS, INCONCLUSIVE, UNMEASURABLE, NOT_RUN, ERROR)
COLOURS = {HOLDS: "#2ca02c", FAILS: "#d62728", INCONCLUSIVE: "#e6b800", UNMEASURABLE: "#9e9e9e",
           NOT_RUN: "#dddddd", ERROR: "#ff7f0e"}
CELL_STYLE = {HOLDS: "background-color: #d8f0d8", FAILS: "background-color: #f6d5d5",
              INCONCLUSIVE: "background-color: #fff2c2", UNMEASURABLE: "background-color: #eeeeee",
              NOT_RUN: "background-color: #f7f7f7; color: #777", ERROR: "background-color: #ffe3c2"}
COLUMNS = ["experiment", "machine", "post", "notebook", "id", "scope", "protocol", "claim", "then", "now", "outcome",
           "why", "how tested", "then_value", "now_value", "low", "high", "forks", "runs_agree", "runs_total",
           "unstable", "run", "source"]


def _row(name: str, machine: str, claim, outcome: str, now: str = "", why: str = "", v: Verdict | None = None) -> dict:
    return {"experiment": name, "machine": machine, "post": claim.post, "notebook": claim.notebook, "id": claim.id,
            "scope": v.scope_text if v else "", "protocol": v.protocol if v else "", "claim": claim.text,
            "then": claim.then, "now": now, "outcome": outcome, "why": why, "how tested": claim.test,
            "then_value": v.then_value if v else None, "now_value": v.now_value if v else None,
            "low": v.low if v else None, "high": v.high if v else None, "forks": v.forks if v else 0,
            "runs_agree": v.runs_agree if v else None, "runs_total": v.runs_total if v else None,
            "unstable": bool(v.unstable) if v else False, "run": v.run_id if v else "",
            "source": getattr(claim, "source", "post")}


def _load(name: str, machine: str | None, preset: str | None) -> pd.DataFrame:
    """Stored rows; a preset other than "stored" prefers that preset's newest run (what a
    `make reports PRESET=...` just ran), falling back to the most thorough stored."""
    if preset and preset != "stored":
        df = store.load(name, machine, preset=preset)
        if not df.empty:
            return df
    return store.load(name, machine)


def machine_verdicts(module, df: pd.DataFrame) -> list[Verdict]:
    """module.verdicts(df) machine by machine, each verdict tagged with its machine and run."""
    if df.empty:
        return []
    out = []
    for machine, sub in analysis.split(df):
        run = ",".join(sorted(sub["run_id"].astype(str).unique())) if "run_id" in sub else ""
        out += [dataclasses.replace(v, machine=machine or v.machine, run_id=run) for v in module.verdicts(sub)]
    return out


def quiet(meta: dict) -> bool:
    """A run taken on a quiet machine (or one stored before noise was recorded: unknown counts as quiet)."""
    try:
        from . import noise
        return noise.is_quiet(meta) is not False
    except Exception:
        return True


def replication(module, name: str, df: pd.DataFrame, main: list[Verdict], busy: bool = False) -> list[Verdict]:
    """The main verdicts with how many complete stored runs of the same machine and preset agree.

    Each complete run is judged on its own; busy runs (noise on record) are left out unless busy=True."""
    if df.empty or "run_id" not in df:
        return main
    per_run: list[list[Verdict]] = []
    for machine, sub in analysis.split(df):
        shown = set(sub["run_id"].astype(str))
        metas = _runs(name, machine)
        presets = {m.get("preset") for m in metas if m["run_id"] in shown}
        metas = [m for m in metas if m.get("preset") in presets and (busy or quiet(m))]
        if len(metas) < 2:
            continue
        rows = store.load(name, machine, latest=False)
        mine = [v for v in main if v.machine == machine]
        for meta in metas:
            one = rows[rows["run_id"].astype(str) == meta["run_id"]] if len(rows) else rows
            if shown == {meta["run_id"]} and len(one) == len(sub) and mine:
                per_run.append(mine)  # the run shown, already judged: its verdicts are `main`'s own
            elif len(one):
                try:
                    per_run.append(machine_verdicts(module, one.reset_index(drop=True)))
                except Exception:  # an old run the current analysis cannot read does not vote
                    continue
    return verdicts_mod.replicate(main, per_run) if per_run else main


def collect(machine: str | None = None, preset: str | None = None, names: list[str] | None = None,
            replicate: bool = True) -> pd.DataFrame:
    """One row per verdict: every claim of every experiment (or of `names`).

    machine: None (per experiment this machine, else the newest stored), a machine id, or "all"
    (every stored machine; claims of an experiment a machine has not run are "not run yet" there).
    replicate: judge every complete stored run of the same preset too, and count how many agree."""
    if machine not in (None, "", "all") and machine not in store.machines():
        have = ", ".join(store.machines()) or "none"
        raise MechsymError(f"machine '{machine}': no stored results (stored machines: {have}, or 'all')")
    all_machines = store.machines() if machine == "all" else []
    rows = []
    for name in names or experiments.names():
        try:
            module = experiments.get(name)
            claims = list(module.CLAIMS)
        except MechsymError:
            raise
        except Exception as e:  # a module being written: say so, keep the others
            rows.append({**{c: "" for c in COLUMNS}, "experiment": name, "outcome": ERROR,
                         "claim": f"experiment module '{name}' failed to load", "why": _one_line(e)})
            continue
        try:
            df = _load(name, machine, preset)
            verdicts = machine_verdicts(module, df)
            if replicate:
                verdicts = replication(module, name, df, verdicts)
        except MechsymError:
            raise
        except Exception as e:
            here = machine if machine not in (None, "", "all") else store.machine_id()
            rows += [_row(name, here, c, ERROR, why=f"verdicts({name}) failed: {_one_line(e)}") for c in claims]
            continue
        judged = sorted({v.machine for v in verdicts})
        for v in verdicts:
            rows.append(_row(name, v.machine, v.claim, v.outcome, v.now, v.why, v))
        if machine == "all":
            missing = [m for m in all_machines if m not in judged] or ([] if judged else [store.machine_id()])
        elif not verdicts:
            missing = [machine or store.default_machine(name) or store.machine_id()]
        else:
            missing = []
        for m in missing:
            rows += [_row(name, m, c, NOT_RUN, why=f"no stored results of {name} for {m}: "
                                              f"`mechsym run {name}` or `mechsym import`") for c in claims]
    out = pd.DataFrame(rows, columns=COLUMNS)
    order = {c.id: i for name in (names or experiments.names()) for i, c in enumerate(_claims(name))}
    out["_order"] = out["id"].map(order).fillna(len(order))
    out = out.sort_values(["post", "notebook", "_order", "scope", "protocol", "machine"], kind="stable")
    return out.drop(columns="_order").reset_index(drop=True)


CSV_COLUMNS = ["machine", "id", "scope", "protocol", "outcome", "now_value", "low", "high", "forks", "runs_agree",
               "runs_total", "unstable", "then_value", "notebook", "run", "why"]


def csv_frame(claims: pd.DataFrame) -> pd.DataFrame:
    """`mechsym verdicts --format csv`: claim id, scope, protocol, outcome, now (median), its interval, forks,
    runs agreeing / runs stored, unstable, then."""
    return claims[CSV_COLUMNS].rename(columns={"id": "claim", "now_value": "now", "then_value": "then",
                                               "runs_agree": "runs agreeing", "runs_total": "runs stored"})


def agreement(row) -> str:
    total = row.get("runs_total")
    if total is None or pd.isna(total) or not total:
        return ""
    text = f"{int(row['runs_agree'])} of {int(total)} runs"
    return text + " (unstable)" if row.get("unstable") else text


def _claims(name: str) -> list:
    try:
        return list(experiments.get(name).CLAIMS)
    except Exception:
        return []


def _one_line(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:300]


# ---------------------------------------------------------------- tables

def counts(claims: pd.DataFrame, by: str = "notebook") -> pd.DataFrame:
    """Verdicts per notebook (or machine): holds / does not hold / not measurable / not run yet / error."""
    if claims.empty:
        return pd.DataFrame(columns=list(STATUSES))
    t = claims.groupby([by, "outcome"]).size().unstack("outcome", fill_value=0)
    return t.reindex(columns=[s for s in STATUSES if s in t.columns or s in (HOLDS, FAILS, INCONCLUSIVE, UNMEASURABLE)],
                     fill_value=0)


def post_title(post: str) -> str:
    """'2011-11-19-java-lock-implementations.md' -> '2011-11-19 · java lock implementations'."""
    m = re.match(r"(\d{4}-\d{2}-\d{2})-(.*?)(\.md)?$", post or "")
    return f"{m.group(1)} · {m.group(2).replace('-', ' ')}" if m else (post or "")


def link(notebook: str, ext: str = "ipynb") -> str:
    return f'<a href="{notebook}.{ext}">{notebook}</a>' if notebook else ""


def table(claims: pd.DataFrame, ext: str = "ipynb"):
    """Every claim grouped by post, one column pair per machine (outcome and today's figure) when there are several."""
    if claims.empty:
        return pd.DataFrame({"": ["no experiments found"]})
    c = claims.copy()
    c["post"] = c["post"].map(post_title)
    c["notebook"] = c["notebook"].map(lambda n: link(n, ext))
    machines = list(dict.fromkeys(c["machine"]))
    key = ["post", "notebook", "claim", "then"]
    c["runs"] = c.apply(agreement, axis=1)
    if len(machines) <= 1:
        c["result"] = c.apply(lambda r: "" if r["outcome"] == NOT_RUN else
                              " · ".join(x for x in (r["now"], r["why"]) if x and x != "n/a"), axis=1)
        status = "holds on this machine?" if machines == [store.machine_id()] else f"holds on {machines[0] if machines else '?'}?"
        t = c[key + ["scope", "protocol", "outcome", "result", "runs", "how tested"]].rename(
            columns={"outcome": status, "result": "now", "scope": "where", "runs": "runs agreeing"})
        if not t["runs agreeing"].astype(bool).any():
            t = t.drop(columns="runs agreeing")
        status_cols = [status]
    else:
        c["n"] = c.groupby(key + ["scope", "machine"]).cumcount()
        c["result"] = c.apply(lambda r: r["now"] if r["now"] and r["now"] != "n/a" else
                              ("" if r["outcome"] == NOT_RUN else r["why"]), axis=1)
        c["protocol"] = c["protocol"].fillna("")
        w = c.pivot_table(index=key + ["scope", "protocol", "n"], columns="machine", values=["outcome", "result"],
                          aggfunc="first", sort=False)
        w = w.reorder_levels([1, 0], axis=1)
        w = w.reindex(columns=pd.MultiIndex.from_product([machines, ["outcome", "result"]]))
        w.columns = [f"{m} · {'holds?' if k == 'outcome' else 'now'}" for m, k in w.columns]
        t = w.fillna("").reset_index().drop(columns="n").rename(columns={"scope": "where"})
        status_cols = [f"{m} · holds?" for m in machines]
    # group visually: a post, notebook and claim are named once, on their first row
    t = t.reset_index(drop=True)
    orig = t.copy()
    for i, col in enumerate(key):
        same = (orig[key[:i + 1]] == orig[key[:i + 1]].shift()).all(axis=1)
        t.loc[same, col] = ""
    return (t.style.map(lambda v: CELL_STYLE.get(v, ""), subset=status_cols)
            .set_properties(**{"text-align": "left", "white-space": "pre-wrap", "vertical-align": "top"})
            .hide(axis="index")
            .set_table_styles([{"selector": "th", "props": "text-align: left; vertical-align: top"}]))


def machines_table() -> pd.DataFrame:
    """Every machine with stored results: CPU, cores, sockets, SMT, kernel, JDKs and runs per experiment."""
    rows = []
    for m in store.machines():
        metas = [x for name in experiments.names() for x in _runs(name, m)]
        if not metas:
            continue
        newest = max(metas, key=lambda x: x.get("saved_at", ""))
        mi = newest.get("machine", {})
        jdks = {f"{j.get('feature')}: {j.get('vendor')} {j.get('version')}" for x in metas for j in x.get("jdks", [])}
        per_exp = pd.Series([x.get("experiment", "?") for x in metas]).value_counts().sort_index()
        rows.append({"machine": m, "this machine": "yes" if m == store.machine_id() else "",
                     "CPU": mi.get("cpu_model"), "logical CPUs": mi.get("logical_cpus"),
                     "physical cores": mi.get("physical_cores"), "sockets": mi.get("sockets"),
                     "SMT": {True: "yes", False: "no"}.get(mi.get("smt"), mi.get("smt")),
                     "kernel": mi.get("kernel"), "JDKs": "; ".join(sorted(jdks)),
                     "runs": ", ".join(f"{k} {v}" for k, v in per_exp.items()),
                     "newest run": newest.get("start") or newest.get("saved_at", "")[:19]})
    if not rows:
        return pd.DataFrame({"": ["no results yet: nothing stored under " + str(store.results_root())]})
    return pd.DataFrame(rows).set_index("machine").T


def _runs(name: str, machine: str) -> list[dict]:
    try:
        return store.runs(name, machine)
    except MechsymError:
        return []


def status_line(claims: pd.DataFrame) -> str:
    """One sentence: what the tables below are made of."""
    if claims.empty:
        return "No experiments found."
    judged = claims[claims["outcome"] != NOT_RUN]
    if judged.empty:
        return ("**No results yet**: nothing is stored for any experiment, so every claim is listed as *not run yet*. "
                "This notebook runs nothing itself: run an experiment (`mechsym run locks --preset standard`, or its "
                "notebook with `PRESET = \"smoke\"`), or import another machine's results (`mechsym import ARCHIVE`).")
    n = counts(claims, "machine")
    parts = [f"{m}: " + ", ".join(f"{int(k)} {s}" for s, k in n.loc[m].items() if k) for m in n.index]
    return ("Verdicts from stored results (this notebook runs nothing itself). " + "; ".join(parts) + ".")


# ---------------------------------------------------------------- figures

def plot_counts(claims: pd.DataFrame):
    """Stacked bars: verdicts per notebook (and machine when several)."""
    machines = list(dict.fromkeys(claims["machine"])) if len(claims) else []
    c = claims.copy()
    c["where"] = c["notebook"] if len(machines) <= 1 else c["notebook"] + "\n" + c["machine"]
    t = counts(c, "where") if len(c) else pd.DataFrame()
    fig, ax = plt.subplots(figsize=(9, 0.45 * max(3, len(t)) + 1.2), layout="constrained")
    if t.empty:
        ax.text(0.5, 0.5, "no experiments found", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    left = np.zeros(len(t))
    for s in t.columns:
        ax.barh(range(len(t)), t[s].values, left=left, color=COLOURS[s], label=s, edgecolor="white")
        left += t[s].values
    ax.set_yticks(range(len(t)), t.index)
    ax.invert_yaxis()
    ax.set_xlabel("verdicts")
    fig.legend(loc="outside upper center", ncol=len(t.columns), fontsize=8)
    ax.grid(axis="y", visible=False)
    return fig


def ratios(claims: pd.DataFrame) -> pd.DataFrame:
    """Claims with a comparable number then and now: now / then."""
    c = claims.copy()
    c["then_value"] = pd.to_numeric(c["then_value"], errors="coerce")
    c["now_value"] = pd.to_numeric(c["now_value"], errors="coerce")
    c = c[(c["then_value"] > 0) & (c["now_value"] > 0)].copy()
    c["now / then"] = c["now_value"] / c["then_value"]
    c["label"] = c["id"] + [f" ({', '.join(x for x in (s, p) if x)})" if (s or p) else ""
                            for s, p in zip(c["scope"].fillna(""), c["protocol"].fillna(""))]
    return c


def ratio_table(claims: pd.DataFrame) -> pd.DataFrame:
    """The then-vs-now ratios for a reader: one row per claim, scope and protocol (and machine when several), the
    numbers formatted (analysis.fmt_number, fmt_ratio), no row index."""
    from .analysis import fmt_number, fmt_ratio

    r = ratios(claims)
    cols = (["machine"] if r["machine"].nunique() > 1 else []) + ["label", "then_value", "now_value", "now / then",
                                                                   "outcome"]
    t = r[cols].rename(columns={"label": "claim (scope, protocol)", "then_value": "then", "now_value": "now"})
    t["then"], t["now"] = t["then"].map(fmt_number), t["now"].map(fmt_number)
    t["now / then"] = t["now / then"].map(fmt_ratio)
    return t.reset_index(drop=True)


def ratio_summary(claims: pd.DataFrame) -> pd.DataFrame:
    """The ratio table in a few rows: per experiment (and machine when several), how many claims have a ratio, the
    median and the range of now / then, and how many land within 2x of the post's figure."""
    from .analysis import fmt_ratio

    r = ratios(claims)
    if r.empty:
        return pd.DataFrame(columns=["experiment", "ratios"])
    r["experiment"] = r["id"].str.split(".").str[0]
    keys = (["machine"] if r["machine"].nunique() > 1 else []) + ["experiment"]
    rows = []
    for k, g in r.groupby(keys, sort=False):
        q = g["now / then"]
        row = dict(zip(keys, k if isinstance(k, tuple) else (k,)))
        row.update({"ratios": len(g), "median now / then": fmt_ratio(q.median()),
                    "range": f"{fmt_ratio(q.min())} to {fmt_ratio(q.max())}",
                    "within 2x of the post": f"{int(((q >= 0.5) & (q <= 2)).sum())} of {len(g)}"})
        rows.append(row)
    return pd.DataFrame(rows)


def left_out(claims: pd.DataFrame) -> pd.DataFrame:
    """Claims judged here whose then-vs-now ratio is left out, with the reason (then and now differ in kind, or the
    post gives no number for it)."""
    known = {c.id: c for name in experiments.names() for c in _claims(name)}
    rows = []
    for cid in dict.fromkeys(claims.loc[~claims["outcome"].isin([NOT_RUN, ERROR]), "id"]):
        c = known.get(cid)
        if c is None:
            continue
        if c.no_ratio:
            rows.append({"claim": cid, "why no ratio": c.no_ratio})
        elif c.from_post is None:
            rows.append({"claim": cid, "why no ratio": "the post gives no number for this statistic: " + c.then})
    return pd.DataFrame(rows, columns=["claim", "why no ratio"])


def plot_ratios(claims: pd.DataFrame):
    """Then vs now: today's comparable number over the post's, one row per claim (log scale);
    colour = outcome, one marker per machine."""
    r = ratios(claims)
    labels = list(dict.fromkeys(r["label"]))
    fig, ax = plt.subplots(figsize=(9, 0.32 * max(4, len(labels)) + 1.3), layout="constrained")
    if r.empty:
        ax.text(0.5, 0.5, "no claim has a number both then and now yet\n(run an experiment, or import results)",
                ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
        return fig
    machines = list(dict.fromkeys(r["machine"]))
    markers = ["o", "s", "^", "D", "v", "P", "X"]
    y = {lab: i for i, lab in enumerate(labels)}
    for k, m in enumerate(machines):
        sub = r[r["machine"] == m]
        off = (k - (len(machines) - 1) / 2) * 0.18
        ax.scatter(sub["now / then"], sub["label"].map(y) + off, c=sub["outcome"].map(COLOURS), s=40,
                   marker=markers[k % len(markers)], edgecolors="black", linewidths=0.4, zorder=3)
    ax.axvline(1, color="black", lw=0.8)
    ax.set_xscale("log")
    ax.set_yticks(range(len(labels)), labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("now / then (log): 1 = the post's figure reproduced")
    handles = [plt.Line2D([], [], ls="", marker="o", color=COLOURS[s], label=s) for s in (HOLDS, FAILS, INCONCLUSIVE)]
    if len(machines) > 1:
        handles += [plt.Line2D([], [], ls="", marker=markers[k % len(markers)], color="grey", label=m)
                    for k, m in enumerate(machines)]
    fig.legend(handles=handles, loc="outside upper center", ncol=min(4, len(handles)), fontsize=8)
    return fig
