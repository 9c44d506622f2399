"""The sweep: a multicast sender and receiver, two JVMs in a network namespace of their own, pinned or not.

Each fork runs `unshare -n sh -c SCRIPT`: a fresh network namespace (root only) whose loopback gets multicast and
the 224.0.0.0/4 route; the receiver JVM starts first, the sender when the receiver has joined the group; group
239.x, TTL 0, so nothing leaves the namespace. Pinned: each JVM under `taskset -c` on its own CPU (the post's
`taskset -c 2` / `taskset -c 4`). The whole pair is one process group of launch.run: a timeout, Ctrl-C or SIGTERM
kills both JVMs; a crashed peer ends the other (the receiver stops after --idle-ms without a datagram), and each
JVM stops by itself after --max-seconds."""

from __future__ import annotations

import os
import shutil
import subprocess

import pandas as pd

from ... import MechsymError, classpath
from ...run import scratch
from ...machine.cpus import Topology
from ...machine.jdk import Jdk
from ...run.launch import Launch, run
from ...run.sweep import Cell, Fork
from .meta import PLACEMENTS, PRESETS

KERNEL = "mechsym.affinity.MulticastRate"
GROUP = "239.255.17.1"


SCRIPT = r"""
set -u
java="$1"; cp="$2"; rcpu="$3"; scpu="$4"; dir="$5"; shift 5
ip link set lo up multicast on && ip route add 224.0.0.0/4 dev lo \
  || { echo "MulticastRate: error: cannot route multicast on lo in the namespace" >&2; exit 1; }
# each JVM dies with this shell (setpriv --pdeathsig), and this shell with the bench (launch.run); pin runs in a
# subshell and execs, so the JVM's parent is this shell itself, not a subshell that would outlive it
die=""; command -v setpriv > /dev/null && die="setpriv --pdeathsig KILL"
pin() { c="$1"; shift; if [ "$c" = "-" ]; then exec $die "$@"; else exec $die taskset -c "$c" "$@"; fi; }
pin "$rcpu" "$java" -cp "$cp" mechsym.affinity.MulticastRate --role=receiver --ready-file="$dir/ready" "$@" \
  > "$dir/r.csv" 2> "$dir/r.err" &
r=$!
i=0
while [ ! -e "$dir/ready" ]; do
  i=$((i + 1))
  if [ $i -gt 600 ] || ! kill -0 $r 2>/dev/null; then
    kill $r 2>/dev/null; wait $r; cat "$dir/r.err" >&2; echo "MulticastRate: error: the receiver did not start" >&2
    exit 1
  fi
  sleep 0.05
done
(pin "$scpu" "$java" -cp "$cp" mechsym.affinity.MulticastRate --role=sender "$@" > "$dir/s.csv" 2> "$dir/s.err")
s=$?
wait $r
rc=$?
cat "$dir/s.err" "$dir/r.err" >&2
# a dead sender is the cause, whatever the receiver saw after it (no datagram, a short count): said first
[ $s -ne 0 ] && { echo "MulticastRate: error: the sender exited with code $s" >&2; exit 1; }
[ $rc -ne 0 ] && exit $rc
cat "$dir/s.csv"; tail -n +2 "$dir/r.csv"
"""


def namespace_missing() -> str | None:
    """Why this machine cannot run the pair in a network namespace of its own, or None when it can."""
    if os.geteuid() != 0:
        return "needs root: the run creates its own network namespace (unshare -n)"
    for tool in ("unshare", "ip"):
        if not shutil.which(tool):
            return f"`{tool}` not found: the run needs unshare and ip to make a private network namespace"
    try:
        probe = subprocess.run(["unshare", "-n", "ip", "link", "set", "lo", "up", "multicast", "on"],
                               capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"unshare -n failed: {e}"
    if probe.returncode != 0:
        return f"unshare -n / ip failed: {(probe.stderr or probe.stdout).strip()[:120]}"
    return None


def command(jdk: Jdk, cpus: list[int] | None, workdir: str, params: dict) -> list[str]:
    """The fork's command line: unshare, the script, the JDK, classpath, receiver CPU, sender CPU, scratch dir,
    then the kernel arguments both JVMs take."""
    rcpu, scpu = (str(cpus[0]), str(cpus[1])) if cpus else ("-", "-")
    return ["unshare", "-n", "sh", "-c", SCRIPT, "sh", str(jdk.java), classpath(), rcpu, scpu, workdir,
            *[f"--{k}={v}" for k, v in params.items()]]


def _runner(cpus: list[int] | None):
    def run_pair(fork: Fork) -> pd.DataFrame:
        cell = fork.cell
        # under the scratch root, named by this process: the next run removes it if this one is killed outright
        with scratch.scratch_dir("affinity") as d:
            launch = Launch(command(cell.jdk, cpus, str(d), cell.params), "taskset" if cpus else "none", cpus or [])
            fork.commands.append(launch.command_line)
            return run(launch, timeout=cell.timeout)
    return run_pair


def cell_for(placement: str, preset: str, topo: Topology, jdk: Jdk | None, missing: str | None = None) -> Cell:
    """One cell: the pair pinned to two CPUs on different cores (receiver, sender), or unpinned."""
    if placement not in PLACEMENTS:
        raise MechsymError(f"placement '{placement}': allowed placements are {', '.join(PLACEMENTS)}")
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    p = PRESETS[preset]
    cpus = topo.placement(placement)
    params = {"messages": p["messages"], "group": GROUP, "interface": "lo", "idle-ms": 2000,
              "max-seconds": p["timeout"] - 10}
    reason = missing or (None if cpus is not None else topo.missing_reason(placement))
    return Cell(variant="multicast", kernel="cmd:unshare", params=params,
                labels={"placement": placement, "receiver_cpu": cpus[0] if cpus else "any",
                        "sender_cpu": cpus[1] if cpus else "any", "java": jdk.feature if jdk else ""},
                jdk=jdk, forks=p["forks"], timeout=p["timeout"], unavailable=reason, runner=_runner(cpus))


def cells(preset: str, topo: Topology, jdks: list[Jdk], **_overrides) -> list[Cell]:
    """Each placement with the first JDK (the JVMs only carry datagrams); unavailable with the reason where the
    machine cannot make a private network namespace."""
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    missing = namespace_missing()
    return [cell_for(pl, preset, topo, list(jdks)[0] if jdks else None, missing) for pl in PRESETS[preset]["placements"]]
