"""The spsc sweep: queue variant x CPU placement x JVM option set x JDK, `runs` fresh JVMs per cell, plus one
JOL layout cell per JDK."""

from __future__ import annotations

import pandas as pd

from ...machine.cpus import PLACEMENTS as TOPOLOGY_PLACEMENTS, Topology
from ...machine.jdk import Jdk
from ...run.sweep import Cell
from .meta import MAIN_OPTIONS, OPTION_SETS, PRESETS

KERNEL = "mechsym.spsc.SpscThroughput"
LAYOUT_KERNEL = "mechsym.spsc.SpscLayout"

POST_QUEUES = ["O1", "O2", "I1", "I2", "I3", "I4"]

CT_OPTIONS = "post-notiered"     # the set in which CompileThreshold=100000 acts (UseNUMA is off on one NUMA node)
PLACEMENTS = [p for p in TOPOLOGY_PLACEMENTS if p != "unpinned"]   # same-cpu, smt, cross-core, cross-socket
PLACEMENT_LABELS = {"same-cpu": "same CPU (one logical CPU)", "smt": "SMT siblings", "cross-core": "cross core",
                    "cross-socket": "cross socket"}
# The post's "same core" (SC): most likely two hardware threads of one core on its hyper-threaded Xeon (smt); one
# logical CPU (same-cpu) stands in where the machine has no SMT siblings, and is judged beside it.
SAME_CORE = ["smt", "same-cpu"]


def option_sets_table() -> pd.DataFrame:
    """The JVM option sets: name, flags, what each stands for."""
    return pd.DataFrame([(k, " ".join(f) or "(none)", d) for k, (f, d) in OPTION_SETS.items()],
                        columns=["option set", "JVM flags", "what it stands for"]).set_index("option set")


def option_sets_for(preset: str, jdk: Jdk, lowest: int) -> list[str]:
    sets = PRESETS[preset]["sets"]
    return sets["lowest"] if jdk.feature == lowest else sets.get("other", [])


def cells(preset: str, topo: Topology, jdks: list[Jdk]) -> list[Cell]:
    """The layout of every queue once per JDK, then every (option set, placement, queue) cell; a placement the
    machine lacks is stored as unavailable with the reason."""
    p = PRESETS[preset]
    out: list[Cell] = []
    if not jdks:
        return out
    lowest = min(j.feature for j in jdks)
    for jdk in jdks:
        out.append(Cell(variant="layout", kernel=LAYOUT_KERNEL, jdk=jdk, forks=1, timeout=120,
                        params={"queue": "all", "check": "false"},
                        labels={"placement": "none", "options": "none", "kind": "layout"}))
        for options in option_sets_for(preset, jdk, lowest):
            flags = OPTION_SETS[options][0]
            main = jdk.feature == lowest and options == MAIN_OPTIONS
            runs = p["runs"]["main" if main else "other"]
            for placement in PLACEMENTS:
                cpus = topo.placement(placement)
                for queue in p["queues"]:
                    params = {"queue": queue, "ops": p["ops"], "iterations": p["iterations"],
                              "measured": p["measured"], "capacity": p["capacity"]}
                    labels = {"placement": placement, "options": options, "kind": "throughput"}
                    if cpus is None:
                        out.append(Cell(variant=queue, kernel=KERNEL, jdk=jdk, flags=flags, params=params,
                                        labels=labels, forks=runs, unavailable=topo.missing_reason(placement)))
                        continue
                    params["pin"] = f"{cpus[0]},{cpus[1]}"
                    out.append(Cell(variant=queue, kernel=KERNEL, jdk=jdk, flags=flags, params=params, labels=labels,
                                    cpus=list(cpus), forks=runs, timeout=p["timeout"]))
    return out


JMH_BENCHMARK = "mechsym.jmh.SpscQueues.spsc"
JMH_PLACEMENT = "cross-core"


def jmh_cells(preset: str, topo: Topology, jdks: list[Jdk]) -> list[Cell]:
    """`--protocol jmh`: the preset's queues (the kernel's own classes: O1, I1-I4, JCTools), producer and consumer
    as a @Group, under the post's options as JDK 7 ran them (MAIN_OPTIONS: the lab's main cells, the ones with the
    post's 30 forks), on the first JDK, the host JVM under taskset over the cross-core pair. Rows: the poll member
    (spsc:poll) counts messages moved."""
    from ...run import jmh

    pair = topo.placement(JMH_PLACEMENT) if topo is not None else None
    flags = OPTION_SETS[MAIN_OPTIONS][0]
    return [jmh.cell(q, JMH_BENCHMARK, {"queue": q}, jdk, preset, threads=2, cpus=pair, flags=flags,
                     labels={"placement": JMH_PLACEMENT, "options": MAIN_OPTIONS, "kind": "throughput"})
            for jdk in jmh.first_jdk(preset, jdks) for q in PRESETS[preset]["queues"]]
