"""Verdicts as tables: the claims under test, the verdict table with its colours, the notebooks' selection, and
how many stored runs agree with a verdict (replication)."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from .verdicts import DECISIVE, FAILS, HOLDS, INCONCLUSIVE, UNMEASURABLE, Claim, Verdict, mark_primary


# ---------------------------------------------------------------- replication

#: Runs whose estimates differ more than this p-value of Cochran's Q (comparisons.heterogeneity) make a claim unstable.
HETEROGENEITY_P = 0.05


def replicate(main: list[Verdict], per_run: list[list[Verdict]]) -> list[Verdict]:
    """Each main verdict with its stored runs judged one by one (added to those it already counts, `per_run`):
    how many agree with it ("holds in 3 of 4") and an unstable mark when they disagree: two runs' intervals decisive
    on opposite sides, or Cochran's Q across the runs' estimates rejecting at HETEROGENEITY_P. An unstable claim is
    never decisive: it is inconclusive, its reason giving each run's estimate."""
    by_key: dict[tuple, list[Verdict]] = {}
    for run in per_run:
        for key, v in {v.key: v for v in reversed(run)}.items():   # a run's first verdict of each key
            by_key.setdefault(key, []).append(v)
    out = []
    for v in main:
        runs = v.per_run + tuple((r.run_id, r.outcome, r.now, r.now_value, r.low, r.high)
                                 for r in by_key.get(v.key, []))
        out.append(_replicated(v, runs) if runs else v)
    return out


def one_run(verdicts: list[Verdict]) -> list[Verdict]:
    """Verdicts that rest on one run: that run is the one judged, and agrees with itself (1 of 1)."""
    return [replace(v, runs_agree=1, runs_total=1, per_run=((v.run_id, v.outcome, v.now, v.now_value, v.low, v.high),))
            for v in verdicts]


def _replicated(v: Verdict, runs: tuple) -> Verdict:
    from .comparisons import heterogeneity

    decisive = {o for _, o, *_ in runs if o in DECISIVE}
    p = heterogeneity([(x, lo, hi) for *_, x, lo, hi in runs]) if len(runs) > 1 and not v.fact else None
    why = []
    if len(decisive) > 1:
        why.append("the runs decide it on opposite sides")
    if p is not None and p < HETEROGENEITY_P:
        why.append(f"heterogeneity across runs: Cochran's Q p = {p:.2g}")
    if not why:
        return replace(v, runs_agree=sum(o == v.outcome for _, o, *_ in runs), runs_total=len(runs), per_run=runs)
    each = "; ".join(f"run {r or i + 1}: {o}, {now}" for i, (r, o, now, *_) in enumerate(runs))
    text = f"unstable: {' and '.join(why)} ({each}); never decisive"
    return replace(v, outcome=INCONCLUSIVE, why="; ".join(x for x in (text, v.why) if x), unstable=True,
                   p_value=None, near=False, runs_agree=sum(o == INCONCLUSIVE for _, o, *_ in runs),
                   runs_total=len(runs), per_run=runs)


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


NEAR_MARK = "†"   # a decisive row near its threshold: another resampling seed may not decide it
BIMODAL = "inconclusive: bimodal"


def outcome_text(v: Verdict) -> str:
    """The outcome as the table shows it: 'inconclusive: bimodal' for a cell whose forks form modes, a mark on a
    decisive row that sits near its threshold (tests/test_seed_stability.py lets those flip between seeds)."""
    if v.outcome == INCONCLUSIVE and (v.modes or v.why.startswith("bimodal")):
        return BIMODAL
    return f"{v.outcome} {NEAR_MARK}" if v.near else v.outcome


def _status(text: str) -> str:
    """The outcome behind a shown outcome text ('holds †' -> 'holds')."""
    return text.split(":")[0].replace(NEAR_MARK, "").strip()


def display(verdicts: list[Verdict]) -> pd.DataFrame:
    """claim | primary or sub-row | scope | protocol | then | now | holds on this machine? | runs agreeing | why (and
    machine when several). Each claim's primary verdict (primary_of) is marked; the others are its sub-rows. A verdict
    on a bimodal cell is followed by one row per mode ("per mode"), each judged with its own interval."""
    if verdicts and not any(v.primary for v in verdicts):
        verdicts = mark_primary(verdicts)
    rows = []
    for v in verdicts:
        rows.append({"machine": v.machine, "claim": v.claim.text, "row": "primary" if v.primary else "sub-row (stand-in)" if v.stand_in else "sub-row",
                     "scope": v.scope_text, "protocol": v.protocol,
                     "then": v.claim.then, "now": v.now, "holds on this machine?": outcome_text(v),
                     "runs agreeing": agreement(v), "why": v.why})
        for label, m in v.modes:
            rows.append({"machine": v.machine, "claim": v.claim.text, "row": "per mode",
                         "scope": "; ".join(x for x in (v.scope_text, label) if x), "protocol": v.protocol,
                         "then": v.claim.then, "now": m.now, "holds on this machine?": outcome_text(m),
                         "runs agreeing": "", "why": m.why})
    df = pd.DataFrame(rows)
    if df.empty:
        return df
    if df["machine"].nunique() <= 1:
        df = df.drop(columns="machine").rename(columns={"holds on this machine?": (
            "holds on this machine?" if not verdicts[0].machine else f"holds on {verdicts[0].machine}?")})
    if not df["runs agreeing"].astype(bool).any():
        df = df.drop(columns="runs agreeing")
    return df


def legend(verdicts: list[Verdict]) -> str:
    """The table's caption: what its marks mean, for the marks it carries ('' when none)."""
    parts = []
    near = sum(v.near for v in verdicts)
    if near:
        parts.append(f"{NEAR_MARK} near its threshold ({near} row{'s' if near != 1 else ''}): decisive under this "
                     "resampling seed, but another seed may not decide it; read it as a weak result")
    bimodal = [v for v in verdicts if outcome_text(v) == BIMODAL]
    if bimodal:
        parts.append(f"{BIMODAL} ({len(bimodal)} row{'s' if len(bimodal) != 1 else ''}): the forks of a cell form "
                     "separated clusters; one interval over both means nothing, so each mode is judged in the "
                     "'per mode' rows (a mode of fewer than 5 forks has no interval)")
    return ". ".join(parts)


def styled(verdicts: list[Verdict]):
    """The verdict table for a notebook: colour per outcome, the marks explained in the caption."""
    df = display(verdicts)
    if df.empty:
        return df
    status = [c for c in df.columns if c.startswith("holds on")]
    out = (df.style.map(lambda v: COLOURS.get(_status(v), "") if isinstance(v, str) else "", subset=status)
           .set_properties(**{"text-align": "left", "white-space": "pre-wrap", "vertical-align": "top"})
           .hide(axis="index"))
    text = legend(verdicts)
    return out.set_caption(text) if text else out


def for_notebook(verdicts: list[Verdict], notebook: str) -> list[Verdict]:
    """The verdicts of one notebook's claims (an experiment may feed several notebooks)."""
    return [v for v in verdicts if v.claim.notebook == notebook]
