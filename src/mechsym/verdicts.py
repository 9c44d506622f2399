"""Claims and verdicts as data, with intervals.

A claim is one sentence of a post, the rule that reads it (a threshold with its stated, generous reading of the
post's words, citing the sentence), how it is measured here, and how its statistic is computed from the post's
own numbers (data/reference), so that the post's data can be fed to its own claim (a test does).

A verdict is the claim judged on one machine, in one scope (JDK, runtime, placement: data, not prose) and under
one protocol (the post's own, or the lab's harness beside it). Its statistic is computed per fork (a fresh JVM,
the unit of replication) and carries a 95% interval over forks (mechsym.stats: scipy's bootstrap, rounds of forks
resampled as blocks, the least or most of several comparisons decided member by member). Four outcomes:

- holds / does not hold: the whole interval lies on one side of the threshold;
- inconclusive: the interval straddles it (the verdict says how many more forks would likely decide it), or fewer
  than stats.MIN_FORKS forks were judged ("too few forks");
- not measurable here: with the reason (a CPU placement the machine lacks, a JDK without the flag, ...).

A statistic every fork gives identically (allocated bytes, a layout) is a fact: it is decided by its value and
shown without an interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np
import pandas as pd

from . import stats
from .analysis import LAB, POST, Protocol, fmt_value, runtime_label

HOLDS = "holds"
FAILS = "does not hold"
INCONCLUSIVE = "inconclusive"
UNMEASURABLE = "not measurable here"
OUTCOMES = (HOLDS, FAILS, INCONCLUSIVE, UNMEASURABLE)
DECISIVE = (HOLDS, FAILS)
LEVEL = stats.LEVEL
MIN_FORKS = stats.MIN_FORKS   # fewer forks in a judged cell: inconclusive, "too few forks"
NEAR = 0.02                   # a decisive interval whose deciding end is within 2% of its width of the threshold


# ---------------------------------------------------------------- rules

@dataclass(frozen=True)
class Rule:
    """The threshold a claim is read against.

    op: ">=" (at least), "<=" (at most), "between" (threshold..upper, both inclusive), "outside" (not between).
    reading: how the post's words are read, e.g. "'several times' read generously as at least 2x".
    effect: the smallest effect that matters, stated, for a "faster / slower / at least as" reading of a ratio (0.05:
      the threshold is 1.05, or 0.95 for "<="): an order with no margin (>= 1) can never be decided near no effect.

    Fixed before the data: no threshold sits on the post's own figure (the post passes with margin, or the reading
    says that the post itself sits on the edge; tests/test_claims_consistency.py). A "between" rule for
    "comparable / like / similar" is an equivalence band: it holds only when the whole interval lies inside it."""
    op: str
    threshold: float
    upper: float | None = None
    reading: str = ""
    effect: float | None = None

    def __post_init__(self):
        if self.op not in (">=", "<=", "between", "outside"):
            raise ValueError(f"rule op '{self.op}': allowed >=, <=, between, outside")
        if self.op in ("between", "outside") and (self.upper is None or self.upper < self.threshold):
            raise ValueError(f"rule '{self.op}' needs upper >= threshold")
        if self.effect is not None and not 0 < self.effect < 1:
            raise ValueError(f"rule effect {self.effect}: allowed a share between 0 and 1 (0.05 = 5%)")

    def holds_at(self, x: float) -> bool:
        """The rule applied to one number (the post's own statistic, say)."""
        if x is None or not np.isfinite(x):
            return False
        if self.op == ">=":
            return x >= self.threshold
        if self.op == "<=":
            return x <= self.threshold
        inside = self.threshold <= x <= self.upper
        return inside if self.op == "between" else not inside

    def decide(self, low: float, high: float) -> str:
        """holds / does not hold when the whole interval [low, high] is on one side, else inconclusive."""
        t, u = self.threshold, self.upper
        if self.op == ">=":
            return HOLDS if low >= t else FAILS if high < t else INCONCLUSIVE
        if self.op == "<=":
            return HOLDS if high <= t else FAILS if low > t else INCONCLUSIVE
        inside = t <= low and high <= u
        outside = high < t or low > u
        if self.op == "between":
            return HOLDS if inside else FAILS if outside else INCONCLUSIVE
        return HOLDS if outside else FAILS if inside else INCONCLUSIVE

    def distance(self, x: float) -> float:
        """How far a point estimate is from the nearest decision boundary."""
        bounds = [self.threshold] + ([self.upper] if self.upper is not None else [])
        return min(abs(x - b) for b in bounds)

    def text(self, unit: str = "") -> str:
        f = (lambda v: fmt_value(v, unit)) if unit else (lambda v: f"{v:g}")
        effect = f" (smallest effect {100 * self.effect:g}%)" if self.effect else ""
        if self.op == ">=":
            return f">= {f(self.threshold)}{effect}"
        if self.op == "<=":
            return f"<= {f(self.threshold)}{effect}"
        return f"{'within' if self.op == 'between' else 'outside'} {f(self.threshold)}..{f(self.upper)}"


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

    def then_value(self) -> float | None:
        """The claim's statistic computed from the post's own numbers (data/reference), or None."""
        if self.from_post is None or not self.reference:
            return None
        from . import reference
        v = self.from_post(reference.load(self.reference))
        return None if v is None else float(v)


# ---------------------------------------------------------------- estimates

@dataclass(frozen=True)
class Estimate:
    """A statistic over forks: its value from the forks' medians, a 95% interval, how many forks.

    boot: the resampling behind the interval (for the p-value the multiplicity line uses). fact: every fork gave the
    same number (a deterministic quantity: no interval). modes: the groups whose forks form separated clusters."""
    value: float
    low: float
    high: float
    forks: int      # the smallest group's fork count
    boot: stats.Boot | None = field(default=None, compare=False, repr=False)
    fact: bool = False
    modes: tuple = ()

    def text(self, unit: str = "") -> str:
        f = (lambda v: fmt_value(v, unit)) if unit else (lambda v: f"{v:.3g}")
        s = "s" if self.forks != 1 else ""
        if self.fact:
            return f"{f(self.value)} (the same in all {self.forks} fork{s}: a fact, no interval)"
        if self.forks < MIN_FORKS or not (np.isfinite(self.low) and np.isfinite(self.high)):
            return f"{f(self.value)}, {self.forks} fork{s} (no interval)"
        return f"{f(self.value)} [{f(self.low)}, {f(self.high)}], {self.forks} forks"

    def p_value(self, rule: Rule) -> float | None:
        if self.boot is None or self.fact:
            return None
        return self.boot.p_value(rule.op, rule.threshold, rule.upper)


def _from_boot(b: stats.Boot | None, arrays: list[np.ndarray]) -> Estimate | None:
    if b is None:
        return None
    fact = b.n >= 2 and all(np.ptp(np.asarray(a, dtype=float)) == 0 for a in arrays if len(a))
    found = tuple(m for m in (stats.modes(a) for a in arrays if np.ndim(a) == 1) if m is not None)
    return Estimate(b.value, b.low, b.high, b.n, b, fact, found)


def _clean(groups) -> list[np.ndarray]:
    out = []
    for g in groups:
        a = np.asarray(g, dtype=float)
        keep = np.isfinite(a).reshape(len(a), -1).all(axis=1) if a.ndim > 1 else np.isfinite(a)
        out.append(a[keep])
    return out


def estimate(fn: Callable[..., float], *groups, n_boot: int = stats.N_RESAMPLES, level: float = LEVEL,
             seed: int | None = None) -> Estimate | None:
    """fn(median of group 1, median of group 2, ...) with a 95% interval over forks (stats.bootstrap: one group's
    median by its order statistics, several groups by scipy's bootstrap, by rounds when their fork counts match).

    Each group is an array of per-fork values (see analysis.per_fork). None when a group is empty. With fewer than
    MIN_FORKS forks in some group the interval is unbounded."""
    b = stats.bootstrap(fn, groups, level=level, n_resamples=n_boot, seed=seed)
    return _from_boot(b, _clean(groups))


def estimate_with(fn: Callable[..., float], *groups, n_boot: int = stats.N_RESAMPLES, level: float = LEVEL,
                  seed: int | None = None) -> Estimate | None:
    """fn(group 1, group 2, ...) on the per-fork arrays themselves, with a 95% bootstrap interval over forks.

    For a statistic that is not a function of the groups' medians: a mean where the post averaged its runs, a
    spread (coefficient of variation, a percentile band). Groups of the same fork count are resampled by rounds (one
    draw for all), others independently; a 2-D group keeps each fork's row together (e.g. a fork's summary and its
    within-run spread). None when a group is empty; with fewer than MIN_FORKS forks in some group the interval is
    unbounded."""
    b = stats.bootstrap(fn, groups, of_medians=False, level=level, n_resamples=n_boot, seed=seed)
    return _from_boot(b, _clean(groups))


def least(*members: tuple, of_medians: bool = True) -> Estimate | None:
    """The least of several comparisons, each member (fn, group, group, ...) as `estimate` takes them, decided by
    intersection-union (stats.extreme): it clears a '>=' threshold only when every member's own interval does, and
    falls below it when one member's interval (at the Bonferroni level) lies wholly below. Replaces
    estimate(lambda a, b, c: min(a / c, b / c), ...), whose bootstrap of a minimum is biased. of_medians=False: each
    member's fn takes the per-fork arrays themselves, as `estimate_with` (a ratio of means)."""
    return _extreme("min", members, of_medians)


def most(*members: tuple, of_medians: bool = True) -> Estimate | None:
    """The most of several comparisons (see `least`, mirrored)."""
    return _extreme("max", members, of_medians)


def _extreme(how: str, members: tuple, of_medians: bool = True) -> Estimate | None:
    b = stats.extreme(how, [(m[0], m[1:]) for m in members], of_medians=of_medians)
    if b is None:
        return None
    arrays = [a for m in members for a in _clean(m[1:])]
    return _from_boot(b, arrays)


def more_forks(rule: Rule, est: Estimate) -> int | None:
    """Roughly how many more forks would decide an inconclusive verdict with 80% power (the interval narrows as
    1/sqrt(forks); the distance to the nearer boundary must reach (1.96 + 0.84) standard errors). None where more
    forks cannot decide it: a fact, bimodal forks, or an estimate on the threshold."""
    if est.fact or est.modes:
        return None
    if est.forks < MIN_FORKS:
        return MIN_FORKS - est.forks
    se = (est.high - est.low) / (2 * 1.96)
    dist = rule.distance(est.value)
    if dist <= 0 or not np.isfinite(se) or se <= 0:
        return None
    needed = math.ceil(est.forks * ((1.96 + 0.84) * se / dist) ** 2)
    return max(1, needed - est.forks)


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
    unstable: bool = False                      # decisive runs disagree with each other
    run_id: str = ""
    p_value: float | None = None                # the decision's p-value against the rule (the multiplicity line)
    near: bool = False                          # decisive, but the deciding end sits at the threshold
    fact: bool = False                          # every fork gave the same number
    primary: bool = False                       # the claim's one primary verdict (see primary_of); others are sub-rows

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
    JDK 17 (the posts' JDK family), else the first; a measurable verdict before one that is not; the lab's protocol
    only when the claim has no post-protocol verdict (a lab claim)."""
    if not verdicts:
        return None
    claim = verdicts[0].claim
    want = {k: str(v) for k, v in (claim.primary or {}).items()}

    def rank(iv):
        i, v = iv
        scope = {k: str(x) for k, x in v.scope.items()}
        return (v.protocol != POST.name,
                any(scope.get(k) != x for k, x in want.items()),
                v.outcome == UNMEASURABLE,
                "jdk" in scope and scope["jdk"] != PRIMARY_JDK,
                i)
    return min(enumerate(verdicts), key=rank)[0]


def mark_primary(verdicts: list[Verdict]) -> list[Verdict]:
    """The verdicts with each claim's primary one marked (per machine), in the same order."""
    groups: dict[tuple, list[int]] = {}
    for i, v in enumerate(verdicts):
        groups.setdefault((v.claim.id, v.machine), []).append(i)
    chosen = {idx[primary_of([verdicts[i] for i in idx])] for idx in groups.values()}
    return [replace(v, primary=i in chosen) for i, v in enumerate(verdicts)]


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
    why = "; ".join(x for x in (why, stand_in) if x)
    if est is None:
        return Verdict(claim, UNMEASURABLE, "n/a", missing, machine=machine, scope=scope, protocol=proto,
                       run_id=run_id)
    rule = claim.rule
    if est.fact:
        outcome = HOLDS if rule.holds_at(est.value) else FAILS
        reason = "; ".join(x for x in (f"every one of the {est.forks} forks gave this number: a fact", why) if x)
    elif est.forks < MIN_FORKS:
        outcome = INCONCLUSIVE
        reason = "; ".join(x for x in (
            f"too few forks: {est.forks} fork{'s' if est.forks != 1 else ''}, a judged cell needs at least "
            f"{MIN_FORKS} (the standard preset runs more)", why) if x)
    elif est.modes and not claim.shape:
        outcome = INCONCLUSIVE
        reason = "; ".join(["bimodal: " + "; ".join(m.text(lambda v: f"{v:,.4g}") for m in est.modes)
                            + "; one interval over both clusters means nothing, more forks do not help"]
                           + ([why] if why else []))
    else:
        outcome = rule.decide(est.low, est.high)
        reason = why
        if outcome == INCONCLUSIVE:
            n = more_forks(rule, est)
            base = (f"the interval straddles {rule.text(claim.unit)}"
                    + (f"; about {n} more forks would likely decide it (80% power)" if n and n <= 10 * est.forks
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
                   near=near, fact=est.fact)


def _near(rule: Rule, est: Estimate) -> bool:
    """The interval end that decides the verdict lies within NEAR of its width from a boundary of the rule."""
    width = est.high - est.low
    if not np.isfinite(width) or width <= 0:
        return False
    bounds = [rule.threshold] + ([rule.upper] if rule.upper is not None else [])
    return min(abs(e - b) for e in (est.low, est.high) for b in bounds) <= NEAR * width


def unmeasurable(claim: Claim, why: str, machine: str = "", scope: dict | None = None,
                 protocol: Protocol | str = POST) -> Verdict:
    proto = protocol.name if isinstance(protocol, Protocol) else str(protocol)
    return Verdict(claim, UNMEASURABLE, "n/a", why, machine=machine, scope=dict(scope or {}), protocol=proto)


def _safe_then(claim: Claim) -> float | None:
    try:
        return claim.then_value()
    except Exception:
        return None


# ---------------------------------------------------------------- replication

def replicate(main: list[Verdict], per_run: list[list[Verdict]]) -> list[Verdict]:
    """Each main verdict with how many complete stored runs agree ("holds in 3 of 4") and an unstable mark
    when decisive runs disagree (one holds, another does not)."""
    by_key: dict[tuple, list[str]] = {}
    for run in per_run:
        for v in run:
            by_key.setdefault(v.key, []).append(v.outcome)
    out = []
    for v in main:
        outcomes = by_key.get(v.key, [])
        agree = sum(o == v.outcome for o in outcomes)
        decisive = {o for o in outcomes if o in DECISIVE}
        out.append(replace(v, runs_agree=agree if outcomes else None, runs_total=len(outcomes) or None,
                           unstable=len(decisive) > 1))
    return out


# ---------------------------------------------------------------- tables

def claims_table(claims: list[Claim], notebook: str | None = None) -> pd.DataFrame:
    """The claims under test, rendered from CLAIMS (never retyped): claim | the post says | then | read as | how tested."""
    rows = []
    for c in claims:
        if notebook and c.notebook != notebook:
            continue
        rows.append({"claim": c.text + (" (the lab's reading, not the post's claim)" if c.source == "lab" else ""),
                     "the post says": c.quote, "then": c.then,
                     "read as": (f"{c.statistic} {c.rule.text(c.unit)}" if c.rule else "")
                     + (f" ({c.rule.reading})" if c.rule and c.rule.reading else ""),
                     "how tested here": c.test})
    return pd.DataFrame(rows)


CSV_COLUMNS = ["machine", "claim", "scope", "protocol", "outcome", "now", "low", "high", "forks",
               "runs agreeing", "runs stored", "unstable", "then", "why", "notebook", "run", "p", "near threshold",
               "fact", "primary"]


def table(verdicts: list[Verdict]) -> pd.DataFrame:
    """One row per verdict, every field as a column (the CSV of `mechsym verdicts --format csv`)."""
    rows = []
    for v in verdicts:
        rows.append({
            "machine": v.machine, "claim": v.claim.id, "scope": v.scope_text, "protocol": v.protocol,
            "outcome": v.outcome, "now": v.now_value, "low": v.low, "high": v.high, "forks": v.forks,
            "runs agreeing": v.runs_agree, "runs stored": v.runs_total, "unstable": v.unstable,
            "then": v.then_value, "why": v.why, "notebook": v.claim.notebook, "run": v.run_id,
            "text": v.claim.text, "then_text": v.claim.then, "now_text": v.now, "how tested": v.claim.test,
            "post": v.claim.post, "source": v.claim.source, "p": v.p_value, "near threshold": v.near,
            "fact": v.fact, "primary": v.primary,
        })
    return pd.DataFrame(rows)


COLOURS = {HOLDS: "background-color: #d8f0d8", FAILS: "background-color: #f6d5d5",
           INCONCLUSIVE: "background-color: #fff2c2", UNMEASURABLE: "background-color: #eeeeee"}


def agreement(v: Verdict) -> str:
    if not v.runs_total:
        return ""
    text = f"{v.runs_agree} of {v.runs_total} runs"
    return text + " (unstable)" if v.unstable else text


def display(verdicts: list[Verdict]) -> pd.DataFrame:
    """claim | primary or sub-row | scope | protocol | then | now | holds on this machine? | runs agreeing | why (and
    machine when several). Each claim's primary verdict (primary_of) is marked; the others are its sub-rows."""
    if verdicts and not any(v.primary for v in verdicts):
        verdicts = mark_primary(verdicts)
    rows = []
    for v in verdicts:
        rows.append({"machine": v.machine, "claim": v.claim.text, "row": "primary" if v.primary else "sub-row",
                     "scope": v.scope_text, "protocol": v.protocol,
                     "then": v.claim.then, "now": v.now, "holds on this machine?": v.outcome,
                     "runs agreeing": agreement(v), "why": v.why})
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    if df["machine"].nunique() <= 1:
        df = df.drop(columns="machine").rename(columns={"holds on this machine?": (
            "holds on this machine?" if not verdicts[0].machine else f"holds on {verdicts[0].machine}?")})
    if not df["runs agreeing"].astype(bool).any():
        df = df.drop(columns="runs agreeing")
    return df


def styled(verdicts: list[Verdict]):
    """The verdict table for a notebook: colour per outcome."""
    df = display(verdicts)
    if df.empty:
        return df
    status = [c for c in df.columns if c.startswith("holds on")]
    return (df.style.map(lambda v: COLOURS.get(v, ""), subset=status)
            .set_properties(**{"text-align": "left", "white-space": "pre-wrap", "vertical-align": "top"})
            .hide(axis="index"))


def for_notebook(verdicts: list[Verdict], notebook: str) -> list[Verdict]:
    """The verdicts of one notebook's claims (an experiment may feed several notebooks)."""
    return [v for v in verdicts if v.claim.notebook == notebook]
