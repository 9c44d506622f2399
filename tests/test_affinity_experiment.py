"""Processor affinity (notebook 12): the cells without root, each JVM's pinning in the command, the verdicts on
synthetic rows, and the roles the sweep starts (the kernel itself: tests/test_affinity_kernel.py). No test asserts a
timing number."""

import inspect
import re

import numpy as np
import pandas as pd
import pytest

from mechsym.run import sweep
from mechsym.machine.cpus import read_topology
from mechsym.experiments import affinity as exp
from mechsym.experiments.affinity import sweep as affinity_sweep
from mechsym.machine.jdk import discover
from mechsym.judge.verdicts import FAILS, HOLDS, UNMEASURABLE


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
    assert o[("pinned-greatest-throughput", "post")] == HOLDS and o[("pinned-steadier", "post")] == HOLDS
    o = outcomes(synthetic({"cross-core": (400e3, 0.5), "unpinned": (800e3, 1.05)}))
    assert o[("pinned-greatest-throughput", "post")] == FAILS and o[("pinned-steadier", "post")] == FAILS
    assert not exp.rate_table(synthetic({"cross-core": (1e5, 1.0)})).empty


def test_unavailable_cells_make_every_claim_not_measurable_with_the_reason():
    df = pd.DataFrame([dict(run_id="r", experiment="affinity", variant="multicast", placement=p, fork=-1,
                            iteration=-1, warmup=False, metric="", value=np.nan, unit="", status="unavailable",
                            note="needs root: the run creates its own network namespace (unshare -n)",
                            machine="m") for p in exp.PLACEMENTS])
    vs = exp.verdicts(df)
    assert {v.outcome for v in vs} == {UNMEASURABLE} and all("needs root" in v.why for v in vs)


@pytest.mark.kernel
def test_the_roles_the_sweep_starts_are_the_kernels_own_through_jpype():
    from mechsym.run import bridge
    from mechsym.experiments.affinity import sweep

    roles = set(re.findall(r"--role=(\w+)", inspect.getsource(sweep)))
    assert roles and roles == set(bridge.kernel(sweep.KERNEL).ROLES)
