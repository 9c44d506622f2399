"""The sweep: presets, the listing's own cells and the arrays-per-loop sweep, in Java and in C."""

from __future__ import annotations

import pandas as pd

from ... import MechsymError
from ...run import harness
from ...machine.cpus import Topology
from ...machine.jdk import Jdk
from ...run.launch import run
from ...run.sweep import Cell, Fork
from .meta import PRESETS


KERNEL = "mechsym.writecombining.WriteCombining"
C_KERNEL = "c:writecombining"
# The listing's six arrays: one loop of six (its SingleLoop) against two loops of three (its SplitLoop), three being
# below the four buffers the post says Intel guarantees. A loop of SPLIT arrays is the sweep's yardstick too.
POST_ARRAYS, SPLIT = 6, 3
# variant -> what it stands for
VARIANTS = {
    "listing": "the listing's main: SingleLoop (6 arrays, one loop) then SplitLoop (two loops of 3), 3 times per "
               "JVM, no warm-up (--protocol=post)",
    "single-loop": "N arrays written in one loop (--arrays=N)",
    "split-loops": "the listing's SplitLoop alone: 6 arrays in two loops of 3 (--arrays=6 --per-loop=3)",
    "listing-jit": "the listing's main with every compilation logged (-Xlog:jit+compilation): which code each "
                   "repetition ran; shown, never judged",
}
LISTINGS = ("listing", "listing-jit")
PROTOCOL_NAMES = ["lab", "post"]   # the kernels' protocols (WriteCombining.PROTOCOL_NAMES, writecombining.c; a test reads both)


def _check(preset: str) -> dict:
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    return PRESETS[preset]


def listing_cell(preset: str, jdk: Jdk | None) -> Cell:
    """The listing's main, one JVM (or C process) per fork: SingleLoop then SplitLoop, three times, no warm-up."""
    p = _check(preset)
    return Cell(variant="listing", kernel=C_KERNEL if jdk is None else KERNEL,
                params={"protocol": "post", "iterations": p["post_iterations"], "items": p["items"], "runs": 3},
                labels={"language": "c" if jdk is None else "java"}, jdk=jdk, forks=p["forks"],
                timeout=p["timeout"])


def listing_jit_cell(preset: str, jdk: Jdk) -> Cell:
    """The listing's main in a JVM that logs every compilation and invalidation (harness.JIT_LOG): its rows plus one
    jit_event row per event of the kernel's methods, placed in the repetitions by the kernel's uptime rows. A
    variant of its own, so the log (written by the compiler threads, outside the timed loop) touches no judged fork."""
    p = _check(preset)
    cell = listing_cell(preset, jdk)
    return Cell(variant="listing-jit", kernel=KERNEL, params=cell.params, labels=cell.labels,
                flags=(harness.JIT_LOG,), jdk=jdk, forks=p["jit_forks"], timeout=p["timeout"], runner=run_logged)


def run_logged(fork: Fork) -> pd.DataFrame:
    """A fork of listing_jit_cell: the kernel launched as any Java cell's, its stderr read line by line for the
    compilation events of mechsym.writecombining's methods (other lines stay its messages)."""
    launch = fork.cell.launch(fork)
    fork.commands.append(launch.command_line)
    lines: list[str] = []

    def keep(line: str) -> None:   # None: not a request, nothing goes to the kernel's stdin
        lines.append(line)
    df = run(launch, timeout=fork.cell.timeout, reply=keep)
    events = harness.jit_events(lines, prefix=KERNEL.rsplit(".", 1)[0] + ".")
    return pd.concat([df, harness.jit_event_rows(events, df)], ignore_index=True)


def sweep_cell(variant: str, arrays: int, preset: str, jdk: Jdk | None) -> Cell:
    """One point of the arrays-per-loop sweep (the lab's harness: warm-up runs, then measured runs)."""
    if variant not in ("single-loop", "split-loops"):
        raise MechsymError(f"variant '{variant}': allowed sweep variants are single-loop, split-loops")
    if not 1 <= arrays <= 12 or variant == "split-loops" and arrays != POST_ARRAYS:
        raise MechsymError(f"arrays {arrays}: allowed 1..12 in one loop, {POST_ARRAYS} in loops of {SPLIT}")
    p = _check(preset)
    per_loop = arrays if variant == "single-loop" else SPLIT
    return Cell(variant=variant, kernel=C_KERNEL if jdk is None else KERNEL,
                params={"protocol": "lab", "iterations": p["sweep_iterations"], "items": p["items"],
                        "arrays": arrays, "per-loop": per_loop, "runs": p["runs"], "warmup-runs": p["warmup_runs"]},
                labels={"language": "c" if jdk is None else "java"}, jdk=jdk, forks=p["forks"],
                timeout=p["timeout"])


def cells(preset: str, topo: Topology, jdks: list[Jdk], **_overrides) -> list[Cell]:
    """The listing's cells (every JDK and C; smoke: the first JDK), one JIT-logged fork of it per JDK, then the sweep
    (every JDK and C): one loop of N for every N, and the listing's SplitLoop alone.

    One thread, no pinning: the listing ran unpinned, and write combining is a property of the core that runs the
    loop. The run loop interleaves the forks round-robin over the cells."""
    p = _check(preset)
    jdks = list(jdks) if p["all_jdks"] else list(jdks)[:1]
    out = [listing_cell(preset, j) for j in [*jdks, None]]
    out += [listing_jit_cell(preset, j) for j in jdks]
    for jdk in [*jdks, None]:   # every JDK runs the sweep: four-buffers is judged on each (a lab choice not to was
        out += [sweep_cell("single-loop", n, preset, jdk) for n in p["arrays"]]   # "not measurable", wrongly)
        out.append(sweep_cell("split-loops", POST_ARRAYS, preset, jdk))
    return out


JMH_BENCHMARK = "mechsym.jmh.WriteCombining.write"


def jmh_cells(preset: str, topo: Topology, jdks: list[Jdk]) -> list[Cell]:
    """`--protocol jmh`: the listing's pair, six arrays in one loop and in two loops of three, at the preset's
    array length, on the first JDK, unpinned as the listing ran."""
    from ...run import jmh

    p = _check(preset)
    return [jmh.cell(v, JMH_BENCHMARK, {"variant": v, "items": p["items"]}, jdk, preset,
                     labels={"language": "java", "arrays": POST_ARRAYS})
            for jdk in jmh.first_jdk(preset, jdks) for v in ("single-loop", "split-loops")]
