"""The sweep: each floor in its own fresh JVMs (or C processes), then the A/A: one small kernel (the cross-CPU
round trip, mechsym.calibration.Floors --measure=line) in many fresh JVMs, interleaved by the run loop with the
rest, whose per-fork levels are the regimes. The cells are run/calibrate.py's (the short form that opens every
standard run is this sweep's smoke preset); C: c:calibration."""

from __future__ import annotations

import contextlib

from ... import MechsymError
from ...machine import calibration
from ...machine.cpus import Topology
from ...machine.jdk import Jdk
from ...run import calibrate
from ...run.sweep import Cell
from .meta import PRESETS

KERNEL = calibrate.KERNEL
C_KERNEL = calibrate.C_KERNEL


def cells(preset: str, topo: Topology, jdks: list[Jdk], **_overrides) -> list[Cell]:
    """Every floor of the preset, on the first JDK (the floors are the machine's, not the JDK's)."""
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    return calibrate.cells(PRESETS[preset], topo, jdks)


@contextlib.contextmanager
def session(_cells, meta: dict):
    """Around the run: the CPUs a fresh process may migrate to, recorded as meta["calibration_facts"] (the record's
    free_cpus; steal comes from the run's noise summary)."""
    meta["calibration_facts"] = {"free_cpus": calibration.free_cpus()}
    yield None
