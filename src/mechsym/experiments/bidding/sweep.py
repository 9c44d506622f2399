"""The sweep: presets, the three bid containers, clients x items, the keeper's capacity, the post's GC settings."""

from __future__ import annotations

from ... import MechsymError
from ...machine.cpus import Topology
from ...machine.jdk import Jdk
from ...run.sweep import Cell
from .meta import PRESETS

KERNEL = "mechsym.bidding.BiddingSimulation"

# container (BiddingSimulation.CONTAINERS) -> what it does, and the post's name for it
CONTAINERS = {
    "mutex-priority-queue": "one lock for reads and writes around a priority queue (the post's Impl1)",
    "rw-lock-list": "a read/write lock around a list, the best bid tracked (Impl2)",
    "cas-linked-queue": "a ConcurrentLinkedQueue, the peak kept by CAS (Impl3, no lock)",
}
LOCK_FREE = "cas-linked-queue"
CAPACITIES = [16, 1024, 1 << 20]   # the post's special test 1: the bid keeper's initial capacity 16, 1k, 1M
DEFAULT_CAPACITY = 16              # the basic tests: "map init capacity - default (16)"
# The post's basic tests: "-Xmx4096m -javaagent:classmexer.jar -XX:+UseParallelGC -XX:+UseParallelOldGC
# -XX:NewRatio=1 -XX:SurvivorRatio=6", and "System.gc was called between collections". The agent measured object
# sizes (not needed); UseParallelOldGC is implied by UseParallelGC since JDK 7u4 and was removed in JDK 15.
GC_ISOLATED = ("-XX:+UseParallelGC", "-Xmx4g", "-XX:NewRatio=1", "-XX:SurvivorRatio=6")
GC_VARIANTS = {
    "isolated": "the post's flags (ParallelGC, NewRatio=1: young = half of a heap of up to 4 GB, SurvivorRatio=6), "
                "System.gc() before each simulation",
    "default": "the JDK's default collector and heap, no System.gc()",
}

PROTOCOL_NAMES = ["lab", "post"]


def cores(topo: Topology) -> int:
    """The logical CPUs the clients' threads can run on: the post's 'cores' (4 on its machine)."""
    return len(topo.ids)


def clients_for(preset: str, topo: Topology) -> list[int]:
    """The clients swept: 1, the core count, and past it (the post: 1..32)."""
    n = cores(topo)
    if preset == "smoke":
        return sorted({1, n})
    if preset == "full":
        return sorted({1, 2, 3, 4, 6, 8, 12, 16, 24, 32, n})
    return sorted({1, 2, n, 2 * n, 4 * n})


def cell_for(container: str, clients: int, preset: str, topo: Topology, jdk: Jdk, protocol: str = "post",
             capacity: int = DEFAULT_CAPACITY, gc: str = "isolated", items: int | None = None) -> Cell:
    """One cell (also used by the tests): post = the item sweep in one JVM, lab = warm-up and measured simulations at
    one item count (the preset's, or `items`)."""
    if container not in CONTAINERS:
        raise MechsymError(f"container '{container}': allowed containers are {', '.join(CONTAINERS)}")
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    if protocol not in PROTOCOL_NAMES:
        raise MechsymError(f"protocol '{protocol}': allowed protocols are {', '.join(PROTOCOL_NAMES)}")
    if gc not in GC_VARIANTS:
        raise MechsymError(f"gc '{gc}': allowed are {', '.join(GC_VARIANTS)}")
    p = PRESETS[preset]
    post = protocol == "post"
    params = {"protocol": protocol, "container": container, "clients": clients,
              "items": ",".join(map(str, p["post_items"])) if post else items or p["items"],
              "bids-per-item": p["bids_per_item"], "map-capacity": capacity,
              "runs": 1 if post else p["runs"], "warmup-runs": 0 if post else p["warmup_runs"],
              "gc-between-runs": str(gc == "isolated").lower()}
    return Cell(variant=container, kernel=KERNEL, params=params, labels={"gc": gc, "cores": cores(topo)},
                flags=GC_ISOLATED if gc == "isolated" else (), jdk=jdk, forks=p["forks"], timeout=p["timeout"])


def cells(preset: str, topo: Topology, jdks: list[Jdk], **_overrides) -> list[Cell]:
    """Per JDK: every container x clients with the post's protocol (its item sweep) and the lab's (at the peak item
    count, and at one item with clients = cores); the lock-free container at the keeper capacities 1k and 1M; every
    container with the JDK's default GC (lab). smoke: the first JDK, fewer cells."""
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    n, smoke = cores(topo), preset == "smoke"
    out: list[Cell] = []
    for jdk in list(jdks)[:1] if smoke else jdks:
        for protocol in PROTOCOL_NAMES:
            for container in CONTAINERS:
                for clients in ([n] if smoke and protocol == "lab" else clients_for(preset, topo)):
                    out.append(cell_for(container, clients, preset, topo, jdk, protocol))
                if protocol == "lab" and not smoke:
                    out.append(cell_for(container, n, preset, topo, jdk, protocol, items=1))
            for capacity in CAPACITIES[1:] if protocol == "post" or not smoke else []:
                out.append(cell_for(LOCK_FREE, n, preset, topo, jdk, protocol, capacity=capacity))
        for container in [LOCK_FREE] if smoke else CONTAINERS:
            out.append(cell_for(container, n, preset, topo, jdk, "lab", gc="default"))
    return out
