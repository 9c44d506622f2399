"""The sweep: the post's worked example (bursts of 1, 5, 10), the device's two waits, and a load sweep."""

from __future__ import annotations

from ... import MechsymError
from ...cpus import Topology
from ...jdk import Jdk
from ...sweep import Cell

NAME = "batching"
TITLE = "Smart batching: bursts of messages to a 100 µs device, serial writers under a lock vs one batching thread"
NOTEBOOKS = ["11-smart-batching"]
POST = "2011-10-19-smart-batching.md"
REF = "2011-10-19-smart-batching"
KERNEL = "mechsym.batching.SmartBatching"
MODES = ["serial", "batching"]
BURSTS = [1, 5, 10]          # the post's worked example is the burst of 10
DEVICE_US = 100              # the post's "100µs to write a single buffer"
BURST = 10                   # the load sweep's burst size
TABLE_INTERVAL_US = 3_000    # bursts of the worked example far apart: each meets an idle device
# Offered load as the serial device's utilisation: burst x 100 µs / interval. Serial saturates at 1; batching
# carries up to 15 messages (1,500 / 100 bytes) per 100 µs write, so it saturates at 15 messages
# per 100 µs (load 15): its loads go on to 20 (a burst every 50 µs), where 10 producer threads on a small
# machine may fall behind first (their wake-up lateness is reported).
LOADS = {"serial": [0.1, 0.3, 0.5, 0.7, 0.9, 1.1], "batching": [0.1, 0.3, 0.5, 0.7, 0.9, 1.1, 2, 5, 10, 20]}
LOW, HIGH = 0.1, 0.9         # the load claims compare these two (below saturation for both)
PROTOCOLS = ["post", "lab"]

# post_warmup_runs: single bursts before the timed one (the post's burst meets a running system, not a cold JVM).
# run_ms: how long one measured run of the load sweep lasts (bursts = run_ms / interval, at least min_bursts).
PRESETS = {
    "smoke": {"bursts": 10, "runs": 1, "warmup_runs": 1, "post_warmup_runs": 2, "forks": 1, "run_ms": 20,
              "min_bursts": 5, "bursts_list": [10], "loads": {"serial": [0.5], "batching": [0.5]}, "timeout": 60},
    "standard": {"bursts": 100, "runs": 3, "warmup_runs": 1, "post_warmup_runs": 20, "forks": 5, "run_ms": 200,
                 "min_bursts": 20, "bursts_list": BURSTS, "loads": LOADS, "timeout": 120},
    "full": {"bursts": 1_000, "runs": 5, "warmup_runs": 2, "post_warmup_runs": 100, "forks": 10, "run_ms": 1_000,
             "min_bursts": 100, "bursts_list": BURSTS, "loads": LOADS, "timeout": 600},
}


def interval_us(load: float, burst: int = BURST) -> int:
    """The gap between bursts that loads the serial device to `load` (its utilisation)."""
    return max(1, round(burst * DEVICE_US / load))


def cell_for(mode: str, burst: int, preset: str, jdk: Jdk | None, protocol: str = "lab", group: str = "table",
             load: float | None = None, device: str = "spin") -> Cell:
    """One cell (also used by the tests): group "table" (the worked example, bursts far apart), "device" (the same
    with a parking device) or "load" (bursts of BURST at the given load)."""
    if mode not in MODES:
        raise MechsymError(f"mode '{mode}': allowed modes are {', '.join(MODES)}")
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    if protocol not in PROTOCOLS:
        raise MechsymError(f"protocol '{protocol}': allowed protocols are {', '.join(PROTOCOLS)}")
    p = PRESETS[preset]
    interval = interval_us(load, burst) if load else TABLE_INTERVAL_US
    if protocol == "post":
        runs, warmup, bursts = 1, p["post_warmup_runs"], 1
    elif group == "load":
        runs, warmup, bursts = p["runs"], p["warmup_runs"], max(p["min_bursts"], p["run_ms"] * 1000 // interval)
    else:
        runs, warmup, bursts = p["runs"], p["warmup_runs"], p["bursts"]
    params = {"protocol": protocol, "mode": mode, "burst": burst, "bursts": bursts, "interval-us": interval,
              "device-us": DEVICE_US, "device": device, "runs": runs, "warmup-runs": warmup}
    labels = {"group": group, "load": "" if load is None else load, "threads": burst + (mode == "batching")}
    return Cell(variant=mode, kernel=KERNEL, params=params, labels=labels, jdk=jdk, forks=p["forks"],
                timeout=p["timeout"])


def cells(preset: str, topo: Topology, jdks: list[Jdk], **_overrides) -> list[Cell]:
    """The first JDK only (a simulation of a device: the JDK is not what is under test): the worked example under
    both protocols per burst size and mode, the parking device, then the load sweep. Threads are not pinned: the
    post's producers are ordinary threads, and a burst of 10 outnumbers the 2 CPUs anyway."""
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)}")
    p = PRESETS[preset]
    jdk = list(jdks)[0] if jdks else None
    out = [cell_for(m, b, preset, jdk, protocol) for protocol in PROTOCOLS for b in p["bursts_list"] for m in MODES]
    if preset != "smoke":
        out += [cell_for(m, BURST, preset, jdk, group="device", device="park") for m in MODES]
    out += [cell_for(m, BURST, preset, jdk, group="load", load=x) for m in MODES for x in p["loads"][m]]
    return out
