"""The sweep: three ways to split, small to large inputs, two collectors, a small young generation."""

from __future__ import annotations

from ... import MechsymError
from ...cpus import Topology
from ...jdk import Jdk
from ...sweep import Cell
from .meta import COLLECTORS, PRESETS, SIZES

KERNEL = "mechsym.callerchoose.SplitCost"
METHODS = ["split", "list", "set"]
YOUNG = "-Xmn8m"
HEAP = "-Xmx1g"
PROTOCOL_NAMES = ["post", "lab"]


def cell_for(method: str, size: str, collector: str, preset: str, jdk: Jdk | None) -> Cell:
    """One cell (also used by the tests)."""
    if method not in METHODS:
        raise MechsymError(f"method '{method}': allowed methods are {', '.join(METHODS)}")
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    p = PRESETS[preset]
    params = {"method": method, "words": p["sizes"][size], "ops": p["ops"][size], "runs": p["runs"],
              "warmup-runs": p["warmup_runs"]}
    return Cell(variant=method, kernel=KERNEL, params=params, labels={"size": size, "collector": collector},
                flags=(HEAP, YOUNG, COLLECTORS[collector]), jdk=jdk, forks=p["forks"], timeout=p["timeout"])


def cells(preset: str, topo: Topology, jdks: list[Jdk], **_overrides) -> list[Cell]:
    """Every JDK (smoke: the first); every method x size x collector (smoke: G1 only, a smaller 'large')."""
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    p = PRESETS[preset]
    chosen = (list(jdks)[:1] if preset == "smoke" else list(jdks)) or [None]
    return [cell_for(m, s, g, preset, jdk) for jdk in chosen for g in p["collectors"] for s in SIZES for m in METHODS]
