"""JMH beside the lab: which lab cells pair with which JMH cells (Spec, SPECS), post | lab | JMH per cell with
lab/JMH and its interval (side_by_side), and which stored JMH runs are read (run_ids, run_checksums). The pages'
sections and the ratio table are jmh_ratios'; a claim's JMH sub-rows jmh_claims'; the JMH runs themselves
mechsym.run.jmh's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd

from .. import MechsymError
from ..run.jmh import PROTOCOL


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
    from ..judge import analysis
    from ..store import runs as store

    lab = store.load(experiment, machine, root=root, preset=preset)
    jmh_rows = store.load(experiment, machine, root=root, preset=preset, protocol=PROTOCOL)
    if lab.empty:
        raise MechsymError(f"{experiment}: no stored lab run to set beside JMH (run `mechsym run {experiment}`)")
    if jmh_rows.empty:
        raise MechsymError(f"{experiment}: no stored JMH run (run `mechsym run {experiment} --protocol jmh`)")
    lab = _whole_keys(analysis.measured(lab, metric), [*keys, *(where or {})])
    for k, v in (where or {}).items():
        lab = lab[lab[k].astype(str) == str(v)] if k in lab else lab.iloc[0:0]
    jmh_rows = _whole_keys(analysis.measured(jmh_rows, jmh_metric or metric), keys)
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


def _whole_keys(rows: pd.DataFrame, columns) -> pd.DataFrame:
    """The cell columns in `columns` that hold only whole numbers as integers (nullable Int64 where a value is
    missing), so that cells match by value across runs: a stored run whose column is blank on some rows (falsesharing's
    layout rows have no threads) is read back as floats, 2.0, and would never meet JMH's threads 2 when cells are
    matched as text."""
    out = rows
    for c in dict.fromkeys(columns):
        if c not in rows or not pd.api.types.is_float_dtype(rows[c]):
            continue
        present = rows[c].dropna()
        if len(present) and ((present == present.round()) & (present.abs() < 2 ** 53)).all():
            out = out.assign(**{c: rows[c].astype("Int64" if len(present) < len(rows) else "int64")})
    return out


@dataclass(frozen=True)
class Ratio:
    value: float
    low: float
    high: float


def ratio_estimate(lab: "np.ndarray", jmh_values: "np.ndarray") -> Ratio | None:
    """lab/JMH: the ratio of the two medians over forks, with a 95% bootstrap interval that resamples the two groups
    independently (stats.bootstrap, paired=False): the lab's forks and JMH's come from different runs, so equal
    fork counts are no pairing. None when either is empty; an unbounded interval below MIN_FORKS forks."""
    from ..judge import stats

    b = stats.bootstrap(lambda a, b: a / b, [lab, jmh_values], paired=False)
    return None if b is None else Ratio(b.value, b.low, b.high)


# ---------------------------------------------------------------- which lab cells pair with which JMH cells

def ns_per_op(ops_per_s: float) -> float:
    return 1e9 / ops_per_s if ops_per_s > 0 else math.nan


def ns_per_store(iterations_per_s: float) -> float:   # WriteCombining: one operation is one iteration, six stores
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
                          "ns/op", {"scale": "1x", "language": "java"}, jmh_metric="throughput", jmh_scale=ns_per_op)],
    "writecombining": [Spec("ns per store, six arrays (JMH: 1e9 / (6 x its iterations/s))", ("variant", "jdk"),
                            "ns_per_store", "ns", {"arrays": 6, "language": "java"}, jmh_metric="throughput",
                            jmh_scale=ns_per_store)],
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


def run_ids(experiment: str, machine: str | None = None, root: Path | None = None,
            preset: str | None = None) -> list[str]:
    """The ids of the stored JMH runs side_by_side reads (none when there is none)."""
    from ..store import runs as store

    try:
        return [m["run_id"] for m in store.chosen_runs(experiment, machine, root, preset, protocol=PROTOCOL)]
    except MechsymError:
        return []


def run_checksums(experiment: str) -> list:
    """[machine, run id, csv_sha256, rows] of every stored JMH run of the experiment (every machine, every preset: a
    superset of what jmh_claims.claim_rows reads), for the verdict cache's key."""
    import json

    from ..store import runs as store

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
