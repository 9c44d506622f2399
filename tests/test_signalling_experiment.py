"""The signalling experiment package (notebooks 03 and 08): sweep cells, claims, verdicts, tables and figures.

Synthetic tidy rows with several forks per cell (so intervals exist), two synthetic machines kept apart, and one
smoke sweep end to end. No test asserts a timing."""

import subprocess

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from conftest import ROOT, java_kernel  # noqa: E402
from mechsym import MechsymError  # noqa: E402
from mechsym.run import bridge, sweep
from mechsym.store import reference
from mechsym.experiments import signalling as exp  # noqa: E402
from mechsym.experiments.signalling import sweep as sweep_mod  # noqa: E402
from mechsym.machine.jdk import discover  # noqa: E402
from mechsym.judge.tables import for_notebook  # noqa: E402
from mechsym.judge.verdicts import FAILS, HOLDS, INCONCLUSIVE, UNMEASURABLE  # noqa: E402
from synthetic import topology  # noqa: E402

NB_CV, NB_ITL = exp.NOTEBOOKS


# ---------------------------------------------------------------- sweep

def test_cells_cover_placements_and_mark_missing_smt():
    jdks = list(discover())
    cs = exp.cells("standard", topology(), jdks)
    smt = [c for c in cs if c.labels["placement"] == "smt"]
    assert smt and all(c.unavailable and "SMT" in c.unavailable for c in smt)
    ok = [c for c in cs if not c.unavailable]
    assert {c.labels["placement"] for c in ok} == {"cross-core", "same-cpu", "unpinned"}
    assert {c.labels["placement"]: c.params["pin"] for c in ok} == {"cross-core": "0,1", "same-cpu": "0,0",
                                                                      "unpinned": ""}
    assert all(c.cpus is None for c in cs)  # per-thread pinning inside the kernel, never process taskset
    assert all(c.forks == exp.PRESETS["standard"]["forks"] for c in cs)  # the sweep interleaves the forks
    assert len({(c.variant, c.jdk, c.labels["placement"], c.params["protocol"]) for c in cs}) == len(cs)
    assert all(c.jdk is None for c in cs if c.kernel.startswith("c:"))
    assert {c.jdk.feature for c in cs if not c.kernel.startswith("c:")} == {j.feature for j in jdks}
    bounded = [c for c in ok if c.labels["placement"] == "same-cpu" and c.params.get("wait") == "spin"]
    assert bounded and all(c.params["max-ms"] <= 1000 and c.params["sample-every"] == 1 for c in bounded)


def test_post_protocol_cells_are_the_posts_own_runs():
    """One cold run per JVM, busy spin, whole runs timed: the cells the posts ran (lock pinned and unpinned, busy
    spin pinned in Java and C), with at least the lab's exchanges per run: standard's post runs are sized so the
    JIT's compilation (10-45 ms here) stays under the 5% that sets a run aside (0.3 M locked exchanges, 20 M
    volatile, against the lab's 10 k and 2 M); full's are the posts' own."""
    jdks = list(discover())
    cs = exp.cells("standard", topology(), jdks)
    post = [c for c in cs if c.params["protocol"] == "post"]
    assert {(c.variant, c.labels["placement"]) for c in post} == set(sweep_mod.POST_CELLS)
    assert len(post) == 3 * len(jdks) + 1
    for c in post:
        assert c.params["runs"] == 1 and c.params["warmup-runs"] == 0 and c.params["sample-every"] == 0
        assert c.params.get("wait", "spin") == "spin" and c.params["max-ms"] < c.timeout * 1000
        lab = next(x for x in cs if x.params["protocol"] == "lab" and (x.variant, x.jdk, x.labels["placement"])
                   == (c.variant, c.jdk, c.labels["placement"]))
        assert c.params["iterations"] >= 10 * lab.params["iterations"]
    full = [c for c in exp.cells("full", topology(), jdks) if c.params["protocol"] == "post"]
    assert {c.params["iterations"] for c in full} == {10_000_000, 500_000_000}   # the posts' 10 M and 500 M
    with pytest.raises(MechsymError, match="protocol 'post' for volatile-yield cross-core"):
        exp.cell_for("volatile-yield", "cross-core", "smoke", topology(), jdks[0], protocol="post")


def test_smt_placement_used_when_the_machine_has_it_and_one_cpu_has_no_pairs():
    cs = exp.cells("standard", topology(smt=True), list(discover())[:1])
    smt = [c for c in cs if c.labels["placement"] == "smt"]
    assert smt and not any(c.unavailable for c in smt) and {c.params["pin"] for c in smt} == {"0,2"}
    one = exp.cells("smoke", topology(1), list(discover())[:1])
    assert all(c.unavailable for c in one if c.labels["placement"] in ("cross-core", "smt"))
    assert not any(c.unavailable for c in one if c.labels["placement"] in ("same-cpu", "unpinned"))


def test_unknown_placement_variant_and_preset_are_one_line_errors():
    with pytest.raises(MechsymError, match="placement 'diagonal': allowed placements are cross-core, smt"):
        exp.cell_for("locked", "diagonal", "smoke", topology(), None)
    with pytest.raises(MechsymError, match="variant 'futex': allowed variants are locked"):
        exp.cell_for("futex", "unpinned", "smoke", topology(), None)
    with pytest.raises(MechsymError, match="preset 'huge': allowed presets are smoke"):
        exp.cells("huge", topology(), [])


def test_c_binary_not_built_says_make(tmp_path, monkeypatch):
    monkeypatch.setenv("MECHSYM_ROOT", str(tmp_path))
    cell = exp.cell_for("c-spin", "unpinned", "smoke", topology(), None)
    with pytest.raises(MechsymError, match="not built.*run `make` first"):
        cell.launch()


def test_presets_and_notebooks():
    assert set(exp.PRESETS) == {"smoke", "standard", "full"}
    assert exp.NAME == "signalling" and exp.NOTEBOOKS == ["03-condition-variables", "08-inter-thread-latency"]
    assert {c.notebook for c in exp.CLAIMS} == set(exp.NOTEBOOKS)


@pytest.mark.kernel
@pytest.mark.parametrize("kernel", [exp.VARIANTS["locked"][0], exp.VARIANTS["volatile-spin"][0], "c"])
def test_protocols_are_the_kernels_own(kernel):
    """Python's protocols equal each kernel's (Java through JPype; C from its bad-argument message)."""
    if kernel == "c":
        r = subprocess.run([str(ROOT / "build" / "c" / "pingpong"), "--protocol=x"], capture_output=True, text=True)
        assert r.returncode == 2 and f"allowed values are {', '.join(sweep_mod.PROTOCOL_NAMES)}" in r.stderr
    else:
        assert list(bridge.kernel(kernel).protocols()) == sweep_mod.PROTOCOL_NAMES


@pytest.mark.kernel
def test_wait_modes_are_the_kernels_own():
    """Python's wait modes equal the Java kernel's (through JPype) and the C kernel's (its bad-argument message)."""
    assert list(bridge.kernel(exp.VARIANTS["volatile-spin"][0]).waits()) == sweep_mod.WAITS
    r = subprocess.run([str(ROOT / "build" / "c" / "pingpong"), "--wait=sleep"], capture_output=True, text=True)
    assert r.returncode == 2 and f"allowed values are {', '.join(sweep_mod.WAITS)}" in r.stderr
    assert {w for _, w, *_ in exp.VARIANTS.values() if w} <= set(sweep_mod.WAITS)
    r = java_kernel(exp.VARIANTS["volatile-spin"][0], "--wait=sleep")
    assert r.returncode == 2 and f"allowed values are {', '.join(sweep_mod.WAITS)}" in r.stderr


# ---------------------------------------------------------------- the posts' numbers and claims

def test_reference_files_hold_the_posts_numbers():
    cv = reference.load(exp.REFERENCE)
    got = cv[(cv["metric"] == "ns_per_op")].set_index(["os", "cpu", "placement"])["value"]
    assert got[("Linux Fedora Core 15 64-bit", "Nehalem 2.8 GHz", "pinned")] == 2023
    assert got[("Linux Fedora Core 15 64-bit", "Sandy Bridge 2.0 GHz", "unpinned")] == 16808
    assert got[("Windows 7 Professional 64-bit", "Nehalem 2.8 GHz", "pinned")] == 2082
    assert len(got) == 6
    itl = reference.load(exp.REFERENCE_ITL)
    r = itl[itl["table"] == "Results"].set_index(["language", "metric"])["value"]
    assert r[("Java", "ns_per_op")] == 50 and r[("C++", "ns_per_op")] == 45
    assert r[("Java", "duration")] == 50790271150 and r[("C++", "duration")] == 45087955393
    assert exp.reference_cv_table(cv).shape[0] == 3
    assert exp.reference_itl_table(itl).shape[0] == 2


@pytest.mark.parametrize("claim", exp.CLAIMS, ids=lambda c: c.id)
def test_claims_quote_their_post_and_the_posts_numbers_pass(claim):
    post = ROOT.parent / "shared" / "posts" / claim.post
    if post.exists():  # verbatim, but for runs of spaces (the posts' copies keep double and non-breaking spaces)
        assert " ".join(claim.quote.split()) in " ".join(post.read_text().split()), f"{claim.id}: not the post's words"
    then = claim.then_value()
    assert then is not None and claim.rule.holds_at(then), (claim.id, then)
    assert claim.rule.reading


def test_the_posts_numbers_that_old_thresholds_rejected():
    """Earlier thresholds '< 50 ns', '>= 20 M/s' and '>= 300x' rejected the posts' own 50.79 ns, 19.69 M/s and
    40x."""
    assert exp.CLAIM["signalling.volatile-under-50ns"].then_value() == pytest.approx(50.79, abs=0.01)
    assert exp.CLAIM["signalling.20-30m-exchanges"].then_value() == pytest.approx(19_688_810)
    assert exp.CLAIM["signalling.lock-1000x-volatile"].then_value() == pytest.approx(40.46)
    assert not exp.CLAIM["signalling.volatile-under-50ns"].rule.holds_at(56)


# ---------------------------------------------------------------- synthetic results

CELLS = {  # (variant, jdk, placement) -> ns/op
    ("locked", "17", "cross-core"): 30_000, ("locked", "17", "unpinned"): 5_000,
    ("locked", "25", "cross-core"): 2_000, ("locked", "25", "unpinned"): 8_000,
    ("volatile-spin", "17", "cross-core"): 60, ("volatile-spin", "25", "cross-core"): 40,
    ("c-spin", "c", "cross-core"): 48,
}


def synthetic(cells=None, machine="m", scale=1.0, forks=5, spread=0.02, cold=1.0, run="20260101T000000Z-standard-a"):
    """Tidy rows: per cell `forks` forks, each a warm-up run (iteration 0, `cold` x slower) and 3 measured runs;
    fork f is (1 + spread x (f - mid)) x the cell's ns/op."""
    rows = []
    for (variant, jdk, placement), ns in (cells or CELLS).items():
        for fork in range(forks):
            base = ns * scale * (1 + spread * (fork - (forks - 1) / 2))
            for it in range(4):
                v = base * (cold if it == 0 else 1.0)
                for metric, value, unit in (("ns_per_op", v, "ns/op"), ("throughput", 1e9 / v, "ops/s"),
                                            ("deadline_hit", 0, "bool"), ("round_trip_p50", 2 * v, "ns"),
                                            ("round_trip_max", 20 * v, "ns"), ("round_trip_samples", 100, "count")):
                    rows.append(dict(run_id=run, experiment="signalling", variant=variant,
                                     language="c" if jdk == "c" else "java", jdk=jdk, placement=placement, fork=fork,
                                     iteration=it, warmup=it == 0, metric=metric, value=value, unit=unit,
                                     status="ok", note="", machine=machine))
    rows.append(dict(run_id=run, experiment="signalling", variant="locked", language="java", jdk="17",
                     placement="smt", fork=-1, iteration=-1, warmup=False, metric="", value=np.nan, unit="",
                     status="unavailable", note="no SMT siblings (2 cores)", machine=machine))
    return pd.DataFrame(rows)


def outcomes(df, protocol="post"):
    return {(v.claim.id.removeprefix("signalling."), v.scope.get("jdk") or v.scope.get("runtime")): v.outcome
            for v in exp.verdicts(df) if v.protocol == protocol}


def test_verdicts_hold_fail_and_are_inconclusive():
    o = outcomes(synthetic())
    assert o[("lock-1000x-volatile", "17")] == HOLDS                  # 545x
    assert o[("lock-1000x-volatile", "25")] == HOLDS                  # 50x
    assert o[("unpinned-several-times-slower", "17")] == FAILS        # unpinned faster
    assert o[("unpinned-several-times-slower", "25")] == HOLDS        # 4x
    assert o[("lock-latency-microseconds", "17")] == FAILS            # 30 µs
    assert o[("lock-latency-microseconds", "25")] == HOLDS            # 2 µs
    assert o[("volatile-under-50ns", "17")] == FAILS                  # 60 ns
    assert o[("volatile-under-50ns", "25")] == HOLDS                  # 40 ns
    assert o[("20-30m-exchanges", "C (gcc)")] == HOLDS                # 20.8 M/s
    assert o[("20-30m-exchanges", "17")] == FAILS                     # 16.7 M/s
    assert o[("java-c-equal", "17")] == HOLDS                         # 1.25
    assert o[("java-c-equal", "25")] == HOLDS                         # 0.83
    # forks spread across the threshold: 55 ns +-10% straddles 55 ns
    wide = synthetic({("volatile-spin", "17", "cross-core"): 55, ("c-spin", "c", "cross-core"): 55}, spread=0.05)
    vs = [v for v in exp.verdicts(wide) if v.claim.id == "signalling.volatile-under-50ns"]
    assert {v.outcome for v in vs} == {INCONCLUSIVE}
    assert all(v.forks == 5 and v.low < 55 < v.high and "more forks" in v.why for v in vs)


def test_every_verdict_has_scope_protocol_interval_and_the_forks_values():
    vs = exp.verdicts(synthetic())
    assert {v.protocol for v in vs} == {"post", "lab"}
    assert all(v.machine == "m" and v.forks == 5 and v.low is not None and "forks:" in v.now for v in vs)
    for v in vs:
        assert set(v.scope) in ({"jdk", "placement"}, {"runtime", "placement"})
    assert len(for_notebook(vs, NB_CV)) == 3 * 2 * 2     # 3 claims x 2 JDKs x 2 protocols
    assert len(for_notebook(vs, NB_ITL)) == (2 * 3 + 2) * 2  # 2 claims x 3 runtimes + Java/C x 2 JDKs, x 2


def test_post_protocol_reads_the_cold_first_run_and_can_disagree_with_the_lab():
    df = synthetic({("volatile-spin", "17", "cross-core"): 45, ("c-spin", "c", "cross-core"): 45}, cold=1.5)
    post, lab = outcomes(df, "post"), outcomes(df, "lab")
    assert post[("volatile-under-50ns", "17")] == FAILS and lab[("volatile-under-50ns", "17")] == HOLDS
    t = exp.protocols_table(df, NB_ITL)
    assert "volatile-under-50ns" in set(t["claim"])
    assert "note" in exp.protocols_table(synthetic(), NB_CV)
    f = exp.forks_table(df, ["volatile-spin"])
    assert set(f.index.get_level_values("protocol")) == {"post", "lab"}


def test_kernel_post_protocol_cells_are_preferred_for_the_post_verdict():
    lab = synthetic({("volatile-spin", "17", "cross-core"): 45, ("c-spin", "c", "cross-core"): 45})
    post = synthetic({("volatile-spin", "17", "cross-core"): 90}, forks=6).assign(protocol="post")
    post = post[post["status"] == "ok"]
    df = pd.concat([lab.assign(protocol="lab"), post], ignore_index=True)
    v = {(x.claim.id, x.protocol): x for x in exp.verdicts(df) if x.scope.get("jdk") == "17"}
    assert v[("signalling.volatile-under-50ns", "post")].outcome == FAILS
    assert v[("signalling.volatile-under-50ns", "post")].forks == 6
    assert v[("signalling.volatile-under-50ns", "lab")].outcome == HOLDS


def with_placement(df, split_forks=()):
    """`df` with each fork's counters_share_line row (every run: 1, or 0 for the forks in split_forks)."""
    runs = df[(df["metric"] == "ns_per_op") & df["variant"].str.startswith("volatile")]
    place = runs.assign(metric="counters_share_line", unit="bool",
                        value=np.where(runs["fork"].isin(split_forks), 0, 1))
    return pd.concat([df, place], ignore_index=True)


def test_forks_whose_counters_straddled_two_lines_do_not_vote():
    """counters_share_line = 0 on two of seven forks at 90 ns (each fork a warm-up and 3 measured runs): left out of
    the post verdict (verdict_collect), which the five one-line forks at 45 ns decide; counter_lines shows both."""
    from mechsym.view import collect as verdict_collect

    cells = {("volatile-spin", "17", "cross-core"): 45, ("c-spin", "c", "cross-core"): 45}
    df = synthetic(cells, forks=7).assign(protocol="post")
    df.loc[(df["variant"] == "volatile-spin") & df["fork"].isin([1, 4]), "value"] *= 2
    df = with_placement(df, split_forks=(1, 4))
    vs = verdict_collect.machine_verdicts(exp, df)
    v = next(x for x in vs
             if x.claim.id == "signalling.volatile-under-50ns" and x.protocol == "post" and x.scope.get("jdk") == "17")
    assert v.outcome == HOLDS and v.forks == 5 and "8 runs left out: the two counters straddled" in v.why
    c = [x for x in vs if x.scope.get("runtime") == "C (gcc)" or x.scope.get("jdk") == "25"]
    assert c and not any("straddled" in x.why for x in c)   # said only where the left-out runs belonged
    t = exp.counter_lines(df).loc[("volatile-spin", "JDK 17", "cross-core", "post")]
    assert (t["forks, one line"], t["forks, two lines"], t["not read"]) == (5, 2, 0)
    assert t["ns/op, two lines (median)"] != t["ns/op, one line (median)"]
    assert exp.counter_lines(synthetic(cells)).empty   # runs stored before the kernels said

def test_the_straddle_note_only_on_claims_that_read_the_runs():
    """Two-line volatile forks are named on the lock-over-volatile ratio, which reads them, and not on the claims
    that read the locked cells alone (Claim.variants); every claim's variants are the sweep's."""
    from mechsym.view import collect as verdict_collect
    from mechsym.experiments.signalling import sweep

    assert all(set(c.variants) <= set(sweep.VARIANTS) for c in exp.CLAIMS)
    cells = {("volatile-spin", "17", "cross-core"): 45, ("locked", "17", "cross-core"): 2000,
             ("locked", "17", "unpinned"): 8000}
    df = with_placement(synthetic(cells, forks=7).assign(protocol="post"), split_forks=(1, 4))
    vs = {x.claim.id: x for x in verdict_collect.machine_verdicts(exp, df)
          if x.protocol == "post" and x.scope.get("jdk") == "17"}
    assert "straddled" in vs["signalling.lock-1000x-volatile"].why
    for cid in ("signalling.lock-latency-microseconds", "signalling.unpinned-several-times-slower"):
        assert exp.CLAIM[cid].variants == ("locked",)
        assert cid in vs and "straddled" not in vs[cid].why


def test_runs_stored_with_rounds_count_each_round_as_a_fork():
    df = synthetic(forks=3)
    df["round"] = df["fork"].where(df["fork"] >= 0, 0)
    df.loc[df["fork"] >= 0, "fork"] = 0   # how runs before the sweep's own interleaving stored their forks
    assert {v.forks for v in exp.verdicts(df)} == {3}


def test_verdicts_without_results_are_unmeasurable():
    assert {v.outcome for v in exp.verdicts(pd.DataFrame())} == {UNMEASURABLE}
    df = synthetic()
    df = df[df["placement"] != "cross-core"]
    vs = exp.verdicts(df)
    assert {v.outcome for v in vs} == {UNMEASURABLE} and all("different cores" in v.why for v in vs)
    no_c = synthetic({k: v for k, v in CELLS.items() if k[0] != "c-spin"})
    assert {v.outcome for v in exp.verdicts(no_c) if v.claim.id == "signalling.java-c-equal"} == {UNMEASURABLE}


# ---------------------------------------------------------------- two machines

def two_machines():
    return pd.concat([synthetic(machine="fast"), synthetic(machine="slow", scale=10.0,
                                                           run="20260101T000000Z-standard-b")], ignore_index=True)


def test_verdicts_keep_machines_apart():
    vs = exp.verdicts(two_machines())
    assert {v.machine for v in vs} == {"fast", "slow"}
    one = {v.key[:3]: v for v in exp.verdicts(synthetic(machine="fast"))}
    for v in vs:
        ref = one[v.key[:3]]
        factor = 10.0 if v.machine == "slow" and v.claim.unit in ("ns",) else \
            0.1 if v.machine == "slow" and v.claim.unit == "ops/s" else 1.0
        assert v.now_value == pytest.approx(ref.now_value * factor), (v.machine, v.key)
    assert len(vs) == 2 * len(one)


TABLES = {
    "summary": lambda df: exp.summary(df), "wide_table": lambda df: exp.wide_table(df),
    "java_vs_c": lambda df: exp.java_vs_c(df),
    "comparison_cv": lambda df: exp.comparison_cv(df, reference.load(exp.REFERENCE)),
    "comparison_itl": lambda df: exp.comparison_itl(df, reference.load(exp.REFERENCE_ITL)),
    "percentiles": lambda df: exp.percentiles(df), "timer_table": lambda df: exp.timer_table(df.assign(
        metric=df["metric"].replace({"round_trip_samples": "timer_cost", "round_trip_max": "timer_step"}))),
    "forks_table": lambda df: exp.forks_table(df), "run_to_run": lambda df: exp.run_to_run(df),
    "protocols_table": lambda df: exp.protocols_table(df, NB_ITL),
}


@pytest.mark.parametrize("name", TABLES)
def test_tables_keep_machines_apart(name, results_dir):
    t = TABLES[name](two_machines())
    assert not t.empty
    machine = t["machine"] if "machine" in t.columns else pd.Series(t.index.get_level_values("machine"))
    assert set(machine.astype(str)) == {"fast", "slow"}
    fast = TABLES[name](synthetic(machine="fast"))
    assert len(t) == 2 * len(fast)
    if name == "summary":
        s = t.set_index(["machine", "variant", "runtime", "placement"])["runs"]
        assert (s.loc["fast"] == s.loc["slow"]).all()


def test_summary_medians_are_per_machine():
    m = two_machines()
    t = exp.forks_table(m, ["locked"], placement="cross-core")
    fast = t.loc["fast"].loc[("locked", "JDK 17", "cross-core", "lab"), "median [95% interval], forks"]
    slow = t.loc["slow"].loc[("locked", "JDK 17", "cross-core", "lab"), "median [95% interval], forks"]
    assert fast.startswith("30.00 µs") and slow.startswith("300.00 µs")


def test_figures_draw_one_row_per_machine():
    import matplotlib.pyplot as plt

    m = two_machines()
    for fig, panels in ((exp.plot_ns_per_op(m), 2), (exp.plot_sorted_runs(m, ["volatile-spin", "c-spin"]), 4),
                        (exp.plot_percentiles(m, ["locked"]), 4)):
        assert len([a for a in fig.axes if a.get_visible()]) >= panels
        plt.close(fig)
    fig = exp.plot_reference_cv(reference.load(exp.REFERENCE))
    assert fig.axes
    plt.close(fig)


def test_bounded_runs_table():
    df = synthetic({("volatile-spin", "17", "same-cpu"): 4e6})
    df.loc[df["metric"] == "deadline_hit", "value"] = 1
    df = pd.concat([df, df[df["metric"] == "deadline_hit"].assign(metric="exchanges", value=125),
                    df[df["metric"] == "deadline_hit"].assign(metric="duration", value=1e9)], ignore_index=True)
    t = exp.bounded_runs(df)
    assert int(t["runs"].iloc[0]) == 15 and t["exchanges per run (median)"].iloc[0] == 125
    assert exp.bounded_runs(synthetic()).empty


# ---------------------------------------------------------------- end to end

@pytest.mark.kernel
def test_smoke_sweep_stores_tidy_rows(results_dir):
    """A slice of the smoke sweep end to end (the notebooks run all of it): rows carry placement, pinning, JDK."""
    import types

    keep = {("locked", "same-cpu", "lab"), ("volatile-spin", "unpinned", "lab"), ("c-spin", "same-cpu", "lab"),
            ("volatile-spin", "smt", "lab"), ("locked", "unpinned", "post")}
    part = types.SimpleNamespace(NAME=exp.NAME, cells=lambda preset, topo, jdks: [
        c for c in exp.cells(preset, topo, jdks) if (c.variant, c.labels["placement"], c.params["protocol"]) in keep])
    meta = sweep.execute(part, "smoke", progress=False)
    assert meta["failures"] == []
    df = meta["frame"]
    ok = df[df["status"] == "ok"]
    assert set(ok["placement"]) >= {"same-cpu", "unpinned"}
    assert set(ok.loc[ok["placement"] == "unpinned", "pinning"]) == {"none"}
    assert set(ok.loc[ok["placement"] != "unpinned", "pinning"]) == {"thread"}
    assert (ok.loc[ok["metric"] == "ns_per_op", "value"] > 0).all()
    post = ok[ok["protocol"] == "post"]
    assert set(post["variant"]) == {"locked"} and set(post["iteration"]) == {0} and not post["warmup"].any()
    assert len(exp.verdicts(df)) == len(exp.CLAIMS)   # no cross-core cell here: one 'not measurable' per claim
    assert not exp.timer_table(df).empty
