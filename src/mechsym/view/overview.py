"""Every claim of every experiment in one place: the tables and figures of notebooks/00-overview and
reports/index.html, over the verdicts verdict_collect.collect() gathers (re-exported here as overview.collect,
the name the overview notebook calls).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from .. import experiments
from ..store import runs as store
from ..style.plots import plt
from .collect import ERROR, NOT_RUN, agreement, bh_line, claims_of, collect, primaries  # noqa: F401
from ..judge.runs import stored_runs
from ..judge.verdicts import FAILS, HOLDS, INCONCLUSIVE, UNMEASURABLE

from .answer import BACKGROUNDS, COLOURS, SIGNS, STATUSES, Html  # noqa: F401  (one palette for every page)

CELL_STYLE = {s: f"background-color: {c}" + ("; color: #777" if s == NOT_RUN else "") for s, c in BACKGROUNDS.items()}
# ---------------------------------------------------------------- tables

def counts(claims: pd.DataFrame, by: str = "notebook") -> pd.DataFrame:
    """Claims per notebook (or machine), each counted once by its primary verdict: holds / does not hold /
    inconclusive / not measurable / not run yet / error."""
    if claims.empty:
        return pd.DataFrame(columns=list(STATUSES))
    claims = primaries(claims) if "primary" in claims else claims
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
    """Every claim folded by notebook: one line per notebook (its link, its post, its claims counted by primary
    verdict), opening to its verdict rows, one column pair per machine (outcome and today's figure) when there are
    several. A page of some hundred rows reads as a list of notebooks."""
    if claims.empty:
        return pd.DataFrame({"": ["no experiments found"]})
    machines = list(dict.fromkeys(claims["machine"]))
    parts = []
    for book, sub in claims.groupby("notebook", sort=True):
        prim = primaries(sub) if "primary" in sub else sub
        n = prim["outcome"].value_counts()
        counted = ", ".join(f"{SIGNS.get(s, '')} {int(n[s])} {s}" for s in STATUSES if s in n)
        parts.append(f"<details><summary><b>{link(book, ext)}</b> · {post_title(sub['post'].iloc[0])}: "
                     f"{len(prim)} claim{'s' if len(prim) != 1 else ''} by primary verdict ({counted}); "
                     f"{len(sub)} verdict rows</summary>{_claims_rows(sub, machines).to_html()}</details>")
    return Html("".join(parts))


def _claims_rows(claims: pd.DataFrame, machines: list[str]):
    """One notebook's verdict rows: claim | then | where | protocol | holds? | now | runs agreeing, the claim
    named once on its first row."""
    c = claims.copy()
    key = ["claim", "then"]
    c["runs"] = c.apply(agreement, axis=1).str.replace(" runs", " runs agree", regex=False)
    if "primary" in c:
        c["scope"] = [("▶ primary: " if p else "") + (s or "") for p, s in zip(c["primary"].fillna(False), c["scope"])]
    if "bh" in c:
        c["why"] = [w + ("; " if w else "") + "does not survive Benjamini-Hochberg at q = 0.05" if str(b) == "False"
                    else w for w, b in zip(c["why"].fillna(""), c["bh"])]
    if len(machines) <= 1:
        c["result"] = c.apply(lambda r: "" if r["outcome"] == NOT_RUN else
                              " · ".join(x for x in (r["now"], r["why"]) if x and x != "n/a"), axis=1)
        status = "holds on this machine?" if machines == [store.machine_id()] else f"holds on {machines[0] if machines else '?'}?"
        t = c[key + ["scope", "protocol", "outcome", "result", "runs"]].rename(
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
    # a claim is named once, on its first row
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
        metas = [x for name in experiments.names() for x in stored_runs(name, m)]
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
    # one column per machine, its fields down the first column (a hidden index would lose what each value is)
    t = pd.DataFrame(rows).set_index("machine").T
    t.columns.name = None   # no "machine" header over the machines: a column per machine, its fields as the index
    t.index.name = ""
    return t


def status_line(claims: pd.DataFrame) -> str:
    """One sentence: what the tables below are made of."""
    if claims.empty:
        return "No experiments found."
    judged = claims[claims["outcome"] != NOT_RUN]
    if judged.empty:
        return ("**No results yet**: nothing is stored for any experiment, so every claim is listed as *not run yet*. "
                "This notebook runs nothing itself: run an experiment (`mechsym run locks --preset standard`, or its "
                "notebook with `PRESET = \"smoke\"`), or import another machine's results (`mechsym import ARCHIVE`).")
    lab = claims["source"].fillna("post").astype(str) == "lab" if "source" in claims else pd.Series(False, claims.index)
    n = counts(claims[~lab], "machine")
    nl = counts(claims[lab], "machine")
    # the lab's own readings are counted apart: never among the post's claims
    parts = [f"{m}: {int(n.loc[m].sum())} claims of the posts, " + ", ".join(
        f"{int(k)} {s}" for s, k in n.loc[m].items() if k)
        + (f" (and {int(nl.loc[m].sum())} of the lab's own readings, counted apart: " + ", ".join(
            f"{int(k)} {s}" for s, k in nl.loc[m].items() if k) + ")" if m in nl.index and nl.loc[m].sum() else "")
        for m in n.index]
    bh = " ".join(bh_line(claims[claims["machine"] == m]) for m in n.index) if "bh" in claims else ""
    return ("Verdicts from stored results (this notebook runs nothing itself), each claim counted once by its primary "
            f"verdict (the post's protocol and scope; {len(claims)} verdicts with the sub-rows). " + "; ".join(parts)
            + "." + (f" {bh}" if bh else "") + stale_line(claims))


def stale_line(claims: pd.DataFrame) -> str:
    """' **Stale: ...**' naming the notebooks whose verdicts judge runs of older kernels, or '' when none do."""
    if "code" not in claims:
        return ""
    code = claims["code"].fillna("").astype(str)
    old = claims[(code != "") & (code != "current")]
    if old.empty:
        return ""
    books = sorted(old["notebook"].astype(str).unique())
    return (f" **⚠ Stale: {len(old)} of {len(claims)} verdicts ({', '.join(books)}) judge runs measured with older "
            "kernels or untraceable code; `make refresh` re-runs them.**")


# ---------------------------------------------------------------- figures

def plot_counts(claims: pd.DataFrame):
    """Stacked bars: claims per notebook (and machine when several), each by its primary verdict."""
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
    ax.set_xlabel("claims (by their primary verdict)")
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
    numbers formatted (units.fmt_number, fmt_ratio), no row index."""
    from ..style.units import fmt_number, fmt_ratio

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
    from ..style.units import fmt_ratio

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
    known = {c.id: c for name in experiments.names() for c in claims_of(name)}
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


def forest(claims: pd.DataFrame):
    """Then vs now as a forest plot (answer.forest): per claim and machine, the primary verdict's estimate and 95%
    interval over the claim's threshold, the post's figure as an open diamond, one log axis labelled at both ends."""
    from . import answer

    known = {c.id: c for name in experiments.names() for c in claims_of(name)}
    p = primaries(claims) if "primary" in claims and len(claims) else claims
    p = p.sort_values("notebook", kind="stable") if len(p) else p   # in notebook order, as the matrix above
    p = p[p["outcome"] != NOT_RUN] if len(p) else p   # a machine that has not run a claim draws nothing: no line
    several = p["machine"].nunique() > 1 if len(p) else False
    rows = pd.DataFrame([{"label": r["id"] + (f" · {r['machine']}" if several else ""), "claim": known.get(r["id"]),
                          "outcome": r["outcome"], "now": r["now_value"], "low": r["low"], "high": r["high"],
                          "then": r["then_value"], "now_text": r["now"]}
                         for _, r in p.iterrows() if known.get(r["id"]) is not None],
                        columns=["label", "claim", "outcome", "now", "low", "high", "then", "now_text"])
    return answer.forest(rows, label_chars=48)


def machines_claims(claims: pd.DataFrame):
    """Machines x claims, compact: one line per claim (its primary verdict; the scope and protocol where a claim
    has no primary column), grouped by notebook, one column per machine with the outcome there, and on how many
    machines it holds. Claims come from collect(machine="all"), e.g. after `make fleet` has gathered a fleet's runs."""
    if claims.empty:
        return pd.DataFrame({"": ["no claims: no experiments found"]})
    c = primaries(claims) if "primary" in claims else claims
    c = c.sort_values("notebook", kind="stable") if "notebook" in c else c.copy()   # notebooks in their order
    for col in ("notebook", "claim", "scope", "protocol", "machine", "outcome"):
        c[col] = c[col].fillna("") if col in c.columns else ""
    # a machine that has not run the claim has no scope of its own: it goes on the line of the claim's scope elsewhere
    # (else every claim a machine lacks gets a second line reading "not run yet")
    unrun = (c["outcome"] == NOT_RUN) & (c["scope"] == "")
    for col in ("scope", "protocol"):
        known = c[~unrun & (c[col] != "")].groupby("claim")[col].first()
        c.loc[unrun, col] = c.loc[unrun, "claim"].map(known).fillna("")
    machines = list(dict.fromkeys(m for m in c["machine"] if m))
    if not machines:
        return pd.DataFrame({"": ["no machine has stored results yet"]})
    key = ["notebook", "claim", "scope", "protocol"]
    # a claim judged twice on one machine (two rows of the same scope and protocol) shows its first verdict, as the
    # claims table does
    t = c[c["machine"] != ""].pivot_table(index=key, columns="machine", values="outcome", aggfunc="first", sort=False)
    t = t.reindex(columns=machines).fillna(NOT_RUN)
    t["holds on"] = (t[machines] == HOLDS).sum(axis=1).map(lambda n: f"{n} of {len(machines)}")
    t = t.reset_index().rename(columns={"scope": "where"})
    t.columns.name = None
    if not t["protocol"].astype(bool).any():
        t = t.drop(columns="protocol")
    if "primary" in claims:
        t["where"] = t["where"].where(t["where"] != "", "as the post")
    t["notebook"] = t["notebook"].where(t["notebook"] != t["notebook"].shift(), "")
    return (t.style.map(lambda v: CELL_STYLE.get(v, ""), subset=machines)
            .format(lambda v: f"{SIGNS.get(v, '')} {v}", subset=machines)
            .set_properties(**{"text-align": "left", "vertical-align": "top", "padding": "1px 6px"})
            .set_properties(subset=["claim"], **{"max-width": "34rem", "white-space": "nowrap", "overflow": "hidden",
                                                 "text-overflow": "ellipsis"})
            .set_properties(subset=["where"], **{"max-width": "16rem", "white-space": "nowrap", "overflow": "hidden",
                                                 "text-overflow": "ellipsis"})
            .set_properties(subset=machines, **{"white-space": "nowrap"})
            .hide(axis="index")
            .set_table_styles([{"selector": "th", "props": "text-align: left; vertical-align: top"},
                               {"selector": "", "props": "font-size: 13px"}]))
