"""`make fleet` over real SSH (tests/fleetnet.py: hosts in network namespaces of this machine, an sshd each, no route
out), the path a user with several machines takes:

- airgap: builds from `make pack` (no internet: its namespace has no route out), and its sweep is cut: the test kills
  the SSH connection while the run is under way. The run goes on on the host, and the next `make fleet` gathers it.
- prebuilt: lends this checkout's build and .venv, runs and is imported as a machine of its own;
- brokenpy: the python3 on its login PATH exits with pyenv's error; the summary says so in one line, in its words;
- dead: an address with no host; the summary names it and the cause in one line.

"Under way" without a race: airgap's JDK (MECHSYM_JDKS, through its sshd) is this machine's, behind a gate, a shared
flock on a file the test holds until it has cut airgap's connection: its sweep has started and waits there.
The test is not marked `kernel`: it holds the kernel lock (conftest's `kernels`) while a host sweeps (prebuilt's at
the start, airgap's from the gate's opening to the end), not while airgap builds (a minute, beside the other tests).
Skipped where the namespaces cannot be made (not root, no `ip netns`, no sshd) or the pack is missing (`make test`
makes it); CI has them all (.ci/run installs openssh-server)."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from fleetnet import DEAD, PATH, FleetNet, usable

ROOT = Path(__file__).resolve().parents[1]
PACK = ROOT / "build" / "pack" / "mechsym-pack.tar"
BROKEN = "pyenv: python3.13: command not found"


def _why_not() -> str | None:
    if not (Path(sys.executable).parent / "ansible-playbook").exists():
        return "ansible-playbook is not in .venv: run `make fleet-deps` (`make test` does)"
    if not PACK.exists() or not (PACK.parent / "pack.json").exists():
        return f"{PACK} missing: run `make pack` (`make test` does)"
    return usable()


pytestmark = pytest.mark.skipif(_why_not() is not None, reason=str(_why_not()))


def gated_jdk(where: Path, gate: Path) -> Path:
    """This machine's JDK 17, all of it, but for a bin/java that first waits for a shared flock on `gate`."""
    real = Path(shutil.which("java")).resolve().parent.parent
    (where / "bin").mkdir(parents=True)
    for entry in real.iterdir():
        if entry.name != "bin":
            (where / entry.name).symlink_to(entry)
    for tool in (real / "bin").iterdir():
        if tool.name != "java":
            (where / "bin" / tool.name).symlink_to(tool)
    java = where / "bin" / "java"
    java.write_text(f"#!/bin/sh\nflock -s {gate} true\nexec {real / 'bin' / 'java'} \"$@\"\n")
    java.chmod(0o755)
    return where


class Held:
    """The kernel lock taken and given back as the test goes (each at most once held), and given back at the end."""

    def __init__(self, lock):
        self.lock, self.held = lock, False

    def take(self) -> None:
        if not self.held:
            self.lock.__enter__()
            self.held = True

    def give(self) -> None:
        if self.held:
            self.lock.__exit__(None, None, None)
            self.held = False

    def __enter__(self) -> "Held":
        return self

    def __exit__(self, *exc) -> None:
        self.give()


def make_fleet(net: FleetNet, inventory: Path, out: Path, store: Path, *extra: str) -> subprocess.Popen:
    """`make fleet` in the controller's namespace; its prerequisites (all, fleet-deps, pack) are taken as made:
    `make test` made them, and the controller's namespace has no internet to make them with."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MECHSYM_")}
    env.update(MECHSYM_RESULTS=str(store), MECHSYM_BENCH_LOCK=str(out.parent / "bench.lock"))
    cmd = ["make", "-s", "-C", str(ROOT), "-o", "all", "-o", "fleet-deps", "-o", "pack", "fleet",
           f"VENV={sys.prefix}", f"INVENTORY={inventory}", "EXPERIMENTS=writecombining", "PACK=1", "POLL=1",
           f"FLEET_OUT={out}", *extra]
    return subprocess.Popen(net.exec(cmd), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)


@pytest.mark.timeout(900)
def test_fleet_over_ssh_survives_a_cut_connection_and_names_each_failure(tmp_path, kernels):
    pack = json.loads((PACK.parent / "pack.json").read_text())
    python = pack["python_executable"]   # the pack's wheels are for this Python
    gate = tmp_path / "gate"
    gate.touch()
    broken = tmp_path / "broken-bin"
    broken.mkdir()
    (broken / "python3").write_text(f"#!/bin/sh\necho '{BROKEN}' >&2\nexit 127\n")
    (broken / "python3").chmod(0o755)
    prebuilt = tmp_path / "prebuilt"   # this checkout's build/ and the .venv running this test
    prebuilt.mkdir()
    (prebuilt / "build").symlink_to(ROOT / "build")
    (prebuilt / ".venv").symlink_to(Path(sys.prefix))
    hosts = {"airgap": {"env": {"MECHSYM_JDKS": str(gated_jdk(tmp_path / "gated-jdk", gate))}}, "prebuilt": {},
             "brokenpy": {"env": {"PATH": f"{broken}:{PATH}"}}}
    store = tmp_path / "store"
    with contextlib.ExitStack() as stack:
        net = stack.enter_context(FleetNet(tmp_path / "net", hosts))
        held = stack.enter_context(open(gate))
        fcntl.flock(held, fcntl.LOCK_EX)
        a = net.address
        inventory = tmp_path / "hosts.ini"
        inventory.write_text(f"""
[fleet]
airgap   ansible_host={a['airgap']} mechsym_machine=fleet-airgap ansible_python_interpreter={python}
prebuilt ansible_host={a['prebuilt']} mechsym_machine=fleet-prebuilt ansible_python_interpreter={python} \
         mechsym_prebuilt={prebuilt}
brokenpy ansible_host={a['brokenpy']} mechsym_machine=fleet-brokenpy
dead     ansible_host={DEAD} mechsym_machine=fleet-dead

[fleet:vars]
ansible_user=root
ansible_ssh_private_key_file={net.key}
ansible_ssh_common_args='{net.ssh_args()}'
""")
        # the air-gapped host has no way out
        r = subprocess.run(net.exec([python, "-c", "import socket; socket.create_connection(('1.1.1.1', 443), 3)"],
                                    "airgap"), capture_output=True, text=True)
        assert r.returncode != 0 and "Network is unreachable" in r.stderr, r.stderr

        sweeps = stack.enter_context(Held(kernels))
        sweeps.take()   # prebuilt's sweep runs now
        p = make_fleet(net, inventory, tmp_path / "out1", store)
        seen, cut = [], False
        for line in p.stdout:
            seen.append(line)
            if not cut and line.startswith("  prebuilt: ") and (
                    " imported " in line or any(w in line for w in (" failed", "unreachable", "lost", "refused"))):
                sweeps.give()   # no kernel runs while airgap builds (a minute), beside the other tests
            if cut or not line.startswith("  airgap: "):
                continue
            if line.startswith("  airgap: run writecombining: started"):
                net.cut("airgap")   # its sweep has started and waits at the gate: cut mid-run
                cut = True
            elif not any(w in line for w in (" failed", "unreachable", "lost", "refused", "stopped")):
                continue
            sweeps.take()   # airgap's sweep runs from here on, on its own, unconnected
            fcntl.flock(held, fcntl.LOCK_UN)
        p.wait(timeout=600)
        first = "".join(seen)
        assert cut, first
        net.restore("airgap")
        p = make_fleet(net, inventory, tmp_path / "out2", store, "LIMIT=airgap")
        second = p.communicate(timeout=600)[0]

    assert p.returncode == 0, second
    summary = first[first.index("fleet summary"):]
    rows = {line.split()[0]: line.split()[1:] for line in summary.splitlines()[2:]
            if line.startswith("  ") and not line.startswith("   ") and ":" not in line.split()[0]}
    assert rows["prebuilt"] == ["fleet-prebuilt", "1"], summary
    assert rows["airgap"] == ["fleet-airgap", "-"], summary
    failures = summary[summary.index("failures: "):].splitlines()
    assert failures[0] == "failures: 3", summary
    by_host = {h: [f for f in failures[1:] if f.startswith(f"  {h}: ")] for h in ("airgap", "brokenpy", "dead")}
    assert all(len(lines) == 1 for lines in by_host.values()), summary
    assert "brokenpy: python: python3" in by_host["brokenpy"][0] and f"does not run: {BROKEN}" in \
        by_host["brokenpy"][0], summary
    assert f"dead: unreachable: ssh: connect to host {DEAD} port 22: No route to host" in by_host["dead"][0], summary
    assert "airgap: connection lost during the sweep" in by_host["airgap"][0] and "the next `make fleet`" in \
        by_host["airgap"][0], summary
    # the progress said what the air-gapped host built from, and how far it got before the cut
    assert "  airgap: pack " in first and "  airgap: make: done" in first, first

    # the next make fleet: re-attached to (or kept) the run the cut left on the host, and gathered it
    assert "airgap: its sweep of an earlier `make fleet` still runs" in second or \
        "kept from an earlier attempt: make, run writecombining" in second, second
    tail = second[second.index("fleet summary"):]
    assert "  airgap  fleet-airgap  1" in tail and "failures: 0" in tail, tail

    # two hosts, two machines, one smoke run each, under the ids the hosts reported
    assert sorted(p.name for p in store.iterdir() if not p.name.startswith(".")) == ["fleet-airgap", "fleet-prebuilt"]
    for machine in ("fleet-airgap", "fleet-prebuilt"):
        runs = sorted((store / machine / "writecombining").glob("*.json"))
        assert len(runs) == 1, runs
        meta = json.loads(runs[0].read_text())
        assert meta["machine"]["machine_id"] == machine and meta["preset"] == "smoke"
    # the air-gapped host: its environment from the pack's wheelhouse, its run on the gated JDK it waited for
    home = net.home("airgap") / "mechsym-lab"
    assert (home / "build" / ".pack-id").read_text() == pack["id"]
    assert (home / ".venv").is_dir() and not (home / ".venv").is_symlink()
    meta = json.loads(next((store / "fleet-airgap" / "writecombining").glob("*.json")).read_text())
    assert str(tmp_path / "gated-jdk") in [j["home"] for j in meta["jdks"]], meta["jdks"]
    # every process and namespace the test started is gone
    left = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    assert net.ctl not in left and not any(ns in left for ns in net.ns.values()), left
