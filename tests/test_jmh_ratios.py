"""The lab/JMH ratio table (jmh_ratios.overview_table, `mechsym verdicts --jmh`), the explanation of every flagged
cell (data/jmh/explanations.csv, or UNEXPLAINED said loudly), and JMH's sub-rows in the verdict table (never the
primary; the JMH runs in the verdict cache's key). Synthetic runs in a private store, except the last test, which
reads the stored runs."""

from __future__ import annotations

import pandas as pd
import pytest

from mechsym import MechsymError, experiments
from mechsym.jmh import claims as jmh_claims, ratios as jmh_ratios, views as jmh_views
from mechsym.store import runs as store
from mechsym.view import cache as verdict_cache, collect as verdict_collect
from mechsym.judge.verdicts import Claim, Rule, judge
from mechsym.judge.estimates import estimate

META = {"preset": "standard", "machine": {"machine_id": "m1"}, "status": "complete"}
SPEC = jmh_views.Spec("demo rate", ("variant", "threads", "jdk"), "throughput", "ops/s")


def save_runs(name="demo", jmh_rate=None, run="bbbbbb", lab_run=True):
    """A lab run (a, b: 5 forks at 100 + fork) and a JMH run (a at the lab's rate, b at half of it)."""
    lab = pd.DataFrame([{"experiment": name, "variant": v, "threads": 1, "jdk": 17, "fork": f, "iteration": i,
                         "warmup": False, "metric": "throughput", "value": 100.0 + f, "unit": "ops/s",
                         "status": "ok", "note": ""} for v in ("a", "b") for f in range(5) for i in range(3)])
    rates = jmh_rate or {"a": 100.0, "b": 50.0}
    jmh_rows = pd.DataFrame([{"experiment": name, "variant": v, "threads": 1, "jdk": 17, "jmh_method": "m",
                              "fork": f, "iteration": 5 + i, "warmup": False, "metric": "throughput",
                              "value": rate + f, "unit": "ops/s", "protocol": "jmh", "status": "ok", "note": ""}
                             for v, rate in rates.items() for f in range(5) for i in range(2)])
    if lab_run:
        store.save(name, lab, {**META, "run_id": "20260101T000000Z-standard-aaaaaa"}, machine="m1")
    store.save(name, jmh_rows, {**META, "run_id": f"20260102T000000Z-standard-{run}",
                                "overrides": {"protocol": "jmh"}}, machine="m1")


@pytest.fixture
def demo(results_dir, monkeypatch, tmp_path):
    monkeypatch.setitem(jmh_views.SPECS, "demo", [SPEC])
    monkeypatch.setenv("MECHSYM_ROOT", str(tmp_path))   # explanations from tmp_path/data/jmh/explanations.csv
    (tmp_path / "data" / "jmh").mkdir(parents=True)
    save_runs()
    return tmp_path / "data" / "jmh" / "explanations.csv"


def test_the_ratio_table_flags_a_cell_outside_the_band_and_says_unexplained(demo):
    t = jmh_ratios.overview_table(machine="m1").set_index("cell")
    assert t.loc["a, threads 1", "reading"] == "comparable" and not t.loc["a, threads 1", "flagged"]
    b = t.loc["b, threads 1"]
    assert b["flagged"] and b["low"] > 1.1 and b["lab/JMH"] == pytest.approx(102 / 52) and b["jdk"] == "17"
    assert b["explanation"].startswith(jmh_ratios.UNEXPLAINED) and t.loc["a, threads 1", "explanation"] == ""
    from mechsym.cli.verdicts import jmh_text

    lines = jmh_text(jmh_ratios.overview_table(machine="m1"), 100)
    text = "\n".join(lines)
    assert "2 headline cells; 1 flagged" in text and "- demo, b, threads 1: UNEXPLAINED" in text
    assert max(map(len, lines)) <= 100 and "comparable" in text and "(differ > 10%)" in text
    section, tables = jmh_ratios.summary("demo", machine="m1")
    assert "**UNEXPLAINED**" in section and "b, threads 1, jdk 17: lab/JMH 1.96" in section
    assert tables[0].set_index("variant").loc["b", "why they differ"].startswith("UNEXPLAINED")


def test_an_explanation_row_is_shown_beside_its_flag(demo):
    demo.write_text("experiment,metric,cell,explanation,evidence\n"
                    "demo,,\"b, threads 1\",C2 hoists the loop in the lab's kernel,PrintCompilation log\n")
    t = jmh_ratios.overview_table(machine="m1").set_index("cell")
    assert t.loc["b, threads 1", "explanation"] == ("C2 hoists the loop in the lab's kernel "
                                                   "(evidence: PrintCompilation log)")
    section, _ = jmh_ratios.summary("demo", machine="m1")
    assert "C2 hoists the loop" in section and jmh_ratios.UNEXPLAINED not in section


@pytest.mark.parametrize("text, message", [
    ("experiment,cell,explanation\n", r"columns metric, evidence missing"),
    ("experiment,metric,cell,explanation,evidence\nnosuch,,a,x,y\n", r"row 2: experiment 'nosuch' has no JMH"),
    ("experiment,metric,cell,explanation,evidence\ndemo,,a,x,\n", r"row 2: cell, explanation and evidence"),
])
def test_a_bad_explanations_file_is_refused_in_one_line(demo, text, message):
    demo.write_text(text)
    with pytest.raises(MechsymError, match=message):
        jmh_ratios.explanations()


def test_the_ratio_interval_resamples_lab_and_jmh_independently():
    """Equal fork counts are no pairing: the interval is the independent bootstrap's, not the by-rounds one."""
    from mechsym.judge import stats

    lab, jmh_v = [100.0, 101, 102, 103, 104], [100.0, 104, 101, 103, 102]
    r = jmh_views.ratio_estimate(lab, jmh_v)
    b = stats.bootstrap(lambda a, b: a / b, [lab, jmh_v], paired=False)
    assert (r.value, r.low, r.high) == (b.value, b.low, b.high) and r.low < 1 < r.high


def test_the_cli_prints_the_ratio_table(demo, capsys, monkeypatch):
    from mechsym.cli import main

    assert main(["verdicts", "--jmh", "--machine", "m1"]) == 0
    out = capsys.readouterr().out
    assert "lab/JMH" in out and "differ > 10%" in out and "UNEXPLAINED" in out


# ---------------------------------------------------------------- JMH sub-rows in the verdict table

CLAIM = Claim("demo.a-faster", "post.md", "nb", "a is faster than b", "2x", "a / b", rule=Rule(">=", 1.5),
              statistic="a / b", unit="x")


class Module:
    CLAIMS = [CLAIM]


def test_the_verdict_table_gets_a_jmh_sub_row_never_the_primary(demo, monkeypatch, tmp_path):
    monkeypatch.setitem(jmh_claims.CLAIM_CELLS, CLAIM.id,
                        jmh_claims.ClaimCells("demo", ({"variant": "a"}, {"variant": "b"}), lambda a, b: a / b,
                                              scope={"placement": "cross-core"}))
    post = judge(CLAIM, estimate(lambda a, b: a / b, [2.0] * 5, [2.0] * 5), scope={"jdk": "17"}, machine="m1")
    post = post.__class__(**{**post.__dict__, "primary": True})
    [sub] = verdict_collect.jmh_subrows(Module, "demo", [post], None)
    assert sub.protocol == "jmh" and not sub.primary and sub.machine == "m1" and sub.outcome == "holds"
    assert sub.scope == {"jdk": "17", "placement": "cross-core", "runtime": "JMH"}
    assert sub.run_id == "20260102T000000Z-standard-bbbbbb" and sub.now_value == pytest.approx(102 / 52)
    assert verdict_collect.jmh_subrows(Module, "seqio", [post], None) == []   # no JMH comparison there


def test_the_verdict_cache_key_changes_with_a_jmh_run(demo, monkeypatch, tmp_path):
    monkeypatch.setattr("mechsym.store.provenance.checkout_fingerprint", lambda name, *a, **k: "k")
    before = verdict_cache._jmh_runs("demo")
    key = verdict_cache.cache_key("demo", "m1", None, False)
    save_runs(jmh_rate={"a": 90.0, "b": 50.0}, run="cccccc", lab_run=False)
    after = verdict_cache._jmh_runs("demo")
    assert len(after) == len(before) + 1 and all(r[2] not in ("", "None") for r in after)
    assert verdict_cache.cache_key("demo", "m1", None, False) != key


# ---------------------------------------------------------------- the stored runs

def test_every_flagged_stored_cell_is_explained_or_says_unexplained_loudly():
    """Over the stored runs: each cell outside the band has its explanation row, or its notebook section and the
    ratio table say UNEXPLAINED beside it (the coordinator writes the explanations once the runs exist)."""
    t = jmh_ratios.overview_table()
    flagged = t[t["flagged"]] if len(t) else t
    for _, r in flagged.iterrows():
        text, _ = jmh_ratios.summary(r["experiment"])
        assert r["cell"] in text, (r["experiment"], r["cell"])
        if r["explanation"].startswith(jmh_ratios.UNEXPLAINED):
            assert "**UNEXPLAINED**" in text
        else:
            assert r["explanation"] in text
    jmh_ratios.explanations()   # the committed file is well formed
    assert set(jmh_ratios.explanations()["experiment"]) <= set(experiments.names())
