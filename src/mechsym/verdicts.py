"""Claims and verdicts as data, with intervals.

A claim is one sentence of a post, the rule that reads it (a threshold with its stated, generous reading of the
post's words, citing the sentence), how it is measured here, and how its statistic is computed from the post's
own numbers (data/reference), so that the post's data can be fed to its own claim (a test does).

A verdict is the claim judged on one machine, in one scope (JDK, runtime, placement: data, not prose) and under
one protocol (the post's own, or the lab's harness beside it). Its statistic is computed per fork (a fresh JVM,
the unit of replication) and carries a 95% bootstrap interval over forks. Four outcomes:

- holds / does not hold: the whole interval lies on one side of the threshold;
- inconclusive: the interval straddles it (the verdict says how many more forks would likely decide it);
- not measurable here: with the reason (a CPU placement the machine lacks, a JDK without the flag, ...).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Callable

import numpy as np
import pandas as pd

from .analysis import LAB, POST, Protocol, fmt_value, runtime_label

HOLDS = "holds"
FAILS = "does not hold"
INCONCLUSIVE = "inconclusive"
UNMEASURABLE = "not measurable here"
OUTCOMES = (HOLDS, FAILS, INCONCLUSIVE, UNMEASURABLE)
DECISIVE = (HOLDS, FAILS)
LEVEL = 0.95
# Below MIN_FORKS forks in a group an interval over forks means nothing: the verdict is inconclusive. The percentile
# bootstrap of a median is short of its nominal level on few forks: by simulation (a ratio of two groups' medians,
# log-normal forks, tests/test_verdict_core.py), 3 forks cover ~89% and 4 forks ~94%, 5+ forks >= 95%. A verdict on
# fewer than FULL_COVERAGE forks says so.
MIN_FORKS = 3
FULL_COVERAGE = 4


# ---------------------------------------------------------------- rules

@dataclass(frozen=True)
class Rule:
    """The threshold a claim is read against.

    op: ">=" (at least), "<=" (at most), "between" (threshold..upper, both inclusive), "outside" (not between).
    reading: how the post's words are read, e.g. "'several times' read generously as at least 2x"."""
    op: str
    threshold: float
    upper: float | None = None
    reading: str = ""

    def __post_init__(self):
        if self.op not in (">=", "<=", "between", "outside"):
            raise ValueError(f"rule op '{self.op}': allowed >=, <=, between, outside")
        if self.op in ("between", "outside") and (self.upper is None or self.upper < self.threshold):
            raise ValueError(f"rule '{self.op}' needs upper >= threshold")

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
        if self.op == ">=":
            return f">= {f(self.threshold)}"
        if self.op == "<=":
            return f"<= {f(self.threshold)}"
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
    """A statistic over forks: its value from the forks' medians, a bootstrap interval, how many forks."""
    value: float
    low: float
    high: float
    forks: int      # the smallest group's fork count

    def text(self, unit: str = "") -> str:
        f = (lambda v: fmt_value(v, unit)) if unit else (lambda v: f"{v:.3g}")
        if self.forks < MIN_FORKS:
            return f"{f(self.value)}, {self.forks} fork{'s' if self.forks != 1 else ''} (no interval)"
        return f"{f(self.value)} [{f(self.low)}, {f(self.high)}], {self.forks} forks"


def estimate(fn: Callable[..., float], *groups, n_boot: int = 2000, level: float = LEVEL,
             seed: int = 20111119) -> Estimate | None:
    """fn(median of group 1, median of group 2, ...) with a percentile bootstrap interval over forks.

    Each group is an array of per-fork values (see analysis.per_fork); the groups are resampled independently.
    None when a group is empty. With fewer than MIN_FORKS forks in some group the interval is unbounded."""
    arrays = [np.asarray(g, dtype=float) for g in groups]
    arrays = [a[np.isfinite(a)] for a in arrays]
    if not arrays or any(a.size == 0 for a in arrays):
        return None
    value = float(fn(*[np.median(a) for a in arrays]))
    n = min(a.size for a in arrays)
    if n < MIN_FORKS:
        return Estimate(value, -math.inf, math.inf, n)
    rng = np.random.default_rng(seed)
    meds = [np.median(a[rng.integers(0, a.size, (n_boot, a.size))], axis=1) for a in arrays]
    return _interval(value, np.array([fn(*vals) for vals in zip(*meds)], dtype=float), n, level)


def estimate_with(fn: Callable[..., float], *groups, n_boot: int = 2000, level: float = LEVEL,
                  seed: int = 20111119) -> Estimate | None:
    """fn(group 1, group 2, ...) on the per-fork arrays themselves, with a percentile bootstrap interval over forks.

    For a statistic that is not a function of the groups' medians: a mean where the post averaged its runs, a
    spread (coefficient of variation, a percentile band), the margin of the best of several variants. Each group is
    resampled by fork, independently of the others; a 2-D group keeps each fork's row together (e.g. a fork's
    summary and its within-run spread). None when a group is empty; with fewer than MIN_FORKS forks in some group
    the interval is unbounded."""
    arrays = [np.asarray(g, dtype=float) for g in groups]
    arrays = [a[np.isfinite(a).reshape(len(a), -1).all(axis=1)] if a.ndim > 1 else a[np.isfinite(a)] for a in arrays]
    if not arrays or any(len(a) == 0 for a in arrays):
        return None
    value = float(fn(*arrays))
    n = min(len(a) for a in arrays)
    if n < MIN_FORKS:
        return Estimate(value, -math.inf, math.inf, n)
    rng = np.random.default_rng(seed)
    samples = [a[rng.integers(0, len(a), (n_boot, len(a)))] for a in arrays]  # one resample of each group per row
    stats = np.array([fn(*[s[b] for s in samples]) for b in range(n_boot)], dtype=float)
    return _interval(value, stats, n, level)


def _interval(value: float, stats: np.ndarray, n: int, level: float) -> Estimate:
    """The percentile interval of bootstrap statistics (unbounded when none is finite), always holding the value."""
    stats = stats[np.isfinite(stats)]
    if stats.size == 0:
        return Estimate(value, -math.inf, math.inf, n)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(stats, [tail, 100 - tail])
    return Estimate(value, float(min(low, value)), float(max(high, value)), n)


def more_forks(rule: Rule, est: Estimate) -> int | None:
    """Roughly how many more forks would likely decide an inconclusive verdict (the interval narrows as
    1/sqrt(forks)); None when the estimate sits on the threshold."""
    if est.forks < MIN_FORKS:
        return MIN_FORKS - est.forks + 2
    half = (est.high - est.low) / 2
    dist = rule.distance(est.value)
    if dist <= 0 or not np.isfinite(half):
        return None
    needed = math.ceil(est.forks * (half / dist) ** 2)
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
    outcome = claim.rule.decide(est.low, est.high) if est.forks >= MIN_FORKS else INCONCLUSIVE
    reason = why
    if outcome == INCONCLUSIVE:
        n = more_forks(claim.rule, est)
        if est.forks < MIN_FORKS:
            base = (f"{est.forks} fork{'s' if est.forks != 1 else ''}: an interval needs at least {MIN_FORKS} "
                    "(the standard preset runs more)")
        else:
            base = (f"the interval straddles {claim.rule.text(claim.unit)}"
                    + (f"; about {n} more forks would likely decide it" if n and n <= 10 * est.forks else
                       "; the estimate sits so close to the threshold that many more forks would be needed"
                       + (f" (~{n}): the claim is at its edge here" if n else "")))
        reason = base + (f"; {why}" if why else "")
    if MIN_FORKS <= est.forks < FULL_COVERAGE:
        reason = (reason + "; " if reason else "") + f"{est.forks} forks: the interval covers ~90%, not 95%"
    now = est.text(claim.unit) + (f"; {detail}" if detail else "")
    return Verdict(claim, outcome, now, reason, then, est.value, machine, scope, proto,
                   None if not np.isfinite(est.low) else est.low, None if not np.isfinite(est.high) else est.high,
                   est.forks, run_id=run_id)


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
               "runs agreeing", "runs stored", "unstable", "then", "why", "notebook", "run"]


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
            "post": v.claim.post, "source": v.claim.source,
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
    """claim | scope | protocol | then | now | holds on this machine? | runs agreeing | why (and machine when several)."""
    rows = []
    for v in verdicts:
        rows.append({"machine": v.machine, "claim": v.claim.text, "scope": v.scope_text, "protocol": v.protocol,
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
