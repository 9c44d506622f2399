"""The processor-affinity kernel (notebook 12): the pair of JVMs in a private network namespace reports both sides
and its losses, and every way out of a fork (a deaf receiver, a crashed sender, a timeout, the bench stopped or
killed) ends both JVMs. No test asserts a timing number."""

import os
import random
import signal
import subprocess
import sys
import tempfile
import time

import pytest

from conftest import ROOT, default_sigint
from mechsym.run import sweep
from mechsym.machine.cpus import read_topology
from mechsym.experiments import affinity as exp
from mechsym.machine.jdk import discover
from mechsym.run.launch import KernelError

needs_namespace = pytest.mark.skipif(exp.namespace_missing() is not None,
                                     reason=f"no private network namespace here: {exp.namespace_missing()}")


def pair(placement="unpinned", **params):
    """A smoke cell with its own port (so a leftover JVM is found by it), params overriding the preset's."""
    cell = exp.cell_for(placement, "smoke", read_topology(), discover()[0])
    cell.params.update(port=random.randint(40000, 60000), **params)
    return cell


def alive(port: int) -> list[str]:
    r = subprocess.run(["pgrep", "-af", f"MulticastRate.*--port={port}"], capture_output=True, text=True)
    return [ln for ln in r.stdout.splitlines() if "pgrep" not in ln]


def gone(port: int, within: float = 10.0) -> bool:
    """Whether no JVM of that port is left, waiting up to `within` seconds for the kernel to reap them."""
    end = time.monotonic() + within
    while alive(port) and time.monotonic() < end:
        time.sleep(0.1)
    return not alive(port)


def wait_for_sender(port: int, proc: subprocess.Popen, within: float = 60.0) -> None:
    """Polls until the sender JVM itself runs (its program is java), not just the script's shell, whose arguments
    also read "java ... --role=sender": a kill that lands while the shell forks the sender leaves a JVM no one ends.
    Fails when `proc` (what started the pair) ended first or nothing started within `within` seconds."""
    end = time.monotonic() + within
    while not [ln for ln in alive(port) if ln.split()[1].endswith("/java") and "--role=sender" in ln]:
        assert proc.poll() is None and time.monotonic() < end, "the pair never started"
        time.sleep(0.1)


# ---------------------------------------------------------------- the pair

@needs_namespace
def test_pair_reports_both_sides_each_second_and_its_losses():
    cell = pair("cross-core" if read_topology().logical >= 2 else "unpinned", messages=200_000)
    df = sweep.run_fork(sweep.Fork(cell, 0))[0]
    assert set(df["role"]) == {"sender", "receiver"}
    got = df.set_index(["role", "metric"])["value"]
    assert got[("sender", "total")] == 200_000
    assert 0 < got[("receiver", "total")] <= 200_000
    assert got[("receiver", "lost")] >= 0 and got[("receiver", "reordered")] >= 0
    assert (df.loc[df["metric"] == "rate", "value"] > 0).all()
    assert gone(cell.params["port"])


@needs_namespace
def test_a_deaf_receiver_fails_the_fork():
    cell = pair(messages=2_000, **{"idle-ms": 300, "inject": "deaf"})
    with pytest.raises(KernelError) as e:
        sweep.run_fork(sweep.Fork(cell, 0))
    assert e.value.kind == "check-failed" and "no datagram" in str(e.value)
    assert gone(cell.params["port"])


@needs_namespace
def test_a_crashed_sender_ends_the_receiver_too():
    cell = pair(messages=100_000, **{"idle-ms": 300, "inject": "sender-dies"})
    with pytest.raises(KernelError) as e:
        sweep.run_fork(sweep.Fork(cell, 0))
    assert "sender exited with code 1" in str(e.value)
    assert gone(cell.params["port"])


@needs_namespace
def test_a_timeout_kills_both_jvms():
    cell = pair(messages=10 ** 10)
    cell.timeout = 2
    with pytest.raises(KernelError) as e:
        sweep.run_fork(sweep.Fork(cell, 0))
    assert e.value.kind == "timeout"
    assert gone(cell.params["port"])


@needs_namespace
def test_each_jvm_stops_by_itself_after_max_seconds():
    cell = pair(messages=10 ** 10, **{"max-seconds": 1})
    df = sweep.run_fork(sweep.Fork(cell, 0))[0]
    got = df.set_index(["role", "metric"])["value"]
    assert 0 < got[("sender", "total")] < 10 ** 10 and got[("receiver", "total")] > 0
    assert gone(cell.params["port"])


@pytest.mark.kernel
@needs_namespace
@pytest.mark.skipif(not os.path.exists("/usr/bin/setpriv") and not os.path.exists("/bin/setpriv"),
                    reason="no setpriv: a JVM does not die with the script's shell")
def test_both_jvms_die_with_the_scripts_shell_alone():
    """Only the shell is killed (not its process group): each JVM dies with its parent, the receiver too,
    though its --idle-ms would keep it waiting ten minutes."""
    cell = pair(messages=10 ** 10, **{"idle-ms": 600_000})
    with tempfile.TemporaryDirectory(prefix="mechsym-affinity-test-") as d:
        shell = subprocess.Popen(exp.command(cell.jdk, [], d, cell.params), stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            wait_for_sender(cell.params["port"], shell)
            shell.kill()
            shell.wait(timeout=30)
            assert gone(cell.params["port"]), alive(cell.params["port"])
        finally:
            if not gone(cell.params["port"], within=0):
                os.killpg(shell.pid, signal.SIGKILL)


CHILD = """
import sys
from mechsym.run import interrupts, sweep
from mechsym.machine.cpus import read_topology
from mechsym.experiments import affinity as exp
from mechsym.machine.jdk import discover
cell = exp.cell_for("unpinned", "smoke", read_topology(), discover()[0])
cell.params.update(messages=10 ** 10, port=int(sys.argv[1]))
with interrupts.signals_interrupt():
    sweep.run_fork(sweep.Fork(cell, 0))
"""


@pytest.mark.kernel
@needs_namespace
@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL], ids=["sigterm", "ctrl-c", "kill"])
def test_the_bench_stopped_or_killed_ends_both_jvms(how):
    port = random.randint(40000, 60000)
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(port)], cwd=ROOT, stderr=subprocess.DEVNULL,
                             preexec_fn=default_sigint)
    try:
        wait_for_sender(port, child)
        child.send_signal(how)
        child.wait(timeout=30)
    finally:
        if child.poll() is None:
            child.kill()
    assert gone(port), alive(port)
