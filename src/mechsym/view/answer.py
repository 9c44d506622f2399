"""A page's answer, before its story: the verdicts as a claim x scope colour matrix, a forest plot of each claim's
estimate against its threshold and the post's figure, and a legend of the words the verdict tables use.

The lesson: a reader decides in a minute what a page found, so the page opens with it, one line a claim, and the
evidence stays on the page, folded (<details>) rather than stacked. Each element is one function a notebook cell
calls (through view.nb); the overview draws the same forest from its claims table (overview.forest).
"""

from __future__ import annotations

import html
import math
import textwrap

import pandas as pd

from ..judge import tables
from ..judge.verdicts import FAILS, HOLDS, INCONCLUSIVE, UNMEASURABLE, Verdict, mark_primary, scope_text
from ..style import plots
from ..style.frames import table as frame
from ..style.units import fmt_value

NOT_RUN = "not run yet"
ERROR = "error"
STATUSES = (HOLDS, FAILS, INCONCLUSIVE, UNMEASURABLE, NOT_RUN, ERROR)
COLOURS = {HOLDS: "#2ca02c", FAILS: "#d62728", INCONCLUSIVE: "#e6b800", UNMEASURABLE: "#9e9e9e",
           NOT_RUN: "#dddddd", ERROR: "#ff7f0e"}
BACKGROUNDS = {HOLDS: "#d8f0d8", FAILS: "#f6d5d5", INCONCLUSIVE: "#fff2c2", UNMEASURABLE: "#eeeeee",
               NOT_RUN: "#f7f7f7", ERROR: "#ffe3c2"}
# a sign beside each colour, so the matrix reads in grey print and for colour-blind readers
SIGNS = {HOLDS: "✓", FAILS: "✗", INCONCLUSIVE: "?", UNMEASURABLE: "–", NOT_RUN: "·", ERROR: "!"}

CSS = """<style>
table.mx { border-collapse: collapse; margin: 0.3rem 0 0.8rem; font-size: 13px; width: 100%; table-layout: auto; }
table.mx th, table.mx td { border-bottom: 1px solid #e4e4e4; padding: 2px 6px; text-align: left;
  vertical-align: top; }
table.mx th { background: #f4f4f4; font-weight: 600; }
table.mx td.v { white-space: nowrap; } table.mx td.c { width: 38%; } table.mx td.p { width: 24%; }
table.mx tr.group td { background: #fafafa; font-weight: 600; padding-top: 6px; }
table.mx details > summary { cursor: pointer; }
table.mx details[open] { padding-bottom: 4px; }
table.mx details table { font-size: 12px; margin: 4px 0; }
span.chip { display: inline-block; padding: 0 5px; margin: 1px 2px 1px 0; border-radius: 3px; font-size: 12px;
  white-space: nowrap; }
table.legend td.v { font-weight: 600; }
</style>"""


def _status(v: Verdict) -> str:
    """The outcome a colour stands for ('holds †' and 'inconclusive: bimodal' as holds and inconclusive)."""
    return tables.outcome_text(v).split(":")[0].replace(tables.NEAR_MARK, "").strip()


def chip(text: str, status: str, title: str = "") -> str:
    """A coloured label: sign and text on the outcome's background."""
    return (f'<span class="chip" style="background:{BACKGROUNDS.get(status, "#fff")}" title="{html.escape(title)}">'
            f'{SIGNS.get(status, "")} {html.escape(text)}</span>')


def agreeing(v: Verdict) -> str:
    """'2 of 3 runs agree': how many of the runs judged (the shown run included; judge/tables.replicate), each
    judged alone, give this verdict's outcome; 'one run' when it rests on one, '' when not counted."""
    if not v.runs_total:
        return ""
    text = "one run" if v.runs_total == v.runs_agree == 1 else f"{v.runs_agree} of {v.runs_total} runs agree"
    return text + " (unstable)" if v.unstable else text


def _sub_label(v: Verdict, prim: Verdict) -> str:
    """A sub-row named by what differs from its primary: the scope's parts that differ, and the protocol."""
    differ = scope_text({k: x for k, x in v.scope.items() if prim.scope.get(k) != x})
    parts = [differ, "" if v.protocol == prim.protocol else f"{v.protocol} protocol"]
    return ", ".join(p for p in parts if p) or v.scope_text or "as the post"


def _modes_chip(v: Verdict, prim: Verdict) -> str:
    """A bimodal cell's per-mode verdicts in one chip: a coloured sign per mode (the mode and its figure on hover)."""
    signs = "".join(f'<span style="background:{BACKGROUNDS.get(_status(m), "#fff")};padding:0 2px" '
                    f'title="{html.escape(label)}: {html.escape(m.outcome)}, {html.escape(m.now)}">'
                    f"{SIGNS.get(_status(m), '')}</span>" for label, m in v.modes)
    where = _sub_label(v, prim) if v is not prim else "primary"
    return f'<span class="chip" style="background:#f4f4f4">{html.escape(where)}, per mode: {signs}</span>'


def _details(claim, vs: list[Verdict]) -> str:
    """The folded part of a claim's line: the post's words, the reading, and every verdict row."""
    rule = f"{claim.statistic} {claim.rule.text(claim.unit)}" if claim.rule else ""
    if claim.rule and claim.rule.reading:
        rule += f" ({claim.rule.reading})"
    rows = tables.display(vs)
    rows = rows.drop(columns=[c for c in ("claim", "then") if c in rows])
    return ("".join(f"<div><b>{k}</b> {html.escape(str(t))}</div>" for k, t in
                    (("the post says:", claim.quote), ("read as:", rule), ("the post's figure:", claim.then),
                     ("how tested:", claim.test)) if t)
            + frame(rows).to_html())


def matrix(verdicts: list[Verdict]) -> str:
    """The claim x scope matrix as HTML: one line a claim (the claim sentence once; with several machines one line
    per machine under it), its primary verdict coloured with today's figure, its sub-rows (other scopes, the lab's
    protocol, JMH, per mode) as coloured chips; the post's words, the reading and every row folded in <details>."""
    if not verdicts:
        return "<p>No verdicts on these runs.</p>"
    if not any(v.primary for v in verdicts):
        verdicts = mark_primary(verdicts)
    machines = list(dict.fromkeys(v.machine for v in verdicts))
    several = len(machines) > 1
    head = ("<tr><th>claim (▶ opens the post's words, the reading and every row)</th>"
            + ("<th>machine</th>" if several else "")
            + "<th>primary verdict: today's median [95% interval], forks</th>"
              "<th>sub-rows, by what differs from the primary</th><th>other stored runs</th></tr>")
    body = []
    for cid in dict.fromkeys(v.claim.id for v in verdicts):
        mine = [v for v in verdicts if v.claim.id == cid]
        claim = mine[0].claim
        summary = html.escape(claim.text) + (" <small>(the lab's reading)</small>" if claim.source == "lab" else "")
        first = f"<details><summary>{summary}</summary>{_details(claim, mine)}</details>"
        for k, m in enumerate(machines):
            vs = [v for v in mine if v.machine == m]
            if not vs:
                continue
            prim = next((v for v in vs if v.primary), vs[0])
            subs = [chip(_sub_label(v, prim), _status(v), f"{v.scope_text}, {v.protocol}: {v.outcome}, {v.now}")
                    for v in vs if v is not prim]
            subs += [_modes_chip(v, prim) for v in vs if v.modes]
            now = prim.now if prim.now and prim.now != "n/a" else prim.why
            cell = (f'<td class="p" style="background:{BACKGROUNDS.get(_status(prim), "#fff")}">'
                    f"{SIGNS.get(_status(prim), '')} <b>{html.escape(tables.outcome_text(prim))}</b> "
                    f"<small>{html.escape(textwrap.shorten(now or '', 70, placeholder=' ...'))}</small></td>")
            claim_cell = f'<td class="c" rowspan="{len(machines)}">{first}</td>' if k == 0 else ""
            body.append(f"<tr>{claim_cell}{f'<td>{html.escape(m)}</td>' if several else ''}{cell}"
                        f"<td>{''.join(subs)}</td><td class='v'><small>{html.escape(agreeing(prim))}</small></td></tr>")
    return f'{CSS}<table class="mx"><thead>{head}</thead><tbody>{"".join(body)}</tbody></table>'


# ---------------------------------------------------------------- forest plot

def forest_rows(verdicts: list[Verdict]) -> pd.DataFrame:
    """Each claim's primary verdict (per machine) as a forest row: its estimate and interval over its threshold."""
    if verdicts and not any(v.primary for v in verdicts):
        verdicts = mark_primary(verdicts)
    several = len({v.machine for v in verdicts}) > 1
    rows = [{"label": v.claim.text + (f" · {v.machine}" if several else ""), "claim": v.claim, "outcome": _status(v),
             "now": v.now_value, "low": v.low, "high": v.high, "then": v.then_value, "now_text": v.now}
            for v in verdicts if v.primary]
    return pd.DataFrame(rows)


def _ratio(x, t):
    try:
        x, t = float(x), float(t)
    except (TypeError, ValueError):
        return math.nan
    return x / t if t > 0 and x > 0 and math.isfinite(x) else math.nan


def _low(x, t):
    """An interval's low end over the threshold; 0 when it reaches zero or below (drawn to the axis' edge)."""
    try:
        return 0.0 if float(x) <= 0 and float(t) > 0 else _ratio(x, t)
    except (TypeError, ValueError):
        return math.nan


def forest(rows: pd.DataFrame, label_chars: int = 70):
    """The forest plot: per row (claim) today's estimate and 95% interval as a dot and whisker, divided by the claim's
    threshold, on a log axis labelled at both ends and on both sides: 1 is the threshold (a band where the rule is an
    interval), the open diamond the post's own figure; colour is the outcome; today's figure and the rule in units at
    the right. rows: forest_rows() or overview.forest's (label, claim, outcome, now, low, high, then, now_text)."""
    draw = []
    for r in rows.itertuples():
        rule = r.claim.rule if r.claim is not None else None
        t = rule.threshold if rule else math.nan
        unit = r.claim.unit if r.claim is not None else ""
        x, ref = _ratio(r.now, t), _ratio(r.then, t)
        bounds = "" if pd.isna(r.low) or pd.isna(r.high) else f" [{fmt_value(r.low, unit)}, {fmt_value(r.high, unit)}]"
        est = f"now {fmt_value(r.now, unit)}{bounds}" if not math.isnan(x) else str(r.outcome)
        note = "; ".join(p for p in (est, f"rule {rule.text(unit)}" if rule else "",
                                     "" if math.isnan(ref) else f"post {fmt_value(r.then, unit)}") if p)
        draw.append({"label": textwrap.shorten(str(r.label), label_chars, placeholder=" ..."),
                     "x": x, "lo": _low(r.low, t), "hi": _ratio(r.high, t), "ref": ref,
                     "band": (1.0, rule.upper / t) if rule and rule.upper is not None and t > 0 else None,
                     "color": COLOURS.get(r.outcome, "#777"), "note": note,
                     "missing": "" if not math.isnan(x) else f"no estimate: {r.outcome}"})
    return plots.forest(draw, xlabel="today's estimate / the claim's threshold (log): the threshold is 1",
                        ends=("smaller than the threshold", "larger than the threshold"),
                        key=[(COLOURS[s], s) for s in (HOLDS, FAILS, INCONCLUSIVE, UNMEASURABLE)])


# ---------------------------------------------------------------- legend

VOCABULARY = (
    ("holds / does not hold", "the whole 95% interval of the claim's statistic, over forks (fresh JVMs), lies on one "
                              "side of the claim's threshold; the threshold reads the post's words, fixed before the "
                              "data"),
    ("inconclusive", "the interval straddles the threshold: more forks may decide it; not a failure"),
    ("not measurable here", "this machine lacks what the claim needs (a second socket, a free CPU); the reason is "
                            "given"),
    ("primary", "the claim's one verdict that counts: the post's protocol in the post's scope (as far as this "
                "machine has it); the counts and the overview use it"),
    ("sub-row", "the same claim judged another way (another JDK, CPU placement, the lab's harness, JMH, C): shown "
                "beside the primary, never counted"),
    ("per mode", "a cell whose forks form two separated clusters: each cluster judged on its own, since one interval "
                 "over both describes neither"),
    ("planned looks", "`--until-decided` adds forks to an undecided claim in looks planned in advance; the error "
                      "budget is split over them, so such a verdict is judged at a level above 95% (wider interval)"),
    ("stand-in", "a scope that stands in for the post's where this machine lacks it (one logical CPU for its "
                 "'same core'): always a sub-row, never primary, and no then-vs-now figure is drawn from it"),
    ("runs agreeing", "of the complete stored runs of these kernels on this machine (the shown run included), how "
                      "many, each judged alone, give the same outcome: '1 of 2' means the other run gives another "
                      "outcome (often inconclusive, with fewer forks); runs that decide both ways, or whose estimates "
                      "differ beyond their intervals, mark the claim unstable"),
    (tables.NEAR_MARK, "decisive, but the interval's deciding end sits at the threshold: another resampling seed may "
                       "not decide it"),
)


def legend() -> str:
    """The vocabulary of the verdicts, as a short HTML definition list."""
    items = "".join(f'<tr><td class="v">{chip(k, k) if k in SIGNS else html.escape(k)}</td><td>{html.escape(v)}</td>'
                    "</tr>" for k, v in VOCABULARY)
    return (f"{CSS}<details open><summary><b>How to read the verdicts</b></summary>"
            f'<table class="mx legend"><tbody>{items}</tbody></table></details>')


class Html(str):
    """HTML a notebook shows as HTML (IPython's _repr_html_) and a test reads as text (to_html, as a Styler's)."""

    def _repr_html_(self) -> str:
        return str(self)

    def to_html(self) -> str:
        return str(self)
