"""Claims and verdicts as data, with intervals.

A claim is one sentence of a post, the rule that reads it (a threshold with its stated, generous reading of the
post's words, citing the sentence), how it is measured here, and how its statistic is computed from the post's
own numbers (data/reference), so that the post's data can be fed to its own claim (a test does).

A verdict is the claim judged on one machine, in one scope (JDK, runtime, placement: data, not prose) and under
one protocol (the post's own, or the lab's harness beside it). Its statistic is computed per fork (a fresh JVM,
the unit of replication) and carries a 95% interval over forks (mechsym.judge.stats: scipy's bootstrap, rounds of forks
resampled as blocks, the least or most of several comparisons decided member by member). Four outcomes:

- holds / does not hold: the whole interval lies on one side of the threshold;
- inconclusive: the interval straddles it (the verdict says how many more forks would likely decide it), or fewer
  than stats.MIN_FORKS forks were judged ("too few forks");
- not measurable here: with the reason (a CPU placement the machine lacks, a JDK without the flag, ...).

A statistic every fork gives identically (allocated bytes, a layout) is a fact: it is decided by its value and
shown without an interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np
import pandas as pd

from . import stats
from .analysis import LAB, POST, Protocol, fmt_value, runtime_label
from ..style.units import si
from .estimates import Estimate, more_forks, undecidable  # noqa: F401 (claims use them)
# the estimates the experiments call: mechsym.judge.estimates', judged per mode where a group is bimodal
from .modes import estimate, estimate_with, least, most  # noqa: F401 (claims use them)
from .rules import DECISIVE, FAILS, HOLDS, INCONCLUSIVE, OUTCOMES, UNMEASURABLE, Rule  # noqa: F401 (re-exported)

LEVEL = stats.LEVEL
MIN_FORKS = stats.MIN_FORKS   # fewer forks in a judged cell: inconclusive, "too few forks"
NEAR = 0.02                   # a decisive interval whose deciding end is within 2% of its width of the threshold


# ---------------------------------------------------------------- claims

@dataclass(frozen=True)
class Claim:
    """One claim of a post, as data.

    quote: the post's sentence the claim and its threshold come from (cited in every verdict table).
    rule: the threshold, with its reading of the post's words.
    statistic: what number is compared, with its unit (e.g. "ReentrantLock / synchronized, ops/s ratio").
    reference: the data/reference file whose rows `from_post` reads; from_post(ref) computes the claim's statistic
      from the post's own numbers (None when the post gives no number for it: say why in `then`).
    then: the post's figure as text (derived from the reference where there is one; free text otherwise).
    source: "post" (the post claims it) or "lab" (the lab's own reading, labelled so in every table).
    no_ratio: why the overview's then-vs-now ratio is left out for this claim (then and now differ in kind).
    shape: the statistic is about how the forks spread (a share of slow runs, a spread, a band): separated
      clusters are its subject, not a reason to withhold the verdict.
    primary: the scope of the claim's primary verdict, where the default (see `primary_of`) is not the post's scope:
      {"placement": "unpinned"} picks the first post-protocol verdict whose scope has that placement.
    variants: the sweep's variants whose runs the statistic reads, where it reads only some (empty: any); a note
      on runs left out of the verdicts is said only on claims that read them.
    requires: what the claim needs from the machine (mechsym.judge.requirements.Requirement): checked against the
      machine's calibration; a failed one makes every verdict it concerns "not measurable here".
    floor: (calibration field, what one operation does), e.g. ("cas_ns", "thin lock + increment + unlock"): a
      verdict whose cell runs an operation faster than that physical floor times the JIT, not the mechanism
      (mechsym.judge.requirements.apply flags it; the cell that isolates the mechanism becomes the primary).
    """
    id: str
    post: str
    notebook: str
    text: str
    then: str
    test: str
    quote: str = ""
    rule: Rule | None = None
    statistic: str = ""
    unit: str = ""
    reference: str | None = None
    from_post: Callable[[pd.DataFrame], float] | None = None
    source: str = "post"
    no_ratio: str = ""
    shape: bool = False
    primary: dict | None = None
    variants: tuple[str, ...] = ()
    requires: tuple = ()
    floor: tuple = ()

    def __hash__(self) -> int:
        # a claim is its id: `primary` is a dict, so the generated hash over every field would fail
        return hash(self.id)

    def then_value(self) -> float | None:
        """The claim's statistic computed from the post's own numbers (data/reference), or None."""
        if self.from_post is None or not self.reference:
            return None
        from ..store import reference
        v = self.from_post(reference.load(self.reference))
        return None if v is None else float(v)


# ---------------------------------------------------------------- verdicts

@dataclass(frozen=True)
class Verdict:
    claim: Claim
    outcome: str                  # one of OUTCOMES
    now: str                      # today's figure: "median [low, high], n forks" with units
    why: str = ""                 # the reason, always for UNMEASURABLE and INCONCLUSIVE
    then_value: float | None = None
    now_value: float | None = None
    machine: str = ""
    scope: dict = field(default_factory=dict)   # e.g. {"jdk": "17", "placement": "cross-core"}
    protocol: str = POST.name                   # "post" (as the post measured) or "lab" (the lab's harness)
    low: float | None = None
    high: float | None = None
    forks: int = 0
    runs_agree: int | None = None               # how many complete stored runs of this machine agree
    runs_total: int | None = None
    unstable: bool = False                      # the runs disagree (tables.replicate): never decisive
    per_run: tuple = ()                         # each run judged alone: (run, outcome, now, value, low, high)
    run_id: str = ""
    p_value: float | None = None                # the decision's p-value against the rule (the multiplicity line)
    near: bool = False                          # decisive, but the deciding end sits at the threshold
    fact: bool = False                          # every fork gave the same number
    primary: bool = False                       # the claim's one primary verdict (see primary_of); others are sub-rows
    modes: tuple = ()                           # a bimodal cell's verdict per mode: (label, Verdict) pairs
    stand_in: bool = False                      # its scope only stands in for the post's: never primary
    per_op_ns: float | None = None              # the fastest cell's time per operation (checked against claim.floor)

    def __post_init__(self):
        if self.outcome not in OUTCOMES:
            raise ValueError(f"verdict outcome '{self.outcome}': allowed {', '.join(OUTCOMES)}")
        if self.outcome == UNMEASURABLE and not self.why:
            raise ValueError(f"verdict for {self.claim.id}: 'not measurable here' needs a reason")

    @property
    def scope_text(self) -> str:
        return scope_text(self.scope)

    @property
    def key(self) -> tuple:
        """What identifies 'the same verdict' in another run: claim, scope, protocol, machine."""
        return (self.claim.id, self.scope_text, self.protocol, self.machine)


def scope_text(scope: dict) -> str:
    """{'jdk': '17', 'placement': 'cross-core'} -> 'JDK 17, cross-core'."""
    parts = []
    for k, v in scope.items():
        if v in (None, ""):
            continue
        if k == "jdk":
            parts.append(runtime_label(v))
        elif k in ("runtime", "placement", "regime", "direction", "variant", "options"):
            parts.append(str(v))
        else:
            parts.append(f"{k} {v}")
    return ", ".join(parts)


# ---------------------------------------------------------------- the claim as the unit

PRIMARY_JDK = "17"   # the JDK family of the posts' measurements (Java 6 and 7 then; the oldest kept LTS here)


def primary_of(verdicts: list[Verdict]) -> int | None:
    """The index of the claim's primary verdict among one claim's verdicts on one machine: the post's protocol, in
    the scope the post measured as far as this machine has it. The claim's `primary` scope when it names one, else
    JDK 17 (the posts' JDK family), else the first; a verdict in the claim's own scope before a stand-in (one vCPU
    for SMT siblings), even one that is not measurable; a measurable verdict before one that is not; the lab's
    protocol only when the claim has no post-protocol verdict (a lab claim)."""
    if not verdicts:
        return None
    claim = verdicts[0].claim
    want = {k: str(v) for k, v in (claim.primary or {}).items()}

    def rank(iv):
        i, v = iv
        scope = {k: str(x) for k, x in v.scope.items()}
        return (v.protocol != POST.name,
                any(scope.get(k) != x for k, x in want.items()),
                v.stand_in,
                v.outcome == UNMEASURABLE,
                "jdk" in scope and scope["jdk"] != PRIMARY_JDK,
                i)
    return min(enumerate(verdicts), key=rank)[0]


def mark_primary(verdicts: list[Verdict]) -> list[Verdict]:
    """The verdicts with each claim's primary one marked (per machine), in the same order. A claim whose only
    post-protocol verdicts are stand-ins gets a primary 'not measurable here' of its own scope after them: a stand-in
    stays a sub-row."""
    groups: dict[tuple, list[int]] = {}
    for i, v in enumerate(verdicts):
        groups.setdefault((v.claim.id, v.machine), []).append(i)
    chosen, added = set(), {}
    for idx in groups.values():
        best = idx[primary_of([verdicts[i] for i in idx])]
        if verdicts[best].stand_in:
            added[idx[-1]] = _own_scope(verdicts[best])
        else:
            chosen.add(best)
    out = []
    for i, v in enumerate(verdicts):
        out.append(replace(v, primary=i in chosen))
        if i in added:
            out.append(added[i])
    return out


def _own_scope(stand_in: Verdict) -> Verdict:
    """The primary of a claim measured here only on a stand-in: not measurable, in the claim's own scope."""
    scope = {k: v for k, v in stand_in.scope.items() if k != "placement"} | dict(stand_in.claim.primary or {})
    why = ("the post's scope is not on this machine; only a stand-in was measured (its sub-row: "
           f"{stand_in.scope_text}, {stand_in.outcome})")
    return replace(unmeasurable(stand_in.claim, why, machine=stand_in.machine, scope=scope,
                                protocol=stand_in.protocol), run_id=stand_in.run_id, primary=True)


def judge(claim: Claim, est: Estimate | None, *, scope: dict | None = None, protocol: Protocol | str = POST,
          machine: str = "", detail: str = "", why: str = "", missing: str = "cells missing from these results",
          run_id: str = "", stand_in: str = "") -> Verdict:
    """The verdict on one estimate of the claim's statistic, read against the claim's rule.

    detail: extra text after the interval (e.g. the two medians a ratio comes from). missing: the reason when
    est is None (nothing measured for this scope). stand_in: why this scope only stands in for the post's (one
    logical CPU for its "same core"): said in the reason, and no then-vs-now ratio is drawn from it."""
    scope = dict(scope or {})
    proto = protocol.name if isinstance(protocol, Protocol) else str(protocol)
    if claim.rule is None:
        raise ValueError(f"claim {claim.id}: no rule to judge it by")
    then = None if claim.no_ratio or stand_in else _safe_then(claim)
    why = "; ".join(x for x in (why, f"stand-in: {stand_in}" if stand_in else "") if x)
    per_mode: tuple = ()
    if est is None:
        return Verdict(claim, UNMEASURABLE, "n/a", missing, machine=machine, scope=scope, protocol=proto,
                       run_id=run_id, stand_in=bool(stand_in))
    rule = claim.rule
    if est.fact:
        outcome = HOLDS if rule.holds_at(est.value) else FAILS
        reason = "; ".join(x for x in (f"every one of the {est.forks} forks gave this number: a fact", why) if x)
    elif est.forks < MIN_FORKS:
        outcome = INCONCLUSIVE
        reason = "; ".join(x for x in (
            f"too few forks: {est.forks} fork{'s' if est.forks != 1 else ''}, a judged cell needs at least "
            f"{MIN_FORKS} (the standard preset runs more)", why) if x)
    elif est.reach:
        outcome = INCONCLUSIVE
        need = more_forks(rule, est)
        reason = "; ".join(x for x in (
            f"too few forks for this level: {est.forks} forks reach at most {100 * est.reach:.4g}%, the interval is "
            f"asked at {100 * est.level:.4g}%" + (f"; {est.forks + need} forks would reach it" if need else ""), why)
            if x)
    elif est.modes and not claim.shape:
        outcome = INCONCLUSIVE
        per_mode = tuple((m.label, _judge_mode(claim, m.est, scope=scope, protocol=protocol, machine=machine,
                                               run_id=run_id, stand_in=stand_in))
                         for m in getattr(est, "per_mode", ()))
        reason = "; ".join(["bimodal: " + "; ".join(m.text(si) for m in est.modes)
                            + "; one interval over both clusters means nothing, more forks do not help"
                            + ("; judged per mode in the rows below" if per_mode else "")]
                           + ([why] if why else []))
    else:
        outcome = rule.decide(est.low, est.high)
        reason = why
        if outcome == INCONCLUSIVE:
            n = more_forks(rule, est)
            stuck = undecidable(rule, est)   # a discrete statistic, an estimate on the threshold: no estimate
            base = (f"the interval straddles {rule.text(claim.unit)}"
                    + (f"; about {n} more forks would likely decide it (80% power)" if n and n <= 10 * est.forks
                       else f"; more forks would not decide it: {stuck}" if stuck
                       else "; the estimate sits so close to the threshold that many more forks would be needed"
                       + (f" (~{n}): the claim is at its edge here" if n else "")))
            reason = base + (f"; {why}" if why else "")
    near = outcome in DECISIVE and not est.fact and _near(rule, est)
    if near:
        reason = "; ".join(x for x in (reason, "near its threshold: another resampling seed may not decide it") if x)
    now = est.text(claim.unit) + (f"; {detail}" if detail else "")
    return Verdict(claim, outcome, now, reason, then, est.value, machine, scope, proto,
                   None if not np.isfinite(est.low) else est.low, None if not np.isfinite(est.high) else est.high,
                   est.forks, run_id=run_id, p_value=est.p_value(rule) if outcome in DECISIVE else None,
                   near=near, fact=est.fact, modes=per_mode, stand_in=bool(stand_in))


def _judge_mode(claim: Claim, est: Estimate | None, **kw) -> Verdict:
    """One mode of a bimodal cell judged as a cell of its own (mechsym.judge.modes cut the group to the mode's forks)."""
    v = judge(claim, est, why="one mode of a bimodal cell", **kw)
    if v.outcome == INCONCLUSIVE and 0 < v.forks < MIN_FORKS and not v.fact:
        v = replace(v, why=f"one mode of a bimodal cell: {v.forks} fork{'s' if v.forks != 1 else ''}, an interval "
                    f"needs at least {MIN_FORKS}; more forks would give each mode its own")
    return v


def _near(rule: Rule, est: Estimate) -> bool:
    """An interval end lies within NEAR of the interval's width from a boundary of the rule, or a boundary lies inside
    the Monte Carlo band of an end (stats.end_bands: where that end could fall under another resampling seed; wide
    when the bootstrap distribution has a gap there, as forks nested in two runs give)."""
    width = est.high - est.low
    if not np.isfinite(width) or width <= 0:
        return False
    bounds = [rule.threshold] + ([rule.upper] if rule.upper is not None else [])
    if min(abs(e - b) for e in (est.low, est.high) for b in bounds) <= NEAR * width:
        return True
    bands = stats.end_bands(est.boot, est.level) if est.boot is not None else ()
    return any(lo <= b <= hi for lo, hi in bands for b in bounds)


def unmeasurable(claim: Claim, why: str, machine: str = "", scope: dict | None = None,
                 protocol: Protocol | str = POST) -> Verdict:
    proto = protocol.name if isinstance(protocol, Protocol) else str(protocol)
    return Verdict(claim, UNMEASURABLE, "n/a", why, machine=machine, scope=dict(scope or {}), protocol=proto)


def _safe_then(claim: Claim) -> float | None:
    try:
        return claim.then_value()
    except Exception:
        return None
