"""The sweep: the post's worked example (bursts of 1, 5, 10), the device's two waits, and a load sweep."""

from __future__ import annotations

from ... import MechsymError
from ...machine.cpus import Topology
from ...machine.jdk import Jdk
from ...run.sweep import Cell
from .meta import PRESETS

KERNEL = "mechsym.batching.SmartBatching"
MODES = ["serial", "batching"]
DEVICE_US = 100              # the post's "100µs to write a single buffer"
BURST = 10                   # the load sweep's burst size
TABLE_INTERVAL_US = 3_000    # bursts of the worked example far apart: each meets an idle device
LOW, HIGH = 0.1, 0.9         # the load claims compare these two (below saturation for both)
# the load sweep's bursts come at exponential gaps (Poisson), the worked example's at a fixed period: a fixed period
# below saturation never queues, so only random arrivals can show the post's queuing J-curve
ARRIVALS = {"table": "fixed", "device": "fixed", "load": "poisson"}
PROTOCOL_NAMES = ["post", "lab"]


def interval_us(load: float, burst: int = BURST) -> int:
    """The gap between bursts that loads the serial device to `load` (its utilisation)."""
    return max(1, round(burst * DEVICE_US / load))


def cell_for(mode: str, burst: int, preset: str, jdk: Jdk | None, protocol: str = "lab", group: str = "table",
             load: float | None = None, device: str = "spin") -> Cell:
    """One cell (also used by the tests): group "table" (the worked example, bursts far apart), "device" (the same
    with a parking device) or "load" (bursts of BURST at random times, the given load on average)."""
    if group not in ARRIVALS:
        raise MechsymError(f"group '{group}': allowed groups are {', '.join(ARRIVALS)}")
    if mode not in MODES:
        raise MechsymError(f"mode '{mode}': allowed modes are {', '.join(MODES)}")
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    if protocol not in PROTOCOL_NAMES:
        raise MechsymError(f"protocol '{protocol}': allowed protocols are {', '.join(PROTOCOL_NAMES)}")
    p = PRESETS[preset]
    interval = interval_us(load, burst) if load else TABLE_INTERVAL_US
    if protocol == "post":
        runs, warmup, bursts = 1, p["post_warmup_runs"], 1
    elif group == "load":
        runs, warmup, bursts = p["runs"], p["warmup_runs"], max(p["min_bursts"], p["run_ms"] * 1000 // interval)
    else:
        runs, warmup, bursts = p["runs"], p["warmup_runs"], p["bursts"]
    params = {"protocol": protocol, "mode": mode, "burst": burst, "bursts": bursts, "interval-us": interval,
              "device-us": DEVICE_US, "device": device, "arrivals": ARRIVALS[group], "runs": runs,
              "warmup-runs": warmup}
    # one producer thread issues every producer's sends (the kernel's comment: why), plus the batcher
    labels = {"group": group, "load": "" if load is None else load, "threads": 1 + (mode == "batching")}
    return Cell(variant=mode, kernel=KERNEL, params=params, labels=labels, jdk=jdk, forks=p["forks"],
                timeout=p["timeout"])


def cells(preset: str, topo: Topology, jdks: list[Jdk], **_overrides) -> list[Cell]:
    """The first JDK only (a simulation of a device: the JDK is not what is under test): the worked example under
    both protocols per burst size and mode, the parking device, then the load sweep. Threads are not pinned: the
    post's producers are ordinary threads."""
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    p = PRESETS[preset]
    jdk = list(jdks)[0] if jdks else None
    out = [cell_for(m, b, preset, jdk, protocol) for protocol in PROTOCOL_NAMES for b in p["bursts_list"] for m in MODES]
    if preset != "smoke":
        out += [cell_for(m, BURST, preset, jdk, group="device", device="park") for m in MODES]
    out += [cell_for(m, BURST, preset, jdk, group="load", load=x) for m in MODES for x in p["loads"][m]]
    return out
