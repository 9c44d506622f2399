"""`mechsym run EXP --until-decided` (mechsym.judge.decide): the open claims and their cells, forks added until decided and
stored as a run extending the first, judged with it at the spent level; the error split over looks (a simulation);
the run level (forks nested in runs); the refusals. A fake experiment whose cells are run by a Python runner (no
process, no JVM): nothing here measures anything."""

from __future__ import annotations

import types

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from mechsym import MechsymError
from mechsym.judge import decide, plan as decide_plan, stats
from mechsym.store import provenance, runs as store
from mechsym.run import sweep
from mechsym.view import cache as verdict_cache, collect as verdict_collect
from mechsym.judge import analysis, runs as verdict_runs
from mechsym.judge.analysis import LAB
from mechsym.judge.estimates import Estimate, estimate, more_forks, undecidable
from mechsym.judge.verdicts import Claim, Rule, judge

NAME = "fakedecide"
# per cell: (median, spread on the log scale); "wide" vs "base" is a ratio of ~1.15 against ">= 1.05": its first
# 5 forks spread widely (the interval straddles), later ones less, so more forks decide it. "far" is decided at
# once; "split" has two clusters of forks.
CELLS = {"base": (1.0, 0.02), "wide": (1.15, 0.05), "far": (3.0, 0.02), "split": (None, 0.0)}
# forks from this number on whose post run spent half its time in the JIT every other fork (the gate drops them)
GATED = {"from": None}


def _runner(fork):
    name = fork.cell.variant
    med, sd = CELLS[name]
    rng = np.random.default_rng([fork.number, list(CELLS).index(name)])
    value = (1.0 if fork.number % 2 else 3.0) * (1 + 0.001 * fork.number) if med is None \
        else med * float(np.exp((0.3 if name == "wide" and fork.number < 5 else sd) * rng.standard_normal()))
    rows = pd.DataFrame({"iteration": [0, 1], "warmup": [True, False], "metric": ["t", "t"],
                         "value": [value, value], "unit": ["ns", "ns"]})
    if GATED["from"] is None:
        return rows
    jit = 5.0 if fork.number >= GATED["from"] and fork.number % 2 == 0 else 0.0
    harness = pd.DataFrame({"iteration": [1, 1], "warmup": [False, False], "metric": ["jit_ms", "duration"],
                            "value": [jit, 10.0], "unit": ["ms", "ms"]})
    return pd.concat([rows, harness], ignore_index=True).assign(protocol="post")


def _cells(preset, topo, jdks, **_):
    return [sweep.Cell(variant=v, kernel="cmd:fake", params={"size": 1}, forks=5, timeout=60, runner=_runner)
            for v in CELLS]


def _claim(cid, rule):
    return Claim(f"{NAME}.{cid}", "post.md", "nb", f"claim {cid}", "-", "ratio of medians", rule=rule, unit="x")


CLAIMS = [_claim("wide", Rule(">=", 1.05, effect=0.05)), _claim("far", Rule(">=", 1.05, effect=0.05)),
          _claim("split", Rule(">=", 1.05, effect=0.05))]


def _verdicts(df):
    m = analysis.measured(df, "t")
    base = analysis.fork_values(m, LAB, variant="base")
    out = []
    for c in CLAIMS:
        other = analysis.fork_values(m, LAB, variant=c.id.split(".")[1])
        out.append(judge(c, estimate(lambda a, b: a / b, other, base), scope={"size": "1"}))
    return out


@pytest.fixture
def fake(results_dir, monkeypatch):
    """A fake experiment with a stored, current standard run of 5 forks a cell."""
    module = types.SimpleNamespace(NAME=NAME, PRESETS={"standard": {}}, cells=_cells, CLAIMS=CLAIMS,
                                   verdicts=_verdicts)
    monkeypatch.setattr(provenance, "is_current", lambda meta, root=None: True)
    monkeypatch.setattr(provenance, "status", lambda meta, root=None: ("current", "recorded"))
    monkeypatch.setattr(provenance, "run_fingerprint", lambda meta, root=None: ("f" * 64, "recorded"))
    monkeypatch.setattr(sweep, "check_clean", lambda preset, allow_dirty=False, state=None: None)
    monkeypatch.setattr(sweep, "run_metadata", _meta)
    meta = sweep.execute(module, "standard", jdks=[], progress=False, lock=False)
    return module, meta


def _meta(name, preset, topo, cells, overrides=None, state=None, allow_dirty=False):
    from mechsym.machine import noise
    return {"provenance": {}, "experiment": name, "preset": preset, "run_id": store.new_run_id(preset),
            "machine": {"machine_id": store.machine_id()}, "jdks": [], "git_commit": "0" * 40,
            "overrides": dict(overrides or {}), "start": store.now_utc(), "status": "running", "commands": [],
            "failures": [], "unavailable": [], "_noise": noise.Recorder()}


def _primary(module):
    df = store.load(NAME, store.machine_id())
    return {v.claim.id.split(".")[1]: v for v in verdict_collect.machine_verdicts(module, df) if v.primary}


def test_open_claims_name_their_cells_and_why_others_are_not_extended(fake):
    module, _ = fake
    before = _primary(module)
    assert before["wide"].outcome == "inconclusive" and before["far"].outcome == "holds"
    assert before["split"].outcome == "inconclusive" and "bimodal" in before["split"].why
    plan = decide_plan.make_plan(module, "standard", [], 40, {})
    found = {o.key[0].split(".")[1]: o for o in plan.claims}
    assert set(found) == {"wide", "split"}
    assert sorted(c.variant for c in found["wide"].cells) == ["base", "wide"]
    assert not found["split"].cells and "bimodal" in found["split"].why_not
    assert plan.looks == [5, 8, 12, 18, 27, 40] and plan.level == pytest.approx(1 - 0.05 / 6)


def test_dry_run_prints_the_plan_and_runs_nothing(fake, capsys):
    module, _ = fake
    n = len(store.runs(NAME, store.machine_id()))
    assert decide.run(module, "standard", [], dry_run=True, progress=False, lock=False) is None
    out = capsys.readouterr().out
    assert "open  fakedecide.wide" in out and "not extended  fakedecide.split" in out and "99.17%" in out
    assert len(store.runs(NAME, store.machine_id())) == n


def test_forks_added_until_decided_are_a_run_judged_with_the_first(fake):
    module, base = fake
    meta = decide.run(module, "standard", [], max_forks=40, progress=False, write=lambda line: None, lock=False)
    rec = meta["until_decided"]
    assert meta["extends"] == base["run_id"] and rec["extends"] == base["run_id"]
    assert rec["open"] == [[f"{NAME}.wide", "size 1", "post"]]
    assert rec["ended"][f"{NAME}.wide [size 1, post]"].startswith("decided at look")
    rows = pd.read_csv(meta["json"][:-5] + ".csv")
    assert set(rows["variant"]) == {"base", "wide"}                 # only the open claim's cells
    assert rows["fork"].min() == 5                                    # the numbering continues the run's
    assert rec["forks_added"] == rows.groupby(["variant", "fork"]).ngroups
    # shown together: the extension never alone, always after the run it extends
    chosen = [m["run_id"] for m in store.chosen_runs(NAME, store.machine_id())]
    assert chosen == [base["run_id"], meta["run_id"]]
    after = _primary(module)
    assert after["wide"].outcome == "holds" and after["wide"].forks > 5
    assert "judged at 99.17%" in after["wide"].why and "judged at" not in after["far"].why
    assert verdict_runs.basis(NAME, store.machine_id(), f"{base['run_id']},{meta['run_id']}") == \
        f"standard + {rec['forks_added']} forks added until decided"


def test_budget_stops_the_loop_and_keeps_what_ran(fake, monkeypatch):
    module, base = fake
    clock = iter(np.arange(0, 1000, 10.0))    # every reading of the clock 10 s later
    monkeypatch.setattr(decide.time, "monotonic", lambda: next(clock))
    meta = decide.run(module, "standard", [], budget=60, progress=False, write=lambda line: None, lock=False)
    assert meta["until_decided"]["stopped"] == "budget 1m spent"
    assert 0 < meta["until_decided"]["forks_added"] < 10


def test_cache_key_includes_the_extension(fake):
    module, _ = fake
    before = verdict_cache.cache_key(NAME, None, None, True, module)
    decide.run(module, "standard", [], max_forks=8, progress=False, write=lambda line: None, lock=False)
    assert verdict_cache.cache_key(NAME, None, None, True, module) != before


@pytest.mark.parametrize("text, seconds", [("90s", 90), ("30m", 1800), ("1h", 3600)])
def test_budget_accepts_seconds_minutes_hours(text, seconds):
    assert decide.parse_budget(text) == seconds


@pytest.mark.parametrize("text", ["30", "1.5h", "10 min", "0m", "-5s", "1d"])
def test_budget_refuses_anything_else_in_one_line(text):
    with pytest.raises(MechsymError, match="--budget") as e:
        decide.parse_budget(text)
    assert "\n" not in str(e.value)


def test_schedule_is_fixed_by_the_run_and_the_cap():
    assert decide_plan.schedule(5, 40) == [5, 8, 12, 18, 27, 40]
    assert decide_plan.schedule(10, 12) == [10, 12]
    assert decide_plan.schedule(5, 5) == [5]


# ---------------------------------------------------------------- the error split over looks

def _false_decisions(level_of_look, looks, paths=20000, seed=7):
    """Under the null (the true median on the threshold), the share of paths that an until-decided loop decides
    wrongly after entering it: undecided by the standard run's 95% look at looks[0] forks, then judged at the later
    looks at level_of_look. The one-group median's exact order-statistic interval (stats.median_rank), vectorised;
    and a ratio of two groups' log-means with a t interval, standing for the bootstrap ratio."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((paths, looks[-1]))
    y = rng.standard_normal((paths, looks[-1])) - rng.standard_normal((paths, looks[-1]))

    def median_false(n, level):
        s = np.sort(x[:, :n], axis=1)
        r = stats.median_rank(n, level)
        return (s[:, r - 1] > 0) | (s[:, n - r] < 0)

    def ratio_false(n, level):
        m, se = y[:, :n].mean(axis=1), y[:, :n].std(axis=1, ddof=1) / np.sqrt(n)
        t = scipy.stats.t.ppf(1 - (1 - level) / 2, n - 1)
        return (m - t * se > 0) | (m + t * se < 0)

    out = []
    for false in (median_false, ratio_false):
        entered = ~false(looks[0], stats.LEVEL)
        later = np.zeros(paths, dtype=bool)
        for n in looks[1:]:
            later |= false(n, level_of_look)
        out.append((later & entered).sum() / entered.sum())
    return out


def test_split_looks_keep_false_decisions_at_5pct_where_naive_looks_exceed_it():
    looks = decide_plan.schedule(5, 40)
    naive = _false_decisions(stats.LEVEL, looks)
    split = _false_decisions(stats.spent_level(len(looks)), looks)
    assert all(f > 0.05 for f in naive), naive
    assert all(f <= 0.05 for f in split), split


# ---------------------------------------------------------------- the more-forks estimate, the run level

def test_more_forks_is_at_80pct_power_and_absent_where_forks_cannot_decide():
    rule = Rule(">=", 1.05)
    est = Estimate(1.10, 1.0, 1.2, 5)                     # se = 0.1 / 1.96; distance 0.05
    z = 1.959963984540054
    want = int(np.ceil(5 * ((z + 0.8416212335729143) * (0.1 / z) / 0.05) ** 2)) - 5
    assert more_forks(rule, est) == want
    assert more_forks(rule, Estimate(1.0, 1.0, 1.0, 5, fact=True)) is None
    assert more_forks(rule, Estimate(1.1, 0.9, 1.3, 8, modes=("m",))) is None
    assert more_forks(rule, Estimate(1.05, 1.0, 1.1, 8)) is None                       # on the threshold
    assert "discrete" in undecidable(rule, Estimate(1.1, 1.0, 1.2, 8, distinct=2))
    band = Rule("between", 0.9, 1.1)
    assert more_forks(band, Estimate(1.08, 1.0, 1.16, 5)) == more_forks(Rule("<=", 1.1), Estimate(1.08, 1.0, 1.16, 5))


def test_runs_nested_widen_the_interval_when_runs_differ():
    rng = np.random.default_rng(3)
    a = np.concatenate([rng.normal(mean, 0.05, 8) for mean in (10.0, 10.3, 10.6)])   # three runs that disagree
    b = rng.normal(10, 0.05, 24)
    runs = np.repeat(["r1", "r2", "r3"], 8)
    df = pd.DataFrame({"iteration": 0, "run_id": np.r_[runs, runs], "fork": list(range(24)) * 2,
                       "variant": ["a"] * 24 + ["b"] * 24, "value": np.r_[a, b]})

    def est():
        fa = analysis.fork_values(df, LAB, variant="a")
        fb = analysis.fork_values(df, LAB, variant="b")
        return estimate(lambda x, y: x / y, fa, fb)
    flat = est()
    with stats.nested_runs():
        nested = est()
    assert nested.runs == 3 and flat.runs == 1
    assert nested.high - nested.low > 1.25 * (flat.high - flat.low)
    assert nested.low <= 1.0 < flat.low          # one run's forks would have decided what the runs do not agree on


# ---------------------------------------------------------------- the command line refuses, one line each

@pytest.mark.parametrize("argv, said", [
    (["--preset", "smoke"], "--until-decided with --preset smoke: allowed standard, full"),
    (["--protocol", "jmh"], "--until-decided with --protocol jmh"),
    (["--threads", "1"], "--until-decided with --threads"),
    (["--budget", "10x"], "--budget '10x': allowed"),
    (["--max-forks", "1"], "--max-forks '1': allowed"),
    ([], "no stored standard run of callerchoose on this machine"),
])
def test_until_decided_refusals(results_dir, capsys, argv, said):
    from mechsym.cli import main

    assert main(["run", "callerchoose", "--until-decided", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert said in err and "\n" not in err


def test_budget_without_until_decided_is_refused(results_dir, capsys):
    from mechsym.cli import main

    assert main(["run", "callerchoose", "--budget", "5m", "--dry-run"]) == 2
    assert "--budget: only with --until-decided" in capsys.readouterr().err


def test_cells_match_whatever_the_csv_made_of_their_values():
    cell = sweep.Cell(variant="a", kernel="cmd:x", params={"threads": 2, "sync": False, "protocol": "lab"})
    key = decide_plan.cell_key(cell)
    traced = (("variant", "a"), ("threads", 2.0), ("sync", "False"), ("flags", float("nan")), ("protocol", "post"))
    assert not decide_plan._matches(key, traced)                  # the kernel wrote its own protocol per row
    assert decide_plan._matches(key, traced, own={"protocol"})
    assert not decide_plan._matches(key, (("variant", "b"),) + traced[1:], own={"protocol"})


def test_two_current_runs_are_judged_together_with_forks_nested_in_runs(fake, monkeypatch):
    module, first = fake
    monkeypatch.setattr(verdict_runs, "quiet", lambda meta: True)
    one = verdict_collect._load(NAME, None, None)
    assert set(one["run_id"]) == {first["run_id"]}
    for name, (med, sd) in [("base", (1.01, 0.02)), ("wide", (1.16, 0.05)), ("far", (3.1, 0.02))]:
        monkeypatch.setitem(CELLS, name, (med, sd))    # the second run's forks differ from the first's
    second = sweep.execute(module, "standard", jdks=[], progress=False, lock=False)
    both = verdict_collect._load(NAME, None, None)
    assert set(both["run_id"]) == {first["run_id"], second["run_id"]}
    ids = ",".join(sorted(both["run_id"].unique()))
    assert verdict_runs.basis(NAME, store.machine_id(), ids) == "2 standard runs, forks nested in runs"
    assert verdict_runs.basis(NAME, store.machine_id(), first["run_id"]) == "1 standard run"
    seen = []
    real = stats._nested_boot
    monkeypatch.setattr(stats, "_nested_boot", lambda *a, **k: seen.append(1) or real(*a, **k))
    far = {v.claim.id: v for v in verdict_collect.machine_verdicts(module, both)}[f"{NAME}.far"]
    assert seen and far.forks == 10 and far.outcome == "holds"


def test_a_discrete_statistic_says_more_forks_would_not_decide_it():
    claim = _claim("d", Rule(">=", 1.05))
    forks = np.array([1.0, 1.1, 1.0, 1.1, 1.0, 1.1, 1.1, 1.0])   # every fork one of two numbers
    v = judge(claim, estimate(lambda a: a, forks))
    assert v.outcome == "inconclusive" and "more forks would not decide it: a discrete statistic" in v.why


def test_a_jmh_run_of_the_same_code_is_never_a_sibling(monkeypatch):
    from mechsym.store import provenance

    base = {"run_id": "a", "preset": "standard"}
    lab = {"run_id": "b", "preset": "standard"}
    jmh_run = {"run_id": "c", "preset": "standard", "overrides": {"protocol": "jmh"}}
    monkeypatch.setattr(verdict_runs, "stored_runs", lambda name, machine: [base, lab, jmh_run])
    monkeypatch.setattr(verdict_runs, "quiet", lambda meta: True)
    monkeypatch.setattr(provenance, "is_current", lambda meta: True)
    monkeypatch.setattr(provenance, "run_fingerprint", lambda meta: ("same", ""))
    assert [m["run_id"] for m in verdict_runs.sibling_runs("x", "m", {"a"})] == ["b"]


@pytest.mark.parametrize("values", [[1.0, float("nan"), "a", True, 2.0, 1.0, None, "False"], [1.0, float("nan"), 2.5],
                                    [True, False, True], [1, 2, 3], ["x", "y", "x"]])
def test_normed_columns_agree_with_norm_value_by_value(values):
    """The plan's cell matching normalises each distinct value once (fast on a stored run's 10^5 rows); it must
    read every row as norm() does, True and 1.0 in one column included."""
    import pandas as pd

    from mechsym.judge.plan import norm, normed

    col = pd.Series(values * 3)
    assert list(normed(col)) == [norm(v) for v in col]


def test_until_decided_counts_the_forks_that_pass_the_jit_gc_gate(fake, monkeypatch):
    """Every other added fork timed the JIT: the gate drops it, and the looks count the forks judged."""
    from mechsym.run import harness

    module, first = fake
    monkeypatch.setitem(GATED, "from", 5)
    meta = decide.run(module, "standard", [], progress=False, lock=False, write=lambda line: None)
    rows = store.load(NAME, store.machine_id())
    kept, dropped, _ = harness.voting(rows)
    assert dropped > 0
    kept = kept[kept["metric"] == "t"]
    judged = kept[~analysis.as_bool(kept["warmup"])].groupby("variant")[["run_id", "fork"]].apply(
        lambda g: len(g.drop_duplicates()))
    looks = meta["until_decided"]["schedule"]
    extended = {c for c in judged.index if judged[c] > 5}
    assert extended and all(judged[c] in looks for c in extended), (judged.to_dict(), looks)


def test_runs_judged_together_are_counted_and_disagreeing_runs_are_unstable(fake, monkeypatch):
    module, first = fake
    monkeypatch.setattr(verdict_runs, "quiet", lambda meta: True)
    monkeypatch.setitem(CELLS, "far", (0.8, 0.02))     # the second run's "far" is slower than base: fails
    sweep.execute(module, "standard", jdks=[], progress=False, lock=False)
    both = verdict_collect._load(NAME, None, None)
    got = {v.claim.id.split(".")[1]: v for v in verdict_collect.machine_verdicts(module, both) if v.primary}
    far = got["far"]
    assert far.unstable and far.outcome == "inconclusive" and far.runs_total == 2 and far.runs_agree == 0
    assert "3" in far.why and "0.8" in far.why
    assert all(v.runs_total == 2 for v in got.values())
