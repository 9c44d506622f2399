"""Processor affinity (notebook 12): the pair of JVMs in a private network namespace, how every way out of a fork
ends both JVMs, the cells without root, and the verdicts on synthetic rows. No test asserts a timing number."""

import inspect
import os
import re
import random
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT, default_sigint
from mechsym import sweep
from mechsym.cpus import read_topology
from mechsym.experiments import affinity as exp
from mechsym.experiments.affinity import sweep as affinity_sweep
from mechsym.jdk import discover
from mechsym.launch import KernelError
from mechsym.verdicts import FAILS, HOLDS, UNMEASURABLE

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
from mechsym import interrupts, sweep
from mechsym.cpus import read_topology
from mechsym.experiments import affinity as exp
from mechsym.jdk import discover
cell = exp.cell_for("unpinned", "smoke", read_topology(), discover()[0])
cell.params.update(messages=10 ** 10, port=int(sys.argv[1]))
with interrupts.signals_interrupt():
    sweep.run_fork(sweep.Fork(cell, 0))
"""


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


# ---------------------------------------------------------------- the sweep

def test_without_root_the_cells_are_unavailable_with_the_reason(monkeypatch):
    monkeypatch.setattr(affinity_sweep.os, "geteuid", lambda: 1000)
    cells = exp.cells("standard", read_topology(), discover())
    assert cells and all("needs root" in c.unavailable for c in cells)


def test_command_pins_each_jvm_to_its_own_cpu():
    jdk = discover()[0]
    cmd = exp.command(jdk, [0, 1], "/tmp/x", {"messages": 5})
    assert cmd[:3] == ["unshare", "-n", "sh"] and cmd[8:] == ["0", "1", "/tmp/x", "--messages=5"]
    assert exp.command(jdk, [], "/tmp/x", {})[8:] == ["-", "-", "/tmp/x"]


# ---------------------------------------------------------------- verdicts on synthetic rows

def synthetic(levels, forks=5, seconds=6, machine="m"):
    """levels: placement -> (rate, step): per fork, seconds alternating rate and rate x step."""
    rows = []
    for placement, (rate, step) in levels.items():
        for fork in range(forks):
            for s in range(seconds):
                v = rate * (1 + 0.01 * fork) * (step if s % 2 else 1.0)
                rows.append(dict(run_id="20260101T000000Z-standard-a", experiment="affinity", variant="multicast",
                                 role="receiver", placement=placement, fork=fork, iteration=s, warmup=False,
                                 metric="rate", value=v, unit="msg/s", status="ok", note="", machine=machine))
    return pd.DataFrame(rows)


def outcomes(df):
    return {(v.claim.id.removeprefix("affinity."), v.protocol): v.outcome for v in exp.verdicts(df)}


def test_verdicts_on_synthetic_rows():
    o = outcomes(synthetic({"cross-core": (800e3, 1.05), "unpinned": (500e3, 0.5)}))
    assert o[("pinned-greatest-throughput", "post")] == HOLDS and o[("pinned-steadier", "lab")] == HOLDS
    o = outcomes(synthetic({"cross-core": (400e3, 0.5), "unpinned": (800e3, 1.05)}))
    assert o[("pinned-greatest-throughput", "lab")] == FAILS and o[("pinned-steadier", "post")] == FAILS
    assert not exp.rate_table(synthetic({"cross-core": (1e5, 1.0)})).empty


def test_unavailable_cells_make_every_claim_not_measurable_with_the_reason():
    df = pd.DataFrame([dict(run_id="r", experiment="affinity", variant="multicast", placement=p, fork=-1,
                            iteration=-1, warmup=False, metric="", value=np.nan, unit="", status="unavailable",
                            note="needs root: the run creates its own network namespace (unshare -n)",
                            machine="m") for p in exp.PLACEMENTS])
    vs = exp.verdicts(df)
    assert {v.outcome for v in vs} == {UNMEASURABLE} and all("needs root" in v.why for v in vs)


def test_the_roles_the_sweep_starts_are_the_kernels_own_through_jpype():
    from mechsym import bridge
    from mechsym.experiments.affinity import sweep

    roles = set(re.findall(r"--role=(\w+)", inspect.getsource(sweep)))
    assert roles and roles == set(bridge.kernel(sweep.KERNEL).ROLES)
