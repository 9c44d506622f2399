"""The sweep: presets, the buffet's variants (transport x the post's knobs), CPU placements and the cells."""

from __future__ import annotations

import functools

from ... import MechsymError
from ...machine import cpus
from ...run import scratch
from ...machine.cpus import Topology
from ...machine.jdk import Jdk
from ...run.sweep import Cell
from .meta import JUDGED, NAME, PLACEMENTS, PRESETS, VARIANTS

KERNEL = "mechsym.ping.PingBuffet"
IPC_FILE_BYTES = 4096   # the IPC variant's mapped file (Links.IPC_BYTES)

PINNED = "cross-core"   # the post: "For TCP/UDP the best results I observed were across different cores"
PLACEMENT_TEXT = {
    "cross-core": "client and server threads on two CPUs of different cores (the post's taskset runs)",
    "smt": "client and server threads on two SMT siblings of one core (the post's \"same core (different threads)\")",
    "same-cpu": "client and server threads on one CPU",
    "unpinned": "no pinning: the scheduler decides",
}


def cell_for(variant: str, placement: str, preset: str, topo: Topology, jdk: Jdk | None,
             protocol: str = "lab") -> Cell:
    """One cell (also used by the tests): the lab's harness (HdrHistogram per run), or the kernel's post protocol
    (the raw round trips sorted, as the post's tool read its percentiles)."""
    if variant not in VARIANTS:
        raise MechsymError(f"variant '{variant}': allowed variants are {', '.join(VARIANTS)}")
    if placement not in PLACEMENTS:
        raise MechsymError(f"placement '{placement}': allowed placements are {', '.join(PLACEMENTS)}")
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    if protocol not in ("lab", "post"):
        raise MechsymError(f"protocol '{protocol}': allowed are lab, post")
    p = PRESETS[preset]
    mode, yield_, wait, _ = VARIANTS[variant]
    cpus = topo.placement(placement)
    fast = mode in ("ipc-spin", "timer") and not yield_ and placement in (PINNED, "smt")
    params = {"protocol": protocol, "mode": mode, "pings": p["pings_fast"] if fast else p["pings"], "runs": p["runs"] if protocol == "lab" else 1,
              "warmup-runs": p["warmup_runs"], "yield": str(yield_).lower(), "wait-nanos": wait,
              "pin": ",".join(map(str, cpus or []))}
    judged = placement == PINNED and variant in JUDGED
    return Cell(variant=variant, kernel=KERNEL, params=params, labels={"placement": placement}, jdk=jdk,
                forks=p["forks"] if judged else p["other_forks"], timeout=p["timeout"],
                args=scratch.dir_arg(NAME) if mode == "ipc-spin" else None,
                unavailable=None if cpus is not None else topo.missing_reason(placement))


def cells(preset: str, topo: Topology, jdks: list[Jdk], **_overrides) -> list[Cell]:
    """Every variant x placement with the lab's harness, then the judged variants pinned with the post's protocol;
    the first JDK only (the post compares transports, not JVMs). The run loop interleaves the forks."""
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    p = PRESETS[preset]
    jdk = list(jdks)[0] if jdks else None
    out = [cell_for(v, pl, preset, topo, jdk) for pl in p["placements"] for v in PLACEMENTS[pl] if v in p["variants"]]
    return out + [cell_for(v, PINNED, preset, topo, jdk, protocol="post") for v in p["post"]]


def session(cells: list[Cell], meta: dict):
    """The run-wide hook: the run's scratch directory for the IPC variant's mapped file (mechsym.run.scratch: under
    $MECHSYM_SCRATCH, refused without room, removed whatever happens)."""
    return scratch.session(NAME, IPC_FILE_BYTES, meta)


# Which CPUs each placement uses on this machine, or why it is missing (the shared table, this experiment's roles).
placements_table = functools.partial(cpus.placements_table,
                                     {p: PLACEMENT_TEXT[p] for p in PLACEMENTS}, ("client", "server"))
