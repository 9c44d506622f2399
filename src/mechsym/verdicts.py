"""Claims and verdicts as data.

Each experiment declares its claims (post, the claim in a sentence, the
original figure, how it is tested here) and a function that turns results into
verdicts. One source feeds each notebook's verdict table, the overview
notebook and `mechsym verdicts`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import pandas as pd

HOLDS = "holds"
FAILS = "does not hold"
UNMEASURABLE = "not measurable here"
OUTCOMES = (HOLDS, FAILS, UNMEASURABLE)


@dataclass(frozen=True)
class Claim:
    id: str          # stable, e.g. "locks.biased-huge-benefit"
    post: str        # the post file in shared/posts, e.g. "2011-11-22-biased-locking-osr-and-benchmarking-fun.md"
    notebook: str    # e.g. "02-biased-locking"
    text: str        # the claim in one sentence, as the post makes it
    then: str        # the post's own figure, e.g. "450,950,969 vs 53,283,461 ops/s (8.5x), Nehalem"
    test: str        # how it is tested here, in one sentence


@dataclass(frozen=True)
class Verdict:
    claim: Claim
    outcome: str                  # one of OUTCOMES
    now: str                      # today's figure, with units
    why: str = ""                 # the reason, always for UNMEASURABLE
    then_value: float | None = None   # a comparable number (for the then-vs-now ratio plot)
    now_value: float | None = None
    machine: str = ""

    def __post_init__(self):
        if self.outcome not in OUTCOMES:
            raise ValueError(f"verdict outcome '{self.outcome}': allowed {', '.join(OUTCOMES)}")
        if self.outcome == UNMEASURABLE and not self.why:
            raise ValueError(f"verdict for {self.claim.id}: 'not measurable here' needs a reason")


def unmeasurable(claim: Claim, why: str, machine: str = "") -> Verdict:
    return Verdict(claim, UNMEASURABLE, "n/a", why, machine=machine)


def judge(claim: Claim, holds: bool, now: str, why: str = "", then_value=None, now_value=None,
          machine: str = "") -> Verdict:
    return Verdict(claim, HOLDS if holds else FAILS, now, why, then_value, now_value, machine)


def table(verdicts: list[Verdict]) -> pd.DataFrame:
    """claim | then | now | holds on this machine? | why / how tested"""
    rows = []
    for v in verdicts:
        rows.append({
            "claim": v.claim.text,
            "then": v.claim.then,
            "now": v.now,
            "holds on this machine?": v.outcome,
            "why": v.why,
            "how tested": v.claim.test,
            "machine": v.machine,
            "id": v.claim.id,
            "post": v.claim.post,
            "notebook": v.claim.notebook,
            "then_value": v.then_value,
            "now_value": v.now_value,
        })
    return pd.DataFrame(rows)


def styled(verdicts: list[Verdict]):
    """The verdict table for a notebook: colour per outcome."""
    full = table(verdicts)
    cols = ["claim", "then", "now", "holds on this machine?", "why", "how tested"]
    if full["machine"].nunique() > 1:
        cols = ["machine"] + cols
    df = full[cols]
    colours = {HOLDS: "background-color: #d8f0d8", FAILS: "background-color: #f6d5d5",
               UNMEASURABLE: "background-color: #eeeeee"}
    return (df.style.map(lambda v: colours.get(v, ""), subset=["holds on this machine?"])
            .set_properties(**{"text-align": "left", "white-space": "pre-wrap"}).hide(axis="index"))


def claim_dict(c: Claim) -> dict:
    return asdict(c)
