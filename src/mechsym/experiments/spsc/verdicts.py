"""The verdicts: every claim judged on the run summaries (one per fresh JVM, the post's protocol), per JDK and
placement, each statistic with a 95% interval over runs."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Callable

import numpy as np
import pandas as pd

from ...judge import analysis, stats
from ...judge.analysis import by_machine, fmt_pct, fmt_rate
from ...judge.verdicts import DECISIVE, INCONCLUSIVE, Estimate, Verdict, estimate_with, judge, least, most, unmeasurable
from .claims import CLAIM, CLAIMS
from .meta import MAIN_OPTIONS, OPTION_SETS
from .rows import LOW, POST, cell, cv, run_summaries, share_low
from .sweep import CT_OPTIONS, PLACEMENT_LABELS, POST_QUEUES, SAME_CORE

SPREAD_FORKS = 10   # a run-to-run spread (share of low runs, CV, percentile band) is judged on at least 10 runs


def _lacks(p: str, reasons: dict) -> str:
    """Why the machine has no cells in placement p: its stored reason, naming the placement when the reason does not."""
    r = reasons.get(p) or f"no runs {PLACEMENT_LABELS[p]}"
    return r if PLACEMENT_LABELS[p].split()[0].lower() in r.lower() else f"{PLACEMENT_LABELS[p]}: {r}"


STAND_IN = {"same-cpu": "one logical CPU stands in for the post's 'same core' (most likely two SMT siblings of one "
                        "core on its Xeon)"}


def wilson(hits: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """The 95% Wilson score interval of a share hits/n. Unlike a bootstrap it does not collapse to [0, 0] when no
    run is low: 0 low runs of 30 still leave room for a share up to 11%."""
    if n == 0:
        return math.nan, math.nan
    p = hits / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@stats.vectorized
def mean_ratio(a, b) -> float:
    return np.mean(a, axis=-1) / np.mean(b, axis=-1)


# ---------------------------------------------------------------- statistics: (names, groups of runs) -> (Estimate, detail)

def _share_low(names, o1):
    k, n = int(round(share_low(o1, LOW) * len(o1))), len(o1)
    low, high = wilson(k, n)
    return Estimate(100 * k / n, 100 * low, 100 * high, n), (
        f"{k} of {n} runs below {LOW}x the median run ({fmt_rate(np.median(o1))}); "
        f"min {fmt_rate(o1.min())}, max {fmt_rate(o1.max())}")


def _within(names, pairs):
    return (estimate_with(lambda a: np.median(a[:, 1]) / cv(a[:, 0]), pairs),
            f"median within-run CV {fmt_pct(100 * np.median(pairs[:, 1]))}, across runs {fmt_pct(100 * cv(pairs[:, 0]))}")


def _ratio(names, a, b):
    return (estimate_with(mean_ratio, a, b),
            f"average {names[0]} {fmt_rate(np.mean(a))}, {names[1]} {fmt_rate(np.mean(b))}")


def _cv_ratio(names, i4, o1):
    return (estimate_with(lambda a, b: cv(a) / cv(b), i4, o1),
            f"CV across runs: I4 {fmt_pct(100 * cv(i4))}, O1 {fmt_pct(100 * cv(o1))}")


def _band_pct(a) -> float:
    p10, p90 = np.percentile(a, [10, 90])
    return float(100 * (p90 - p10) / np.median(a))


def _band(names, i4):
    p10, p90 = np.percentile(i4, [10, 90])
    return (estimate_with(_band_pct, i4), f"I4 p10-p90 {fmt_rate(p10)} to {fmt_rate(p90)}, median "
                                          f"{fmt_rate(np.median(i4))}; min {fmt_rate(i4.min())}, max {fmt_rate(i4.max())}")


def _means(names, groups) -> str:
    return ", ".join(f"{n} {fmt_rate(np.mean(g))}" for n, g in zip(names, groups))


def _first_over_best_other(names, first, *others):
    """first's average over each other's, the least of them (decided member by member: verdicts.least)."""
    return (least(*[(mean_ratio, first, o) for o in others], of_medians=False),
            f"averages: {_means(names, (first, *others))}")


def _best_other_over_first(names, first, *others):
    """each other's average over first's, the most of them (verdicts.most)."""
    return (most(*[(mean_ratio, o, first) for o in others], of_medians=False),
            f"averages: {_means(names, (first, *others))}")


# ---------------------------------------------------------------- one verdict per (placement, JDK)

def _each(claim, s, reasons, placements, options, variants: Callable[[pd.DataFrame], list[str]] | list[str],
          stat: Callable, pairs: bool = False, min_forks: int = 0) -> list[Verdict]:
    """Judge `claim` on every JDK that ran `variants` under `options` in each placement. A placement the machine
    lacks gives one 'not measurable here' with the reason. variants: a list, or a function of the cell group's runs
    (first variant first); pairs=True hands each group over as rows of (summary, within-run CV). With fewer than
    min_forks runs in a group the verdict stays inconclusive (a bootstrap over 4 runs cannot see a wider spread than
    those 4 runs show)."""
    out = []
    for p in placements:
        here = analysis.where(s, placement=p, options=options)
        if here.empty and p in reasons:
            out.append(unmeasurable(claim, _lacks(p, reasons), scope={"placement": p, "options": options},
                                    protocol=POST))
            continue
        judged = 0
        for j in analysis.jdks(here):
            sub = analysis.where(here, jdk=j)
            names = variants(sub) if callable(variants) else variants
            groups = [analysis.where(sub, variant=v)[["summary", "within_cv"]].to_numpy(dtype=float) if pairs
                      else cell(sub, variant=v) for v in names]
            if not names or any(len(g) == 0 for g in groups):
                continue
            est, detail = stat(names, *groups)
            v = judge(claim, est, scope={"jdk": j, "placement": p, "options": options}, protocol=POST,
                      detail=detail, stand_in=STAND_IN.get(p, ""))
            if est is not None and est.forks < min_forks and v.outcome in DECISIVE:
                v = replace(v, outcome=INCONCLUSIVE, why="; ".join(x for x in (
                    f"{est.forks} runs: a run-to-run spread is judged on at least {min_forks} (the post ran 30; the "
                    f"standard preset runs 30 in the main cells)", v.why) if x))
            out.append(v)
            judged += 1
        if not judged:
            want = ", ".join(variants) if not callable(variants) else "the post's variants"
            out.append(judge(claim, None, scope={"placement": p, "options": options}, protocol=POST,
                             missing=f"no runs of {want} {PLACEMENT_LABELS[p]} under '{options}' in these results"))
    return out


def _i1_and_others(sub: pd.DataFrame) -> list[str]:
    others = [v for v in POST_QUEUES if v != "I1" and v in set(sub["variant"])]
    return ["I1", *others] if "I1" in set(sub["variant"]) and others else []


def _o1_and_others(sub: pd.DataFrame) -> list[str]:
    others = [v for v in POST_QUEUES if v != "O1" and v in set(sub["variant"])]
    return ["O1", *others] if "O1" in set(sub["variant"]) and others else []


def _reorder(claim, s, reasons, placements) -> list[Verdict]:
    """Per placement and JDK: under which two option sets do different variants win most clearly? That pair of sets
    and winners fixed, the smaller of the two leads with its interval (re-picking the pair in every resample would
    find a 'reordering' in pure noise). With one winner everywhere: the closest challenger's average / the winner's."""
    out = []
    for p in placements:
        here = analysis.where(s, placement=p)
        if here.empty:
            out.append(unmeasurable(claim, _lacks(p, reasons), scope={"placement": p}, protocol=POST))
            continue
        judged = 0
        for j in analysis.jdks(here):
            sub = analysis.where(here, jdk=j, variant=POST_QUEUES)
            sets = [o for o in OPTION_SETS if o in set(sub["options"])]
            names = [v for v in POST_QUEUES if all(len(cell(sub, options=o, variant=v)) for o in sets)]
            if len(sets) < 2 or len(names) < 2:
                continue
            g = {(o, v): cell(sub, options=o, variant=v) for o in sets for v in names}
            m = {k: np.mean(a) for k, a in g.items()}
            win = {o: max(names, key=lambda v: m[(o, v)]) for o in sets}
            pairs = [(a, b) for a in sets for b in sets if a < b and win[a] != win[b]]
            listing = "winners: " + ", ".join(f"{o} {win[o]}" for o in sets)
            if pairs:
                a, b = max(pairs, key=lambda ab: min(m[(ab[0], win[ab[0]])] / m[(ab[0], win[ab[1]])],
                                                     m[(ab[1], win[ab[1]])] / m[(ab[1], win[ab[0]])]))
                wa, wb = win[a], win[b]
                est = least((mean_ratio, g[(a, wa)], g[(a, wb)]), (mean_ratio, g[(b, wb)], g[(b, wa)]),
                            of_medians=False)
                detail = f"{wa} leads {wb} under {a}, {wb} leads {wa} under {b}; {listing}"
            else:
                w = win[sets[0]]
                b, y = max(((o, v) for o in sets for v in names if v != w), key=lambda k: m[k] / m[(k[0], w)])
                est = estimate_with(mean_ratio, g[(b, y)], g[(b, w)])
                detail = f"{w} wins under every set; closest: {y} under {b}; {listing}"
            out.append(judge(claim, est, scope={"jdk": j, "placement": p}, protocol=POST, detail=detail,
                             stand_in=STAND_IN.get(p, "")))
            judged += 1
        if not judged:
            out.append(judge(claim, None, scope={"placement": p}, protocol=POST,
                             missing=f"needs two or more option sets with runs of two or more of the post's variants "
                                     f"{PLACEMENT_LABELS[p]} on one JDK"))
    return out


@by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """Every claim's verdicts on these results, machine by machine."""
    s = run_summaries(df)
    if s.empty:
        return [unmeasurable(c, "no throughput runs (fresh JVMs that passed their checks) in these results",
                             protocol=POST) for c in CLAIMS]
    with np.errstate(divide="ignore", invalid="ignore"):   # a resample of one repeated run has no spread: inf, dropped
        return _verdicts(s, analysis.unavailable_reasons(df, "placement"))


def _verdicts(s: pd.DataFrame, reasons: dict) -> list[Verdict]:
    cross, main, spread = ["cross-core"], MAIN_OPTIONS, SPREAD_FORKS
    return [
        *_each(CLAIM["spsc.o1-bimodal-cross-core"], s, reasons, cross, main, ["O1"], _share_low, min_forks=spread),
        *_each(CLAIM["spsc.o1-stable-within-a-run"], s, reasons, cross, main, ["O1"], _within, pairs=True,
               min_forks=spread),
        *_each(CLAIM["spsc.i1-helps-same-core"], s, reasons, SAME_CORE, main, ["I1", "O1"], _ratio),
        *_each(CLAIM["spsc.i1-worse-cross-core"], s, reasons, cross, main, ["I1", "O1"], _ratio),
        *_each(CLAIM["spsc.i4-removes-variance"], s, reasons, cross, main, ["I4", "O1"], _cv_ratio, min_forks=spread),
        *_each(CLAIM["spsc.i4-10pct-faster"], s, reasons, SAME_CORE + cross, main, ["I4", "O1"], _ratio),
        *_each(CLAIM["spsc.i4-110-120m"], s, reasons, cross, main, ["I4"], _band, min_forks=spread),
        *_each(CLAIM["spsc.condcard-i1-best-cross-core"], s, reasons, cross, "condcard", _i1_and_others,
               _first_over_best_other),
        *_each(CLAIM["spsc.compile-threshold-sinks-i1"], s, reasons, cross, CT_OPTIONS, _i1_and_others,
               _first_over_best_other),
        *_reorder(CLAIM["spsc.options-reorder-winners"], s, reasons, SAME_CORE + cross),
        *_each(CLAIM["spsc.cross-socket"], s, reasons, ["cross-socket"], main, _o1_and_others,
               _best_other_over_first),
    ]
