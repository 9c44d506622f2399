"""The pages' answer (mechsym.view.answer): the claim x scope matrix, the forest plot and the legend a page opens
with, and the overview's compact claim x machine matrix and folded claims table, on synthetic verdicts.

How tall the rendered overview is (under 15,000 px at 1400 px wide) is checked in Chromium by tests/test_reports.py.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

from mechsym.judge.verdicts import FAILS, HOLDS, INCONCLUSIVE, UNMEASURABLE, Claim, Rule, Verdict
from mechsym.view import answer, overview

TWICE = Claim("pages.twice", "post.md", "nb", "A is at least twice B.", "2x", "A over B", quote="A is 2x B",
              rule=Rule(">=", 2.0, reading="'twice' read as at least 2x"), statistic="A / B", unit="x")
BAND = Claim("pages.band", "post.md", "nb", "C costs 5-20% more than D.", "10%", "C over D", quote="~10%",
             rule=Rule("between", 5, 20), statistic="extra cost", unit="%")


def verdict(claim, outcome, now=None, low=None, high=None, scope=None, protocol="post", machine="m1", then=None,
            primary=False, why=""):
    return Verdict(claim, outcome, "n/a" if now is None else f"{now} [{low}, {high}]", why or "reason",
                   then_value=then, now_value=now, low=low, high=high, scope=scope or {"jdk": "17"},
                   protocol=protocol, machine=machine, primary=primary, runs_agree=0, runs_total=1)


VERDICTS = [verdict(TWICE, HOLDS, 3.0, 2.5, 3.5, then=4.0, primary=True),
            verdict(TWICE, INCONCLUSIVE, 2.1, 1.5, 2.6, protocol="lab"),
            verdict(TWICE, FAILS, 1.2, 1.1, 1.3, scope={"jdk": "25"}),
            verdict(BAND, FAILS, 0.1, -2.5, 2.3, then=10, primary=True),
            verdict(BAND, UNMEASURABLE, scope={"jdk": "25"}, why="needs two sockets")]


def test_the_matrix_has_one_line_per_claim_with_its_sentence_once_and_its_sub_rows_as_chips():
    html = answer.matrix(VERDICTS)
    assert html.count("<summary>") == 2                      # one folded line per claim
    assert html.count("A is at least twice B.") == 1 and html.count("C costs 5-20% more than D.") == 1
    # sub-rows named by what differs from the primary: the lab protocol, JDK 25
    assert "lab protocol" in html and "JDK 25" in html
    assert "0 of 1 runs agree" in html                       # what the count counts, said in words
    assert len(re.findall(r"<tr>", html.split("<tbody>")[1])) == 2


def test_the_matrix_shows_each_machine_under_the_claim_named_once():
    both = VERDICTS + [verdict(TWICE, FAILS, 1.0, 0.9, 1.1, machine="m2", primary=True)]
    html = answer.matrix(both)
    assert html.count("A is at least twice B.") == 1 and 'rowspan="2"' in html
    assert ">m1<" in html and ">m2<" in html


def test_the_forest_draws_every_primary_on_its_threshold_scale():
    rows = answer.forest_rows(VERDICTS)
    assert list(rows["outcome"]) == [HOLDS, FAILS]           # primaries only, one per claim
    fig = answer.forest(rows)
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    assert [t.get_text() for t in ax.get_yticklabels()] == ["A is at least twice B.", "C costs 5-20% more than D."]
    # TWICE: 3.0 over its threshold 2.0 is drawn at 1.5; its interval 2.5..3.5 at 1.25..1.75; the post's 4.0 at 2
    dots = [tuple(np.round(line.get_xydata()[0], 3)) for line in ax.lines if line.get_marker() == "o"]
    assert (1.5, 0.0) in dots
    diamonds = [tuple(np.round(line.get_xydata()[0], 3)) for line in ax.lines if line.get_marker() == "D"]
    assert (2.0, 0.0) in diamonds
    # an interval reaching below zero is drawn to the axis' edge and marked, never dropped
    assert any(line.get_marker() == "<" for line in ax.lines)
    # the axis is labelled at the top and the bottom, and its two ends are named
    assert ax.xaxis.get_tick_params(which="major")["labeltop"]
    assert "smaller" in ax.get_title(loc="left") and "larger" in ax.get_title(loc="right")


def test_the_legend_explains_the_vocabulary():
    text = answer.legend()
    for word in ("primary", "sub-row", "per mode", "planned looks", "stand-in", "runs agreeing"):
        assert f'<td class="v">{word}</td>' in text, word


def _claims(rows):
    return pd.DataFrame([{"notebook": nb, "post": "2011-01-01-a-post.md", "claim": c, "id": f"x.{c}", "then": "2x",
                          "scope": s, "protocol": "post", "machine": m, "outcome": o, "now": "", "why": "",
                          "primary": p, "runs_total": None, "runs_agree": None} for nb, c, s, m, o, p in rows])


def test_the_overview_matrix_is_one_line_per_claim_and_machine_column():
    claims = _claims([("n1", "a", "JDK 17", "m1", HOLDS, True), ("n1", "a", "JDK 25", "m1", FAILS, False),
                      ("n1", "b", "JDK 17", "m1", INCONCLUSIVE, True), ("n2", "c", "JDK 17", "m1", HOLDS, True)])
    t = overview.machines_claims(claims).data
    assert list(t["claim"]) == ["a", "b", "c"]               # sub-rows left to the notebooks' matrices
    assert list(t["notebook"]) == ["n1", "", "n2"]           # each notebook named once


def test_the_overview_claims_table_is_folded_by_notebook():
    claims = _claims([("n1", "a", "JDK 17", "m1", HOLDS, True), ("n1", "a", "JDK 25", "m1", FAILS, False),
                      ("n2", "c", "JDK 17", "m1", HOLDS, True)])
    html = overview.table(claims).to_html()
    assert html.count("<details>") == 2 and html.count("<summary>") == 2
    assert "1 claim by primary verdict (✓ 1 holds); 2 verdict rows" in html
