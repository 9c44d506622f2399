"""The sweep: presets, channels (the Disruptor's wait strategies and the queues), placements, protocols."""

from __future__ import annotations

import functools

from ... import MechsymError
from ...machine import cpus
from ...machine.cpus import Topology
from ...machine.jdk import Jdk
from ...run.sweep import Cell
from .meta import PLACEMENTS, PRESETS

KERNEL = "mechsym.disruptor.DisruptorThroughput"

# channel -> what it is (DisruptorThroughput.CHANNELS; a test reads both)
CHANNELS = {
    "disruptor-busy-spin": "Disruptor 4.0.0 RingBuffer + BatchEventProcessor, BusySpinWaitStrategy",
    "disruptor-yielding": "the same, YieldingWaitStrategy (the post's perf test)",
    "disruptor-blocking": "the same, BlockingWaitStrategy (lock + condition)",
    "abq": "ArrayBlockingQueue, put / take (the post's queue)",
    "jctools": "JCTools 4.0.5 SpscArrayQueue, busy spin (not in the post)",
    "lab-O1": "the lab's SPSC queue O1 (notebook 05), busy spin (not in the post)",
}
DISRUPTORS = ["disruptor-busy-spin", "disruptor-yielding", "disruptor-blocking"]
PLACEMENT_TEXT = {"cross-core": "publisher and processor each pinned to its own CPU, on different cores",
                  "unpinned": "no pinning: the scheduler decides (the post's perf test)"}
# The post's own comparison, run again with the kernel's post protocol (the perf test's structure)
POST_CHANNELS = ["disruptor-yielding", "abq"]


def cell_for(channel: str, placement: str, preset: str, topo: Topology, jdk: Jdk | None,
             protocol: str = "lab") -> Cell:
    """One cell (also used by the tests): the lab's harness, or the perf test's structure (`post`: three passes
    per JVM, no warm-up, a millisecond clock)."""
    if channel not in CHANNELS:
        raise MechsymError(f"channel '{channel}': allowed channels are {', '.join(CHANNELS)}")
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    if protocol not in ("lab", "post"):
        raise MechsymError(f"protocol '{protocol}': allowed are lab, post")
    p = PRESETS[preset]
    cpus = topo.placement(placement)
    post = protocol == "post"
    params = {"channel": channel, "protocol": protocol, "events": p["post_events" if post else "events"],
              "runs": 3 if post else p["runs"], "warmup-runs": 0 if post else p["warmup_runs"], "size": p["size"],
              "pin": ",".join(map(str, cpus or [])), "max-ms": (p["timeout"] - 10) * 1000}
    return Cell(variant=channel, kernel=KERNEL, params=params, labels={"placement": placement}, jdk=jdk,
                forks=p["forks"], timeout=p["timeout"],
                unavailable=None if cpus is not None else topo.missing_reason(placement))


def cells(preset: str, topo: Topology, jdks: list[Jdk], **_overrides) -> list[Cell]:
    """Every channel x placement x JDK with the lab's harness, then the post's comparison (yielding RingBuffer,
    ArrayBlockingQueue) with the post protocol; forks interleaved round-robin by the run loop."""
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    p = PRESETS[preset]
    jdks = list(jdks)[:1] if p["first_jdk_only"] else list(jdks)
    out = [cell_for(c, pl, preset, topo, jdk) for pl in p["placements"] for jdk in jdks for c in CHANNELS]
    out += [cell_for(c, pl, preset, topo, jdk, "post") for pl in p["placements"] for jdk in jdks
            for c in POST_CHANNELS]
    return out


# Which CPUs each placement uses on this machine, or why it is missing (the shared table, this experiment's roles).
placements_table = functools.partial(cpus.placements_table,
                                     {p: PLACEMENT_TEXT[p] for p in PLACEMENTS}, ("publisher", "processor"))


JMH_BENCHMARK = "mechsym.jmh.RingBufferVsQueue.publish"
# the claims' channels (RingBufferVsQueue.CHANNELS has lab-O1 too, to run by hand)
JMH_CHANNELS = ["disruptor-yielding", "disruptor-busy-spin", "abq", "jctools"]
JMH_PLACEMENT = "cross-core"


def jmh_cells(preset: str, topo: Topology, jdks: list[Jdk]) -> list[Cell]:
    """`--protocol jmh`: the claims' channels, JMH's thread publishing 100,000 events per call and waiting for the
    consumer thread (@OperationsPerInvocation: events/s), on the first JDK, the host JVM under taskset over the
    cross-core pair (JMH cannot pin each thread)."""
    from ...run import jmh

    pair = topo.placement(JMH_PLACEMENT) if topo is not None else None
    return [jmh.cell(c, JMH_BENCHMARK, {"channel": c}, jdk, preset, threads=1, cpus=pair,
                     labels={"placement": JMH_PLACEMENT})
            for jdk in jmh.first_jdk(preset, jdks) for c in JMH_CHANNELS]
