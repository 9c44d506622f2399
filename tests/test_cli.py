import json
import re
import shutil
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import ROOT, VENV_BIN, default_sigint, mechsym
from mechsym.run import harness


def one_line_error(r, text):
    assert r.returncode == 2, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert text in lines[0], lines[0]


def stored_files(root: Path):
    return {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}


def wait_for_child(parent: subprocess.Popen, text: str, timeout: float = 60) -> bool:
    """Poll until `parent` has a child process whose command line contains `text` (e.g. the kernel of a run's first
    fork): the state a signal test waits for, instead of sleeping and hoping. False when the parent exits first or
    the timeout passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and parent.poll() is None:
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
                if ppid == parent.pid and text in (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode():
                    return True
            except (OSError, IndexError, ValueError):
                continue  # gone meanwhile
        time.sleep(0.02)
    return False


SMALL = ["--preset", "smoke", "--threads", "1", "--jdk", "17", "--only", "variant=monitor-thin,reentrant;grid=main",
         "--no-progress"]


@pytest.fixture
def seeded(results_dir, smoke_store):
    """A results store with one earlier run in it: the smoke run of locks (`mechsym run locks --preset smoke`, run
    once per test run: tests/conftest.py's smoke_store)."""
    shutil.copytree(smoke_store("locks"), results_dir, dirs_exist_ok=True)
    return results_dir, stored_files(results_dir)


def fits(text: str, width: int = 100) -> None:
    """What a person reads: every line within 100 columns, no scientific notation, nothing cut with '…'."""
    for line in text.splitlines():
        assert len(line) <= width, f"{len(line)} columns: {line}"
    assert not re.search(r"\de[+-]\d", text), text
    assert "…" not in text and "NaN" not in text and " nan" not in text, text


def test_list(seeded):
    root, before = seeded
    r = mechsym("list")
    assert r.returncode == 0, r.stderr
    fits(r.stdout)
    from mechsym.store import runs as store
    from mechsym.machine.jdk import discover

    assert f"machine  {store.machine_id()}" in r.stdout and "this machine" in r.stdout
    for j in discover():  # version, vendor and home of every JDK a sweep would use
        assert re.search(rf"{j.feature}\s+{re.escape(j.version)}\s+{re.escape(j.vendor)}\s+{re.escape(str(j.home))}",
                         r.stdout), r.stdout
    assert "locks" in r.stdout and "01-lock-implementations" in r.stdout
    run_id = next(p.stem for p in before if p.suffix == ".json")
    assert re.search(rf"locks\s+{run_id}\s+smoke\s+lab\s+\d+ (s|min)\s+(current|stale|unknown)", r.stdout), r.stdout


def test_list_imports_neither_pandas_nor_matplotlib_nor_jpype(results_dir):
    code = ("import sys, contextlib, io\nfrom mechsym import cli\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n    assert cli.main(['list']) == 0\n"
            "loaded = [m for m in ('pandas', 'numpy', 'matplotlib', 'jpype') if m in sys.modules\n"
            "          and type(sys.modules[m]).__name__ != 'Deferred']\n"
            "print(loaded)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    # an experiment whose TITLE, NOTEBOOKS or PRESETS are not literals in its source is imported (and pandas with it)
    assert r.stdout.strip() == "[]", r.stdout + mechsym("list").stdout


@pytest.mark.parametrize("args, text", [
    (["run", "nope"], "experiment 'nope': unknown (known experiments:"),
    (["run", "locks", "--preset", "huge"], "preset 'huge': allowed presets are smoke, standard, full"),
    (["run", "locks", "--preset", "smoke", "--threads", "0"], "threads '0': must be a whole number >= 1"),
    (["run", "locks", "--preset", "smoke", "--threads", "many"], "threads 'many': must be a whole number >= 1"),
    (["run", "locks", "--preset", "smoke", "--cpus", "999"], "CPU ids 999: this machine has CPUs"),
    (["run", "locks", "--preset", "smoke", "--jdk", "/tmp"], "JDK path /tmp: no executable bin/java"),
    (["run", "locks", "--preset", "smoke", "--jvm-flags=-XX:+NoSuchFlag"], "rejects them: Unrecognized VM option 'NoSuchFlag'"),
    (["run", "locks", "--preset", "smoke", "--timeout", "0"], "must be a number of seconds > 0"),
    (["show", "nope"], "experiment 'nope': unknown"),
    (["run"], "the following arguments are required: experiment"),
    (["run", "locks", "--preset", "smoke", "--only", "colour=red"], "only 'colour=red': unknown key 'colour'"),
    (["run", "locks", "--preset", "smoke", "--only", "variant=nope"], "matches no cell"),
    (["frobnicate"], "invalid choice: 'frobnicate'"),
])
def test_bad_input_leaves_results_untouched(seeded, args, text):
    root, before = seeded
    r = mechsym(*args)
    one_line_error(r, text)
    assert stored_files(root) == before


def test_run_stores_a_run_with_metadata(seeded):
    root, _ = seeded
    metas = [json.loads(p.read_text()) for p in root.rglob("*.json")]
    assert len(metas) == 1
    m = metas[0]
    for key in ("machine", "jdks", "git_commit", "start", "end", "commands", "preset", "taskset"):
        assert key in m
    assert m["machine"]["logical_cpus"] >= 1 and m["status"] == "complete"
    assert all("mechsym.locks.LockContention" in c for c in m["commands"])
    r = mechsym("show", "locks")
    assert r.returncode == 0 and "throughput" in r.stdout


@pytest.mark.kernel
def test_unavailable_cells_are_named_not_zero(results_dir):
    r = mechsym("run", "locks", "--preset", "smoke", "--threads", "1", "--only", "variant=monitor-thin,reentrant;grid=main",
                "--no-progress")
    assert r.returncode == 0, r.stderr
    from mechsym.store import runs as store

    df = store.load("locks")
    from mechsym.machine.jdk import discover

    if any(j.feature >= 18 for j in discover()):
        u = df[df["status"] == "unavailable"]
        assert len(u) and u["note"].str.startswith("not available on JDK").all()
        assert u["value"].isna().all()
    timed = df[(df["status"] == "ok") & ~df["metric"].isin(harness.HARNESS_METRICS)]   # JIT/GC ms may be 0
    assert (timed["value"] > 0).all()


@pytest.mark.kernel
def test_taskset_missing_runs_unpinned_and_says_so(results_dir):
    r = mechsym("run", "locks", *SMALL, "--cpus", "0", env={"MECHSYM_NO_TASKSET": "1"})
    assert r.returncode == 0, r.stderr
    meta = json.loads(next(results_dir.rglob("*.json")).read_text())
    assert meta["taskset"].startswith("missing")
    from mechsym.store import runs as store

    assert set(store.load("locks")["taskset"].dropna()) == {"taskset-missing"}


@pytest.mark.kernel
def test_taskset_pins_when_present(results_dir):
    r = mechsym("run", "locks", *SMALL, "--cpus", "0")
    assert r.returncode == 0, r.stderr
    meta = json.loads(next(results_dir.rglob("*.json")).read_text())
    assert all(c.startswith("taskset -c 0 ") for c in meta["commands"])


@pytest.mark.kernel
def test_kernel_timeout_is_reported_and_not_stored(results_dir):
    r = mechsym("run", "locks", *SMALL, "--timeout", "0.05")
    assert r.returncode != 0
    assert "killed after its timeout of 0.05 s" in r.stderr
    assert not [p for p in results_dir.rglob("*.json")]


def test_corrupt_results_file_is_named(seeded):
    root, _ = seeded
    csv = next(root.rglob("*.csv"))
    csv.write_text("garbage,\n\"unterminated\n")
    r = mechsym("show", "locks")
    one_line_error(r, f"corrupt results file {csv}")


@pytest.mark.kernel
def test_ctrl_c_keeps_earlier_results(seeded):
    root, before = seeded
    p = subprocess.Popen([str(VENV_BIN / "mechsym"), "run", "locks", "--preset", "smoke", "--no-progress"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy(),
                         preexec_fn=default_sigint)
    assert wait_for_child(p, "mechsym.locks.LockContention"), "the run never started its first fork"
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "interrupted" in err
    after = stored_files(root)
    assert all(after[k] == v for k, v in before.items())
    from mechsym.store import runs as store

    # the earlier complete run is still the one shown; an interrupted one, if any, is kept but hidden
    seeded_ids = {p.stem for p in before if p.suffix == ".json"}
    assert {m["run_id"] for m in store.runs("locks")} == seeded_ids
    assert set(store.load("locks")["run_id"]) == seeded_ids
    extra = [m for m in store.runs("locks", include_incomplete=True) if m["run_id"] not in seeded_ids]
    assert all(m["status"] == "interrupted" for m in extra)


def test_verdicts_command(seeded):
    r = mechsym("verdicts", "locks", "--format", "csv")
    assert r.returncode == 0, r.stderr
    assert "locks.biased-huge-benefit" in r.stdout


def test_show_names_its_run_and_reads_at_100_columns(seeded):
    root, before = seeded
    run_id = next(p.stem for p in before if p.suffix == ".json")
    r = mechsym("show", "locks")
    assert r.returncode == 0, r.stderr
    fits(r.stdout)
    first = r.stdout.splitlines()[0]
    assert first.startswith(f"locks: run {run_id} · preset smoke · ") and "UTC" in first, first
    from mechsym.store import runs as store

    assert f"machine {store.machine_id()}" in r.stdout
    assert re.search(r"median \(ops/s\)\s+forks' range\s+forks", r.stdout), r.stdout
    assert re.search(r"monitor-thin\s.*\d+(\.\d)?M\s", r.stdout), r.stdout    # 312.4M, not 312412345.0
    short = run_id.rsplit("-", 1)[1]
    by_id = mechsym("show", "locks", "--run", short, "--metric", "duration")
    assert by_id.returncode == 0, by_id.stderr
    fits(by_id.stdout)
    assert by_id.stdout.splitlines()[0] == first
    assert re.search(r"\d (ns|µs|ms|s)\b", by_id.stdout), by_id.stdout
    one_line_error(mechsym("show", "locks", "--preset", "standard"), "locks: no stored standard results")
    one_line_error(mechsym("show", "locks", "--run", "nosuchrun"), "run 'nosuchrun': no stored run of locks matches")
    one_line_error(mechsym("show", "locks", "--metric", "colour"), "metric 'colour': not in this run")


@pytest.mark.kernel
def test_run_ends_with_a_summary_and_compare_puts_two_runs_side_by_side(seeded):
    root, before = seeded
    first = next(p.stem for p in before if p.suffix == ".json")
    r = mechsym("run", "locks", *SMALL)
    assert r.returncode == 0, r.stderr
    fits(r.stdout)
    second = re.search(r"stored run (\S+):", r.stdout).group(1)
    assert re.search(r"locks \[smoke\]: measured \d+ cells, \d+ forks in \d+ s: .*throughput \(ops/s\)", r.stdout)
    assert f"see it: mechsym show locks --run {second.rsplit('-', 1)[1]}" in r.stdout
    assert "not measurements" in r.stdout       # a smoke run says what it is
    c = mechsym("compare", first, second)
    assert c.returncode == 0, c.stderr
    fits(c.stdout)
    assert f"A = run {first}" in c.stdout and f"B = run {second}" in c.stdout
    assert re.search(r"A median \(ops/s\)\s+B median \(ops/s\)\s+B / A", c.stdout), c.stdout
    assert re.search(r"reentrant\s.*\d\.\d\dx", c.stdout), c.stdout
    one_line_error(mechsym("compare", first, "nosuchrun"), "run 'nosuchrun': no stored run matches")


def test_dry_run_ends_with_forks_and_an_estimate(seeded):
    r = mechsym("run", "locks", *SMALL, "--dry-run")
    assert r.returncode == 0, r.stderr
    last = " ".join(r.stdout.strip().splitlines()[-2:])
    assert re.search(r"locks \[smoke\]: \d+ cells, \d+ forks", last), last
    assert re.search(r"estimated \d+ s \([\d.]+ s a fork in 1 earlier smoke run on this machine\)", last), last


def test_verdicts_are_wrapped_and_name_the_runs_judged(seeded):
    root, before = seeded
    run_id = next(p.stem for p in before if p.suffix == ".json")
    r = mechsym("verdicts", "locks")
    assert r.returncode in (0, 1), r.stderr
    fits(r.stdout)
    assert f"judged: run {run_id} (preset smoke" in r.stdout
    assert re.search(r"scope\s+protocol\s+holds\?\s+now\s+runs agreeing", r.stdout), r.stdout
    tail = " ".join(r.stdout.split())
    assert re.search(r"\d+ claims \(each by its primary verdict, marked \*\): .*\d+ verdicts in all", tail), tail


def test_portable_paths_name_no_persons_directories(monkeypatch, tmp_path):
    """What run metadata should record (mechsym.portable): paths in the checkout relative to it, scratch paths under
    $MECHSYM_SCRATCH, system paths as they are."""
    from mechsym import portable, repo_root

    monkeypatch.setenv("MECHSYM_SCRATCH", str(tmp_path))
    root = repo_root().resolve()
    meta = {"commands": [f"/usr/lib/jvm/jdk/bin/java -cp {root}/build/mechsym.jar:{root}/build/lib/x.jar mechsym.io.X "
                         f"--file={tmp_path}/seqio-1/seqio.dat"],
            "scratch": {"base": str(tmp_path), "default": f"{root}/scratch-io"}, "rows": 12, "root": str(root),
            "neighbour": f"{root}-old/build"}
    assert portable(meta) == {
        "commands": ["/usr/lib/jvm/jdk/bin/java -cp build/mechsym.jar:build/lib/x.jar mechsym.io.X "
                     "--file=$MECHSYM_SCRATCH/seqio-1/seqio.dat"],
        "scratch": {"base": "$MECHSYM_SCRATCH", "default": "scratch-io"}, "rows": 12, "root": ".",
        "neighbour": f"{root}-old/build"}


def test_dry_run_prints_the_class_path_once_and_fits_100_columns(results_dir):
    """Without --preset a run is a smoke run (and says how to ask for standard); its dry run names the class path
    once, as a shell assignment, and every command as shell lines within 100 columns."""
    r = mechsym("run", "locks", "--dry-run")
    assert r.returncode == 0, r.stderr
    fits(r.stdout)
    assert "preset smoke (the default" in r.stderr and "mechsym run locks --preset standard" in r.stderr
    assert re.search(r"^locks \[smoke\]: \d+ cells", r.stdout, re.M), r.stdout[-500:]
    assert r.stdout.count("mechsym.jar") == 1 and r.stdout.startswith("CP=\\\n")
    assert " -cp $CP " in r.stdout or " -cp $CP\n" in r.stdout
    lines = r.stdout.splitlines()
    first = lines.index("monitor-thin")   # a variant, then its command: continued lines end with ` \`
    assert lines[first + 1].startswith("  /") and lines[first + 1].endswith(" \\")


def test_until_decided_lines_are_wrapped_with_their_indent(capsys):
    from mechsym.cli.run import _wrapped

    _wrapped("  locks.monitor-faster: " + "still inconclusive at --max-forks 40, " * 6)
    _wrapped("")
    out = capsys.readouterr().out.splitlines()
    assert len(out) > 2 and max(map(len, out)) <= 100 and out[-1] == ""
    assert out[0].startswith("  locks.monitor") and all(line.startswith("    ") for line in out[1:-1])


def test_list_has_a_protocol_column_and_fits_100_columns(results_dir):
    """The stored runs by machine, with the protocol (lab | jmh) and the run an until-decided run extends."""
    store = ROOT / "data" / "results"
    machine = next(p for p in sorted(store.iterdir()) if list(p.glob("locks/*-ace4b2.json")))
    for run in ("ace4b2", "64e467", "104992"):   # a lab run, a JMH run of the same cells, an extension of the first
        for f in (machine / "locks").glob(f"*-{run}.*"):
            (results_dir / machine.name / "locks").mkdir(parents=True, exist_ok=True)
            shutil.copy2(f, results_dir / machine.name / "locks" / f.name)
    r = mechsym("list")
    assert r.returncode == 0, r.stderr
    fits(r.stdout)
    assert re.search(r"experiment\s+run id\s+preset\s+protocol\s+took\s+code", r.stdout), r.stdout
    assert re.search(r"-64e467\s+standard\s+jmh\s", r.stdout) and re.search(r"-104992\s+standard\s+lab \+ace4b2",
                                                                            r.stdout), r.stdout
    c = mechsym("compare", "ace4b2", "64e467")   # a lab run against a JMH run: their columns differ
    assert c.returncode == 0, c.stderr
    fits(c.stdout)
    assert "A is protocol lab, B protocol jmh: cells matched on" in c.stdout
    assert re.search(r"monitor-thin\s.*\d\.\d\dx", c.stdout), c.stdout
    d = mechsym("compare", "64e467", "ace4b2")   # the JMH run first: the lab run's thread counts stay apart
    assert d.returncode == 0, d.stderr
    fits(d.stdout)
    assert re.search(r"^\s*variant .*\bthreads\b", d.stdout, re.M) and re.search(r"monitor-thin\s.*\d\.\d\dx", d.stdout)


def test_make_fleet_without_preset_runs_smoke_and_says_so():
    venv = Path(sys.executable).parent.parent
    r = subprocess.run(["make", "-n", "-o", "all", "-o", "fleet-deps", "fleet", f"VENV={venv}",
                        "INVENTORY=fleet/inventory.example.ini", "EXPERIMENTS=writecombining"],
                       cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "--preset smoke" in r.stdout and "PRESET=standard" in r.stdout, r.stdout
