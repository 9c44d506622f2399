"""Verdicts as data: the locks verdicts on synthetic results (each claim flips between holds and does not hold),
several machines at once, and the one source behind 00-overview, `mechsym verdicts` and reports/index.html."""

from __future__ import annotations

import itertools

import pandas as pd
import pytest

from conftest import ROOT, mechsym
from mechsym import overview, store
from mechsym.experiments import locks
from mechsym.verdicts import FAILS, HOLDS, UNMEASURABLE

THREADS = (1, 2, 3, 4)


def synthetic_locks(ops: dict | None = None, machine: str = "test-machine-a", jdks=("17", "25"),
                    runs: int = 3) -> pd.DataFrame:
    """Tidy rows as the locks sweep stores them: every cell of both grids, `runs` measured rows each (+1 warm-up).

    ops: (variant, threads) -> ops/s for the main grid (default 50M), or (variant, "why", workers, coarsening) for
    the one-thread grid; a key may add the warm-up policy as a third element: (variant, threads, policy)."""
    ops = ops or {}
    rows = []

    def add(jdk, variant, threads, policy, grid, workers, coarsening, value):
        if jdk != "17" and variant in ("monitor-thin", "monitor-biased", "monitor-biased-delayed"):
            rows.append(dict(variant=variant, threads=threads, warmup_policy=policy, grid=grid, workers=workers,
                             coarsening=coarsening, jdk=jdk, warmup=False, metric="throughput", value=float("nan"),
                             unit="ops/s", status="unavailable", note=f"not available on JDK {jdk}"))
            return
        for i in range(runs + 1):
            # a little spread, so medians are medians
            v = value * (1 + 0.01 * ((i % 3) - 1))
            rows.append(dict(variant=variant, threads=threads, warmup_policy=policy, grid=grid, workers=workers,
                             coarsening=coarsening, jdk=jdk, warmup=i == 0, metric="throughput", value=v,
                             unit="ops/s", status="ok", note=""))

    for jdk in jdks:
        for policy, variant, t in itertools.product(("single", "short"), locks.VARIANTS, THREADS):
            v = ops.get((variant, t, policy), ops.get((variant, t), 50e6))
            add(jdk, variant, t, policy, "main", "fresh", "on", v)
        for variant in locks.MONITORS + ["reentrant"]:
            for workers, coarsening in (("fresh", "off"), ("reused", "on"), ("reused", "off")):
                add(jdk, variant, 1, "short", "why", workers, coarsening,
                    ops.get((variant, "why", workers, coarsening), 50e6))
    df = pd.DataFrame(rows)
    df.insert(0, "run_id", f"20260101T000000Z-smoke-{abs(hash(machine)) % 16**6:06x}")
    df["machine"] = machine
    return df


def by_id(verdicts, cid, scope=""):
    found = [v for v in verdicts if v.claim.id == cid and v.now.startswith(scope)]
    assert found, f"no verdict for {cid} {scope}"
    return found[0]


# ---------------------------------------------------------------- the locks verdicts flip with the numbers

@pytest.mark.parametrize("cid, holds_ops, fails_ops, scope", [
    ("locks.biased-huge-benefit",
     {("monitor-biased", 1, "short"): 400e6, ("monitor-thin", 1, "short"): 50e6},
     {("monitor-biased", 1, "short"): 60e6, ("monitor-thin", 1, "short"): 50e6}, "JDK 17"),
    ("locks.biased-huge-benefit-same-thread",
     {("monitor-biased", "why", "reused", "off"): 500e6, ("monitor-thin", "why", "reused", "off"): 40e6},
     {("monitor-biased", "why", "reused", "off"): 45e6, ("monitor-thin", "why", "reused", "off"): 40e6}, "JDK 17"),
    ("locks.biased-costs-10pct",
     {("monitor-thin", 1, "single"): 110e6, ("monitor-biased-delayed", 1, "single"): 100e6},
     {("monitor-thin", 1, "single"): 100e6, ("monitor-biased-delayed", 1, "single"): 100e6}, "JDK 17"),
    ("locks.reentrant-dip-at-2",
     {("reentrant", 2): 10e6, ("reentrant", 3): 14e6}, {("reentrant", 2): 14e6, ("reentrant", 3): 14e6}, "JDK 17"),
    ("locks.reentrant-dip-at-2",
     {("reentrant", 2): 10e6, ("reentrant", 3): 14e6}, {("reentrant", 2): 14e6, ("reentrant", 3): 14e6}, "JDK 25"),
    ("locks.monitor-throughput-limit",
     {("monitor-thin", 2): 20e6, ("monitor-thin", 3): 21e6, ("monitor-thin", 4): 22e6},
     {("monitor-thin", 2): 20e6, ("monitor-thin", 3): 40e6, ("monitor-thin", 4): 80e6}, "JDK 17"),
    ("locks.reentrant-best-uncontended", {("reentrant", 1): 90e6}, {("reentrant", 1): 10e6}, "JDK 17"),
    ("locks.reentrant-scales-better",
     {("reentrant", t): 30e6 for t in (2, 3, 4)} | {("monitor-thin", t): 10e6 for t in (2, 3, 4)},
     {("reentrant", t): 10e6 for t in (2, 3, 4)} | {("monitor-thin", t): 30e6 for t in (2, 3, 4)}, "JDK 17"),
    ("locks.reentrant-scales-except-2",
     {("reentrant", 2): 10e6, ("reentrant", 3): 30e6, ("reentrant", 4): 30e6,
      ("monitor-thin", 2): 20e6, ("monitor-thin", 3): 10e6, ("monitor-thin", 4): 10e6},
     {("reentrant", t): 10e6 for t in (2, 3, 4)} | {("monitor-thin", t): 20e6 for t in (2, 3, 4)}, "JDK 17"),
    ("locks.osr-no-difference", {}, {(v, t, "short"): 100e6 for v in locks.VARIANTS for t in THREADS}, "JDK 17"),
    ("locks.startup-delay-matters",
     {("monitor-biased", "why", "reused", "off"): 500e6, ("monitor-biased-delayed", "why", "reused", "off"): 40e6},
     {("monitor-biased", "why", "reused", "off"): 50e6, ("monitor-biased-delayed", "why", "reused", "off"): 40e6},
     "JDK 17"),
])
def test_locks_verdict_flips(cid, holds_ops, fails_ops, scope):
    yes = by_id(locks.verdicts(synthetic_locks(holds_ops)), cid, scope)
    no = by_id(locks.verdicts(synthetic_locks(fails_ops)), cid, scope)
    assert yes.outcome == HOLDS, yes
    assert no.outcome == FAILS, no
    assert yes.now and no.now and yes.machine == "test-machine-a"


def test_biased_claims_not_measurable_without_a_biased_jdk():
    vs = locks.verdicts(synthetic_locks(jdks=("25",)))
    for cid in ("locks.biased-huge-benefit", "locks.biased-costs-10pct", "locks.biased-4-5-cycles",
                "locks.startup-delay-matters"):
        v = by_id(vs, cid)
        assert v.outcome == UNMEASURABLE and "biased locking" in v.why, v
    # the rest is still judged on JDK 25
    assert by_id(vs, "locks.reentrant-dip-at-2", "JDK 25").outcome in (HOLDS, FAILS)


def test_no_measured_rows_is_not_measurable_for_every_claim():
    df = synthetic_locks()
    df["status"] = "failed"
    vs = locks.verdicts(df)
    assert {v.claim.id for v in vs} == {c.id for c in locks.CLAIMS}
    assert all(v.outcome == UNMEASURABLE and v.why for v in vs)


def test_every_claim_gets_a_verdict():
    vs = locks.verdicts(synthetic_locks())
    assert {v.claim.id for v in vs} == {c.id for c in locks.CLAIMS}


def test_verdicts_per_machine():
    """MACHINE = "all": one set of verdicts per machine, each naming its machine; the outcome follows each machine's numbers."""
    a = synthetic_locks({("reentrant", 2): 10e6, ("reentrant", 3): 14e6}, machine="machine-a")
    b = synthetic_locks({("reentrant", 2): 14e6, ("reentrant", 3): 14e6}, machine="machine-b")
    vs = locks.verdicts(pd.concat([a, b], ignore_index=True))
    dips = {v.machine: v.outcome for v in vs if v.claim.id == "locks.reentrant-dip-at-2" and v.now.startswith("JDK 17")}
    assert dips == {"machine-a": HOLDS, "machine-b": FAILS}
    assert len(vs) == len(locks.verdicts(a)) + len(locks.verdicts(b))
    # the cycles claim needs the clock of the machine that ran: not known for another machine's results
    assert by_id([v for v in vs if v.machine == "machine-b"], "locks.biased-4-5-cycles").outcome == UNMEASURABLE


def test_locks_analysis_with_several_machines():
    import matplotlib

    matplotlib.use("Agg")
    df = pd.concat([synthetic_locks(machine="machine-a"), synthetic_locks(machine="machine-b")], ignore_index=True)
    t = locks.wide_table(df, "17", "single")
    assert list(t.index.names) == ["machine", "threads"] and set(t.index.get_level_values(0)) == {"machine-a", "machine-b"}
    assert "machine" in locks.summary(df).columns
    assert "machine" in locks.why_table(df).index.names
    assert "machine" in locks.policy_ratio(df).index.names
    fig = locks.plot_scaling(df, "single")
    assert len(fig.axes) == 4  # 2 machines x 2 JDKs
    assert len(locks.plot_why(df).axes) == 2
    # one machine: the tables are as before
    one = synthetic_locks()
    assert locks.wide_table(one, "17", "single").index.name == "threads"
    assert "machine" not in locks.summary(one).columns


# ---------------------------------------------------------------- one source: overview.collect

def save_synthetic(df: pd.DataFrame, machine: str) -> None:
    meta = {"preset": "smoke", "status": "complete", "machine": {"machine_id": machine, "cpu_model": "Synthetic CPU",
                                                                 "logical_cpus": 4, "physical_cores": 2, "sockets": 1,
                                                                 "smt": True, "kernel": "6.0"},
            "jdks": [{"feature": 17, "vendor": "Test", "version": "17.0.0"}]}
    store.save("locks", df.drop(columns=["run_id", "machine"]), meta, machine=machine)


def test_collect_with_an_empty_store_lists_every_claim_as_not_run(results_dir):
    claims = overview.collect()
    from mechsym import experiments

    every = {c.id for m in experiments.all_modules() for c in m.CLAIMS}
    assert set(claims["id"]) == every
    assert (claims["outcome"] == overview.NOT_RUN).all()
    assert "No results yet" in overview.status_line(claims)
    overview.plot_counts(claims)
    overview.plot_ratios(claims)  # says there is nothing to plot, does not fail
    overview.table(claims).to_html()
    assert "no results yet" in overview.machines_table().iloc[0, 0]


def test_collect_machines_side_by_side(results_dir):
    save_synthetic(synthetic_locks({("reentrant", 2): 10e6, ("reentrant", 3): 14e6}), "machine-a")
    save_synthetic(synthetic_locks({("reentrant", 2): 14e6, ("reentrant", 3): 14e6}), "machine-b")
    claims = overview.collect("all")
    lk = claims[claims["experiment"] == "locks"]
    assert set(lk["machine"]) == {"machine-a", "machine-b"}
    dip = lk[(lk["id"] == "locks.reentrant-dip-at-2") & (lk["scope"] == "JDK 17")].set_index("machine")["outcome"]
    assert dip.to_dict() == {"machine-a": HOLDS, "machine-b": FAILS}
    # experiments neither machine ran are "not run yet" on both
    others = claims[claims["experiment"] != "locks"]
    assert (others["outcome"] == overview.NOT_RUN).all() and set(others["machine"]) == {"machine-a", "machine-b"}
    html = overview.table(claims).to_html()
    assert "machine-a · holds?" in html and "machine-b · holds?" in html
    assert len(overview.ratios(claims)) and overview.plot_ratios(claims).axes
    assert list(overview.machines_table().columns) == ["machine-a", "machine-b"]
    # one machine selected
    only_b = overview.collect("machine-b")
    assert set(only_b["machine"]) == {"machine-b"}


def test_collect_names_a_broken_experiment_and_keeps_the_others(results_dir, monkeypatch):
    save_synthetic(synthetic_locks(), "machine-a")

    def broken(df):
        raise ZeroDivisionError("synthetic failure")

    monkeypatch.setattr(locks, "verdicts", broken)
    claims = overview.collect()
    bad = claims[claims["experiment"] == "locks"]
    assert (bad["outcome"] == overview.ERROR).all() and bad["why"].str.contains("synthetic failure").all()
    assert (claims[claims["experiment"] != "locks"]["outcome"] == overview.NOT_RUN).all()


def test_verdicts_command(results_dir):
    r = mechsym("verdicts")
    assert r.returncode == 0, r.stderr
    assert "not run yet" in r.stdout and "01-lock-implementations" in r.stdout
    save_synthetic(synthetic_locks(), "machine-a")
    save_synthetic(synthetic_locks(), "machine-b")
    r = mechsym("verdicts", "--machine", "all", "--format", "csv")
    assert r.returncode == 0, r.stderr
    from io import StringIO

    out = pd.read_csv(StringIO(r.stdout))
    assert {"machine-a", "machine-b"} <= set(out["machine"])
    assert {"id", "claim", "then", "now", "outcome", "why", "notebook", "post"} <= set(out.columns)
    r = mechsym("verdicts", "locks", "--machine", "machine-b")
    assert r.returncode == 0 and "machine" not in r.stdout.splitlines()[0].split()
    r = mechsym("verdicts", "--machine", "nope")
    assert r.returncode == 2 and r.stderr.strip() == (
        "mechsym: machine 'nope': no stored results (stored machines: machine-a, machine-b, or 'all')")
    r = mechsym("verdicts", "nope")
    assert r.returncode == 2 and "experiment 'nope': unknown" in r.stderr


def test_every_experiment_declares_its_claims():
    from mechsym import experiments

    ids = []
    for m in experiments.all_modules():
        assert m.CLAIMS and callable(m.verdicts), m.NAME
        for c in m.CLAIMS:
            assert c.notebook in m.NOTEBOOKS, (m.NAME, c.id, c.notebook)
            assert c.text and c.then and c.test and c.post.endswith(".md"), c.id
        ids += [c.id for c in m.CLAIMS]
    assert len(ids) == len(set(ids)), "claim ids must be unique"


def test_overview_notebook_is_listed():
    assert (ROOT / "notebooks" / "00-overview.ipynb").exists()
