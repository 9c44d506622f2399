"""JMH beside the lab: post | lab | JMH per headline cell (side_by_side), each notebook's "What does JMH say?"
section, the overview's table, and a headline claim's JMH sub-rows (claim_rows), all from stored runs; the JMH
runs themselves are mechsym.jmh's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd

from . import MechsymError
from .jmh import PROTOCOL


# ---------------------------------------------------------------- post | lab | JMH, side by side

#: lab/JMH inside this band (the whole interval): the two harnesses agree; wholly outside it: they differ.
BAND = (0.9, 1.1)


def side_by_side(experiment: str, keys: list[str], metric: str = "throughput", machine: str | None = None,
                 root: Path | None = None, preset: str | None = None, where: dict | None = None, *,
                 jmh_metric: str | None = None, jmh_scale: Callable[[float], float] | None = None,
                 jmh_method: str | None = None) -> pd.DataFrame:
    """Per cell (`keys`, e.g. ["variant", "threads", "jdk"]): the post's protocol, the lab's and JMH's medians over
    forks of `metric` from the stored runs the notebooks show (the lab's run and the newest JMH run), and lab/JMH
    with its bootstrap interval over forks (verdicts.estimate) and a reading against BAND: "comparable" (the whole
    interval inside), "differ" (wholly outside), "inconclusive", or "no JMH cell". `where` keeps matching lab rows
    only (e.g. {"grid": "main"}). The post's and the lab's values are the same forks reduced as analysis.POST
    (the first measured iteration) and analysis.LAB (their median); rows with a `protocol` column of "post" or
    "lab" are taken for that protocol only. JMH's are its benchmark method's (not a group member's) iterations, or
    the member `jmh_method` ("group:member"), of `jmh_metric` (default: metric), each turned into the lab's unit by
    `jmh_scale` (e.g. ops/s -> ns/op) before the per-fork reduction. The columns "lab values" and "JMH values" hold
    the per-fork values behind the medians (for claim_verdicts)."""
    from . import analysis, store

    lab = store.load(experiment, machine, root=root, preset=preset)
    jmh_rows = store.load(experiment, machine, root=root, preset=preset, protocol=PROTOCOL)
    if lab.empty:
        raise MechsymError(f"{experiment}: no stored lab run to set beside JMH (run `mechsym run {experiment}`)")
    if jmh_rows.empty:
        raise MechsymError(f"{experiment}: no stored JMH run (run `mechsym run {experiment} --protocol jmh`)")
    lab = analysis.measured(lab, metric)
    for k, v in (where or {}).items():
        lab = lab[lab[k].astype(str) == str(v)] if k in lab else lab.iloc[0:0]
    jmh_rows = analysis.measured(jmh_rows, jmh_metric or metric)
    if "jmh_method" in jmh_rows:
        method = jmh_rows["jmh_method"].astype(str)
        jmh_rows = jmh_rows[method == jmh_method] if jmh_method else jmh_rows[~method.str.contains(":")]
    if jmh_scale is not None:
        jmh_rows = jmh_rows.assign(value=pd.to_numeric(jmh_rows["value"], errors="coerce").map(jmh_scale))
    missing = [k for k in keys if k not in lab or k not in jmh_rows]
    if missing:
        raise MechsymError(f"side by side: key columns {', '.join(missing)} are not in both the lab's and JMH's rows")

    def of(rows, protocol_name):
        if "protocol" in rows and rows["protocol"].isin(["post", "lab"]).any():
            rows = rows[rows["protocol"] == protocol_name]
        return rows
    post = analysis.per_fork(of(lab, "post"), analysis.POST, by=keys)
    lab_f = analysis.per_fork(of(lab, "lab"), analysis.LAB, by=keys)
    jmh_f = analysis.per_fork(jmh_rows, analysis.LAB, by=keys)
    out = []
    for cell, group in lab_f.groupby(keys, sort=False, dropna=False):
        cell = cell if isinstance(cell, tuple) else (cell,)
        match = dict(zip(keys, cell))

        def values(frame):
            sel = frame
            for k, v in match.items():
                sel = sel[sel[k].astype(str) == str(v)]
            return sel["value"].dropna().to_numpy(dtype=float)
        lab_v, jmh_v, post_v = group["value"].dropna().to_numpy(dtype=float), values(jmh_f), values(post)
        est = ratio_estimate(lab_v, jmh_v) if len(jmh_v) else None
        if est is None:
            reading = "no JMH cell"
        elif BAND[0] <= est.low and est.high <= BAND[1]:
            reading = "comparable"
        elif est.high < BAND[0] or est.low > BAND[1]:
            reading = "differ"
        else:
            reading = "inconclusive"
        out.append({**match, "post": analysis.median_of(post_v), "lab": analysis.median_of(lab_v),
                    "lab forks": len(lab_v), "JMH": analysis.median_of(jmh_v), "JMH forks": len(jmh_v),
                    "lab/JMH": est.value if est else math.nan, "low": est.low if est else math.nan,
                    "high": est.high if est else math.nan, "reading": reading,
                    "lab values": tuple(lab_v), "JMH values": tuple(jmh_v)})
    return pd.DataFrame(out)


@dataclass(frozen=True)
class Ratio:
    value: float
    low: float
    high: float


def ratio_estimate(lab: "np.ndarray", jmh_values: "np.ndarray") -> Ratio | None:
    """lab/JMH: the ratio of the two medians over forks, with a 95% bootstrap interval that resamples the two groups
    independently (stats.bootstrap, paired=False): the lab's forks and JMH's come from different runs, so equal
    fork counts are no pairing. None when either is empty; an unbounded interval below MIN_FORKS forks."""
    from . import stats

    b = stats.bootstrap(lambda a, b: a / b, [lab, jmh_values], paired=False)
    return None if b is None else Ratio(b.value, b.low, b.high)


# ---------------------------------------------------------------- the notebooks' sections, the overview, verdicts

def _ns_per_op(ops_per_s: float) -> float:
    return 1e9 / ops_per_s if ops_per_s > 0 else math.nan


def _ns_per_store(iterations_per_s: float) -> float:   # WriteCombining: one operation is one iteration, six stores
    return 1e9 / (6 * iterations_per_s) if iterations_per_s > 0 else math.nan


@dataclass(frozen=True)
class Spec:
    """How an experiment's lab cells pair with its JMH cells: the key columns, the lab's metric and rows (where),
    JMH's metric (or group member) and how it becomes the lab's unit, and the headline cells (dicts over keys;
    empty: every JMH cell)."""
    title: str
    keys: tuple
    metric: str
    unit: str
    where: dict = field(default_factory=dict)
    jmh_metric: str | None = None
    jmh_scale: Callable[[float], float] | None = None
    jmh_method: str | None = None
    headline: tuple = ()

    def table(self, experiment: str, machine=None, root=None, preset=None) -> pd.DataFrame:
        t = side_by_side(experiment, list(self.keys), self.metric, machine, root, preset, self.where,
                         jmh_metric=self.jmh_metric, jmh_scale=self.jmh_scale, jmh_method=self.jmh_method)
        if self.headline and not t.empty:
            keep = pd.Series(False, index=t.index)
            for h in self.headline:
                m = pd.Series(True, index=t.index)
                for k, v in h.items():
                    m &= t[k].astype(str) == str(v)
                keep |= m
            t = t[keep]
        return t.reset_index(drop=True)


#: Per experiment with JMH cells, its comparisons (the first is the headline one).
SPECS: dict[str, list[Spec]] = {
    "locks": [Spec("increments per second, the posts' harness grid (ten short warm-ups)",
                   ("variant", "threads", "jdk"), "throughput", "ops/s", {"grid": "main", "warmup_policy": "short"})],
    "falsesharing": [Spec("writes per second, all threads, cross-core", ("variant", "threads", "jdk"), "throughput",
                          "ops/s", {"placement": "cross-core"})],
    "atomiclong": [Spec("increments per second, all threads", ("variant", "threads", "jdk"), "throughput", "ops/s")],
    "singlewriter": [Spec("ns per increment (JMH: 1e9 / its ops/s)", ("variant", "threads", "jdk"), "ns_per_op",
                          "ns/op", {"scale": "1x", "language": "java"}, jmh_metric="throughput", jmh_scale=_ns_per_op)],
    "writecombining": [Spec("ns per store, six arrays (JMH: 1e9 / (6 x its iterations/s))", ("variant", "jdk"),
                            "ns_per_store", "ns", {"arrays": 6, "language": "java"}, jmh_metric="throughput",
                            jmh_scale=_ns_per_store)],
    "callerchoose": [Spec("calls per second, G1", ("variant", "words", "jdk"), "throughput", "ops/s",
                          {"collector": "G1"}),
                     Spec("bytes allocated per call, G1 (JMH: -prof gc, gc.alloc.rate.norm)", ("variant", "words", "jdk"),
                          "alloc_bytes_per_op", "bytes/op", {"collector": "G1"}, jmh_metric="gc.alloc.rate.norm")],
    "signalling": [Spec("exchanges x 2 per second (ping + pong), cross-core", ("variant", "jdk"), "throughput",
                        "ops/s", {"placement": "cross-core"})],
    "spsc": [Spec("messages per second, cross-core, the post's options as JDK 7 ran them (JMH: the consumer's polls)",
                  ("variant", "jdk"), "throughput", "ops/s",
                  {"placement": "cross-core", "options": "post-notiered", "kind": "throughput"},
                  jmh_method="spsc:poll")],
    "disruptor": [Spec("events per second, cross-core (JMH: 100,000 events per call, @OperationsPerInvocation)",
                       ("variant", "jdk"), "throughput", "ops/s", {"placement": "cross-core"})],
}

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
    (no stored JMH run: the command that makes one)."""
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
        t = t[t["reading"] != "no JMH cell"]
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

    from . import nb

    text, tables = summary(experiment, None if machine == "all" else machine, root, preset)
    if not tables:
        return Markdown(text)
    display(Markdown(text))
    for t in tables[:-1]:
        display(nb.table(t))
    return nb.table(tables[-1])


RATIO_COLUMNS = ["experiment", "measure", "metric", "cell", "jdk", "post", "lab", "JMH", "unit", "lab/JMH", "low",
                 "high", "reading", "lab forks", "JMH forks", "flagged", "explanation"]


def overview_table(machine: str | None = None, root: Path | None = None, preset: str | None = None) -> pd.DataFrame:
    """The lab/JMH ratio table: every headline cell with a stored JMH run, over every experiment with JMH cells:
    experiment, what (measure, metric), the cell (cell_name) and its JDK, post | lab | JMH (medians over forks),
    lab/JMH with its interval (independent bootstrap over forks), reading, flagged (the interval wholly outside
    BAND: the harnesses differ by more than 10%) and, for a flagged cell, its explanation (explanation(): the text
    from EXPLANATIONS, or UNEXPLAINED). Empty (no rows) when no JMH run is stored."""
    from . import store

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
    from . import nb

    return nb.table(ratio_display(t))


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


def ratio_text(t: pd.DataFrame) -> str:
    """overview_table's rows as a plain-text table (`mechsym verdicts --jmh`), for the closing note: one line per
    cell, then each flagged cell's explanation (or UNEXPLAINED) in full."""
    if t.empty:
        return ("No JMH run is stored yet: `mechsym run EXPERIMENT --protocol jmh --preset standard` makes one "
                f"(experiments with JMH cells: {', '.join(SPECS)}).")
    d = ratio_display(t)
    cols = ["experiment", "cell", "jdk", "post", "lab", "JMH", "unit", "lab/JMH", "interval", "reading", "flag"]
    cells = [[_fmt(v) for v in row] for row in d[cols].itertuples(index=False)]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(cols)]
    line = lambda vals: "  ".join(v.ljust(w) for v, w in zip(vals, widths)).rstrip()  # noqa: E731
    out = [line(cols), line(["-" * w for w in widths]), *(line(r) for r in cells)]
    flagged = t[t["flagged"]]
    out += ["", f"{len(t)} headline cells; {len(flagged)} flagged (lab/JMH interval wholly outside "
                f"{BAND[0]}-{BAND[1]})."]
    for _, r in flagged.iterrows():
        out.append(f"- {r['experiment']}, {r['cell']}: {r['explanation']}")
    return "\n".join(out)


def _fmt(v) -> str:
    if isinstance(v, float):
        return "" if math.isnan(v) else f"{v:.4g}"
    return str(v)


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
    from . import repo_root

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


# ---------------------------------------------------------------- a headline claim's JMH sub-row

@dataclass(frozen=True)
class ClaimCells:
    """A claim's statistic from JMH's cells: the cells (dicts over the spec's keys but the JDK), in the order
    `fn` takes their medians, the comparison (index into SPECS[experiment]) they come from, and the scope the
    spec's rows stand for (its placement), named in the sub-row."""
    experiment: str
    cells: tuple
    fn: Callable[..., float]
    spec: int = 0
    scope: dict = field(default_factory=dict)   # what the sub-row's scope names beside the JDK (e.g. placement)


def _ratio(a: float, b: float) -> float:
    return a / b


def _identity(a: float) -> float:
    return a


def _singlewriter_smallest_step(*meds: float) -> float:
    from .experiments.singlewriter.claims import _smallest_step
    return _smallest_step(*meds)


#: The headline claims JMH's cells can restate, each as the claim's own statistic in JMH's figures.
#: Durations are inverse rates: a "duration A / duration B" claim is rate B / rate A.
CLAIM_CELLS: dict[str, ClaimCells] = {
    "locks.reentrant-best-uncontended": ClaimCells(
        "locks", ({"variant": "reentrant", "threads": 1}, {"variant": "monitor-thin", "threads": 1},
                  {"variant": "monitor-biased", "threads": 1}, {"variant": "monitor-default", "threads": 1}),
        lambda rl, *monitors: rl / max(monitors)),
    "locks.biased-huge-benefit": ClaimCells(
        "locks", ({"variant": "monitor-biased", "threads": 1}, {"variant": "monitor-thin", "threads": 1}), _ratio),
    "falsesharing.unpadded-slower": ClaimCells(
        "falsesharing", ({"variant": "padded-longs", "threads": 2}, {"variant": "unpadded", "threads": 2}), _ratio),
    "falsesharing.first-padding-false-shares": ClaimCells(
        "falsesharing", ({"variant": "padded-atomic", "threads": 2}, {"variant": "padded-longs", "threads": 2}),
        _ratio),
    "falsesharing.padded-near-linear": ClaimCells(   # duration(2) / duration(1) with fixed work per thread
        "falsesharing", ({"variant": "padded-longs", "threads": 1}, {"variant": "padded-longs", "threads": 2}),
        lambda one, two: 2 * one / two),
    "atomiclong.cas-2-10x-slower-than-xadd": ClaimCells(
        "atomiclong", ({"variant": "atomic-increment", "threads": 2}, {"variant": "cas-loop", "threads": 2}), _ratio),
    "singlewriter.table-order": ClaimCells(
        "singlewriter", tuple({"variant": m, "threads": t} for m, t in
                              (("plain", 1), ("barrier", 1), ("cas", 1), ("cas", 2), ("lock", 1), ("lock", 2))),
        _singlewriter_smallest_step),
    "singlewriter.lock-contention-orders": ClaimCells(
        "singlewriter", ({"variant": "lock", "threads": 2}, {"variant": "barrier", "threads": 1}), _ratio),
    "writecombining.split-faster": ClaimCells(
        "writecombining", ({"variant": "single-loop"}, {"variant": "split-loops"}), _ratio),
    "callerchoose.reuse-faster": ClaimCells(
        "callerchoose", ({"variant": "list", "words": 8}, {"variant": "split", "words": 8}), _ratio),
    "callerchoose.reuse-allocates-less": ClaimCells(
        "callerchoose", ({"variant": "split", "words": 8}, {"variant": "list", "words": 8}), _ratio, spec=1),
    "signalling.volatile-under-50ns": ClaimCells(   # ns/op = duration / (2 x exchanges) = 1e9 / (ping + pong)/s
        "signalling", ({"variant": "volatile-spin"},), _ns_per_op, scope={"placement": "cross-core"}),
    "signalling.20-30m-exchanges": ClaimCells(       # the post's op/sec: 2 x exchanges / duration = (ping + pong)/s
        "signalling", ({"variant": "volatile-spin"},), _identity, scope={"placement": "cross-core"}),
    "signalling.lock-1000x-volatile": ClaimCells(    # lock ns/op over volatile ns/op = volatile rate / lock rate
        "signalling", ({"variant": "locked"}, {"variant": "volatile-spin"}), lambda lock, vol: vol / lock,
        scope={"placement": "cross-core"}),
    "signalling.lock-latency-microseconds": ClaimCells(
        "signalling", ({"variant": "locked"},), _ns_per_op, scope={"placement": "cross-core"}),
    "spsc.i1-worse-cross-core": ClaimCells(
        "spsc", ({"variant": "I1"}, {"variant": "O1"}), _ratio, scope={"placement": "cross-core"}),
    "spsc.i4-10pct-faster": ClaimCells(
        "spsc", ({"variant": "I4"}, {"variant": "O1"}), _ratio, scope={"placement": "cross-core"}),
    "disruptor.over-50m-events": ClaimCells(
        "disruptor", ({"variant": "disruptor-yielding"},), _identity, scope={"placement": "cross-core"}),
    "disruptor.order-of-magnitude-over-queue": ClaimCells(
        "disruptor", ({"variant": "disruptor-yielding"}, {"variant": "abq"}), _ratio,
        scope={"placement": "cross-core"}),
    "disruptor.beats-lock-free-queue": ClaimCells(
        "disruptor", ({"variant": "disruptor-busy-spin"}, {"variant": "jctools"}), _ratio,
        scope={"placement": "cross-core"}),
}


def claim_verdicts(claim, table: pd.DataFrame, cells, fn: Callable[..., float], *, machine: str = "",
                   scope: dict | None = None, run_id: str = "") -> list:
    """A claim's JMH sub-rows: per JDK in `table` (side_by_side's rows), fn over the medians of the JMH forks of
    `cells` (dicts over the table's columns, in fn's order), with its bootstrap interval, judged by the claim's own
    rule: verdicts with scope {"jdk": .., "runtime": "JMH"} and protocol "jmh". A JDK missing a cell gets a "not
    measurable here" verdict naming it."""
    from .verdicts import estimate, judge

    out = []
    jdks = sorted({str(j) for j in table["jdk"]}, key=lambda j: (not j.isdigit(), int(j) if j.isdigit() else j)) \
        if "jdk" in table and not table.empty else [""]
    for jdk in jdks:
        rows = table[table["jdk"].astype(str) == jdk] if jdk else table
        groups, missing = [], []
        for c in cells:
            sel = rows
            for k, v in c.items():
                sel = sel[sel[k].astype(str) == str(v)] if k in sel else sel.iloc[0:0]
            values = [v for t in sel["JMH values"] for v in t] if not sel.empty else []
            if not values:
                missing.append(", ".join(str(v) for v in c.values()))
            groups.append(values)
        where = {"jdk": jdk, **(scope or {}), "runtime": "JMH"} if jdk else {**(scope or {}), "runtime": "JMH"}
        est = None if missing else estimate(fn, *groups)
        out.append(judge(claim, est, scope=where, protocol=PROTOCOL, machine=machine, run_id=run_id,
                         why="JMH's harness on the same cells (medians of its measured iterations per fork)",
                         missing=f"no JMH forks stored for {'; '.join(missing)}"))
    return out


def claim_rows(claims, machine: str | None = None, root: Path | None = None, preset: str | None = None) -> list:
    """The JMH sub-rows of every claim in `claims` that CLAIM_CELLS can restate and that has a stored JMH run:
    verdicts to append after the claim's own (see claim_verdicts). Claims without JMH cells, or experiments without
    a stored JMH run, give none."""
    out, tables = [], {}
    for claim in claims:
        how = CLAIM_CELLS.get(claim.id)
        if how is None:
            continue
        key = (how.experiment, how.spec)
        if key not in tables:
            try:
                tables[key] = SPECS[how.experiment][how.spec].table(how.experiment, machine, root, preset)
            except MechsymError:
                tables[key] = None
        if tables[key] is not None:
            out += claim_verdicts(claim, tables[key], how.cells, how.fn, machine=machine or "", scope=how.scope,
                                  run_id=",".join(run_ids(how.experiment, machine, root, preset)))
    return out


def run_ids(experiment: str, machine: str | None = None, root: Path | None = None,
            preset: str | None = None) -> list[str]:
    """The ids of the stored JMH runs side_by_side reads (none when there is none)."""
    from . import store

    try:
        return [m["run_id"] for m in store.chosen_runs(experiment, machine, root, preset, protocol=PROTOCOL)]
    except MechsymError:
        return []


def run_checksums(experiment: str) -> list:
    """[machine, run id, csv_sha256, rows] of every stored JMH run of the experiment (every machine, every preset: a
    superset of what claim_rows reads), for the verdict cache's key."""
    import json

    from . import store

    out = []
    for machine, _, e, path in store.index():   # the sidecars only: no CSV is read or hashed here
        if e != experiment:
            continue
        try:
            meta = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if isinstance(meta, dict) and (meta.get("overrides") or {}).get("protocol") == PROTOCOL:
            out.append([str(machine), str(meta.get("run_id")), str(meta.get("csv_sha256")), str(meta.get("rows"))])
    return sorted(out)


def stored_experiments() -> list[str]:
    """The experiments of SPECS with at least one stored JMH run (any machine), from the sidecars alone."""
    return [e for e in SPECS if run_checksums(e)]
