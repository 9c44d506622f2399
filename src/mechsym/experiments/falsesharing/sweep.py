"""The sweep: presets, layouts, thread counts, per-thread CPU placements, and the cells they make."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import pandas as pd

from ... import MechsymError
from ...machine.cpus import Topology
from ...machine.jdk import Jdk
from ...run.launch import Launch, run
from ...run.sweep import Cell, Fork
from .meta import PRESETS


KERNEL = "mechsym.falsesharing.FalseSharing"
LAYOUT_KERNEL = "mechsym.falsesharing.CounterLayout"
CONTENDED_FLAGS = ("-XX:-RestrictContended",)

# layout -> (JVM flags, what it does); the order is the story's
LAYOUTS = {
    "unpadded": ((), "the first post's VolatileLong with its padding commented out: counters 24 bytes apart"),
    "padded-longs": ((), "the first post's padding: six unused longs after the value (2011-07-30)"),
    "padded-atomic": ((), "the second post's PaddedAtomicLong: AtomicLong + six volatile longs, summed (2011-08-13)"),
    "inherited": ((), "padding by inheritance (JCTools-style): 7-long pad class, value class, 7-long pad class"),
    "contended": (CONTENDED_FLAGS, "@Contended on the value (JDK 8+), with -XX:-RestrictContended"),
    "array-stride": ((), "one long[]: counter k at element 8(k+1), 64 bytes apart"),
}
# The posts' own listings: the first post's with and without its padding, and the second post's.
POST_LAYOUTS = ["unpadded", "padded-longs", "padded-atomic"]
PLACEMENTS = ["cross-core", "smt", "same-cpu", "unpinned"]
PLACEMENT_TEXT = {
    "cross-core": "one thread per physical core, round robin over the cores",
    "smt": "the SMT siblings of one core, round robin",
    "same-cpu": "every thread on one CPU",
    "unpinned": "no pinning: the scheduler decides (as the posts ran)",
}
# The post's protocol runs as the listing ran: unpinned, one cold run per JVM. The lab's cells pin each thread.
POST_PLACEMENT = "unpinned"
LAB_PLACEMENT = "cross-core"
# Other placements, at this thread count, for these layouts (descriptive: not judged).
PLACEMENT_THREADS = 2
PLACEMENT_LAYOUTS = ["unpadded", "padded-atomic"]
L1D_EVENT = "L1-dcache-load-misses"
# Where each run places the threads' `longs` array in its cache line (FalseSharing --array-offset), per protocol.
# Counter 0 follows the array; whether it shares the array's last line (read by every thread on every write) is an
# accident of allocation that decides the padded layouts' times. The post's protocol leaves it to the allocator, as
# the listings did (the post's claims are judged there); the lab's places the array at a fresh random byte per run,
# so its forks sample every placement alike and array_line_table shows the placement effect as its own finding.
ARRAY_OFFSET = {"post": "as-allocated", "lab": "random"}

JUDGED_THREADS = (1, 2)   # cells the verdicts read get `forks` forks; the others `extra_forks`


def thread_counts(preset: str, topo: Topology) -> list[int]:
    """The thread counts of a preset; full: 1..max(4, 2 x CPUs), the post's 1..4 and twice this machine's CPUs."""
    t = PRESETS[preset]["threads"]
    return list(range(1, max(4, 2 * topo.logical) + 1)) if isinstance(t, str) else list(t)


def pin_for(topo: Topology, placement: str, threads: int) -> list[int] | None:
    """One CPU per thread for a placement ([] = unpinned), None when the machine lacks the placement.

    A placement needs what its two-thread form needs (cpus.Topology.placement); more threads than the placement's
    CPUs share them round robin (time-sliced)."""
    if placement not in PLACEMENTS:
        raise MechsymError(f"placement '{placement}': allowed placements are {', '.join(PLACEMENTS)}")
    pair = topo.placement(placement)
    if pair is None or pair == []:
        return pair
    if placement == "cross-core":
        firsts = {}
        for c in sorted(topo.cpus, key=lambda c: (c.socket, c.core, c.id)):
            firsts.setdefault((c.socket, c.core), c.id)
        cpus = list(firsts.values())
    elif placement == "smt":
        a = next(c for c in topo.cpus if c.id == pair[0])
        cpus = sorted(c.id for c in topo.cpus if (c.socket, c.core) == (a.socket, a.core))
    else:
        cpus = [pair[0]]
    return [cpus[k % len(cpus)] for k in range(threads)]


def cell_for(layout: str, threads: int, placement: str, preset: str, topo: Topology, jdk: Jdk,
             protocol: str = "lab", forks: int | None = None) -> Cell:
    """One timing cell (also used by the tests): the listing's loop, per layout, thread count and placement."""
    if layout not in LAYOUTS:
        raise MechsymError(f"layout '{layout}': allowed layouts are {', '.join(LAYOUTS)}")
    if protocol not in ("lab", "post"):
        raise MechsymError(f"protocol '{protocol}': allowed are lab, post")
    p = PRESETS[preset]
    cpus = pin_for(topo, placement, threads)
    post = protocol == "post"
    params = {"protocol": protocol, "layout": layout, "threads": threads,
              "iterations": p["post_iterations"] if post else p["iterations"],
              "runs": 1 if post else p["runs"], "warmup-runs": 0 if post else p["warmup_runs"],
              "pin": ",".join(map(str, cpus or [])), "array-offset": ARRAY_OFFSET[protocol]}
    labels = {"kind": "time", "placement": placement, "machine_cpus": topo.logical}
    default = p["forks"] if threads in JUDGED_THREADS else p["extra_forks"]
    return Cell(variant=layout, kernel=KERNEL, params=params, labels=labels, flags=LAYOUTS[layout][0], jdk=jdk,
                forks=forks or default, timeout=p["timeout"],
                unavailable=None if cpus is not None else topo.missing_reason(placement))


def layout_cell(preset: str, jdk: Jdk) -> Cell:
    """JOL's view of every layout on one JDK, in fresh JVMs (allocation addresses differ from JVM to JVM)."""
    return Cell(variant="layout", kernel=LAYOUT_KERNEL, params={"layout": "all"}, flags=CONTENDED_FLAGS,
                labels={"kind": "layout", "placement": "none", "machine_cpus": ""}, jdk=jdk,
                forks=PRESETS[preset]["layout_forks"], timeout=120)


def perf_probe() -> str | None:
    """None when `perf stat` counts L1D load misses here, else why not (perf missing, <not supported>, refused)."""
    perf = shutil.which("perf")
    if perf is None:
        return "perf is not installed"
    try:
        r = subprocess.run([perf, "stat", "-x,", "-e", L1D_EVENT, "true"], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"perf stat did not run ({e})"
    count = parse_perf(r.stderr)
    if count is None:
        line = next((ln for ln in r.stderr.splitlines() if L1D_EVENT in ln), r.stderr.strip()[:120])
        return f"perf stat cannot count {L1D_EVENT} on this machine: {line.strip()}"
    return None


def parse_perf(text: str) -> float | None:
    """The L1D miss count from `perf stat -x,` output, None when perf says <not supported> / <not counted>."""
    for line in text.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2] == L1D_EVENT:
            try:
                return float(fields[0])
            except ValueError:
                return None
    return None


def _perf_runner(fork: Fork) -> pd.DataFrame:
    """The kernel under `perf stat`: its rows plus L1D misses per write (whole JVM, start-up included)."""
    cell = fork.cell
    launch = cell.launch(fork)
    with tempfile.TemporaryDirectory(prefix="mechsym-perf-") as tmp:
        out = Path(tmp) / "perf.csv"
        cmd = ["perf", "stat", "-x,", "-o", str(out), "-e", L1D_EVENT, "--", *launch.command]
        fork.commands.append(" ".join(cmd))
        df = run(Launch(cmd, launch.pinned, launch.cpus), timeout=cell.timeout)
        misses = parse_perf(out.read_text())
    if misses is None:   # perf ran but counted nothing: the times stand, no miss count is made up
        return df
    p = cell.params
    writes = p["threads"] * p["iterations"] * (p["runs"] + p["warmup-runs"])
    row = {c: df[c].iloc[0] for c in df.columns if c not in ("iteration", "warmup", "metric", "value", "unit")}
    extra = pd.DataFrame([{**row, "iteration": -1, "warmup": False, "metric": "l1d_misses_per_op",
                           "value": misses / writes, "unit": "misses/op"}])
    return pd.concat([df, extra], ignore_index=True)


def l1d_cells(preset: str, topo: Topology, jdk: Jdk, why_not: str | None) -> list[Cell]:
    """L1D misses per write beside the times (2 threads, cross-core, unpadded and padded-atomic); unavailable with
    perf's own reason where the machine cannot count them."""
    out = []
    for layout in PLACEMENT_LAYOUTS:
        c = cell_for(layout, PLACEMENT_THREADS, LAB_PLACEMENT, preset, topo, jdk, forks=PRESETS[preset]["extra_forks"])
        c.labels = {**c.labels, "kind": "l1d"}
        if why_not and not c.unavailable:
            c.unavailable = why_not
        c.runner = _perf_runner
        out.append(c)
    return out


def cells(preset: str, topo: Topology, jdks: list[Jdk], **_overrides) -> list[Cell]:
    """Per JDK: JOL's layouts; every layout x thread count, cross-core, the lab's harness; the posts' three listings
    at 1 and 2 threads with the post's protocol, unpinned; 2 threads on the other placements; L1D misses (smoke:
    the first JDK only). Forks are interleaved round-robin over the cells by the run loop."""
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    if preset == "smoke":
        jdks = list(jdks)[:1]
    why_not = perf_probe()
    out: list[Cell] = []
    for jdk in jdks:
        out.append(layout_cell(preset, jdk))
        for layout in LAYOUTS:
            out += [cell_for(layout, t, LAB_PLACEMENT, preset, topo, jdk) for t in thread_counts(preset, topo)]
        for layout in POST_LAYOUTS:
            out += [cell_for(layout, t, POST_PLACEMENT, preset, topo, jdk, protocol="post")
                    for t in PRESETS[preset]["post_threads"]]
        for placement in PLACEMENTS:
            if placement not in (LAB_PLACEMENT, POST_PLACEMENT):
                out += [cell_for(layout, PLACEMENT_THREADS, placement, preset, topo, jdk,
                                 forks=PRESETS[preset]["extra_forks"]) for layout in PLACEMENT_LAYOUTS]
        out += [cell_for(layout, PLACEMENT_THREADS, POST_PLACEMENT, preset, topo, jdk,
                         forks=PRESETS[preset]["extra_forks"]) for layout in PLACEMENT_LAYOUTS]
        out += l1d_cells(preset, topo, jdk, why_not)
    return out


def placements_table(topo: Topology | None = None, threads: int = PLACEMENT_THREADS) -> pd.DataFrame:
    """Which CPUs each placement pins the threads to on this machine, or why it is missing."""
    from ...machine.cpus import read_topology

    topo = topo or read_topology()
    rows = []
    for p in PLACEMENTS:
        cpus = pin_for(topo, p, threads)
        rows.append({"placement": p, "meaning": PLACEMENT_TEXT[p],
                     f"{threads} threads pinned to": ("not pinned" if cpus == [] else
                                                      ", ".join(f"CPU {c}" for c in cpus) if cpus else
                                                      f"not available: {topo.missing_reason(p)}")})
    return pd.DataFrame(rows).set_index("placement")


def layouts_table() -> pd.DataFrame:
    """The layouts: name, what each does, the JVM flags it needs."""
    return pd.DataFrame([(k, d, " ".join(f) or "(none)") for k, (f, d) in LAYOUTS.items()],
                        columns=["layout", "what it does", "JVM flags"]).set_index("layout")


JMH_CLASS = "mechsym.jmh.FalseSharing"


def jmh_cells(preset: str, topo: Topology, jdks: list[Jdk]) -> list[Cell]:
    """`--protocol jmh`: FalseSharing.pair (a @Group of two threads, one counter each) for every layout JMH has,
    and FalseSharing.alone (one thread) for the first post's two, on the first JDK; the host JVM under taskset
    over the lab's cross-core CPUs (JMH cannot pin each thread). Names as the lab's: variant = layout."""
    from ...run import jmh

    cpus = topo.placement(LAB_PLACEMENT) if topo is not None else None
    layouts = [v for v in LAYOUTS if v != "contended"]   # @Contended needs a JVM flag and jdk.internal: not in JMH
    out = [jmh.cell(v, f"{JMH_CLASS}.pair", {"layout": v}, jdk, preset, threads=2, cpus=cpus,
                    labels={"placement": LAB_PLACEMENT}) for jdk in jmh.first_jdk(preset, jdks) for v in layouts]
    out += [jmh.cell(v, f"{JMH_CLASS}.alone", {"layout": v}, jdk, preset, threads=1, cpus=cpus,
                     labels={"placement": LAB_PLACEMENT})
            for jdk in jmh.first_jdk(preset, jdks) for v in ("unpadded", "padded-longs")]
    return out
