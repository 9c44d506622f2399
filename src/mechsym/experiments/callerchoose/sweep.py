"""The sweep: three ways to split, small to large inputs, two collectors, a small young generation."""

from __future__ import annotations

from ... import MechsymError
from ...cpus import Topology
from ...jdk import Jdk
from ...sweep import Cell

NAME = "callerchoose"
TITLE = "Let the caller choose: String.split against a split into a caller-supplied, reused ArrayList or HashSet"
NOTEBOOKS = ["16-let-the-caller-choose"]
POST = "2011-07-16-let-the-caller-choose.md"
REF = "2011-07-16-let-the-caller-choose"
KERNEL = "mechsym.callerchoose.SplitCost"
METHODS = ["split", "list", "set"]
# words per input: the post's ten-word example sentence's size, a paragraph, and an input whose result array
# (16 + 4 x 4M bytes = 16 MB) is larger than the whole young generation the cells give the JVM (YOUNG).
SIZES = {"small": 10, "medium": 1_000, "large": 4_000_000}
YOUNG = "-Xmn8m"
HEAP = "-Xmx1g"
COLLECTORS = {"G1": "-XX:+UseG1GC", "Parallel": "-XX:+UseParallelGC"}
PROTOCOLS = ["post", "lab"]

# ops: calls per run per size, so that a run lasts ~0.1-0.5 s here (a large call takes ~0.2-1 s).
PRESETS = {
    "smoke": {"ops": {"small": 20_000, "medium": 200, "large": 1}, "sizes": {"small": 10, "medium": 1_000,
              "large": 200_000}, "runs": 1, "warmup_runs": 1, "forks": 1, "collectors": ["G1"], "timeout": 60},
    "standard": {"ops": {"small": 300_000, "medium": 4_000, "large": 1}, "sizes": SIZES, "runs": 2,
                 "warmup_runs": 1, "forks": 5, "collectors": list(COLLECTORS), "timeout": 120},
    "full": {"ops": {"small": 3_000_000, "medium": 40_000, "large": 5}, "sizes": SIZES, "runs": 5,
             "warmup_runs": 2, "forks": 10, "collectors": list(COLLECTORS), "timeout": 600},
}


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
