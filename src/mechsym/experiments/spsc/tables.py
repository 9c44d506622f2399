"""The spsc tables: variance per cell of the runs' summaries (rows.py), winners per option set, JCTools beside the
post's best, where the queue landed in its cache line, what the JVM options did; and the queues' field layouts as JOL
reads them (mechsym.spsc.SpscLayout, one JVM per JDK) beside the post's java-object-layout tables. Descriptive:
that the port lays I1 and I3 out as the post did is a test of the port (tests/test_spsc_experiment.py), not a claim
of the post."""

from __future__ import annotations

import pandas as pd

from ...judge import analysis
from ...store import runs as store
from ...judge.analysis import by_machine, fmt_pct, fmt_rate, fmt_ratio
from ...judge.verdicts import estimate_with
from .meta import MAIN_OPTIONS, OPTION_SETS, QUEUES
from .rows import KEYS, LOW, ORDERS, cell, cv, layout_rows, offsets, run_summaries, share_low
from .sweep import POST_QUEUES

@by_machine
def variance_table(df: pd.DataFrame, jdk=None, options=None) -> pd.DataFrame:
    """Per cell: runs, mean/median/min/max run summary (ops/s), CV across runs, max/min, the share of runs below half
    (and below 0.6 of) the median, and the median within-run CV."""
    s = run_summaries(df)
    if jdk is not None:
        s = analysis.where(s, jdk=jdk)
    if options is not None:
        s = analysis.where(s, options=options)
    if s.empty:
        return pd.DataFrame()
    t = analysis.summary(s, KEYS, value="summary").drop(columns=["p25", "p75", "spread %"])
    g = s.groupby(KEYS, sort=False)
    extra = pd.DataFrame({
        "mean": g["summary"].mean(),
        "CV %": g["summary"].agg(lambda x: 100 * cv(x.to_numpy())),
        "max/min": g["summary"].max() / g["summary"].min(),
        "< 1/2 median %": g["summary"].agg(lambda x: 100 * share_low(x.to_numpy(), 0.5)),
        "< 0.6 median %": g["summary"].agg(lambda x: 100 * share_low(x.to_numpy(), LOW)),
        "within-run CV %": 100 * g["within_cv"].median(),
    }).reset_index()
    t = t.merge(extra, on=KEYS).rename(columns={"n": "runs"})
    return analysis.sort_by(t, ORDERS)


@by_machine
def variance_display(df: pd.DataFrame, jdk=None, options=None) -> pd.DataFrame:
    """variance_table in readable units, for a notebook."""
    t = variance_table(df, jdk, options)
    if t.empty:
        return t
    for c in ("mean", "median", "min", "max"):
        t[c] = t[c].map(fmt_rate)
    for c in ("CV %", "< 1/2 median %", "< 0.6 median %", "within-run CV %"):
        t[c] = t[c].map(fmt_pct)
    t["max/min"] = t["max/min"].map(fmt_ratio)
    return t[KEYS + ["runs", "mean", "median", "min", "max", "CV %", "max/min", "< 1/2 median %", "< 0.6 median %",
                     "within-run CV %"]].set_index(KEYS)


@by_machine
def variance_summary(df: pd.DataFrame, jdk=None, options=None) -> pd.DataFrame:
    """variance_table in one row per JDK, option set and placement: the variants and runs behind it, the median CV
    across variants, the most variable variant (its CV and max/min) and how many variants had a run below half their
    median. The summary a notebook shows above the full table."""
    t = variance_table(df, jdk, options)
    if t.empty:
        return t
    rows = []
    keys = [k for k in KEYS if k != "variant"]
    for k, g in t.groupby(keys, sort=False):
        cvs = g["CV %"].dropna()
        worst = g.loc[cvs.idxmax()] if len(cvs) else None   # no CV with one run per cell (smoke)
        rows.append({**dict(zip(keys, k)), "variants": len(g), "runs": int(g["runs"].sum()),
                     "median CV": fmt_pct(cvs.median()) if len(cvs) else "— (one run per cell)",
                     "most variable": "—" if worst is None else f"{worst['variant']}: CV {fmt_pct(worst['CV %'])}, "
                                                                f"max/min {fmt_ratio(worst['max/min'])}",
                     "variants with a run < 1/2 median": f"{int((g['< 1/2 median %'] > 0).sum())} of {len(g)}"})
    return pd.DataFrame(rows)


def unavailable_cells(df: pd.DataFrame) -> pd.DataFrame:
    """The cells this machine could not run (a placement it lacks), with the reason."""
    return analysis.unavailable(df, keys=("placement",))


@by_machine
def vm_options_table(df: pd.DataFrame) -> pd.DataFrame:
    """What each option set actually set in the JVM (the kernel reads the HotSpot options back)."""
    s = run_summaries(df)
    cols = [c for c in ("vm_cond_card_mark", "vm_tiered_compilation", "vm_numa") if c in s]
    if s.empty or not cols:
        return pd.DataFrame()
    t = s.groupby(["jdk", "options"])[cols].agg(lambda x: ", ".join(sorted(set(map(str, x))))).reset_index()
    t["flags"] = t["options"].map(lambda o: " ".join(OPTION_SETS.get(o, ((), ""))[0]) or "(none)")
    return analysis.sort_by(t, ORDERS).set_index(["jdk", "options"])


def lead(s: pd.DataFrame, first: str, second: str, **eq):
    """How far `first`'s mean run summary is above `second`'s in one cell group: mean ratio with its interval."""
    return estimate_with(lambda a, b: a.mean() / b.mean(), cell(s, variant=first, **eq), cell(s, variant=second, **eq))


@by_machine
def winners_table(df: pd.DataFrame, variants: list[str] | None = None) -> pd.DataFrame:
    """The post's variants ranked by mean run summary (the post ranks by "average"), per JDK, option set and placement,
    and the winner's lead over the runner-up with its 95% interval over runs: a lead whose interval reaches 1.00x is
    no clear winner."""
    s = run_summaries(df)
    s = s[s["variant"].isin(variants or POST_QUEUES)]
    rows = []
    for (j, o, p), sub in s.groupby(["jdk", "options", "placement"], sort=False):
        means = sub.groupby("variant")["summary"].mean().sort_values(ascending=False)
        row = {"jdk": j, "options": o, "placement": p, "runs per variant": int(sub.groupby("variant").size().min()),
               "ranking (mean)": " > ".join(f"{v} {m / 1e6:,.0f}M" for v, m in means.items()), "winner": means.index[0]}
        if len(means) > 1:
            est = lead(sub, means.index[0], means.index[1])
            row["lead over runner-up"] = f"{means.index[1]}: {est.text('x')}" if est else ""
            row["clear winner?"] = "yes" if est and est.forks >= 2 and est.low > 1 else "no"
        rows.append(row)
    t = pd.DataFrame(rows)
    return t if t.empty else analysis.sort_by(t, ORDERS).set_index(["jdk", "placement", "options"])


@by_machine
def jctools_table(df: pd.DataFrame) -> pd.DataFrame:
    """Beyond the post: the fastest of the post's variants (by mean) against JCTools' SpscArrayQueue, with the
    ratio's interval over runs."""
    s = run_summaries(df)
    rows = []
    for (j, o, p), sub in s.groupby(["jdk", "options", "placement"], sort=False):
        means = sub.groupby("variant")["summary"].mean()
        post = means[[v for v in means.index if v in POST_QUEUES]]
        if post.empty or "jctools" not in means:
            continue
        best = post.idxmax()
        est = lead(sub, "jctools", best)
        rows.append({"jdk": j, "options": o, "placement": p, "fastest post variant": best,
                     "its mean": fmt_rate(post[best]), "JCTools mean": fmt_rate(means["jctools"]),
                     "JCTools / fastest": est.text("x") if est else "",
                     "JCTools CV": fmt_pct(100 * cv(cell(sub, variant="jctools")))})
    t = pd.DataFrame(rows)
    return t if t.empty else analysis.sort_by(t, ORDERS).set_index(["jdk", "placement", "options"])


@by_machine
def alignment_table(df: pd.DataFrame, jdk=None, options: str = MAIN_OPTIONS) -> pd.DataFrame:
    """Beyond the post: where the queue object and its buffer started within a 64-byte line, per run, against the
    run's summary (median per alignment). -1 = JOL could not tell."""
    s = run_summaries(df)
    if "queue_line_offset" not in s or s.empty:
        return pd.DataFrame()
    s = analysis.where(s, jdk=jdk if jdk is not None else analysis.jdks(s)[0], options=options)
    keys = ["placement", "variant", "queue_line_offset", "buffer_line_offset"]
    g = s.groupby(keys)["summary"]
    t = pd.DataFrame({"runs": g.size(), "median": g.median().map(fmt_rate)}).reset_index()
    return analysis.sort_by(t, ORDERS).set_index(keys)


def stored_runs(df: pd.DataFrame) -> pd.DataFrame:
    """Every complete stored run of the machines and preset behind these rows (the notebook shows the newest; this
    puts the others beside it). The rows themselves when they are not from the store (a run made just now)."""
    from ... import MechsymError

    if df.empty or "run_id" not in df or "machine" not in df:
        return df
    frames = []
    for machine in analysis.machines(df):
        metas = [m for m in store.runs("spsc", machine) if m["run_id"] in set(df["run_id"].astype(str))]
        try:
            rows = store.load("spsc", machine, preset=metas[0].get("preset"), latest=False) if metas else None
        except MechsymError:
            rows = None
        frames.append(rows if rows is not None and len(rows) else analysis.where(df, machine=machine))
    return pd.concat(frames, ignore_index=True)


# ---------------------------------------------------------------- the queues' field layouts (JOL)

PAD_FIELD = r"^(p\d+|p0i|b\d+)$"   # padding fields (p10.., p0i, O1's holder pads b000..) are left out of the tables
CHECKS = ["min_hot_gap", "min_cross_gap", "cold_offset", "instance_size", "jol_unavailable"]


def _bytes(t: pd.DataFrame) -> pd.DataFrame:
    """Byte offsets and sizes as whole numbers (JOL's offsets are integers; the frame stores them as floats), a
    missing one as <NA> (shown as '—')."""
    t = t.copy()
    for c in t.columns:
        num = pd.to_numeric(t[c], errors="coerce")
        if num.notna().any() and (num.dropna() == num.dropna().round()).all():
            t[c] = num.round().astype("Int64")
    return t


@by_machine
def layout_table(df: pd.DataFrame, queues=("I1", "I3", "I4", "O1", "jctools")) -> pd.DataFrame:
    """Offsets (bytes) of the non-padding fields of each queue's object, per JDK, as JOL reads them; O1's holder
    classes too."""
    lay = layout_rows(df)
    if lay.empty:
        return pd.DataFrame()
    off = lay[(lay["metric"] == "offset") & lay["queue"].isin(queues) & ~lay["key"].str.match(PAD_FIELD)].copy()
    off["class"] = (off["class"].astype(str).str.replace("mechsym.spsc.", "", regex=False)
                    .str.replace("org.jctools.queues.", "", regex=False))
    off["field"] = off["field"].astype(str).str.split(".").str[-2:].str.join(".")
    t = off.pivot_table(index=["queue", "class", "field"], columns="jdk", values="value", aggfunc="first")
    jdks = analysis.ordered(t.columns)
    t = t[jdks].reset_index().sort_values(jdks[0], kind="stable")        # by offset on the first JDK...
    t = analysis.sort_by(t, {"queue": list(queues)})                      # ...within each queue
    t[jdks] = _bytes(t[jdks])
    return t.rename(columns={j: f"offset on JDK {j}" for j in jdks}).set_index(["queue", "class", "field"])


@by_machine
def layout_checks(df: pd.DataFrame) -> pd.DataFrame:
    """Per queue and JDK: smallest gap between hot fields, between a producer and a consumer field, the first cold
    field's offset and the instance size (bytes), read from the queue's own class."""
    lay = layout_rows(df)
    if lay.empty:
        return pd.DataFrame()
    own = lay.groupby(["jdk", "queue"])["class"].transform("first")
    d = lay[(lay["class"] == own) & lay["metric"].isin(CHECKS)]
    t = d.pivot_table(index=["queue", "jdk"], columns="metric", values="value", aggfunc="first").reset_index()
    t = analysis.sort_by(t, {"queue": list(QUEUES), "jdk": []})
    t = t.set_index(["queue", "jdk"])[[c for c in CHECKS if c in t.columns]]
    return _bytes(t)


@by_machine
def layout_vs_post(df: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """The post's java-object-layout offsets of I1 and I3 (data/reference) beside JOL's on each JDK here."""
    r = ref[ref["metric"].isin(["offset", "instance_size"])][["variant", "field", "metric", "value"]].copy()
    r["key"] = r["field"].str.rsplit(".", n=1).str[-1]
    out = r.rename(columns={"value": "post (JDK 7u17)"})
    lay = layout_rows(df)
    for j in ([] if lay.empty else analysis.ordered(lay["jdk"].unique())):
        got = offsets(df, j)
        out[f"JDK {j}"] = [got.get((v, k)) for v, k in zip(out["variant"], out["key"])]
    out = out.drop(columns=["key", "metric"]).set_index(["variant", "field"])
    return _bytes(out)
