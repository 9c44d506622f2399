"""CPU accounting from /proc: per-CPU ticks (/proc/stat), the load average, and every process's CPU time
(/proc/[pid]/stat), and what happened between two samples: other processes' ticks, kernel threads' and this
run's own (this process and its descendants).

A process that ends between two samples is reaped by its parent, whose cutime then holds its whole life; its CPU
time from before the window is taken off again, so a window counts what ran inside it (each window at least zero).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
PF_KTHREAD = 0x00200000


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    comm: str
    starttime: int
    ticks: int         # utime + stime + cutime + cstime
    kthread: bool
    own: int = 0       # utime + stime (without reaped children)


@dataclass
class Sample:
    t: float                                  # monotonic seconds
    cpus: dict[str, tuple[int, ...]]          # "cpu0" -> CPU_FIELDS ticks
    load: tuple[float, float, float] | None
    procs: dict[int, Proc]
    ours: frozenset[int]


def read_stat(proc: Path) -> dict[str, tuple[int, ...]]:
    out = {}
    for line in (proc / "stat").read_text().splitlines():
        parts = line.split()
        if parts and parts[0].startswith("cpu") and parts[0] != "cpu":
            vals = [int(x) for x in parts[1:1 + len(CPU_FIELDS)]]
            out[parts[0]] = tuple(vals + [0] * (len(CPU_FIELDS) - len(vals)))
    return out


def read_loadavg(proc: Path) -> tuple[float, float, float] | None:
    try:
        a, b, c = (proc / "loadavg").read_text().split()[:3]
        return float(a), float(b), float(c)
    except (OSError, ValueError):
        return None


def parse_proc_stat(text: str) -> Proc | None:
    try:
        head, rest = text.rsplit(")", 1)
        pid_text, comm = head.split("(", 1)
        f = rest.split()
        return Proc(pid=int(pid_text), ppid=int(f[1]), comm=comm, starttime=int(f[19]),
                    ticks=int(f[11]) + int(f[12]) + int(f[13]) + int(f[14]),
                    kthread=bool(int(f[6]) & PF_KTHREAD) or int(pid_text) == 2 or int(f[1]) == 2,
                    own=int(f[11]) + int(f[12]))
    except (ValueError, IndexError):
        return None


def read_procs(proc: Path) -> dict[int, Proc]:
    out = {}
    for d in proc.iterdir():
        if not d.name.isdigit():
            continue
        try:
            p = parse_proc_stat((d / "stat").read_text())
        except OSError:  # ended while we looked
            continue
        if p is not None:
            out[p.pid] = p
    return out


def descendants(procs: dict[int, Proc], root: int) -> frozenset[int]:
    children: dict[int, list[int]] = {}
    for p in procs.values():
        children.setdefault(p.ppid, []).append(p.pid)
    seen, todo = {root}, [root]
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in seen:
                seen.add(c)
                todo.append(c)
    return frozenset(seen)


def window(a: Sample, b: Sample) -> tuple[int, int, int, dict[str, int]]:
    """Ticks between two samples of other processes, of kernel threads and of this run's own processes, and
    other processes' own ticks (without reaped children) by command name."""
    ours = a.ours | b.ours
    other = kernel = own = 0
    by_comm: dict[str, int] = {}
    for pid, p in b.procs.items():
        before = a.procs.get(pid)
        same = before is not None and before.starttime == p.starttime
        d = p.ticks - before.ticks if same else p.ticks
        if pid in ours:
            own += d
        elif p.kthread:
            kernel += d
        else:
            other += d
            d_own = p.own - before.own if same else p.own
            if d_own > 0:
                by_comm[p.comm] = by_comm.get(p.comm, 0) + d_own
    for pid, p in a.procs.items():
        now = b.procs.get(pid)
        if p.kthread or (now is not None and now.starttime == p.starttime):
            continue
        # ended: its parent's cutime now holds its whole life, of which this much was before the window
        if pid in ours:
            own -= p.ticks
        else:
            other -= p.ticks
    return max(other, 0), max(kernel, 0), max(own, 0), by_comm


def cpu_delta(a: Sample, b: Sample) -> dict[str, tuple[int, ...]]:
    return {c: tuple(max(y - x, 0) for x, y in zip(a.cpus[c], b.cpus[c])) for c in b.cpus if c in a.cpus}
