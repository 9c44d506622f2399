"""What JMH says beside the lab, as the pages show it: each notebook's "What does JMH say?" section (summary,
section), the overview's lab/JMH ratio table (overview_table; `mechsym verdicts --jmh` prints it) and why a
flagged cell differs (EXPLANATIONS: data/jmh/explanations.csv). The cells themselves are paired in jmh_views."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from .. import MechsymError
from ..style.frames import table
from ..run.jmh import PROTOCOL
from .views import BAND, SPECS, Spec, run_checksums


# ---------------------------------------------------------------- the notebooks' sections, the overview's ratio table

#: What to check when the two harnesses differ (issue 34): each names the evidence that settles it.
REASONS = [
    "**compilation**: which tier compiled the measured loop and when (JMH's `-prof comp`, "
    "`-XX:+PrintCompilation` on the kernel): a recompilation mid-run changes the lab's later iterations",
    "**dead code the hand-written loop allowed**: a result the kernel never uses can be folded or hoisted by C2 "
    "(JMH's Blackhole or returned value keeps it); a rate far above the other harness's is the sign",
    "**OSR**: a kernel whose timed loop runs once per JVM is compiled on-stack, JMH's benchmark method normally",
    "**placement**: the lab pins each thread to its CPU, JMH runs its threads under one `taskset` over the same "
    "CPUs, so the scheduler may place them differently",
]

_COLUMNS = ["post", "lab", "JMH", "lab/JMH", "interval", "reading", "lab forks", "JMH forks"]


def _display_table(t: pd.DataFrame, experiment: str, spec: "Spec") -> pd.DataFrame:
    keys = list(spec.keys)
    out = t[keys + ["post", "lab", "JMH", "lab/JMH"]].copy()
    out["interval"] = [f"[{lo:.3g}, {hi:.3g}]" if math.isfinite(lo) and math.isfinite(hi) else ""
                       for lo, hi in zip(t["low"], t["high"])]
    out = pd.concat([out, t[["reading", "lab forks", "JMH forks"]]], axis=1)
    out["why they differ"] = [explanation(experiment, spec.metric, cell_name(spec, r)) if r["reading"] == DIFFER
                              else "" for _, r in t.iterrows()]
    return out[keys + _COLUMNS + ["why they differ"]]


def summary(experiment: str, machine=None, root=None, preset=None) -> tuple[str, list[pd.DataFrame]]:
    """The section's text and tables: per comparison of SPECS, the headline cells post | lab | JMH with lab/JMH
    and its interval; the text says which cells differ by more than 10% and what to check, or why there is no table
    (no stored JMH run: the command that makes one). It opens with the banner of the JMH runs it reads when one is
    stale, untraceable or made from a dirty tree (the lab's runs have theirs at the top of the notebook)."""
    text, tables = _summary(experiment, machine, root, preset)
    warning = _jmh_banner(experiment, machine, root, preset)
    return (f"> **⚠ {warning}**\n\n{text}" if warning else text), tables


def _jmh_banner(experiment: str, machine, root, preset) -> str | None:
    from ..store import provenance, runs as store

    try:
        metas = store.chosen_runs(experiment, machine, root, preset, protocol=PROTOCOL)
    except MechsymError:
        return None
    return provenance.banner(metas) if metas else None


def _summary(experiment: str, machine=None, root=None, preset=None) -> tuple[str, list[pd.DataFrame]]:
    if experiment not in SPECS:
        raise MechsymError(f"experiment '{experiment}': JMH comparisons exist for {', '.join(SPECS)}")
    command_text = f"`mechsym run {experiment} --protocol jmh --preset standard`"
    tables, differ, unsure, lines = [], [], [], []
    for spec in SPECS[experiment]:
        try:
            t = spec.table(experiment, machine, root, preset)
        except MechsymError as e:
            if "no stored JMH run" in str(e):
                return (f"No JMH run of {experiment} is stored yet for this machine: {command_text} makes one "
                        f"(then re-run this notebook)."), []
            return f"No comparison with JMH: {e}", []
        t = t[t["reading"] != "no JMH cell"] if "reading" in t else t.iloc[0:0]   # no lab cell matched: no columns
        if t.empty:
            lines.append(f"- {spec.title}: the stored JMH run has none of these cells; {command_text} makes them.")
            continue
        tables.append(_display_table(t, experiment, spec).rename(columns={"post": f"post ({spec.unit})",
                                                                    "lab": f"lab ({spec.unit})",
                                                                    "JMH": f"JMH ({spec.unit})"}))

        def name(r):
            return ", ".join(f"{k} {r[k]}" if k != "variant" else str(r[k]) for k in spec.keys)
        for _, r in t.iterrows():
            bounded = math.isfinite(r["low"]) and math.isfinite(r["high"])
            figure = (f"{name(r)}: lab/JMH {r['lab/JMH']:.3g} " + (f"[{r['low']:.3g}, {r['high']:.3g}]" if bounded else
                      f"(no interval: {min(r['lab forks'], r['JMH forks'])} fork(s), a judged cell needs 5)"))
            if r["reading"] == DIFFER:
                differ.append(f"{figure}: {explanation(experiment, spec.metric, cell_name(spec, r))}")
            elif r["reading"] == "inconclusive":
                unsure.append(figure)
        lines.append(f"- {spec.title}: {len(t)} cell{'s' if len(t) != 1 else ''}.")
    text = ["Per headline cell: the post's protocol (first timed run of each JVM), the lab's (median of the measured "
            "runs) and JMH's (median of its measured iterations), medians over forks; lab/JMH with its 95% "
            f"interval over forks. The harnesses agree when the whole interval lies within {BAND[0]}-{BAND[1]}.", "",
            *lines]
    if differ:
        text += ["", f"**Lab and JMH differ by more than 10%** (the whole interval outside {BAND[0]}-{BAND[1]}) in "
                 f"{len(differ)} cell{'s' if len(differ) != 1 else ''}, each with why:", "",
                 *[f"- {d}" for d in differ]]
        if any(UNEXPLAINED in d for d in differ):
            text += ["", f"**{UNEXPLAINED}** cells above have no explanation yet; candidate reasons to check, none "
                     "of them established by this table:", "", *[f"- {r}" for r in REASONS]]
    if unsure:
        text += ["", "Not shown to agree or to differ (the interval straddles the band's edge): "
                 + "; ".join(unsure) + "."]
    if tables and not differ and not unsure:
        text += ["", f"Every cell's interval lies within {BAND[0]}-{BAND[1]}: the lab's harness and JMH agree here."]
    return "\n".join(text), tables


def section(experiment: str, machine: str | None = None, root: Path | None = None, preset: str | None = None):
    """A notebook's "What does JMH say?" content: summary()'s text, then its tables (shown with IPython's display);
    returns the last table (or the text alone when there is none). machine "all" reads as None (this machine, or
    the newest stored): lab and JMH forks are only set side by side from one machine."""
    from IPython.display import Markdown, display

    text, tables = summary(experiment, None if machine == "all" else machine, root, preset)
    if not tables:
        return Markdown(text)
    display(Markdown(text))
    for t in tables[:-1]:
        display(table(t))
    return table(tables[-1])


RATIO_COLUMNS = ["experiment", "measure", "metric", "cell", "jdk", "post", "lab", "JMH", "unit", "lab/JMH", "low",
                 "high", "reading", "lab forks", "JMH forks", "flagged", "explanation"]


def overview_table(machine: str | None = None, root: Path | None = None, preset: str | None = None) -> pd.DataFrame:
    """The lab/JMH ratio table: every headline cell with a stored JMH run, over every experiment with JMH cells:
    experiment, what (measure, metric), the cell (cell_name) and its JDK, post | lab | JMH (medians over forks),
    lab/JMH with its interval (independent bootstrap over forks), reading, flagged (the interval wholly outside
    BAND: the harnesses differ by more than 10%) and, for a flagged cell, its explanation (explanation(): the text
    from EXPLANATIONS, or UNEXPLAINED). Empty (no rows) when no JMH run is stored."""
    from ..store import runs as store

    out = []
    for experiment, specs in SPECS.items():
        if root is None and not run_checksums(experiment):
            continue   # no JMH run stored at all: nothing to load
        if store.load(experiment, machine, root=root, preset=preset, protocol=PROTOCOL).empty:
            continue
        for spec in specs:
            try:
                t = spec.table(experiment, machine, root, preset)
            except MechsymError:
                continue
            for _, r in t[t["reading"] != "no JMH cell"].iterrows():
                flagged = r["reading"] == DIFFER
                out.append({"experiment": experiment, "measure": spec.title, "metric": spec.metric,
                            "cell": cell_name(spec, r), "jdk": str(r["jdk"]) if "jdk" in spec.keys else "",
                            "post": r["post"], "lab": r["lab"], "JMH": r["JMH"], "unit": spec.unit,
                            "lab/JMH": r["lab/JMH"], "low": r["low"], "high": r["high"], "reading": r["reading"],
                            "lab forks": r["lab forks"], "JMH forks": r["JMH forks"], "flagged": flagged,
                            "explanation": explanation(experiment, spec.metric, cell_name(spec, r)) if flagged
                            else ""})
    return pd.DataFrame(out, columns=RATIO_COLUMNS)


def overview(machine: str | None = None, root: Path | None = None, preset: str | None = None):
    """The overview's JMH table (ratio_display), or the plain sentence that no JMH run is stored yet and how to make
    one."""
    t = overview_table(None if machine == "all" else machine, root, preset)
    if t.empty:
        from IPython.display import Markdown

        return Markdown("No JMH run is stored yet for this machine: `mechsym run EXPERIMENT --protocol jmh --preset "
                        f"standard` makes one (experiments with JMH cells: {', '.join(SPECS)}).")

    return table(ratio_display(t))


def ratio_display(t: pd.DataFrame) -> pd.DataFrame:
    """overview_table's rows as shown: the interval as text, a flag column ("differ > 10%" or blank), the
    explanation beside it; the raw low/high and metric left out."""
    out = t[["experiment", "cell", "jdk", "post", "lab", "JMH", "unit", "lab/JMH"]].copy()
    out["interval"] = [f"[{lo:.3g}, {hi:.3g}]" if math.isfinite(lo) and math.isfinite(hi) else "(unbounded)"
                       for lo, hi in zip(t["low"].astype(float), t["high"].astype(float))]
    out["reading"] = t["reading"]
    out["flag"] = ["differ > 10%" if f else "" for f in t["flagged"]]
    out["explanation"] = t["explanation"]
    out["forks (lab, JMH)"] = [f"{a}, {b}" for a, b in zip(t["lab forks"], t["JMH forks"])]
    return out


# ---------------------------------------------------------------- why a flagged cell differs

DIFFER = "differ"
UNEXPLAINED = "UNEXPLAINED"
#: Why lab and JMH differ, per flagged cell: experiment, metric (blank: any), cell (cell_name), explanation, evidence.
EXPLANATIONS = Path("data") / "jmh" / "explanations.csv"   # under mechsym.repo_root()
EXPLANATION_COLUMNS = ["experiment", "metric", "cell", "explanation", "evidence"]


def cell_name(spec: "Spec", row) -> str:
    """A cell as the ratio table and EXPLANATIONS name it: the variant, then the spec's other keys but the JDK
    ("padded-longs, threads 2")."""
    return ", ".join(str(row[k]) if k == "variant" else f"{k} {row[k]}" for k in spec.keys if k != "jdk")


def explanations(path: Path | None = None) -> pd.DataFrame:
    """EXPLANATIONS as a frame (no rows when the file does not exist yet). MechsymError (one line) when it lacks a
    column, names an experiment without JMH comparisons, or has an empty explanation or evidence."""
    from .. import repo_root

    path = Path(path) if path else repo_root() / EXPLANATIONS
    if not path.exists():
        return pd.DataFrame(columns=EXPLANATION_COLUMNS)
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in EXPLANATION_COLUMNS if c not in df]
    if missing:
        raise MechsymError(f"{path}: columns {', '.join(missing)} missing (want {', '.join(EXPLANATION_COLUMNS)})")
    for i, r in df.iterrows():
        if r["experiment"] not in SPECS:
            raise MechsymError(f"{path} row {i + 2}: experiment '{r['experiment']}' has no JMH comparison "
                               f"(allowed: {', '.join(SPECS)})")
        if not r["cell"].strip() or not r["explanation"].strip() or not r["evidence"].strip():
            raise MechsymError(f"{path} row {i + 2}: cell, explanation and evidence must not be empty")
    return df


def explanation(experiment: str, metric: str, cell: str, path: Path | None = None) -> str:
    """Why lab and JMH differ in this cell: "explanation (evidence: ...)" from EXPLANATIONS, or UNEXPLAINED."""
    df = explanations(path)
    hit = df[(df["experiment"] == experiment) & df["metric"].isin(["", metric]) & (df["cell"] == cell)]
    if hit.empty:
        return f"{UNEXPLAINED}: no row in data/jmh/explanations.csv says why lab and JMH differ here"
    r = hit.iloc[0]
    return f"{r['explanation']} (evidence: {r['evidence']})"
