"""The sweep: three ways to split, small to large inputs, two collectors, a small young generation."""

from __future__ import annotations

from ... import MechsymError
from ...machine.cpus import Topology
from ...machine.jdk import Jdk
from ...run.sweep import Cell
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


JMH_BENCHMARK = "mechsym.jmh.CallerChoose.splitOnce"
JMH_SIZES = ["small", "medium"]   # CallerChoose's @Param words: 8 and 1000 (the large input is one call a second)


def jmh_cells(preset: str, topo: Topology, jdks: list[Jdk]) -> list[Cell]:
    """`--protocol jmh`: every method at the small and medium inputs under G1 with the lab's heap and young
    generation, on the first JDK; `-prof gc` gives bytes per call (gc.alloc.rate.norm) beside the time."""
    from ...run import jmh

    p = PRESETS[preset]
    return [jmh.cell(m, JMH_BENCHMARK, {"method": m, "words": p["sizes"][s]}, jdk, preset,
                     flags=(HEAP, YOUNG, COLLECTORS["G1"]), labels={"size": s, "collector": "G1"})
            for jdk in jmh.first_jdk(preset, jdks) for s in JMH_SIZES for m in METHODS]
