"""The spsc sweep: queue variant x CPU placement x JVM option set x JDK, `runs` fresh JVMs per cell, plus one
JOL layout cell per JDK."""

from __future__ import annotations

import pandas as pd

from ...cpus import PLACEMENTS as TOPOLOGY_PLACEMENTS, Topology
from ...jdk import Jdk
from ...sweep import Cell

KERNEL = "mechsym.spsc.SpscThroughput"
LAYOUT_KERNEL = "mechsym.spsc.SpscLayout"

QUEUES = {
    "O1": "original: AtomicLong head/tail with lazySet, cached counters, one-side-padded holder objects",
    "O2": "O1 + padded data buffer (16 unused slots on each end)",
    "I1": "counters inlined in the queue object, 64 bytes apart (class-hierarchy padding)",
    "I2": "I1 + padded data buffer",
    "I3": "I1 + padding before the cold fields (capacity, mask, buffer)",
    "I4": "I3 + padded data buffer",
    "jctools": "JCTools 4.0.5 SpscArrayQueue (not in the post: today's reference)",
}
POST_QUEUES = ["O1", "O2", "I1", "I2", "I3", "I4"]

# name -> (JVM flags, what it stands for)
OPTION_SETS = {
    "none": ((), "no JVM options"),
    "condcard": (("-XX:+UseCondCardMark",), "-XX:+UseCondCardMark"),
    "condcard-ct": (("-XX:+UseCondCardMark", "-XX:CompileThreshold=100000"),
                    "+ -XX:CompileThreshold=100000 (ignored under tiered compilation, the default since JDK 8)"),
    "post": (("-XX:+UseNUMA", "-XX:+UseCondCardMark", "-XX:CompileThreshold=100000"),
             "the post's options as written: + -XX:+UseNUMA"),
    "post-notiered": (("-XX:+UseNUMA", "-XX:+UseCondCardMark", "-XX:CompileThreshold=100000", "-XX:-TieredCompilation"),
                      "the post's options as JDK 7 ran them: + -XX:-TieredCompilation (C2 only, so CompileThreshold acts)"),
}
MAIN_OPTIONS = "post-notiered"   # the option set of the post's first four figures, as JDK 7u17 ran it
CT_OPTIONS = "post-notiered"     # the set in which CompileThreshold=100000 acts (UseNUMA is off on one NUMA node)
PLACEMENTS = [p for p in TOPOLOGY_PLACEMENTS if p != "unpinned"]   # same-cpu, smt, cross-core, cross-socket
PLACEMENT_LABELS = {"same-cpu": "same CPU (one logical CPU)", "smt": "SMT siblings", "cross-core": "cross core",
                    "cross-socket": "cross socket"}
# The post's "same core" (SC): most likely two hardware threads of one core on its hyper-threaded Xeon (smt); one
# logical CPU (same-cpu) stands in where the machine has no SMT siblings, and is judged beside it.
SAME_CORE = ["smt", "same-cpu"]

PRESETS = {
    # seconds: every queue, both placements, the main option set on the lowest JDK, one JVM each
    "smoke": {"ops": 50_000, "iterations": 4, "measured": 2, "capacity": 32768, "queues": list(QUEUES),
              "sets": {"lowest": [MAIN_OPTIONS]}, "runs": {"main": 1, "other": 1}, "timeout": 60},
    # ~11 minutes on 2 vCPUs (648 fresh JVMs of ~1.05 s each): 2M values per iteration (the post does not state
    # its size; 2M keeps an iteration at 5-100 ms and a run near 1 s); the post's 30 runs in the main cells (lowest
    # JDK, the post's options as JDK 7 ran them), 4 in every other cell; JDK 25 gets only "none" and the main
    # set; I2 (the post's side variant) only in full.
    "standard": {"ops": 2_000_000, "iterations": 20, "measured": 10, "capacity": 32768,
                 "queues": ["O1", "O2", "I1", "I3", "I4", "jctools"],
                 "sets": {"lowest": list(OPTION_SETS), "other": ["none", MAIN_OPTIONS]},
                 "runs": {"main": 30, "other": 4}, "timeout": 120},
    # the post's protocol: 30 runs per cell, every queue, every option set, every JDK
    "full": {"ops": 50_000_000, "iterations": 20, "measured": 10, "capacity": 32768, "queues": list(QUEUES),
             "sets": {"lowest": list(OPTION_SETS), "other": list(OPTION_SETS)},
             "runs": {"main": 30, "other": 30}, "timeout": 900},
}


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
