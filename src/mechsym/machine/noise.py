"""Noise on record: what else used the CPUs while a run measured.

A Recorder samples, at the start of the measurement, between forks (outside
every timed region: the sweep runs one process per fork) and at the end:

- /proc/stat, per CPU: user nice system idle iowait irq softirq steal;
- /proc/loadavg;
- /proc/[pid]/stat of every process: the CPU time (utime+stime, and the
  cutime+cstime of children they reaped) of processes that are not this run's
  (this process and its descendants: the kernels are its children) and not
  kernel threads (counted apart: some of theirs, disk writeback for one, is
  this run's own doing).

A process that ends between two samples is reaped by its parent, whose
cutime then holds its whole life; its CPU time from before the window is
taken off again, so a window counts what ran inside it (each window at least
zero): procstat.py. Runs also register in a folder beside the bench lock
(runregistry.py), so a run that measured at the same time as another (smoke
runs take no lock) says so, as does a run that waited for the lock.

The summary goes into the run's JSON sidecar under "noise". A run is quiet
unless, on average over its measurement, other processes used more than 10%
of one CPU (OTHER_CPUS_MAX), the hypervisor stole more than 5% of the CPUs'
time (STEAL_PCT_MAX), or another measurement ran at the same time. Runs stored
before noise was recorded have no "noise": is_quiet() says None (unknown),
not False.
"""

from __future__ import annotations

import os
import secrets
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .procstat import CPU_FIELDS, Sample, cpu_delta, descendants, read_loadavg, read_procs, read_stat, window
from .registry import Registry, default_registry, iso

OTHER_CPUS_MAX = 0.10   # other processes' CPU time per second of the run, in CPUs: 10% of one CPU
STEAL_PCT_MAX = 5.0     # hypervisor steal, % of all CPUs' time
FORK_COLUMNS = ("variant", "fork", "wall_s", "other_cpu_s", "steal_pct")


@dataclass
class Recorder:
    """Samples /proc at the start of a run, between forks and at the end; summary() is what the sidecar stores."""
    proc: Path = Path("/proc")
    self_pid: int = field(default_factory=os.getpid)
    registry: Path | None = None
    clock: Callable[[], float] = time.monotonic
    wallclock: Callable[[], float] = time.time
    clk_tck: int = 0
    error: str | None = None

    def __post_init__(self):
        self.clk_tck = self.clk_tck or os.sysconf("SC_CLK_TCK")
        self.registry = self.registry or default_registry()
        self.token = f"{self.self_pid}-{secrets.token_hex(4)}"
        self.waited = False
        self.wait_started: float | None = None
        self.lock_wait_s = 0.0
        self.runs = Registry(self.registry, self.token, self.self_pid)
        self.overlaps = self.runs.overlaps  # the other measurements this one overlapped, filled in by self.runs
        self.forks: list[list] = []
        self._reset()

    # ---- the run's timeline

    def _reset(self) -> None:
        self.start_wall = self.wallclock()
        self.first = self.last = self._sample()
        self.loads = [self.first.load] if self.first and self.first.load else []
        self.other_ticks = self.kernel_ticks = self.own_ticks = 0
        self.by_comm: dict[str, int] = {}
        self.cpu_ticks: dict[str, list[int]] = {}
        self.forks = []
        self._open_fork: tuple | None = None

    def waited_for_lock(self, message: str) -> None:
        """bench_lock's wait_message: says so, as before, and remembers that this run waited."""
        print(message, file=sys.stderr)
        self.waited = True
        self.wait_started = self.clock()

    def begin(self) -> None:
        """The measurement starts (after the bench lock): sample again and register as measuring."""
        if self.wait_started is not None:
            self.lock_wait_s = self.clock() - self.wait_started
        self._reset()
        self.runs.register(self.start_wall)
        self.runs.scan()

    def tick(self, variant: str | None = None, fork: int | None = None) -> None:
        """Between forks, before fork `fork` of a cell of `variant`: close the previous fork's window, open this one's."""
        self._advance()
        self._open_fork = (variant, fork)
        self.runs.scan()

    def stop(self) -> dict:
        """The measurement ended: last sample, overlap check, summary (the same summary when called again)."""
        if getattr(self, "_summary", None) is None:
            self._advance()
            self.runs.scan()
            end_wall = self.wallclock()
            self.runs.unregister(self.start_wall, end_wall)
            self._summary = self.summary(end_wall)
        return self._summary

    # ---- sampling

    def _sample(self) -> Sample | None:
        if self.error:
            return None
        try:
            procs = read_procs(self.proc)
            return Sample(self.clock(), read_stat(self.proc), read_loadavg(self.proc), procs,
                          descendants(procs, self.self_pid))
        except Exception as e:  # noise is a note on the run, never a reason to lose it
            self.error = f"cannot sample {self.proc}: {str(e).splitlines()[0] if str(e) else type(e).__name__}"
            return None

    def _advance(self) -> None:
        b = self._sample()
        a = self.last
        if a is None or b is None:
            return
        other, kernel, own, by_comm = window(a, b)
        self.other_ticks += other
        self.kernel_ticks += kernel
        self.own_ticks += own
        for k, v in by_comm.items():
            self.by_comm[k] = self.by_comm.get(k, 0) + v
        delta = cpu_delta(a, b)
        for c, d in delta.items():
            acc = self.cpu_ticks.setdefault(c, [0] * len(CPU_FIELDS))
            for i, v in enumerate(d):
                acc[i] += v
        if b.load:
            self.loads.append(b.load)
        if self._open_fork is not None:
            total = sum(sum(d) for d in delta.values())
            steal = sum(d[7] for d in delta.values())
            self.forks.append([*self._open_fork, round(b.t - a.t, 3), round(other / self.clk_tck, 3),
                               round(100.0 * steal / total, 2) if total else 0.0])
            self._open_fork = None
        self.last = b

    # ---- other measurements at the same time

    # ---- the summary

    def summary(self, end_wall: float | None = None) -> dict:
        out: dict = {
            "version": 1,
            "thresholds": {"other_cpus": OTHER_CPUS_MAX, "steal_pct": STEAL_PCT_MAX},
            "waited_for_lock": self.waited,
            "lock_wait_s": round(self.lock_wait_s, 1),
            "overlapped": sorted(self.overlaps.values(), key=lambda o: str(o.get("start"))),
        }
        if self.runs.notes:
            out["notes"] = self.runs.notes
        if self.error or self.first is None or self.last is None:
            out.update(quiet=None, why=f"noise not measured: {self.error or 'no samples'}")
            if self.overlaps:
                out.update(quiet=False, why=f"overlapped {len(self.overlaps)} other measurement(s); " + out["why"])
            return out
        wall = max(self.last.t - self.first.t, 1e-9)
        ncpu = len(self.cpu_ticks) or len(self.first.cpus) or 1
        totals = [sum(v[i] for v in self.cpu_ticks.values()) for i in range(len(CPU_FIELDS))]
        all_ticks = sum(totals)
        pct = lambda i: round(100.0 * totals[i] / all_ticks, 2) if all_ticks else 0.0
        other_s = self.other_ticks / self.clk_tck
        other_cpus = other_s / wall
        loads = [l[0] for l in self.loads]
        out.update({
            "start": iso(self.start_wall), "end": iso(end_wall or self.wallclock()),
            "wall_s": round(wall, 2),
            "cpus": ncpu,
            "steal_pct": pct(7),
            "steal_pct_per_cpu": {c: round(100.0 * v[7] / sum(v), 2) if sum(v) else 0.0
                                  for c, v in sorted(self.cpu_ticks.items())},
            "iowait_pct": pct(4),
            "irq_pct": round(pct(5) + pct(6), 2),
            "busy_pct": round(100.0 - pct(3) - pct(4), 2) if all_ticks else 0.0,
            "other_cpu_s": round(other_s, 2),
            "other_cpu_pct": round(100.0 * other_s / (wall * ncpu), 2),
            "other_cpus": round(other_cpus, 3),
            "kernel_threads_cpu_s": round(self.kernel_ticks / self.clk_tck, 2),
            "own_cpu_s": round(self.own_ticks / self.clk_tck, 2),
            "top_others": [{"command": k, "cpu_s": round(v / self.clk_tck, 2)}
                           for k, v in sorted(self.by_comm.items(), key=lambda kv: -kv[1])[:3]],
            "loadavg_1m": {"start": loads[0], "end": loads[-1], "max": max(loads)} if loads else None,
            "fork_columns": list(FORK_COLUMNS),
            "forks": self.forks,
            "busy_forks": sum(1 for _, _, w, o, _ in self.forks if w > 0 and o / w > OTHER_CPUS_MAX),
        })
        why = []
        if other_cpus > OTHER_CPUS_MAX:
            why.append(f"other processes used {other_cpus:.2f} CPUs on average (over {OTHER_CPUS_MAX} allowed)")
        if out["steal_pct"] > STEAL_PCT_MAX:
            why.append(f"steal {out['steal_pct']}% (over {STEAL_PCT_MAX}%)")
        if self.overlaps:
            why.append(f"overlapped {len(self.overlaps)} other measurement(s)")
        out["quiet"] = not why
        out["why"] = "; ".join(why) if why else (f"other processes {other_cpus:.3f} CPUs, steal {out['steal_pct']}%")
        return out


def start(**kw) -> Recorder:
    return Recorder(**kw)


def stop(meta: dict) -> dict:
    """Take the run's recorder out of its metadata and return its summary (what the sidecar stores as "noise")."""
    rec = meta.pop("_noise", None)
    if not isinstance(rec, Recorder):
        return {"version": 1, "quiet": None, "why": "noise not measured"}
    try:
        return rec.stop()
    except Exception as e:  # never lose a run over its noise note
        return {"version": 1, "quiet": None, "why": f"noise not measured: {type(e).__name__}: {e}"}


def is_quiet(meta: dict) -> bool | None:
    """True: measured on a quiet machine; False: busy (see meta["noise"]["why"]); None: not known (runs stored
    before noise was recorded, or /proc could not be read)."""
    noise = meta.get("noise") if isinstance(meta, dict) else None
    if not isinstance(noise, dict):
        return None
    q = noise.get("quiet")
    return q if isinstance(q, bool) else None


def describe(meta: dict) -> str:
    """One line for a table: quiet / busy (why) / unknown."""
    q = is_quiet(meta)
    if q is None:
        return "unknown (" + (meta.get("noise", {}).get("why") if isinstance(meta.get("noise"), dict)
                              else "stored before noise was recorded") + ")"
    return ("quiet: " if q else "busy: ") + str(meta["noise"].get("why", ""))
