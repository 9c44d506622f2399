"""CPU topology from /sys/devices/system/cpu and the CPU sets of the design.

The sets a placement can name:
  same-cpu     both threads on one logical CPU
  smt          two SMT siblings of one physical core
  cross-core   two CPUs on different physical cores of one socket
  cross-socket two CPUs on different sockets
  unpinned     no taskset; the scheduler decides
A set the machine does not have is None (skipped with a note, never faked).
"""

from __future__ import annotations

import os
import platform
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

from .. import MechsymError

SYS_CPU = Path("/sys/devices/system/cpu")
PLACEMENTS = ("same-cpu", "smt", "cross-core", "cross-socket", "unpinned")


def parse_cpu_list(text: str) -> list[int]:
    """'0-3,8,10-11' -> [0, 1, 2, 3, 8, 10, 11]."""
    out: list[int] = []
    for part in text.strip().split(","):
        part = part.strip()
        if not part:
            continue
        if "-" in part:
            a, b = part.split("-", 1)
            out += range(int(a), int(b) + 1)
        else:
            out.append(int(part))
    return out


@dataclass(frozen=True)
class Cpu:
    id: int
    core: int     # core_id
    socket: int   # physical_package_id


@dataclass(frozen=True)
class Topology:
    cpus: tuple[Cpu, ...]
    model: str = "unknown"

    @property
    def logical(self) -> int:
        return len(self.cpus)

    @property
    def physical(self) -> int:
        return len({(c.socket, c.core) for c in self.cpus})

    @property
    def sockets(self) -> int:
        return len({c.socket for c in self.cpus})

    @property
    def smt(self) -> bool:
        return self.logical > self.physical

    @property
    def ids(self) -> list[int]:
        return [c.id for c in self.cpus]

    def check_ids(self, ids: list[int]) -> None:
        missing = [i for i in ids if i not in self.ids]
        if missing:
            raise MechsymError(f"CPU ids {','.join(map(str, missing))}: this machine has CPUs {format_cpu_list(self.ids)}")

    def placement(self, name: str) -> list[int] | None:
        """Two CPUs for a two-thread placement, [] for unpinned, None when the machine lacks it."""
        if name not in PLACEMENTS:
            raise MechsymError(f"placement '{name}': allowed placements are {', '.join(PLACEMENTS)}")
        cpus = sorted(self.cpus, key=lambda c: c.id)
        if name == "unpinned":
            return []
        if name == "same-cpu":
            return [cpus[0].id, cpus[0].id]
        for a in cpus:
            for b in cpus:
                if b.id <= a.id:
                    continue
                same_core = (a.socket, a.core) == (b.socket, b.core)
                if name == "smt" and same_core:
                    return [a.id, b.id]
                if name == "cross-core" and a.socket == b.socket and not same_core:
                    return [a.id, b.id]
                if name == "cross-socket" and a.socket != b.socket:
                    return [a.id, b.id]
        return None

    def missing_reason(self, name: str) -> str:
        return {
            "smt": f"no SMT siblings ({self.physical} cores, {self.logical} logical CPUs)",
            "cross-socket": f"one socket only",
            "cross-core": "one core only",
        }.get(name, "not available")


def format_cpu_list(ids: list[int]) -> str:
    return ",".join(str(i) for i in ids)


def read_topology(root: Path | str = SYS_CPU) -> Topology:
    """Topology of the machine, from a /sys/devices/system/cpu tree (a fake one in tests)."""
    root = Path(root)
    online = root / "online"
    if online.exists():
        ids = parse_cpu_list(online.read_text())
    else:
        ids = sorted(int(m.group(1)) for p in root.glob("cpu[0-9]*") if (m := re.match(r"cpu(\d+)$", p.name)))
    if not ids:
        raise MechsymError(f"CPU topology: no CPUs found under {root}")
    cpus = []
    for i in ids:
        topo = root / f"cpu{i}" / "topology"
        core = _read_int(topo / "core_id", i)
        socket = _read_int(topo / "physical_package_id", 0)
        cpus.append(Cpu(i, core, socket))
    return Topology(tuple(cpus), _cpu_model())


def _read_int(path: Path, default: int) -> int:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return default


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def taskset_available() -> bool:
    return shutil.which("taskset") is not None and os.environ.get("MECHSYM_NO_TASKSET") != "1"


def placements_table(meaning: dict[str, str], roles: tuple[str, str] | None = None, topo: Topology | None = None):
    """Which CPUs each two-thread placement uses on this machine, or why it is missing: one row per placement (in
    `meaning`'s order) with what it means and where the two threads (or processes, named by `roles`) run."""
    import pandas as pd

    topo = topo or read_topology()
    where = "pinned to" if roles is None else f"{roles[0]}, {roles[1]} on"
    rows = []
    for p, text in meaning.items():
        cpus = topo.placement(p)
        rows.append({"placement": p, "meaning": text,
                     where: ("not pinned" if cpus == [] else f"CPU {cpus[0]}, CPU {cpus[1]}" if cpus
                             else f"not available: {topo.missing_reason(p)}")})
    return pd.DataFrame(rows).set_index("placement")
