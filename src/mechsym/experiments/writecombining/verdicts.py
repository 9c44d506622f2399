"""The writecombining verdicts: every claim judged on the measured forks, per machine, with intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
from ...judge import analysis
from ...judge.verdicts import FAILS, HOLDS, INCONCLUSIVE, MIN_FORKS, Verdict, estimate, judge, unmeasurable
from .claims import CLAIM, CLAIMS, FASTER, KNEE_SHARE
from .rows import COLD, LAB, POST, listing_forks, rows, runtimes, sweep_forks
from .sweep import POST_ARRAYS, SPLIT


def _values(vals: np.ndarray, unit: str) -> str:
    """The forks' own values, sorted (a bimodal cell shows here; a median hides it)."""
    if len(vals) > 8:
        return f"{len(vals)} forks"
    return "forks: " + ", ".join(analysis.fmt_value(v, unit) for v in np.sort(vals))


def knee(single: np.ndarray, arrays: list[int]) -> float:
    """The fewest arrays past SPLIT at which one loop's median ns per store (over forks: the rows) is FASTER x a loop
    of SPLIT's; max(arrays) + 1 when none is."""
    med = np.nanmedian(single, axis=0)
    base = med[arrays.index(SPLIT)]
    hits = [n for n, m in zip(arrays, med) if n > SPLIT and m / base >= FASTER]
    return float(hits[0] if hits else max(arrays) + 1)


def _at(forks: pd.DataFrame, arrays: int) -> np.ndarray:
    """One sweep cell's per-fork values (a column of sweep_forks)."""
    return forks[arrays].dropna().to_numpy(dtype=float) if arrays in forks else np.array([])


def _split_verdicts(df, runtime, scope) -> list[Verdict]:
    out = []
    listing = listing_forks(df, runtime)
    ratios = (listing["single loop"] / listing["split loops"]).to_numpy(dtype=float) if len(listing) else []
    one, three = (_at(sweep_forks(df, runtime, v), POST_ARRAYS) for v in ("single-loop", "split-loops"))
    for claim in (CLAIM["writecombining.split-faster"],):
        est = estimate(lambda a: a, ratios)
        out.append(judge(claim, est, scope=scope, protocol=POST, missing="no listing cells in these results",
                         detail="" if est is None else "per fork, first repetition; " + _values(ratios, "x")))
        est = estimate(lambda a, b: a / b, one, three)
        out.append(judge(claim, est, scope=scope, protocol=LAB, missing="no sweep cells at 6 arrays",
                         detail="" if est is None else f"6 arrays: one loop {analysis.fmt_ns(np.nanmedian(one))} / "
                         f"loops of 3 {analysis.fmt_ns(np.nanmedian(three))} per store"))
    return out


def round_knees(single: pd.DataFrame) -> list[int]:
    """The knee of each round of forks (a row of sweep_forks: fork i of every cell), rounds without a loop of SPLIT
    left out."""
    arrays = sorted(single.columns)
    rows = single[arrays].to_numpy(float)
    return [int(knee(r[None, :], arrays)) for r in rows if np.isfinite(r[arrays.index(SPLIT)])]


def judge_knee(claim, knees: list[int], scope: dict, protocol, detail: str, why: str = "") -> Verdict:
    """A discrete statistic judged as one: the modal knee and its share of rounds. Holds when at least KNEE_SHARE of
    the rounds put the knee inside the rule's band, does not hold when at least KNEE_SHARE put it outside, else
    inconclusive (the rounds disagree; more forks decide nothing a bootstrap interval could say). p-value: the
    one-sided binomial test of that share against one half."""
    from scipy.stats import binomtest

    n = len(knees)
    values, counts = np.unique(knees, return_counts=True)
    mode, share = int(values[counts.argmax()]), counts.max() / n
    inside = sum(claim.rule.holds_at(k) for k in knees)
    now = (f"{mode} arrays in {counts.max()} of {n} rounds ({share:.0%}); every round: "
           + ", ".join(map(str, sorted(knees))) + f"; {detail}")
    if n < MIN_FORKS:
        outcome, reason, p = INCONCLUSIVE, f"too few rounds of forks: {n}, a judged cell needs {MIN_FORKS}", None
    elif inside >= KNEE_SHARE * n:
        outcome, reason, p = HOLDS, "", binomtest(inside, n, 0.5, alternative="greater").pvalue
    elif n - inside >= KNEE_SHARE * n:
        outcome, reason, p = FAILS, "", binomtest(n - inside, n, 0.5, alternative="greater").pvalue
    else:
        outcome, p = INCONCLUSIVE, None
        reason = (f"the rounds disagree: {inside} of {n} put the knee at {claim.rule.text()} arrays; a decision needs "
                  f"{KNEE_SHARE:.0%} of them on one side")
    return Verdict(claim, outcome, now, "; ".join(x for x in (reason, why) if x), None, float(mode), scope=scope,
                   protocol=protocol.name, forks=n, p_value=p)


def _knee_verdicts(df, runtime, scope) -> list[Verdict]:
    claim = CLAIM["writecombining.four-buffers"]
    out = []
    for protocol in (COLD, LAB):
        single = sweep_forks(df, runtime, "single-loop", protocol)
        arrays = sorted(single.columns)
        if SPLIT not in arrays or max(arrays) <= SPLIT:
            out.append(unmeasurable(claim, f"no sweep of one loop of {SPLIT} and more arrays in these results",
                                    scope=scope, protocol=protocol))
            continue
        ratio = single.median() / single[SPLIT].median()
        detail = f"one loop of N / one loop of {SPLIT}, per store (medians over forks): " + ", ".join(
            f"{n}: {r:.2f}x" for n, r in ratio.items() if n > SPLIT)
        why = "" if protocol is LAB else "the post's reading of a sweep it never ran: the first, cold run of each fork"
        out.append(judge_knee(claim, round_knees(single), scope, protocol, detail, why))
    return out


@analysis.by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """Every claim per runtime (each JDK, C), under the post's protocol and then the lab's, one machine at a time."""
    if rows(df).empty:
        return [unmeasurable(c, "no measured results") for c in CLAIMS]
    out: list[Verdict] = []
    for runtime in runtimes(df):
        scope = {"runtime": runtime}
        out += _split_verdicts(df, runtime, scope) + _knee_verdicts(df, runtime, scope)
    order = {c.id: i for i, c in enumerate(CLAIMS)}
    return sorted(out, key=lambda v: order[v.claim.id])
