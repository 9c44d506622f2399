"""The write-combining experiment package (notebook 07): sweep cells, claims, verdicts, tables and figures.

Synthetic tidy rows with several forks per cell (so intervals exist), two synthetic machines kept apart, and the
smoke sweep end to end through the CLI. No test asserts a timing."""

import shutil

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

from mechsym import MechsymError  # noqa: E402
from mechsym.store import reference, runs as store
from mechsym.experiments import writecombining as exp  # noqa: E402
from mechsym.machine.jdk import discover  # noqa: E402
from mechsym.judge.verdicts import FAILS, HOLDS, UNMEASURABLE  # noqa: E402
from synthetic import topology  # noqa: E402

TOPO = topology()
CLAIMS = [c.id for c in exp.CLAIMS]


# ---------------------------------------------------------------- sweep

def test_standard_cells():
    jdks = list(discover())
    cs = exp.cells("standard", TOPO, jdks)
    p = exp.PRESETS["standard"]
    listing = [c for c in cs if c.variant == "listing"]
    assert len(listing) == len(jdks) + 1 and all(c.params["protocol"] == "post" for c in listing)
    assert all(c.params["iterations"] == p["post_iterations"] and c.params["runs"] == 3 for c in listing)
    first = [c for c in cs if c.variant != "listing" and c.jdk in (None, jdks[0])]
    for language in ("java", "c"):
        mine = [c for c in first if c.labels["language"] == language]
        assert sorted(c.params["arrays"] for c in mine if c.variant == "single-loop") == p["arrays"]
        assert [(c.params["arrays"], c.params["per-loop"]) for c in mine if c.variant == "split-loops"] == [(6, 3)]
    assert all(c.params["per-loop"] == c.params["arrays"] for c in cs if c.variant == "single-loop")
    for jdk in jdks[1:]:   # every JDK runs the whole sweep: four-buffers is judged on each
        assert sorted(c.params["arrays"] for c in cs if c.jdk == jdk and c.variant == "single-loop") == p["arrays"]
    judged = [c for c in cs if c.variant != "listing-jit"]   # the JIT-logged fork is shown, never judged
    assert all(c.forks >= 5 and c.cpus is None and not c.unavailable for c in judged)
    assert all(c.jdk is None for c in cs if c.kernel == exp.C_KERNEL)


def test_full_preset_is_the_posts_size_and_smoke_is_small():
    full, smoke = exp.PRESETS["full"], exp.PRESETS["smoke"]
    assert full["post_iterations"] == 2**31 - 1 and full["items"] == 1 << 24 and full["arrays"] == list(range(1, 13))
    assert smoke["post_iterations"] * max(smoke["arrays"]) <= 1 << 22
    assert len({c.jdk for c in exp.cells("smoke", TOPO, list(discover())) if c.jdk}) == 1


def test_unknown_preset_variant_and_arrays_are_one_line_errors():
    with pytest.raises(MechsymError, match="preset 'huge': allowed presets are smoke"):
        exp.cells("huge", TOPO, [])
    with pytest.raises(MechsymError, match="variant 'fused': allowed sweep variants are single-loop, split-loops"):
        exp.sweep_cell("fused", 4, "smoke", None)
    with pytest.raises(MechsymError, match="arrays 13: allowed 1..12 in one loop, 6 in loops of 3"):
        exp.sweep_cell("single-loop", 13, "smoke", None)
    with pytest.raises(MechsymError, match="arrays 4: allowed"):
        exp.sweep_cell("split-loops", 4, "smoke", None)


# ---------------------------------------------------------------- claims

def test_reference_holds_the_posts_output():
    ref = reference.load(exp.REFERENCE)
    out = ref[ref["table"] == "Output"].sort_values(["repetition", "per_loop"], ascending=[True, False])
    assert out["value"].astype("int64").tolist() == [14019753545, 8972368661, 14162455066, 8887610558,
                                                     13800914725, 7271752889]
    assert set(ref["post"]) == {exp.POST_FILE}
    assert ref.loc[ref["metric"] == "iterations", "value"].iloc[0] == 2**31 - 1


def test_the_posts_numbers_pass_the_split_claim():
    claim = exp.CLAIM["writecombining.split-faster"]
    assert claim.rule.holds_at(claim.then_value()) and round(claim.then_value(), 2) == 1.67


def test_knee_is_the_first_arrays_past_3_costing_more_per_store():
    arrays = [1, 3, 4, 5, 6, 8]
    forks = np.ones((5, len(arrays)))
    assert exp.knee(forks * [2.0, 1.0, 1.0, 1.3, 1.6, 2.0], arrays) == 5   # N = 1 is no knee: it is below 3
    assert exp.knee(forks * [1.0, 1.0, 1.1, 1.1, 1.1, 1.19], arrays) == 9   # none up to 8: one past the sweep


# ---------------------------------------------------------------- synthetic results

def synthetic(machine="m", single=1.0, split=0.5, ratio=None, forks=5, cold=1.0, runtimes=("17", "c")):
    """Tidy rows as the sweep stores them: the listing (SingleLoop `single`, SplitLoop `split` ns/store) and the
    sweep, where one loop of N costs `ratio(N)` times the SplitLoop's 0.3 ns per store (default: 2x from 5 arrays
    on)."""
    ratio = ratio or (lambda n: 2.0 if n >= 5 else 1.0)
    rows = []

    def add(variant, jdk, arrays, per_loop, fork, iteration, warmup, ns, protocol):
        stores = 1000 * arrays
        for metric, value, unit in (("duration", ns * stores, "ns"), ("stores", stores, "count"),
                                    ("ns_per_store", ns, "ns")):
            rows.append(dict(variant=variant, protocol=protocol, jdk=jdk, arrays=arrays, per_loop=per_loop,
                             iterations=2**26 if variant != "listing" else 2**29,
                             fork=fork, iteration=iteration, warmup=warmup, metric=metric, value=value, unit=unit,
                             status="ok", note=""))

    for jdk in runtimes:
        for f in range(forks):
            wobble = 1 + 0.01 * ((f % 3) - 1)
            for r in range(3):
                add("listing", jdk, 6, 6, f, r, False, single * wobble, "post")
                add("listing", jdk, 6, 3, f, r, False, split * wobble, "post")
            cells = [("single-loop", n, n, ratio(n) * 0.3) for n in [1, 2, 3, 4, 5, 6, 8, 12]]
            for variant, n, per_loop, ns in cells + [("split-loops", 6, 3, 0.3)]:
                for r in range(3):
                    add(variant, jdk, n, per_loop, f, r, r == 0, ns * wobble * (cold if r == 0 else 1), "lab")
    df = pd.DataFrame(rows)
    df.insert(0, "run_id", "20260101T000000Z-standard-abcdef")
    df["experiment"], df["machine"] = exp.NAME, machine
    return df


def outcomes(df):
    return {(v.claim.id, v.scope_text, v.protocol): v.outcome for v in exp.verdicts(df)}


def test_verdicts_hold_per_runtime_and_protocol():
    o = outcomes(synthetic())
    assert len(o) == len(CLAIMS) * 2 * 2   # claims x {JDK 17, C} x {post, lab}
    assert set(o.values()) == {HOLDS}
    v = next(v for v in exp.verdicts(synthetic()) if v.claim.id == "writecombining.four-buffers")
    assert v.now.startswith("5 arrays") and "8: 2.00x" in v.now


def test_verdicts_fail_when_splitting_does_not_pay_and_the_knee_is_late():
    o = outcomes(synthetic(single=0.5, split=0.5, ratio=lambda n: 2.0 if n >= 8 else 1.0))
    assert {o[("writecombining.split-faster", "C (gcc)", p)] for p in ("post", "lab")} == {FAILS}
    assert o[("writecombining.four-buffers", "JDK 17", "lab")] == FAILS
    flat = outcomes(synthetic(ratio=lambda n: 1.0))
    assert flat[("writecombining.four-buffers", "C (gcc)", "lab")] == FAILS   # 13: none up to 12


def test_cold_first_runs_feed_the_posts_reading_of_the_sweep():
    """The post protocol reads the sweep's first (warm-up) run: cold runs twice as slow past 3 arrays move the
    post's knee to 4, and leave the lab's at 5."""
    o = outcomes(synthetic(cold=2.0))
    assert o[("writecombining.four-buffers", "JDK 17", "post")] == HOLDS
    df = synthetic()
    first = (df["variant"] == "single-loop") & df["warmup"] & (df["arrays"] >= 4)
    df.loc[first & (df["metric"] == "ns_per_store"), "value"] *= 2
    vs = {(v.claim.id, v.scope_text, v.protocol): v for v in exp.verdicts(df)}
    assert vs[("writecombining.four-buffers", "JDK 17", "post")].now.startswith("4 arrays")
    assert vs[("writecombining.four-buffers", "JDK 17", "lab")].now.startswith("5 arrays")


def test_verdicts_without_results_or_cells_are_unmeasurable():
    empty = synthetic().iloc[0:0]
    assert {v.outcome for v in exp.verdicts(empty)} == {UNMEASURABLE}
    listing_only = synthetic()
    listing_only = listing_only[listing_only["variant"] == "listing"]
    o = outcomes(listing_only)
    assert o[("writecombining.split-faster", "JDK 17", "post")] == HOLDS
    assert o[("writecombining.split-faster", "JDK 17", "lab")] == UNMEASURABLE
    assert o[("writecombining.four-buffers", "C (gcc)", "lab")] == UNMEASURABLE


def test_a_listing_case_with_no_runs_left_is_unmeasurable_not_an_error():
    """A smoke run under load can set every SplitLoop post run of a JDK aside (JIT or GC over 5% of its time)."""
    df = synthetic()
    df = df[~((df["variant"] == "listing") & (df["per_loop"] == 3) & (df["jdk"] == "17"))]
    assert list(exp.listing_forks(df, "JDK 17").columns) == ["single loop", "split loops"]
    o = outcomes(df)
    assert o[("writecombining.split-faster", "JDK 17", "post")] == UNMEASURABLE
    assert o[("writecombining.split-faster", "C (gcc)", "post")] == HOLDS
    for name, table in TABLES.items():
        assert len(table(df)), name


def test_verdicts_and_tables_keep_machines_apart():
    df = pd.concat([synthetic(machine="fast"), synthetic(machine="slow", single=0.5, split=0.5)])
    by = {(v.machine, v.claim.id, v.scope_text, v.protocol): v.outcome for v in exp.verdicts(df)}
    assert by[("fast", "writecombining.split-faster", "JDK 17", "post")] == HOLDS
    assert by[("slow", "writecombining.split-faster", "JDK 17", "post")] == FAILS
    t = exp.listing_table(df, reference.load(exp.REFERENCE))
    assert set(t.index.get_level_values("machine")) == {"fast", "slow"}


TABLES = {
    "listing_table": lambda df: exp.listing_table(df, reference.load(exp.REFERENCE)),
    "repetitions": exp.repetitions, "sweep_table": exp.sweep_table, "forks_table": exp.forks_table,
    "protocols_table": exp.protocols_table, "summary": exp.summary,
}


@pytest.mark.parametrize("name", TABLES)
def test_tables_read_as_numbers(name):
    from mechsym.judge.analysis import readable

    t = readable(TABLES[name](synthetic()))
    assert len(t)
    text = " ".join(t.astype(str).values.ravel())
    assert "nan" not in text.lower() and "e+" not in text and "e-0" not in text


def test_reference_table_and_figures():
    ref = reference.load(exp.REFERENCE)
    t = exp.reference_table(ref)
    assert t["SingleLoop / SplitLoop"].tolist() == ["1.56x", "1.59x", "1.90x"]
    df = pd.concat([synthetic(machine="a"), synthetic(machine="b")])
    for fig in (exp.plot_reference(ref), exp.plot_listing(df, ref), exp.plot_sweep(df)):
        assert fig.axes
    assert len([a for a in exp.plot_sweep(df).axes if a.get_visible()]) == 2 * 2 * 2   # machines x runtimes x 2


# ---------------------------------------------------------------- end to end

def test_smoke_sweep_through_the_cli(results_dir, smoke_store):
    shutil.copytree(smoke_store(exp.NAME), results_dir, dirs_exist_ok=True)   # `mechsym run ... --preset smoke`, once
    df = store.load(exp.NAME, "all", preset="smoke")
    ok = df[df["status"] == "ok"]
    assert set(ok["variant"]) == set(exp.VARIANTS)
    assert set(ok["jdk"].astype(str)) >= {"c"} and (ok.loc[ok["metric"] == "ns_per_store", "value"] > 0).all()
    listing = ok[ok["variant"] == "listing"]
    assert set(listing["per_loop"].astype(int)) == {3, 6} and not listing["warmup"].astype(bool).any()
    assert {v.claim.id for v in exp.verdicts(df)} == set(CLAIMS)
