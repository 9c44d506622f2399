"""A headline claim's JMH sub-rows: the claim's own statistic over JMH's forks of the same cells (CLAIM_CELLS),
judged by the claim's own rule (claim_verdicts, claim_rows). Never primary: JMH stands beside the post's protocol,
never in its place (verdict_collect.jmh_subrows). The cells are paired in jmh_views."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd

from .. import MechsymError
from ..run.jmh import PROTOCOL
from .views import SPECS, ns_per_op, run_ids

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
    from ..experiments.singlewriter.claims import _smallest_step
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
        "signalling", ({"variant": "volatile-spin"},), ns_per_op, scope={"placement": "cross-core"}),
    "signalling.20-30m-exchanges": ClaimCells(       # the post's op/sec: 2 x exchanges / duration = (ping + pong)/s
        "signalling", ({"variant": "volatile-spin"},), _identity, scope={"placement": "cross-core"}),
    "signalling.lock-1000x-volatile": ClaimCells(    # lock ns/op over volatile ns/op = volatile rate / lock rate
        "signalling", ({"variant": "locked"}, {"variant": "volatile-spin"}), lambda lock, vol: vol / lock,
        scope={"placement": "cross-core"}),
    "signalling.lock-latency-microseconds": ClaimCells(
        "signalling", ({"variant": "locked"},), ns_per_op, scope={"placement": "cross-core"}),
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
    from ..judge.verdicts import estimate, judge

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
