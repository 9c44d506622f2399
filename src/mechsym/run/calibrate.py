"""The calibration's cells, and its short form that opens every `standard` run.

A verdict is only as good as the machine's floors: a cross-CPU wake-up of 30 µs hides a 2 µs effect, and two
vCPUs that behave as one core hide every contention effect. So each `standard` run first measures, in a few
seconds, the calibration's smoke preset (SHORT: the same kernels and cells as `mechsym calibrate`, fewer of
them) and records the record (machine/calibration.py) in its metadata under "calibration". The cells are built
here, below the experiments, so the run loop can open any run with them; experiments/calibration/sweep.py builds
its own presets from the same function.
"""

from __future__ import annotations

import time
from typing import Callable

import pandas as pd

from .. import MechsymError
from ..machine import calibration, procstat
from ..machine.cpus import Topology
from ..machine.jdk import Jdk
from .cells import Cell, Fork
from .launch import KernelError

KERNEL = "mechsym.calibration.Floors"
C_KERNEL = "c:calibration"
# the calibration experiment's smoke preset (meta.py keeps an equal copy: meta imports nothing; a test keeps them equal)
SHORT = {"samples": 200, "millis_samples": 3, "ops": 2_000_000, "trips": 20_000, "same_trips": 2_000,
         "rounds": 50, "runs": 2, "warmup_runs": 1, "forks": 1, "aa_forks": 3, "aa_trips": 10_000, "timeout": 60}
EXPERIMENT = calibration.EXPERIMENT


def cross_pair(topo: Topology) -> tuple[str, list[int] | None]:
    """Two CPUs on different cores (else SMT siblings, else sockets) and the placement's name; None on one CPU."""
    for name in ("cross-core", "smt", "cross-socket"):
        cpus = topo.placement(name)
        if cpus:
            return name, cpus
    return "cross-core", None


def cells(p: dict, topo: Topology, jdks: list[Jdk]) -> list[Cell]:
    """Every floor of preset `p` (SHORT's keys), on the first JDK only: the floors are the machine's, not the JDK's.
    Pinning is per thread (--pin=A,B, as the other kernels); a two-CPU cell on one CPU is unavailable."""
    jdk = list(jdks)[0] if jdks else None
    runs = {"runs": p["runs"], "warmup-runs": p["warmup_runs"]}
    same = [topo.ids[0], topo.ids[0]]
    where, cross = cross_pair(topo)
    missing = None if cross else f"needs two CPUs; {topo.missing_reason(where)}"

    def cell(variant, kernel, measure, params, placement="", pin=None, forks=p["forks"], unavailable=None):
        params = {"measure": measure, **params, **({"pin": ",".join(map(str, pin))} if pin else {}), **runs}
        return Cell(variant=variant, kernel=kernel, params=params, labels={"placement": placement},
                    jdk=None if kernel.startswith("c:") else jdk, forks=forks, timeout=p["timeout"],
                    unavailable=unavailable)

    return [
        cell("nanotime", KERNEL, "nanotime", {"samples": p["samples"]}),
        cell("millis", KERNEL, "millis", {"samples": p["millis_samples"]}),
        cell("cas", KERNEL, "cas", {"ops": p["ops"]}),
        cell("line-same", KERNEL, "line", {"trips": p["same_trips"], "wait": "yield"}, "same-cpu", same),
        cell("line-cross", KERNEL, "line", {"trips": p["trips"], "wait": "spin"}, where, cross, unavailable=missing),
        cell("wakeup-cross", KERNEL, "wakeup", {"rounds": p["rounds"]}, where, cross, unavailable=missing),
        cell("c-line-same", C_KERNEL, "line", {"trips": p["same_trips"], "wait": "yield"}, "same-cpu", same),
        cell("c-line-cross", C_KERNEL, "line", {"trips": p["trips"], "wait": "spin"}, where, cross,
             unavailable=missing),
        cell("c-futex-cross", C_KERNEL, "futex", {"rounds": p["rounds"]}, where, cross, unavailable=missing),
        # the A/A: one small kernel in fresh JVMs; its per-fork levels are the regimes (machine/calibration.levels)
        cell(calibration.AA_VARIANT, KERNEL, "line", {"trips": p["aa_trips"], "wait": "spin"}, where, cross,
             forks=p["aa_forks"], unavailable=missing),
    ]


def steal_pct(before: dict, after: dict) -> float | None:
    """Steal between two /proc/stat samples, % of all CPUs' time."""
    total = steal = 0
    for cpu, b in after.items():
        a = before.get(cpu)
        if a is None:
            continue
        d = [max(y - x, 0) for x, y in zip(a, b)]
        total += sum(d)
        steal += d[procstat.CPU_FIELDS.index("steal")]
    return round(100.0 * steal / total, 2) if total else None


def opening(topo: Topology, jdks: list[Jdk], meta: dict, run_fork: Callable[[Fork], tuple[pd.DataFrame, str]],
            tag: Callable[[pd.DataFrame, str, dict, int, str], pd.DataFrame]) -> dict:
    """Run SHORT's cells (forks round-robin) and return the record as a dict, with "seconds"; a failed kernel
    never loses the run it opens: the record then says why (and holds what was measured)."""
    from pathlib import Path

    if not jdks:
        from ..machine.jdk import discover

        jdks = discover()
    start = time.monotonic()
    before = procstat.read_stat(Path("/proc"))
    runnable = [c for c in cells(SHORT, topo, jdks) if not c.unavailable]
    frames, errors = [], []
    for fork in range(max((c.forks for c in runnable), default=0)):
        for cell in runnable:
            if fork >= cell.forks:
                continue
            try:
                df, pinned = run_fork(Fork(cell, fork))
            except (KernelError, MechsymError) as e:
                errors.append(f"{cell.variant} fork {fork}: {str(e).splitlines()[0] if str(e) else type(e).__name__}")
                continue
            frames.append(tag(df, EXPERIMENT, cell.columns(), fork, pinned))
    facts = {"free_cpus": calibration.free_cpus(), "steal_pct": steal_pct(before, procstat.read_stat(Path("/proc"))),
             "notes": errors}
    rows = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=["variant", "value"])
    record = calibration.from_rows(rows, {"machine": meta.get("machine", {}), "calibration_facts": facts})
    out = record.as_dict()
    out["source"] = f"short form opening run {meta.get('run_id')}"
    out["seconds"] = round(time.monotonic() - start, 1)
    return out
