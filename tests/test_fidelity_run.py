"""mechsym.fidelity.run and `mechsym fidelity-run`: sets in rotating order, figures read from each program's output,
the row appended (checked, atomically) to a private fidelity directory. The programs are two tiny `python -c`
scripts: the tests assert what is read and written, never a timing."""

from __future__ import annotations

import contextlib
import io
import shlex
import sys

import pandas as pd
import pytest

from mechsym import MechsymError, cli, repo_root
from mechsym.fidelity import records as fidelity, run as fidelity_run
from mechsym.store import provenance
from mechsym.run import sweep

PY = shlex.quote(sys.executable)
KERNEL = f"{PY} -c 'print(\"ops/sec=2,000\")'"
LISTING = f"{PY} -c 'print(\"0 - ops/sec=1,000\"); print(\"1 - ops/sec=1,000\")'"
ARGS = dict(kernel_figure=r"ops/sec=([\d,]+)", direction="speed", sets=5, cell="tiny cell",
            listing_label="two fake programs", kernel_name="mechsym.ping.PingBuffet", jdk=None, allow_dirty=True)


@pytest.fixture
def fdir(tmp_path, monkeypatch):
    """A private fidelity directory and bench lock: a test never writes the repository's data/fidelity."""
    monkeypatch.setattr(sweep, "LOCK_FILE", tmp_path / "bench.lock")
    monkeypatch.setenv("MECHSYM_BENCH_LOCK", str(tmp_path / "bench.lock"))
    d = tmp_path / "fidelity"
    monkeypatch.setenv(fidelity_run.FIDELITY_ENV, str(d))
    return d


def test_sets_rotate_and_the_row_is_appended(fdir):
    p = fidelity_run.plan("pingbuffet", KERNEL, LISTING, **ARGS)
    assert p.out_dir == fdir.resolve()
    r = fidelity_run.measure(p, progress=lambda line: None)
    assert r.figures == {"kernel": [2000.0] * 5, "listing": [1000.0] * 5, "listing-again": [1000.0] * 5}
    assert (r.ratio, r.low, r.high, r.aa_ratio) == (2.0, 2.0, 2.0, 1.0)
    # 15 fresh processes, the first program of each set rotating: kernel, listing, listing again, kernel, ...
    assert len(p.commands) == 15
    firsts = ["kernel" if c.endswith("2,000\")'") else "listing" for c in p.commands[::3]]
    assert firsts == ["kernel", "listing", "listing", "kernel", "listing"]
    assert not p.listing_dir.exists()  # the temporary listing directory is removed
    path = fidelity_run.append(p, fidelity_run.row(p, r, machine="test-host", today="2026-01-02"))
    fidelity_run.append(p, fidelity_run.row(p, r, machine="test-host", today="2026-01-03"))
    df = pd.read_csv(path, dtype=str, keep_default_na=False)
    fidelity.validate(df, "pingbuffet", str(path))
    assert list(df["date"]) == ["2026-01-02", "2026-01-03"]
    first = df.iloc[0]
    assert (first["ratio"], first["ci_low"], first["ci_high"], first["aa_ratio"]) == ("2.000", "2.000", "2.000", "1.000")
    assert (first["interval"], first["ratio_of"], first["current"], first["sets"]) == ("bootstrap 95%", "speed", "yes", "5")
    assert first["kernel"] == "mechsym.ping.PingBuffet" and first["cell"] == "tiny cell"
    assert first["source"] == provenance.git_state().commit[:7]


def test_the_interval_comes_from_the_bootstrap_of_varying_sets():
    lo_med_hi = fidelity_run.interval([0.9, 1.0, 1.1, 1.05, 0.95, 1.0, 1.2, 0.8])
    assert lo_med_hi[1] <= lo_med_hi[0] <= lo_med_hi[2] and lo_med_hi[1] < lo_med_hi[2]
    with pytest.raises(MechsymError, match="too few"):
        fidelity_run.interval([1.0, 1.1])


def test_figures_from_a_kernel_csv_and_by_reduction():
    out = "mode,iteration,warmup,metric,value,unit\nx,0,true,rtt_p50,900,ns\nx,1,false,rtt_p50,100,ns\n" \
          "x,2,false,rtt_p50,300,ns\nx,1,false,rtt_min,50,ns\n"
    assert fidelity_run.Figure("csv:rtt_p50").read(out, "kernel") == 200.0
    assert fidelity_run.Figure(r"=(\d+)", "last").read("a=1\nb=7\n", "listing") == 7.0
    with pytest.raises(MechsymError, match="listing: no figure matches"):
        fidelity_run.Figure(r"p50=(\d+)").read("nothing here\n", "listing")
    with pytest.raises(MechsymError, match="--reduce 'mean'"):
        fidelity_run.Figure(r"(\d+)", "mean")


@pytest.mark.parametrize("change, message", [
    (dict(direction="faster"), "--direction 'faster'"),
    (dict(sets=3), "--sets 3"),
    (dict(kernel_name=None), "not a registered mechsym kernel"),
    (dict(kernel_name="mechsym.nope.Nope"), "kernel 'mechsym.nope.Nope'"),
    (dict(cpus="0;1"), "--cpus '0;1'"),
    (dict(listing_dir=str(repo_root() / "src")), "inside the repository"),
])
def test_bad_input_is_one_line(fdir, change, message):
    with pytest.raises(MechsymError, match=message.replace("(", r"\(")) as e:
        fidelity_run.plan("pingbuffet", KERNEL, LISTING, **{**ARGS, **change})
    assert "\n" not in str(e.value)


def test_a_failing_program_and_a_dirty_tree_stop_the_run(fdir, tmp_path, monkeypatch):
    p = fidelity_run.plan("pingbuffet", KERNEL, f"{PY} -c 'import sys; sys.exit(\"no such queue\")'",
                          **{**ARGS, "listing_dir": str(tmp_path)})
    with pytest.raises(MechsymError, match="exit 1: no such queue"):
        fidelity_run.measure(p, progress=lambda line: None)
    monkeypatch.setattr(provenance, "git_state", lambda: provenance.GitState("a" * 40, False, b"diff --git a/x b/x\n"))
    p = fidelity_run.plan("pingbuffet", KERNEL, LISTING, **{**ARGS, "allow_dirty": False})
    with pytest.raises(MechsymError, match="not clean"):
        fidelity_run.measure(p, progress=lambda line: None)
    assert not fdir.exists()


def test_cli_dry_run_prints_the_commands_and_writes_nothing(fdir, capsys):
    argv = ["fidelity-run", "pingbuffet", "--kernel", KERNEL, "--kernel-name", "mechsym.ping.PingBuffet",
            "--listing", LISTING, "--figure", r"ops/sec=([\d,]+)", "--direction", "speed", "--sets", "5",
            "--cell", "c", "--listing-label", "l", "--jdk", "", "--dry-run"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "5 sets of kernel, listing, listing-again" in out and "ops/sec=2,000" in out
    assert not fdir.exists()
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert cli.main([a if a != "speed" else "fast" for a in argv]) == 2
    assert err.getvalue().count("\n") == 1 and "--direction 'fast'" in err.getvalue()


def test_bracketed_sets_judge_a_run_against_the_listing_runs_beside_it():
    sets = [[100, 200, 100, 100, 100],      # steady: kernel 2x, A/A 1x
            [100, 200, 150, 150, 150],      # the listing moved across the kernel's run: its ratio is dropped
            [100, 50, 105, 210, 100],       # within 10%: kept, whatever the kernel and the A/A ran at
            [100, 1e9, 100, 100, 300]]      # the kernel's own figure never drops a set; the A/A's bracket moved
    ratios, aa = fidelity_run.bracketed(sets, 0.1)
    assert ratios.tolist() == pytest.approx([2.0, 50 / (100 * 105) ** 0.5, 1e7])
    assert aa.tolist() == pytest.approx([1.0, 1.0, 210 / (105 * 100) ** 0.5])
    assert fidelity_run.bracketed(sets, 0.6)[0].size == 4
    with pytest.raises(MechsymError, match="rows of 5 figures"):
        fidelity_run.bracketed([[1, 2, 3]], 0.1)


def test_a_bracketed_run_orders_its_sets_and_refuses_too_few_kept(fdir, tmp_path):
    p = fidelity_run.plan("pingbuffet", KERNEL, LISTING, **{**ARGS, "design": "bracketed", "tolerance": 0.05})
    r = fidelity_run.measure(p, progress=lambda line: None)
    assert (r.ratio, r.aa_ratio, len(r.ratios), r.run) == (2.0, 1.0, 5, 5)
    kinds = ["kernel" if c.endswith("2,000\")'") else "listing" for c in p.commands]
    assert kinds == ["listing", "kernel", "listing", "listing", "listing"] * 5
    row = fidelity_run.row(p, r, machine="test-host", today="2026-01-02")
    assert row["sets"] == "5" and "5 of 5 sets kept" in row["note"] and "within 5%" in row["note"]
    # a listing that alternates 100 / 200 from one run to the next: no bracket holds, no row
    flip = (f"{PY} -c 'import pathlib; f = pathlib.Path(\"n\"); n = int(f.read_text()) if f.exists() else 0; "
            f"f.write_text(str(n + 1)); print(\"ops/sec=%d\" % (100 * (1 + n % 2)))'")
    p = fidelity_run.plan("pingbuffet", KERNEL, flip, **{**ARGS, "design": "bracketed", "listing_dir": str(tmp_path)})
    with pytest.raises(MechsymError, match="0 of 5 bracketed sets kept"):
        fidelity_run.measure(p, progress=lambda line: None)
    for bad, message in [(dict(design="paired"), "--design 'paired'"), (dict(tolerance=0), "--tolerance 0")]:
        with pytest.raises(MechsymError, match=message):
            fidelity_run.plan("pingbuffet", KERNEL, LISTING, **{**ARGS, **bad})


def test_a_keep_condition_counts_only_the_sets_whose_runs_meet_it(fdir, tmp_path):
    """VolatilePingPong's gate, as the verdicts apply it: a kernel run whose counters straddled two lines timed two
    lines where the listing times one; with --kernel-keep its set is left out, whatever its figure, and said."""
    n = tmp_path / "runs"
    kernel = (f"{PY} -c 'import pathlib; f = pathlib.Path(\"{n}\"); i = int(f.read_text()) if f.exists() else 0; "
              "f.write_text(str(i + 1)); one = i % 2 == 0; print(\"pinning,iteration,warmup,metric,value,unit\"); "
              "print(\"none,0,false,throughput,%d,ops/s\" % (2000 if one else 500)); "
              "print(\"none,0,false,counters_share_line,%d,bool\" % one)'")
    args = {**ARGS, "kernel_figure": "csv:throughput", "listing_figure": r"ops/sec=([\d,]+)", "sets": 10}
    p = fidelity_run.plan("signalling", kernel, LISTING, **args, kernel_keep="csv:counters_share_line=1")
    lines = []
    r = fidelity_run.measure(p, progress=lines.append)
    assert r.figures["kernel"] == [2000.0, 500.0] * 5   # every run is read and reported
    assert (r.ratio, r.low, r.high, len(r.ratios), r.run) == (2.0, 2.0, 2.0, 5, 10)
    assert sum("left out: not every kernel run meets 'csv:counters_share_line=1'" in x for x in lines) == 5
    row = fidelity_run.row(p, r, machine="test-host", today="2026-01-02")
    assert row["sets"] == "5" and "5 of 10 sets counted, those whose kernel runs meet" in row["note"]
    assert "medians of the counted sets: kernel 2k, listing 1k" in row["note"]   # the left-out runs' 500 not in it
    assert any("kept:" in x for x in p.describe())
    # too few sets meet it: no row; a keep that is not csv:METRIC=NUMBER nor a regex: one line
    n.unlink()
    p = fidelity_run.plan("signalling", kernel, LISTING, **{**args, "sets": 8}, kernel_keep="csv:counters_share_line=1")
    with pytest.raises(MechsymError, match="4 of 8 sets kept"):
        fidelity_run.measure(p, progress=lambda line: None)
    for bad, message in (("csv:counters_share_line", "give csv:METRIC=NUMBER"), ("(", "keep regex")):
        with pytest.raises(MechsymError, match=message) as e:
            fidelity_run.plan("signalling", kernel, LISTING, **args, kernel_keep=bad)
        assert "\n" not in str(e.value)
