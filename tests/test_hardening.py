"""Hardening: the faults a hostile tester tried, each ending in one line (or a correct run), a non-zero exit
where refused, the store as it was, nothing left behind (no process, no scratch). Fake kernels are small Python
programs; the few real kernels run at their smallest sizes. No test asserts a timing or sleeps to synchronize: signal
tests poll for the state they need."""

from __future__ import annotations

import contextlib
import errno
import io
import json
import os
import signal
import subprocess
import sys
import tarfile
import textwrap
import time
import types
import warnings
from pathlib import Path

import pandas as pd
import pytest

from conftest import VENV_BIN, assert_refused, default_sigint, kernel_process, mechsym
from mechsym import MechsymError, launch, store, sweep
from mechsym.launch import KernelError, Launch
from mechsym.sweep import Cell

LOCKS = "mechsym.locks.LockContention"
SPSC = "mechsym.spsc.SpscThroughput"
SMOKE_ATOMIC = ("run", "locks", "--preset", "smoke", "--only", "variant=atomic;threads=1", "--no-progress")


def fake(code: str) -> Launch:
    return Launch([sys.executable, "-c", textwrap.dedent(code)], "none")


def one_line(r, text: str, code: int = 2) -> None:
    """Refused in one line on stderr that names `text`, with exit code `code`, and no traceback."""
    assert r.returncode == code, (r.returncode, r.stdout[-500:], r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert text in lines[0], lines[0]


def poll(predicate, timeout: float = 60.0, every: float = 0.05) -> bool:
    """Wait for a state (never for a time): True once predicate() holds, False when the timeout passes first."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(every)
    return predicate()


def gone(pid: int) -> bool:
    """The process has exited: no such pid, or a zombie nobody has reaped yet (it runs nothing)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def children(pid: int, text: str) -> list[int]:
    out = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmd = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError, ValueError):
            continue
        if ppid == pid and text in cmd and not gone(int(proc.name)):
            out.append(int(proc.name))
    return out


def snapshot(root: Path) -> dict:
    return {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}


# ---------------------------------------------------------------- 5: timeouts; the kernel never outlives the bench

@pytest.mark.parametrize("value", ["inf", "1e12", "nan", "-1", "0", "abc", "86401", None])
def test_a_timeout_is_a_finite_number_of_seconds_up_to_a_day(value):
    with pytest.raises(MechsymError, match=r"must be a number of seconds > 0 and at most 86400 \(24 h\)"):
        launch.check_timeout(value)
    assert launch.check_timeout("0.05") == 0.05 and launch.check_timeout(86400) == 86400


def test_launch_refuses_an_infinite_timeout_before_starting_anything(tmp_path):
    marker = tmp_path / "started"
    k = fake(f"open({str(marker)!r}, 'w').close(); print('iteration,warmup,metric,value,unit'); print('0,false,m,1,x')")
    for reply in (None, lambda line: None):
        with pytest.raises(MechsymError, match="timeout 'inf'"):
            launch.run(k, timeout=float("inf"), reply=reply)
    assert not marker.exists()


def test_run_refuses_timeout_inf_in_one_line(results_dir):
    one_line(mechsym(*SMOKE_ATOMIC, "--timeout", "inf"), "timeout 'inf': must be a number of seconds > 0")
    assert snapshot(results_dir) == {}


def test_a_killed_bench_takes_its_kernel_with_it(tmp_path):
    """SIGKILL cannot be caught: the kernel is started with PR_SET_PDEATHSIG, so the kernel dies with the bench."""
    pidfile = tmp_path / "kernel.pid"
    bench = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys
        from mechsym import launch
        from mechsym.launch import Launch
        code = "import os, time; open({str(pidfile)!r}, 'w').write(str(os.getpid())); time.sleep(600)"
        launch.run(Launch([sys.executable, "-c", code], "none"), timeout=900)
    """)])
    try:
        assert poll(lambda: pidfile.exists() and pidfile.read_text().strip()), "the kernel never started"
        kernel = int(pidfile.read_text())
        assert not gone(kernel)
        bench.kill()
        bench.wait()
        assert poll(lambda: gone(kernel)), f"kernel {kernel} outlived the bench"
    finally:
        bench.kill()
        with contextlib.suppress(Exception):
            if not gone(int(pidfile.read_text())):
                os.kill(int(pidfile.read_text()), signal.SIGKILL)


# ---------------------------------------------------------------- 6: JVM flags as the README writes them

def test_jvm_flags_as_a_separate_word_starting_with_a_dash(results_dir):
    r = mechsym(*SMOKE_ATOMIC, "--jvm-flags", "-XX:+UseParallelGC", "--dry-run")
    assert r.returncode == 0, r.stderr
    assert " -XX:+UseParallelGC -cp " in r.stdout
    # several flags in one word, quoted as a shell would (a value with a space stays one flag)
    r = mechsym(*SMOKE_ATOMIC, "--jvm-flags", "-XX:+UseParallelGC -Dmechsym.note='a b'", "--dry-run")
    assert r.returncode == 0, r.stderr
    assert " -XX:+UseParallelGC '-Dmechsym.note=a b' -cp " in r.stdout
    # the command's own option right after --jvm-flags is not taken as a JVM flag
    one_line(mechsym(*SMOKE_ATOMIC, "--jvm-flags", "--dry-run"), "--jvm-flags: expected one argument")


def test_a_flag_the_jvm_refuses_is_reported_with_the_jvms_own_reason(results_dir):
    one_line(mechsym(*SMOKE_ATOMIC, "--jvm-flags=-Xmx1k", "--dry-run"), "rejects them: Too small maximum heap")
    assert snapshot(results_dir) == {}


def test_a_kernel_that_says_why_on_stdout_is_quoted():
    k = fake("print('Error occurred during initialization of VM'); print('Too small maximum heap', end=''); "
             "raise SystemExit(1)")
    with pytest.raises(KernelError, match="exited with code 1: Too small maximum heap") as e:
        launch.run(k, timeout=30)
    assert e.value.kind == "crashed"


@pytest.mark.parametrize("flag", ["-version", "-cp", "--class-path=/tmp", "-jar", "Foo", "@/tmp/args", "--help",
                                  "-X", "-showversion"])
def test_jvm_flags_that_are_not_vm_options_are_refused(flag):
    with pytest.raises(MechsymError, match=f"JVM flag '{flag}': not a VM option"):
        sweep.check_jvm_flags(["-XX:+UseParallelGC", flag])
    assert sweep.check_jvm_flags(["-Xmx2g", "-Dx=1", "-XX:+UseParallelGC", "-ea"]) == ("-Xmx2g", "-Dx=1",
                                                                                      "-XX:+UseParallelGC", "-ea")


@pytest.mark.parametrize("args, text", [
    (("--preset", "full"), "argument --preset: given twice ('smoke' and 'full')"),
    (("--jvm-flags=-Xmx1g", "--jvm-flags=-Xmx2g"), "argument --jvm-flags: given twice"),
    (("--no-progress",), "argument --no-progress: given twice; give it once"),
    (("--jvm-flags", "-Dx='a b"), "--jvm-flags \"-Dx='a b\": No closing quotation"),
])
def test_run_arguments_given_twice_or_unbalanced_are_refused(results_dir, args, text):
    one_line(mechsym(*SMOKE_ATOMIC, *args, "--dry-run"), text)


# ---------------------------------------------------------------- 8: kernels never report what did not happen

@pytest.mark.parametrize("kernel, args, name", [
    (LOCKS, ("--threads=4", "--iterations=3"), "--iterations=3: at least --threads=4"),
    (LOCKS, ("--threads=2", "--warmup-iterations=1", "--iterations=100"), "--warmup-iterations=1: at least --threads=2"),
    (LOCKS, ("--threads=1", "--pin=0,0"), "--pin=0,0: 2 CPU ids for --threads=1"),
    (LOCKS, ("--pin=-1",), "--pin=-1"),
    (LOCKS, ("--pin=,",), "--pin=,"),
    (LOCKS, ("--pin=0,",), "--pin=0,"),
    (SPSC, ("--pin=-1,-1",), "--pin=-1,-1"),
    (SPSC, ("--pin=0,",), "--pin=0,"),
])
def test_kernels_refuse_what_they_would_not_do(kernel, args, name):
    assert_refused(kernel_process(kernel, *args), name)


def test_lock_contention_with_as_many_iterations_as_threads_counts_every_increment():
    from conftest import run_kernel

    df = run_kernel(LOCKS, "--threads=2", "--iterations=2", "--warmup-iterations=2", "--runs=1")
    assert (df[df["metric"] == "throughput"]["value"] > 0).all()


def test_a_kernel_that_names_itself_is_not_named_twice():
    r = launch.run  # a bad argument as the Java kernels word it
    k = fake("import sys; print('python: bad argument: --x=1: no', file=sys.stderr); raise SystemExit(2)")
    k.command.append("mechsym.fake.Python")
    with pytest.raises(KernelError) as e:
        r(k, timeout=30)
    assert str(e.value) == "Python: python: bad argument: --x=1: no"
    k2 = fake("import sys; print('Python: bad argument: --x=1: no', file=sys.stderr); raise SystemExit(2)")
    k2.command.append("mechsym.fake.Python")
    with pytest.raises(KernelError) as e2:
        r(k2, timeout=30)
    assert str(e2.value) == "Python: bad argument: --x=1: no"


# ---------------------------------------------------------------- 9: metadata that is JSON but not a run

def rows(n=3):
    return pd.DataFrame({"experiment": "demo", "variant": "a", "fork": 0, "iteration": range(n), "warmup": False,
                         "metric": "throughput", "value": [1.0] * n, "unit": "ops/s", "status": "ok", "note": ""})


def saved(machine="m1"):
    return store.save("demo", rows(), {"preset": "smoke", "machine": {"machine_id": machine}, "status": "complete"},
                      machine=machine)


@pytest.mark.parametrize("change, text", [
    (lambda m, p: m.update(run_id="20260101T000000Z-smoke-abcdef"), "is not the file's own run id"),
    (lambda m, p: m.pop("experiment"), "no experiment"),
    (lambda m, p: m.update(experiment="locks"), "is not its folder's 'demo'"),
    (lambda m, p: m.update(machine=3), "machine is int '3', not an object"),
    (lambda m, p: m.update(seconds="x"), "seconds is str 'x', not a number"),
    (lambda m, p: m.update(preset=7), "preset is int '7', not a string"),
    (lambda m, p: m.update(rows=True), "rows is bool"),
    (lambda m, p: m.update(commands="java"), "commands is str"),
])
def test_metadata_with_the_wrong_shape_is_named_in_one_line(results_dir, change, text):
    path = saved()
    m = json.loads(path.read_text())
    change(m, path)
    path.write_text(json.dumps(m))
    with pytest.raises(MechsymError, match=rf"corrupt metadata file .*{path.name}: not a run's metadata \(.*{text}"):
        store.runs("demo", "m1")


def test_commands_name_a_metadata_file_without_an_experiment(results_dir, monkeypatch, tmp_path):
    monkeypatch.setenv("MECHSYM_MACHINE", "m1")
    path = saved()
    m = json.loads(path.read_text())
    m.pop("experiment")
    path.write_text(json.dumps(m))
    before = snapshot(results_dir)
    one_line(mechsym("bundle", "-o", str(tmp_path / "b.tar.gz")), "no experiment")
    m["experiment"], m["seconds"] = "demo", "x"
    path.write_text(json.dumps(m))
    before = snapshot(results_dir)
    one_line(mechsym("bundle", "-o", str(tmp_path / "b.tar.gz")), "seconds is str 'x'")
    r = mechsym("list")
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert snapshot(results_dir) == before and not (tmp_path / "b.tar.gz").exists()


def test_import_refuses_metadata_the_store_would_refuse(results_dir, tmp_path, monkeypatch):
    from mechsym import bundle

    monkeypatch.setenv("MECHSYM_MACHINE", "m1")
    path = saved()
    out, _ = bundle.bundle(tmp_path / "b.tar.gz", include_smoke=True)
    # the same bundle with a metadata file whose machine is not an object, checksums made to match
    with tarfile.open(out) as tar:
        files = {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}
    name = next(n for n in files if n.endswith(".json") and n != bundle.MANIFEST)
    m = json.loads(files[name])
    m["machine"] = 3
    files[name] = json.dumps(m).encode()
    manifest = json.loads(files.pop(bundle.MANIFEST))
    manifest["files"][name] = {"sha256": bundle._sha256(files[name]), "bytes": len(files[name])}
    bad = tmp_path / "bad.tar.gz"
    with tarfile.open(bad, "w:gz") as tar:
        bundle._add(tar, bundle.MANIFEST, json.dumps(manifest).encode())
        for n, data in files.items():
            bundle._add(tar, n, data)
    other = tmp_path / "other"
    other.mkdir()
    with pytest.raises(MechsymError, match=r"machine is int '3', not an object\); nothing imported"):
        bundle.import_bundle(bad, root=other)
    assert list(other.iterdir()) == []


# ---------------------------------------------------------------- 10: SIGTERM, and scratch of killed runs

def test_sigterm_to_a_run_kills_the_kernel_and_says_so_in_one_line(results_dir):
    p = subprocess.Popen([str(VENV_BIN / "mechsym"), "run", "locks", "--preset", "smoke", "--no-progress"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy(),
                         preexec_fn=default_sigint)
    try:
        assert poll(lambda: children(p.pid, LOCKS) or p.poll() is not None), "no kernel started"
        kernels = children(p.pid, LOCKS)
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=120)
    finally:
        p.kill()
    assert p.returncode == 128 + signal.SIGTERM, err
    assert err.strip().splitlines()[-1] == "mechsym: interrupted (SIGTERM)", err
    assert any(line.startswith("interrupted: ") for line in err.splitlines()), err
    assert all(poll(lambda: gone(k)) for k in kernels)
    assert all(m["status"] == "interrupted" for m in store.runs("locks", "all", include_incomplete=True))


def test_stale_scratch_of_dead_runs_is_removed_and_live_ones_kept(tmp_path, capsys):
    from mechsym import scratch

    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    stale = tmp_path / f"seqio-{dead.pid}-abcdef"
    stale.mkdir()
    (stale / "seqio-4096.dat").write_bytes(b"\0" * 4096)
    live = tmp_path / f"seqio-{os.getppid()}-123456"
    live.mkdir()
    other = tmp_path / f"seqio-{dead.pid}-notours"  # not a run directory's name: never touched
    other.mkdir()
    with scratch.scratch_dir("seqio", tmp_path) as d:
        assert d.is_dir()
        assert not stale.exists() and live.exists() and other.exists()
    assert not d.exists()
    assert f"removed {stale}" in capsys.readouterr().err


@pytest.fixture
def interactive_sigint():
    """Ctrl-C handled as in an interactive `mechsym run`: a shell's background job (`nohup pytest &`) inherits SIGINT
    ignored, and a run rightly leaves an ignored signal ignored."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_a_signal_while_a_run_is_stored_waits_until_it_is(results_dir, monkeypatch, interactive_sigint):
    real_save = store.save

    def save_with_ctrl_c(*a, **kw):
        # raise(3) delivers to this thread before it returns; os.kill(getpid()) may pick another thread of the
        # process (pytest-xdist's), which on a busy machine runs the handler only after the run is stored
        signal.raise_signal(signal.SIGINT)
        return real_save(*a, **kw)
    monkeypatch.setattr(store, "save", save_with_ctrl_c)
    frame = sweep.tag_rows(pd.DataFrame({"iteration": [0], "warmup": [False], "metric": ["m"], "value": [1.0],
                                         "unit": ["x"]}), "demo", {"variant": "a"}, 0, "none")
    meta = {"preset": "smoke", "run_id": store.new_run_id("smoke"), "machine": {"machine_id": "m1"},
            "status": "complete", "failures": []}
    with pytest.raises(KeyboardInterrupt):
        sweep.finish("demo", [frame], meta, time.monotonic(), True, None)
    stored = store.runs("demo", "m1")
    assert [m["run_id"] for m in stored] == [meta["run_id"]] and stored[0]["rows"] == 1


# ---------------------------------------------------------------- 11: scratch that cannot be written

def statvfs(flag=0, bavail=10**9, favail=10**6):
    return os.statvfs_result((4096, 4096, 10**9, bavail, bavail, 10**6, favail, favail, flag, 255))


def test_scratch_that_is_a_file_is_refused_in_one_line(tmp_path):
    from mechsym import scratch

    f = tmp_path / "scratch.txt"
    f.write_text("x")
    for base in (f, f / "sub"):
        with pytest.raises(MechsymError, match=rf"{f} is a file, not a directory"):
            scratch.check_space(base, 4096)
    assert f.read_text() == "x"


@pytest.mark.parametrize("free", [10**12, 4096])  # read-only with room, and a small read-only tmpfs
def test_read_only_scratch_is_called_read_only(tmp_path, monkeypatch, free):
    from mechsym import scratch

    monkeypatch.setattr(os, "statvfs", lambda p: statvfs(flag=os.ST_RDONLY, bavail=free // 4096))
    with pytest.raises(MechsymError, match="is on a read-only file system"):
        scratch.check_space(tmp_path, 8 * 2**20)


def test_scratch_without_inodes_is_refused(tmp_path, monkeypatch):
    from mechsym import scratch

    monkeypatch.setattr(os, "statvfs", lambda p: statvfs(favail=2))
    with pytest.raises(MechsymError, match="2 free inodes"):
        scratch.check_space(tmp_path, 8 * 2**20)


def test_scratch_directory_that_cannot_be_made_is_one_line(tmp_path, monkeypatch):
    from mechsym import scratch

    def read_only(self, *a, **kw):
        raise OSError(errno.EROFS, "Read-only file system", str(self))
    monkeypatch.setattr(Path, "mkdir", read_only)
    with pytest.raises(MechsymError, match=r"cannot create the run's scratch directory .*Read-only file system"):
        with scratch.scratch_dir("seqio", tmp_path / "new"):
            pass


def test_a_failed_preallocation_leaves_no_short_file(tmp_path, monkeypatch):
    from mechsym import scratch

    real_open = open

    class Full(io.RawIOBase):
        def __init__(self, f):
            self.f = f

        def write(self, b):
            raise OSError(errno.ENOSPC, "No space left on device")

        def close(self):
            self.f.close()

    monkeypatch.setattr("builtins.open", lambda p, mode="r", *a, **kw: Full(real_open(p, mode, *a, **kw))
                        if "x" in mode else real_open(p, mode, *a, **kw))
    from mechsym.experiments.seqio.sweep import write_pattern

    for make in (scratch.preallocate, write_pattern):
        path = tmp_path / f"{make.__name__}.dat"
        with pytest.raises(OSError):
            make(path, 8 * 4096)
        assert not path.exists()


def fake_module(fail_at: int, error: BaseException):
    """One 'c:python' cell of three forks whose prepare hook fails before fork `fail_at` (counted from 0)."""
    calls = []

    def prepare(fork):
        calls.append(fork.number)
        if fork.number == fail_at:
            raise error

    def cells(preset, topo, jdks):
        return [Cell("proc", "c:python", params={}, forks=3, prepare=prepare)]
    return types.SimpleNamespace(NAME="fake", cells=cells), calls


@pytest.fixture
def python_cells(monkeypatch):
    code = "print('iteration,warmup,metric,value,unit'); print('0,false,speed,3.0,x')"

    def native(binary, params, cpus=None):
        return Launch([sys.executable, "-c", code], "none")
    monkeypatch.setattr(sweep, "native_command", native)


def test_running_out_of_inodes_mid_run_keeps_the_forks_that_finished(results_dir, python_cells, capsys):
    m, calls = fake_module(2, OSError(errno.ENOSPC, "No space left on device", "/scratch/seqio-1-abcdef/f.dat"))
    with pytest.raises(MechsymError, match=r"fake: stopped at proc fork 3/3: No space left on device: /scratch"):
        sweep.execute(m, "smoke", progress=False)
    [meta] = store.runs("fake", "all", include_incomplete=True)
    assert meta["status"] == "interrupted" and meta["rows"] == 2 and "No space left" in meta["stopped"]
    assert "stopped at proc fork 3/3: kept what finished as" in capsys.readouterr().err


def test_a_bug_in_a_hook_keeps_what_finished_and_is_raised(results_dir, python_cells):
    m, _ = fake_module(1, ZeroDivisionError("division by zero"))
    with pytest.raises(ZeroDivisionError):
        sweep.execute(m, "smoke", progress=False)
    [meta] = store.runs("fake", "all", include_incomplete=True)
    assert meta["status"] == "interrupted" and meta["rows"] == 1


# ---------------------------------------------------------------- 13: two measurements at once

def test_a_run_that_overlaps_another_measurement_says_so(results_dir, python_cells, capsys):
    from mechsym import noise

    other = noise.Recorder()  # another measurement, registered beside the bench lock, still measuring
    other.begin()
    try:
        m, _ = fake_module(99, RuntimeError("never"))
        meta = sweep.execute(m, "smoke", progress=False)
    finally:
        other.stop()
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if "another measurement" in ln]
    assert len(lines) == 1 and f"pid {os.getpid()}" in lines[0], err
    assert meta["noise"]["overlapped"] and meta["noise"]["quiet"] is False


# ---------------------------------------------------------------- 14: smaller ones

def test_a_java_with_a_non_numeric_version_is_one_line(tmp_path):
    from mechsym import jdk

    home = tmp_path / "weird-jdk"
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text("#!/bin/sh\necho '    java.specification.version = banana' >&2\n")
    java.chmod(0o755)
    with pytest.raises(MechsymError, match="reports java.specification.version 'banana', not a Java version"):
        jdk.probe(str(home))
    assert [jdk._feature(s) for s in ("17", "1.8", "21.0.1", "1.", "17-ea", "0", "")] == [17, 8, 21, None, None,
                                                                                          None, None]


def test_jdk_spec_named_twice_runs_once_and_an_empty_item_is_refused():
    from mechsym import jdk

    first = jdk.discover()[0]
    assert jdk.select(f"{first.feature},{first.feature},{first.home}") == [first]
    with pytest.raises(MechsymError, match="an empty item"):
        jdk.select(f"{first.feature},")


@pytest.mark.parametrize("value, shown", [("abc", "'abc'"), ("Infinity", "'inf'"), ("NaN", "'nan'"), ("", "'nan'")])
def test_kernel_output_that_is_not_a_finite_number_is_bad_output(value, shown):
    out = f"iteration,warmup,metric,value,unit\n0,false,ok,1,x\n1,false,throughput,{value},ops/s\n"
    with pytest.raises(KernelError, match=rf"printed {shown} as the value of throughput \(row 2\): not a finite"
                       ) as e:
        launch.parse_csv(out)
    assert e.value.kind == "bad-output"


def test_kernel_output_that_is_not_utf8_is_bad_output():
    k = fake("import sys; sys.stdout.buffer.write(b'\\xff\\xfe,\\n'); sys.stderr.buffer.write(b'\\xff bad\\n'); "
             "raise SystemExit(1)")
    with pytest.raises(KernelError, match="exited with code 1:"):
        launch.run(k, timeout=30)


def test_long_kernel_output_with_a_mixed_column_gives_no_dtype_warning():
    lines = ["x,iteration,warmup,metric,value,unit"]
    lines += [f"{i if i < 200_000 else 's'},0,false,m,1,ns" for i in range(300_000)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = launch.parse_csv("\n".join(lines) + "\n")
    assert len(df) == 300_000


# ---------------------------------------------------------------- more of the same kind

def test_a_read_only_store_is_named_not_hidden_behind_a_failed_clean_up(results_dir, monkeypatch):
    """On a read-only file system even removing a file that is not there fails (EROFS): the refusal must still be
    the one line that says why."""
    real_open = open

    def read_only(*a, **kw):
        raise OSError(errno.EROFS, "Read-only file system")
    monkeypatch.setattr("builtins.open", lambda p, mode="r", *a, **kw: read_only() if "x" in mode
                        else real_open(p, mode, *a, **kw))
    monkeypatch.setattr(Path, "unlink", lambda self, missing_ok=False: read_only())
    with pytest.raises(MechsymError, match=r"cannot write in .* \(Read-only file system\); nothing measured"):
        store.check_writable("demo", machine="m1")


def test_a_small_read_only_file_system_is_called_read_only_not_full(tmp_path, monkeypatch):
    monkeypatch.setattr(os, "statvfs", lambda p: statvfs(flag=os.ST_RDONLY, bavail=0))
    with pytest.raises(MechsymError, match="is on a read-only file system"):
        store.check_space(tmp_path, 2**20, "results directory")


def test_scratch_inside_the_results_store_is_refused(tmp_path):
    from mechsym import scratch

    for base in (tmp_path, tmp_path / "m1" / "seqio"):
        with pytest.raises(MechsymError, match="inside the results directory"):
            scratch.check_apart(base, tmp_path)
    scratch.check_apart(tmp_path.parent / "scratch-io", tmp_path)


def test_a_bench_lock_that_cannot_be_opened_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(sweep, "LOCK_FILE", tmp_path)  # a directory
    with pytest.raises(MechsymError, match=rf"bench lock {tmp_path}: cannot be opened \(Is a directory\)"):
        with sweep.bench_lock():
            pass


def test_a_signal_the_caller_ignores_stays_ignored():
    """`nohup mechsym run ...`: SIGHUP is ignored by the caller and must not interrupt the run."""
    old = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with sweep._signals_interrupt():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
        with sweep._signals_deferred():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, old)
