"""The sweep: transport (two processes, two threads, the in-heap queue) x layout x CPU placement, the scratch
directory the queue file lives in, and the cells they make."""

from __future__ import annotations

from ... import MechsymError
from ...run import scratch
from ...machine.cpus import Topology
from ...machine.jdk import Jdk
from ...run.sweep import Cell
from .meta import NAME, PRESETS


IPC = "mechsym.ipc.IpcThroughput"
IN_HEAP = "mechsym.spsc.SpscThroughput"
# variant -> (kernel, transport, layout, what it stands for)
VARIANTS = {
    "processes": (IPC, "processes", "aligned", "off-heap queue in a mapped file, producer and consumer in two JVMs "
                  "(the post's IPC)"),
    "threads": (IPC, "threads", "aligned", "the same off-heap queue between two threads of one JVM "
                "(the post's P1C1OffHeapQueue)"),
    "in-heap": (IN_HEAP, "threads", "object array", "Martin Thompson's in-heap queue (mechsym.spsc O1, the post's "
                "P1C1QueueOriginal3): the 130M it started from"),
    "processes-yield": (IPC, "processes", "aligned", "the IPC queue with Thread.yield() on every full or empty "
                        "spin (--wait=yield): the post's note 3"),
    "processes-unaligned": (IPC, "processes", "unaligned", "the IPC queue with every counter straddling two cache "
                            "lines (address mod 64 = 60): the post's warning"),
}
PLACEMENTS = ["smt", "cross-core", "unpinned"]
PLACEMENT_TEXT = {"smt": "two SMT siblings of one core (the post's 'same core')",
                  "cross-core": "two cores (the post's 'cross core')", "unpinned": "no pinning: the scheduler decides"}
# the post's JVM options ("The JVM was launched with: -XX:+UseCondCardMark -XX:CompileThreshold=100000"; the
# threshold does nothing under tiered compilation, the default since JDK 8: passed as the post did, inert)
FLAGS = ("-XX:+UseCondCardMark", "-XX:CompileThreshold=100000")
# (variant, placement) cells per preset; the post-protocol cells are added for POST_CELLS
LAB_CELLS = {
    "smoke": [("processes", "cross-core"), ("threads", "cross-core"), ("in-heap", "cross-core"),
              ("processes-unaligned", "cross-core")],
    "standard": [(v, p) for p in PLACEMENTS for v in ("processes", "threads", "in-heap")]
    + [("processes-unaligned", "cross-core"), ("processes-yield", "smt"), ("processes-yield", "cross-core")],
}
LAB_CELLS["full"] = LAB_CELLS["standard"]
# the in-heap queue runs the post protocol too (best of as many runs per JVM), so a ratio against it compares the
# same statistic on both sides
POST_CELLS = {"smoke": [("processes", "cross-core")],
              "standard": [("processes", "smt"), ("in-heap", "smt"), ("processes-yield", "smt"),
                           ("processes", "cross-core"), ("threads", "cross-core"), ("in-heap", "cross-core"),
                           ("processes-yield", "cross-core")]}
POST_CELLS["full"] = POST_CELLS["standard"]

CAPACITY = 32 * 1024  # ints, the lab's harness (QueueEvolution cc36e06, 2013-03-12: QUEUE_CAPACITY = 32 * 1024)
# the post protocol: QueueEvolution at the post's date (0ede180, 2013-03-26) used a capacity of 1 << 16
POST_CAPACITY = 1 << 16
# busy spin when full or empty, as the post's IPC test (its Thread.yield() calls commented out); the in-heap kernel
# (mechsym.spsc, the 2013-07-15 harness) yields
WAIT = "spin"


def cell_for(variant: str, placement: str, preset: str, topo: Topology, jdk: Jdk | None,
             protocol: str = "lab") -> Cell:
    """One cell (also used by the tests); a placement the machine lacks is unavailable with the reason."""
    if variant not in VARIANTS or placement not in PLACEMENTS or protocol not in ("lab", "post"):
        raise MechsymError(f"cell {variant} {placement} {protocol}: allowed variants {', '.join(VARIANTS)}, "
                           f"placements {', '.join(PLACEMENTS)}, protocols lab, post")
    p = PRESETS[preset]
    kernel, transport, layout, _ = VARIANTS[variant]
    cpus = topo.placement(placement)
    pin = ",".join(map(str, cpus or []))
    # the post's IPC test: 20 runs per JVM, none set apart as warm-up
    runs, warmup = (p["post_runs"], 0) if protocol == "post" else (p["runs"], p["warmup_runs"])
    capacity = POST_CAPACITY if protocol == "post" else CAPACITY
    if kernel == IN_HEAP:
        params = {"queue": "O1", "ops": p["messages"], "iterations": warmup + runs, "measured": runs,
                  "capacity": capacity, "pin": pin}
    else:
        params = {"transport": transport, "layout": layout, "protocol": protocol,
                  "wait": "yield" if variant.endswith("-yield") else WAIT, "messages": p["messages"], "runs": runs,
                  "warmup-runs": warmup, "capacity": capacity, "pin": pin}
    labels = {"placement": placement, **({"protocol": protocol} if kernel == IN_HEAP else {})}
    return Cell(variant=variant, kernel=kernel, params=params, labels=labels, jdk=jdk, flags=FLAGS,
                forks=p["unpinned_forks"] if placement == "unpinned" else p["forks"], timeout=p["timeout"],
                args=scratch.dir_arg(NAME) if kernel == IPC else None,
                unavailable=None if cpus is not None else topo.missing_reason(placement))


def cells(preset: str, topo: Topology, jdks: list[Jdk]) -> list[Cell]:
    """The lab's cells, then the post-protocol cells; the lowest JDK only (the post ran one JVM)."""
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    jdk = min(jdks, key=lambda j: j.feature) if jdks else None
    return ([cell_for(v, pl, preset, topo, jdk) for v, pl in LAB_CELLS[preset]]
            + [cell_for(v, pl, preset, topo, jdk, "post") for v, pl in POST_CELLS[preset]])


def session(cells: list[Cell], meta: dict):
    """The run-wide hook: the run's scratch directory for the queue files (mechsym.run.scratch: under $MECHSYM_SCRATCH,
    refused without room, removed whatever happens)."""
    return scratch.session(NAME, 4 * max(CAPACITY, POST_CAPACITY) + 4096, meta)
