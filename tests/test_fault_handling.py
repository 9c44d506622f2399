"""Fault handling: the faults a hostile tester tried, each ending in one line (or a correct run), a non-zero exit
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
from mechsym import MechsymError
from mechsym.store import files as fsio, runs as store
from mechsym.run import cells, interrupts, launch, sweep
from mechsym.run.launch import KernelError, Launch
from mechsym.run.sweep import Cell

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


# ---------------------------------------------------------------- timeouts; the kernel never outlives the bench

@pytest.mark.kernel
@pytest.mark.parametrize("value", ["inf", "1e12", "nan", "-1", "0", "abc", "86401", None])
def test_a_timeout_is_a_finite_number_of_seconds_up_to_a_day(value):
    with pytest.raises(MechsymError, match=r"must be a number of seconds > 0 and at most 86400 \(24 h\)"):
        launch.check_timeout(value)
    assert launch.check_timeout("0.05") == 0.05 and launch.check_timeout(86400) == 86400


@pytest.mark.kernel
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


@pytest.mark.kernel
def test_a_killed_bench_takes_its_kernel_with_it(tmp_path):
    """SIGKILL cannot be caught: the kernel is started with PR_SET_PDEATHSIG, so the kernel dies with the bench."""
    pidfile = tmp_path / "kernel.pid"
    bench = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import sys
        from mechsym.run import launch
        from mechsym.run.launch import Launch
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


# ---------------------------------------------------------------- JVM flags as the README writes them

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


@pytest.mark.kernel
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


# ---------------------------------------------------------------- kernels never report what did not happen

@pytest.mark.kernel
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


@pytest.mark.kernel
def test_lock_contention_with_as_many_iterations_as_threads_counts_every_increment():
    from conftest import run_kernel

    df = run_kernel(LOCKS, "--threads=2", "--iterations=2", "--warmup-iterations=2", "--runs=1")
    assert (df[df["metric"] == "throughput"]["value"] > 0).all()


@pytest.mark.kernel
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


# ---------------------------------------------------------------- metadata that is JSON but not a run

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
        store.load("demo", "m1")  # the only run: its reason is the error (beside others, a warning)


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
    from mechsym.store import bundle, archive as bundle_format

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
    manifest["files"][name] = {"sha256": bundle_format.sha256(files[name]), "bytes": len(files[name])}
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


# ---------------------------------------------------------------- SIGTERM, and scratch of killed runs

@pytest.mark.kernel
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


@pytest.mark.kernel
def test_stale_scratch_of_dead_runs_is_removed_and_live_ones_kept(tmp_path, capsys):
    from mechsym.run import scratch

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
                                         "unit": ["count"]}), "demo", {"variant": "a"}, 0, "none")
    meta = {"preset": "smoke", "run_id": store.new_run_id("smoke"), "machine": {"machine_id": "m1"},
            "status": "complete", "failures": []}
    with pytest.raises(KeyboardInterrupt):
        sweep.finish("demo", [frame], meta, time.monotonic(), True, None)
    stored = store.runs("demo", "m1")
    assert [m["run_id"] for m in stored] == [meta["run_id"]] and stored[0]["rows"] == 1


# ---------------------------------------------------------------- scratch that cannot be written

def statvfs(flag=0, bavail=10**9, favail=10**6):
    return os.statvfs_result((4096, 4096, 10**9, bavail, bavail, 10**6, favail, favail, flag, 255))


def test_scratch_that_is_a_file_is_refused_in_one_line(tmp_path):
    from mechsym.run import scratch

    f = tmp_path / "scratch.txt"
    f.write_text("x")
    for base in (f, f / "sub"):
        with pytest.raises(MechsymError, match=rf"{f} is a file, not a directory"):
            scratch.check_space(base, 4096)
    assert f.read_text() == "x"


@pytest.mark.parametrize("free", [10**12, 4096])  # read-only with room, and a small read-only tmpfs
def test_read_only_scratch_is_called_read_only(tmp_path, monkeypatch, free):
    from mechsym.run import scratch

    monkeypatch.setattr(os, "statvfs", lambda p: statvfs(flag=os.ST_RDONLY, bavail=free // 4096))
    with pytest.raises(MechsymError, match="is on a read-only file system"):
        scratch.check_space(tmp_path, 8 * 2**20)


def test_scratch_without_inodes_is_refused(tmp_path, monkeypatch):
    from mechsym.run import scratch

    monkeypatch.setattr(os, "statvfs", lambda p: statvfs(favail=2))
    with pytest.raises(MechsymError, match="2 free inodes"):
        scratch.check_space(tmp_path, 8 * 2**20)


def test_scratch_directory_that_cannot_be_made_is_one_line(tmp_path, monkeypatch):
    from mechsym.run import scratch

    def read_only(self, *a, **kw):
        raise OSError(errno.EROFS, "Read-only file system", str(self))
    monkeypatch.setattr(Path, "mkdir", read_only)
    with pytest.raises(MechsymError, match=r"cannot create the run's scratch directory .*Read-only file system"):
        with scratch.scratch_dir("seqio", tmp_path / "new"):
            pass


def test_a_failed_preallocation_leaves_no_short_file(tmp_path, monkeypatch):
    from mechsym.run import scratch

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
    code = "print('iteration,warmup,metric,value,unit'); print('0,false,speed,3.0,count')"

    def native(binary, params, cpus=None):
        return Launch([sys.executable, "-c", code], "none")
    monkeypatch.setattr(cells, "native_command", native)


@pytest.mark.kernel
def test_running_out_of_inodes_mid_run_keeps_the_forks_that_finished(results_dir, python_cells, capsys):
    m, calls = fake_module(2, OSError(errno.ENOSPC, "No space left on device", "/scratch/seqio-1-abcdef/f.dat"))
    with pytest.raises(MechsymError, match=r"fake: stopped at proc fork 3/3: No space left on device: /scratch"):
        sweep.execute(m, "smoke", progress=False)
    [meta] = store.runs("fake", "all", include_incomplete=True)
    assert meta["status"] == "interrupted" and meta["rows"] == 2 and "No space left" in meta["stopped"]
    assert "stopped at proc fork 3/3: kept what finished as" in capsys.readouterr().err


@pytest.mark.kernel
def test_a_bug_in_a_hook_keeps_what_finished_and_is_raised(results_dir, python_cells):
    m, _ = fake_module(1, ZeroDivisionError("division by zero"))
    with pytest.raises(ZeroDivisionError):
        sweep.execute(m, "smoke", progress=False)
    [meta] = store.runs("fake", "all", include_incomplete=True)
    assert meta["status"] == "interrupted" and meta["rows"] == 1


# ---------------------------------------------------------------- two measurements at once

@pytest.mark.kernel
def test_a_run_that_overlaps_another_measurement_says_so(results_dir, python_cells, capsys):
    from mechsym.machine import noise

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


# ---------------------------------------------------------------- smaller ones

def test_a_java_with_a_non_numeric_version_is_one_line(tmp_path):
    from mechsym.machine import jdk

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
    from mechsym.machine import jdk

    first = jdk.discover()[0]
    assert jdk.select(f"{first.feature},{first.feature},{first.home}") == [first]
    with pytest.raises(MechsymError, match="an empty item"):
        jdk.select(f"{first.feature},")


@pytest.mark.kernel
@pytest.mark.parametrize("value, shown", [("abc", "'abc'"), ("Infinity", "'inf'"), ("NaN", "'nan'"), ("", "'nan'")])
def test_kernel_output_that_is_not_a_finite_number_is_bad_output(value, shown):
    out = f"iteration,warmup,metric,value,unit\n0,false,ok,1,x\n1,false,throughput,{value},ops/s\n"
    with pytest.raises(KernelError, match=rf"printed {shown} as the value of throughput \(row 2\): not a finite"
                       ) as e:
        launch.parse_csv(out)
    assert e.value.kind == "bad-output"


@pytest.mark.kernel
def test_kernel_output_that_is_not_utf8_is_bad_output():
    k = fake("import sys; sys.stdout.buffer.write(b'\\xff\\xfe,\\n'); sys.stderr.buffer.write(b'\\xff bad\\n'); "
             "raise SystemExit(1)")
    with pytest.raises(KernelError, match="exited with code 1:"):
        launch.run(k, timeout=30)


@pytest.mark.kernel
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
        fsio.check_space(tmp_path, 2**20, "results directory")


def test_scratch_inside_the_results_store_is_refused(tmp_path):
    from mechsym.run import scratch

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
        with interrupts.signals_interrupt():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
        with interrupts.signals_deferred():
            assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, old)


# ---------------------------------------------------------------- rows: one check for every writer and reader
# (impossible values, incomplete rows, interrupted imports, leftovers, one line for every refusal)

def locks_runs(machine: str = "m1") -> tuple[Path, Path]:
    """Two stored locks runs of `machine` (synthetic rows): the older stays good, the newer is the one a test spoils."""
    from synthetic import save_synthetic, synthetic_locks

    good = save_synthetic(synthetic_locks(jdks=("17",), threads=(1, 2)), machine)
    bad = save_synthetic(synthetic_locks(jdks=("17",), threads=(1, 2)), machine)
    folder = store.results_root() / machine / "locks"
    return folder / f"{good}.json", folder / f"{bad}.json"


def reseal_run(json_path: Path, change) -> None:
    """Rewrite a stored run's CSV text with change(lines) and make its sidecar match (rows, bytes, sha256), as a
    hand-edited or foreign run would be: only the rows themselves are wrong."""
    import hashlib

    csv_path = json_path.with_suffix(".csv")
    lines = change(csv_path.read_text().splitlines())
    data = "".join(line + "\n" for line in lines).encode()
    csv_path.write_bytes(data)
    m = json.loads(json_path.read_text())
    m.update(rows=len(lines) - 1, csv_bytes=len(data), csv_sha256=hashlib.sha256(data).hexdigest())
    json_path.write_text(json.dumps(m))


def set_values(value: str):
    """Every measured row's value becomes `value`."""
    def change(lines):
        head = lines[0].split(",")
        v, s = head.index("value"), head.index("status")
        out = [lines[0]]
        for line in lines[1:]:
            f = line.split(",")
            if f[s] == "ok":
                f[v] = value
            out.append(",".join(f))
        return out
    return change


def drop_column(name: str):
    def change(lines):
        i = lines[0].split(",").index(name)
        return [",".join(f for j, f in enumerate(line.split(",")) if j != i) for line in lines]
    return change


SPOILED = [
    (set_values("inf"), "line 2: value 'inf' of throughput is not a finite number"),
    (set_values("NaN"), "line 2: value 'NaN' of throughput is not a finite number"),
    (set_values("-5"), "line 2: value -5 of throughput (ops/s) is impossible: a rate is > 0"),
    (set_values("1e308"), "line 2: value 1e308 of throughput (ops/s) is impossible"),
    (set_values("abc"), "line 2: value 'abc' of throughput is not a number"),
    (lambda ls: ls[:2] + [ls[0]] + ls[2:], "line 3: status 'status'"),             # a repeated header line
    (drop_column("unit"), "line 1: missing columns unit"),
    (drop_column("status"), "line 1: missing columns status"),
    (drop_column("value"), "line 1: missing columns value"),
    (drop_column("metric"), "line 1: missing columns metric"),
    (lambda ls: ls[:2] + [ls[2] + ",7"] + ls[3:], "line 3: "),                       # an extra field
    (lambda ls: [ls[0]] + [line + ",7" for line in ls[1:]], "line 2: "),            # an extra column, no name
    (lambda ls: ls[:3] + [ls[3].rsplit(",", 1)[0]] + ls[4:], "line 4: "),          # a short row
    (lambda ls: [ls[0] + ",extra"] + [line + ",1" for line in ls[1:]], None),       # a named parameter column: fine
]


@pytest.mark.parametrize("change, text", SPOILED)
def test_a_run_with_impossible_or_incomplete_rows_is_skipped_by_every_read(results_dir, capsys, change, text):
    good, bad = locks_runs()
    reseal_run(bad, change)
    metas = store.runs("locks", "m1")
    err = capsys.readouterr().err
    if text is None:
        assert len(metas) == 2 and err == ""
        return
    assert [m["run_id"] for m in metas] == [good.stem]
    [line] = err.strip().splitlines()
    assert str(bad.with_suffix(".csv")) in line and text in line and line.endswith("; run skipped"), line
    df = store.load("locks", "m1")  # what the notebooks read: the good run, never the spoiled one
    assert set(df["run_id"]) == {good.stem} and np_finite(df)
    from mechsym.store import bundle, archive as bundle_format

    pair = {"csv": bad.with_suffix(".csv").read_bytes(), "json": bad.read_bytes()}
    assert text in bundle_format.check_run("m1", "locks", bad.stem, pair)  # import checks what a read checks


def np_finite(df) -> bool:
    ok = df[df["status"] == "ok"]
    return bool(((ok["value"] > 0) & (ok["value"] < float("inf"))).all())


def test_show_compare_verdicts_and_bundle_agree_on_an_impossible_run(results_dir, tmp_path, capsys):
    from mechsym.view.overview import collect

    good, bad = locks_runs()
    reseal_run(bad, set_values("inf"))
    where = f"results file {bad.with_suffix('.csv')}: line 2: value 'inf' of throughput is not a finite number"
    env = {"MECHSYM_MACHINE": "m1"}
    one_line(mechsym("show", "locks", "--run", bad.stem, env=env), where)
    one_line(mechsym("compare", good.stem, bad.stem, env=env), where)
    one_line(mechsym("bundle", "--include-smoke", "-o", str(tmp_path / "b.tar.gz"), env=env), where)
    assert not (tmp_path / "b.tar.gz").exists()
    out = collect("m1", names=["locks"])
    assert not out["now"].astype(str).str.contains("inf|0.00x").any()
    assert where in capsys.readouterr().err


# ---------------------------------------------------------------- a kernel's output that must store nothing

@pytest.mark.kernel
@pytest.mark.parametrize("stdout, text", [
    ("iteration,warmup,metric,value,unit\n0,false,throughput,1", "output row 1: no unit"),   # half a row, no newline
    ("iteration,warmup,metric,value,unit\n0,false,ns_per_op,1e308,ns/op\n", "value 1e+308 of ns_per_op (ns/op) is "
                                                                            "impossible"),
    ("iteration,warmup,metric,value,unit\n0,false,throughput,-5,ops/s\n", "value -5 of throughput (ops/s) is "
                                                                         "impossible: a rate is > 0"),
    ("run_id,iteration,warmup,metric,value,unit\nx,0,false,throughput,5,ops/s\n", "a column 'run_id', which the "
                                                                                  "bench adds itself"),
    ("experiment,iteration,warmup,metric,value,unit\nx,0,false,throughput,5,ops/s\n", "a column 'experiment'"),
])
def test_kernel_output_the_store_would_refuse_fails_its_fork_and_stores_nothing(results_dir, monkeypatch, stdout,
                                                                                 text):
    code = f"import sys; sys.stdout.write({stdout!r})"
    monkeypatch.setattr(cells, "native_command", lambda binary, params, cpus=None: Launch([sys.executable, "-c", code],
                                                                                        "none"))
    m = types.SimpleNamespace(NAME="fake", cells=lambda preset, topo, jdks: [Cell("proc", "c:python", forks=1)])
    with pytest.raises(MechsymError) as e:
        sweep.execute(m, "smoke", progress=False)
    assert "every fork failed; nothing stored" in str(e.value) and text in str(e.value), str(e.value)
    assert len(str(e.value).splitlines()) == 1
    assert list(results_dir.iterdir()) == []


# ---------------------------------------------------------------- import: one transaction, even under kill -9

def small_bundle(tmp_path: Path, runs: int = 3) -> Path:
    """A bundle of `runs` small locks runs of machine 'far', made in a store of its own."""
    from synthetic import save_synthetic, synthetic_locks

    from mechsym.store import bundle, archive as bundle_format

    root = tmp_path / "far-store"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MECHSYM_RESULTS", str(root))
        for _ in range(runs):
            save_synthetic(synthetic_locks(jdks=("17",), threads=(1,), runs=1, forks=1), "far")
        out, _ = bundle.bundle(tmp_path / "far.tar.gz", machine="far", include_smoke=True)
    return out


KILLED_AFTER = """
import os, signal, sys
from mechsym.store import bundle, archive as bundle_format
real, n = bundle._place, []
def place(src, dst):
    real(src, dst)
    n.append(dst)
    if len(n) == int(sys.argv[2]):
        os.kill(os.getpid(), signal.SIGKILL)   # kill -9 right after this file went into place
bundle._place = place
bundle.import_bundle(sys.argv[1])
"""


def test_an_import_killed_part_way_is_cleaned_up_and_completed_by_importing_again(results_dir, tmp_path, capsys):
    from mechsym.store import bundle, archive as bundle_format

    archive = small_bundle(tmp_path)
    # killed after the first run (CSV, JSON) and the second run's CSV went into place
    r = subprocess.run([sys.executable, "-c", KILLED_AFTER, str(archive), "3"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == -signal.SIGKILL, r.stderr
    folder = results_dir / "far" / "locks"
    assert len(list(folder.glob("*.json"))) == 1 and len(list(folder.glob("*.csv"))) == 2  # half a run left
    assert list(results_dir.glob(".import-*"))
    summary = bundle.import_bundle(archive)
    [line] = capsys.readouterr().err.strip().splitlines()
    assert "cleaned up an import that was killed" in line and "1 runs it had half placed" in line, line
    assert summary.startswith("imported 2 runs") and "1 already stored (identical, skipped)" in summary, summary
    assert len(list(folder.glob("*.json"))) == 3 and len(list(folder.glob("*.csv"))) == 3
    assert not list(results_dir.glob(".*")) and len(store.runs("locks", "far")) == 3


def test_a_csv_left_without_its_json_is_completed_by_the_same_bundle(results_dir, tmp_path):
    from mechsym.store import bundle, archive as bundle_format

    archive = small_bundle(tmp_path, runs=2)
    bundle.import_bundle(archive)
    j = sorted((results_dir / "far" / "locks").glob("*.json"))[0]
    j.unlink()  # as an import killed between a run's CSV and its JSON leaves it (its stage gone too)
    assert bundle.import_bundle(archive).startswith("imported 1 runs")
    assert len(store.runs("locks", "far")) == 2


def test_a_folder_another_import_makes_meanwhile_is_no_failure(results_dir, tmp_path, monkeypatch):
    from mechsym.store import bundle, archive as bundle_format

    archive = small_bundle(tmp_path, runs=1)
    real = Path.mkdir

    def racing(self, *a, **kw):  # another import makes the same folder just before this one does
        if self.name in ("far", "locks") and self.parent.name != "results" or self.name == "far":
            real(self, parents=True, exist_ok=True)
        return real(self, *a, **kw)

    monkeypatch.setattr(Path, "mkdir", racing)
    assert bundle.import_bundle(archive).startswith("imported 1 runs")


def test_an_import_never_replaces_a_file_that_appears_while_it_places(results_dir, tmp_path, monkeypatch):
    from mechsym.store import bundle, archive as bundle_format

    archive = small_bundle(tmp_path, runs=1)
    real = bundle._place

    def other_first(src, dst):  # another writer puts a file there between the check and the placement
        dst.write_bytes(b"theirs")
        return real(src, dst)

    monkeypatch.setattr(bundle, "_place", other_first)
    with pytest.raises(MechsymError, match="appeared while importing; runs are never overwritten"):
        bundle.import_bundle(archive)
    [theirs] = [p for p in results_dir.rglob("*") if p.is_file()]
    assert theirs.read_bytes() == b"theirs"


# ---------------------------------------------------------------- leftovers outside the results store

def dead_pid() -> int:
    p = subprocess.Popen(["true"])
    p.wait()
    return p.pid


@pytest.mark.kernel
def test_the_affinity_pair_works_under_the_scratch_root_and_stale_ones_go(tmp_path, monkeypatch, capsys):
    from mechsym.experiments.affinity import sweep as affinity
    from mechsym.run.sweep import Fork

    scratch = tmp_path / "scratch"
    stale = scratch / f"affinity-{dead_pid()}-abcdef"
    stale.mkdir(parents=True)
    monkeypatch.setenv("MECHSYM_SCRATCH", str(scratch))
    seen = []

    def fake_run(launch, timeout):
        seen.append(Path(launch.command[10]))
        assert seen[0].is_dir()
        return pd.DataFrame([{"iteration": 0, "warmup": False, "metric": "rate", "value": 1.0, "unit": "msg/s"}])

    monkeypatch.setattr(affinity, "run", fake_run)
    jdk = types.SimpleNamespace(java="java")
    affinity._runner(None)(Fork(Cell("multicast", "cmd:unshare", jdk=jdk), 0))
    assert seen[0].parent == scratch and not seen[0].exists() and not stale.exists()
    assert "scratch of a run that was killed" in capsys.readouterr().err


def test_a_lone_run_leaves_no_overlap_log_beside_the_bench_lock(tmp_path):
    from mechsym.machine import noise

    rec = noise.Recorder(proc=tmp_path / "nothing", self_pid=os.getpid(), registry=tmp_path / "runs", clk_tck=100)
    rec.begin()
    assert (tmp_path / "runs").is_dir()
    rec.stop()
    assert not (tmp_path / "runs").exists()


KILLED_BUNDLE = """
import os, signal, sys
from mechsym.store import bundle, archive as bundle_format
real = bundle._add
def add(tar, name, data):
    real(tar, name, data)
    tar.fileobj.flush()
    os.kill(os.getpid(), signal.SIGKILL)   # kill -9 while the archive is being written
bundle._add = add
bundle.bundle(sys.argv[1], machine="far", include_smoke=True)
"""


def test_a_bundle_killed_while_writing_leaves_nothing_after_the_next_bundle(results_dir, tmp_path, capsys):
    from mechsym.store import bundle, archive as bundle_format

    bundle.import_bundle(small_bundle(tmp_path, runs=1))
    out = tmp_path / "out"
    out.mkdir()
    r = subprocess.run([sys.executable, "-c", KILLED_BUNDLE, str(out / "x.tgz")], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == -signal.SIGKILL, r.stderr
    assert [p.name for p in out.iterdir()] and not (out / "x.tgz").exists()  # its hidden temporary file
    bundle.bundle(out / "y.tgz", machine="far", include_smoke=True)
    assert [p.name for p in out.iterdir()] == ["y.tgz"]
    assert "part of a bundle whose writing was killed" in capsys.readouterr().err


@pytest.mark.kernel
def test_a_refused_run_creates_no_results_folders_and_a_superscript_cpu_is_one_line(tmp_path):
    missing = tmp_path / "a" / "b" / "results"
    r = mechsym("run", "locks", "--preset", "smoke", "--cpus", "\u00b9", "--no-progress",
                env={"MECHSYM_RESULTS": str(missing), "MECHSYM_BENCH_LOCK": str(tmp_path / "lock")})
    one_line(r, "CPU id '\u00b9': must be a whole number")
    assert not (tmp_path / "a").exists()


# ---------------------------------------------------------------- one line instead of a traceback

def nested(depth: int = 5000) -> bytes:  # past the JSON decoder's recursion limit (about 1000)
    return b"[" * depth + b"]" * depth


def repack(archive: Path, out: Path, change) -> Path:
    """The bundle's files through change(files) (the manifest as it is, unless change replaces it), then checksums
    made to match in the manifest, into a new archive."""
    from mechsym.store import bundle, archive as bundle_format

    with tarfile.open(archive) as tar:
        files = {m.name: tar.extractfile(m).read() for m in tar if m.isfile()}
    manifest = files.pop(bundle.MANIFEST)
    files = change(files)
    if bundle.MANIFEST in files:
        manifest = files.pop(bundle.MANIFEST)
    else:
        m = json.loads(manifest)
        m["files"] = {n: {"sha256": bundle.sha256(d), "bytes": len(d)} for n, d in files.items()}
        manifest = json.dumps(m).encode()
    with tarfile.open(out, "w:gz") as tar:
        bundle._add(tar, bundle.MANIFEST, manifest)
        for n, data in files.items():
            bundle._add(tar, n, data)
    return out


def test_deeply_nested_json_is_one_line_wherever_it_is(results_dir, tmp_path, capsys):
    archive = small_bundle(tmp_path, runs=1)
    bad = repack(archive, tmp_path / "m.tar.gz", lambda f: {**f, "mechsym-bundle.json": nested()})
    one_line(mechsym("import", str(bad)), "corrupt mechsym-bundle.json (nested too deeply")
    side = repack(archive, tmp_path / "s.tar.gz", lambda f: {n: nested() if n.endswith(".json") else d
                                                             for n, d in f.items()})
    one_line(mechsym("import", str(side)), "corrupt metadata (nested too deeply")
    assert list(results_dir.iterdir()) == []
    good, bad_run = locks_runs()
    bad_run.write_bytes(nested())
    assert [m["run_id"] for m in store.runs("locks", "m1")] == [good.stem]
    assert "nested too deeply to be a run's metadata; run skipped" in capsys.readouterr().err


def test_a_sidecar_naming_another_run_skips_only_that_run(results_dir, capsys):
    good, bad = locks_runs()
    m = json.loads(bad.read_text())
    m["run_id"] = good.stem
    bad.write_text(json.dumps(m))
    assert [x["run_id"] for x in store.runs("locks", "m1")] == [good.stem]
    assert set(store.load("locks", "m1")["run_id"]) == {good.stem}
    [line] = capsys.readouterr().err.strip().splitlines()
    assert str(bad) in line and "is not the file's own run id" in line and line.endswith("run skipped")


def test_reports_check_preset_and_output_before_rendering(tmp_path, monkeypatch):
    from mechsym.view import reports

    monkeypatch.setattr(reports, "execute", lambda *a, **k: pytest.fail("rendered before checking"))
    with pytest.raises(MechsymError, match="preset 'bogus': allowed presets are stored, smoke, standard, full"):
        reports.build(preset="bogus", output=str(tmp_path / "r"))
    existing = tmp_path / "a-file"
    existing.write_text("")
    with pytest.raises(MechsymError, match=f"output {existing}: {existing} is a file"):
        reports.build(output=str(existing))


def test_odd_arguments_of_show_import_and_bundle_are_one_line(results_dir, tmp_path):
    good, _ = locks_runs()
    env = {"MECHSYM_MACHINE": "m1"}
    one_line(mechsym("show", "locks", "--run", "", env=env), "--run '': give a run id")
    one_line(mechsym("import", str(tmp_path)), "is a directory, not a bundle")
    one_line(mechsym("import", "/dev/zero"), "is not a regular file")
    one_line(mechsym("bundle", "-o", "-", "--include-smoke", env=env), "output '-': a bundle is written to a file")
    assert not Path("-").exists()


def test_every_stored_run_passes_the_row_check():
    from mechsym import data_root
    from mechsym.store import rows as rowcheck

    csvs = sorted((data_root() / "results").glob("*/*/*.csv"))
    assert csvs
    bad = {str(p): rowcheck.problem(p.read_bytes(), p.stem, p.parent.name) for p in csvs}
    assert {k: v for k, v in bad.items() if v} == {}


def test_a_send_on_time_is_zero_lateness_but_a_zero_duration_is_impossible():
    from mechsym.store import rows as rowcheck

    def check(metric, value):
        return rowcheck.values_problem(pd.Series([metric]), pd.Series(["ns"]), pd.Series([str(value)]))

    assert check("wakeup_late_median", 0) is None and check("wakeup_late_max", 0) is None
    assert "impossible" in check("duration", 0)
    assert "impossible" in check("wakeup_late_median", -1)
