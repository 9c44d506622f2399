"""The IPC kernel between two JVMs (notebook 14): every message carried and each counter's line offset
recorded, a lost message failing the run, a dying producer reported, and the file and the producer JVM gone on a
signal. The kernel's contract (bad arguments, the lose-one fault, the smoke columns) is tests/test_kernel_contract.py's.
No test asserts a timing; none sleeps to synchronise."""

import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import assert_refused, default_sigint, kernel_process, run_kernel
from mechsym.run.kernels import command

pytestmark = pytest.mark.kernel  # every test here runs a kernel or a sweep: serial

IPC = "mechsym.ipc.IpcThroughput"
SMALL = ("--messages=20000", "--runs=1", "--warmup-runs=0")


# ---------------------------------------------------------------- the kernel between two JVMs

@pytest.mark.parametrize("layout,offset", [("aligned", 24), ("unaligned", 60)])
def test_two_jvms_carry_every_message_and_record_each_counters_line_offset(layout, offset, tmp_path):
    df = run_kernel(IPC, "--transport=processes", f"--layout={layout}", *SMALL, f"--dir={tmp_path}")
    assert set(df["metric"]) == {"throughput", "duration"} and (df["value"] > 0).all()
    for col in ("head_line_offset", "tail_cache_line_offset", "tail_line_offset", "head_cache_line_offset"):
        assert set(df[col]) == {offset}, col
    assert set(df["buffer_line_offset"]) == {0}
    assert list(tmp_path.iterdir()) == [], "the queue file outlived the run"


def test_a_lost_message_between_two_jvms_fails_the_run(tmp_path):
    r = kernel_process(IPC, "--transport=processes", *SMALL, "--inject=lose-one", f"--dir={tmp_path}")
    assert r.returncode == 3 and r.stdout == "" and "CHECK FAILED" in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_producer_jvm_that_dies_is_reported_not_waited_for(tmp_path):
    r = kernel_process(IPC, "--transport=processes", *SMALL, "--inject=producer-exit", f"--dir={tmp_path}")
    assert r.returncode == 1 and r.stdout == ""
    assert "producer JVM exited with code 7" in r.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_missing_directory_and_the_post_protocol_with_warmup_are_refused(tmp_path):
    assert_refused(kernel_process(IPC, *SMALL, f"--dir={tmp_path / 'nowhere'}"), "--dir")
    assert_refused(kernel_process(IPC, "--protocol=post", "--warmup-runs=1", f"--dir={tmp_path}"), "--warmup-runs")
    assert_refused(kernel_process(IPC, "--transport=threads", "--inject=producer-exit", f"--dir={tmp_path}"),
                   "--inject")


def _poll(what, until, timeout=60.0):
    """Wait for a state of the file system or the process table (polled, never a fixed sleep)."""
    deadline = time.monotonic() + timeout
    while not until():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.01)


def _processes_naming(text: str) -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if text in (p / "cmdline").read_bytes().decode(errors="replace"):
                    out.append(int(p.name))
            except OSError:
                pass
    return out


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_the_file_and_the_producer_jvm_go_on_a_signal(sig, tmp_path):
    """Signalled while the producer JVM starts (the file still has its name): the file is removed and the
    producer JVM ends; signalled mid-run (the name already gone): both JVMs end."""
    cmd = command(IPC, ["--transport=processes", "--messages=2000000000", "--runs=1", "--warmup-runs=0",
                        f"--dir={tmp_path}"])
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, preexec_fn=default_sigint)
    names = []
    try:
        _poll("the queue file", lambda: names.extend(p.name for p in tmp_path.iterdir()) or names)
        _poll("the producer JVM", lambda: _processes_naming(names[0]))
        proc.send_signal(sig)
        proc.wait(timeout=60)
        _poll("the file to go", lambda: not any(tmp_path.iterdir()))
        _poll("the producer JVM to end", lambda: not _processes_naming(names[0]))
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
