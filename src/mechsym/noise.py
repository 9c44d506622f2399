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
zero). Runs also register in a folder beside the bench lock, so a run that
measured at the same time as another (smoke runs take no lock) says so, as
does a run that waited for the lock.

The summary goes into the run's JSON sidecar under "noise". A run is quiet
unless, on average over its measurement, other processes used more than 10%
of one CPU (OTHER_CPUS_MAX), the hypervisor stole more than 5% of the CPUs'
time (STEAL_PCT_MAX), or another measurement ran at the same time. Runs stored
before noise was recorded have no "noise": is_quiet() says None (unknown),
not False.
"""

from __future__ import annotations

import fcntl
import json
import os
import secrets
import sys
import time
import weakref
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

OTHER_CPUS_MAX = 0.10   # other processes' CPU time per second of the run, in CPUs: 10% of one CPU
STEAL_PCT_MAX = 5.0     # hypervisor steal, % of all CPUs' time
CPU_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")
PF_KTHREAD = 0x00200000
FORK_COLUMNS = ("variant", "fork", "wall_s", "other_cpu_s", "steal_pct")
LOG_KEEP_S = 2 * 86400


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


def _cpu_delta(a: Sample, b: Sample) -> dict[str, tuple[int, ...]]:
    return {c: tuple(max(y - x, 0) for x, y in zip(a.cpus[c], b.cpus[c])) for c in b.cpus if c in a.cpus}


def default_registry() -> Path:
    lock = Path(os.environ.get("MECHSYM_BENCH_LOCK", "/tmp/mechsym-bench.lock"))
    return lock.with_name(lock.name + ".runs")


def _iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


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
        self._fd = None
        self.overlaps: dict[str, dict] = {}
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
        self._register()
        self._scan_active()

    def tick(self, variant: str | None = None, fork: int | None = None) -> None:
        """Between forks, before fork `fork` of a cell of `variant`: close the previous fork's window, open this one's."""
        self._advance()
        self._open_fork = (variant, fork)
        self._scan_active()

    def stop(self) -> dict:
        """The measurement ended: last sample, overlap check, summary (the same summary when called again)."""
        if getattr(self, "_summary", None) is None:
            self._advance()
            self._scan_active()
            end_wall = self.wallclock()
            self._unregister(end_wall)
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
        delta = _cpu_delta(a, b)
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

    def _register(self) -> None:
        try:
            self.registry.mkdir(parents=True, exist_ok=True)
            # locked before it gets its .active name, so no one sees it unlocked and takes it for stale
            tmp = self.registry / f"{self.token}.new"
            fd = os.open(tmp, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644)
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(fd, json.dumps({"pid": self.self_pid, "start": self.start_wall}).encode())
            os.replace(tmp, self.registry / f"{self.token}.active")
            self._fd = fd
            # a run that ends by an exception nobody stops it for (in a notebook, say) does not stay "measuring"
            self._finalizer = weakref.finalize(self, _release, fd, self.registry / f"{self.token}.active")
        except OSError as e:
            self._note(f"cannot register in {self.registry}: {e.strerror or e}")

    def _scan_active(self) -> None:
        """Other runs measuring now hold the flock on their marker; a marker nobody holds is stale: removed."""
        if not self.registry or not self.registry.is_dir():
            return
        for path in self.registry.glob("*.active"):
            if path.stem == self.token or path.stem in self.overlaps:
                continue
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError:
                continue
            try:
                try:
                    fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
                except BlockingIOError:
                    info = self._info(path)
                    self.overlaps[path.stem] = {"pid": info.get("pid"), "start": _iso(info["start"]) if "start" in info else None,
                                                "end": None}
                    continue
                path.unlink(missing_ok=True)  # its run died without unregistering
            finally:
                os.close(fd)

    @staticmethod
    def _info(path: Path) -> dict:
        try:
            v = json.loads(path.read_text())
            return v if isinstance(v, dict) else {}
        except (OSError, ValueError):
            return {}

    def _unregister(self, end_wall: float) -> None:
        """Log this run's interval, read the others' (runs that ended while this one measured), drop the marker."""
        if not self.registry:
            return
        log = self.registry / "log"
        try:
            self.registry.mkdir(parents=True, exist_ok=True)
            with open(log, "a+") as f:
                fcntl.flock(f, fcntl.LOCK_EX)
                f.seek(0)
                lines = f.read().splitlines()
                mine = f"{self.token} {self.self_pid} {self.start_wall:.3f} {end_wall:.3f}"
                kept = []
                for line in lines:
                    parts = line.split()
                    try:
                        token, pid, start, end = parts[0], int(parts[1]), float(parts[2]), float(parts[3])
                    except (IndexError, ValueError):
                        continue
                    if end > end_wall - LOG_KEEP_S:
                        kept.append(line)
                    if token != self.token and start < end_wall and end > self.start_wall:
                        self.overlaps[token] = {"pid": pid, "start": _iso(start), "end": _iso(end)}
                alone = not self._others_active()
                if alone:
                    # no other run measures now, so no later one can overlap this: the log is not needed and goes,
                    # with the folder, so that nothing is left outside the results store after a run
                    log.unlink(missing_ok=True)
                else:
                    if len(kept) < len(lines) and len(lines) > 200:
                        f.seek(0)
                        f.truncate()
                        f.write("".join(k + "\n" for k in kept))
                    f.write(mine + "\n")
        except OSError as e:
            alone = False
            self._note(f"cannot log in {self.registry}: {e.strerror or e}")
        if self._fd is not None:
            self._finalizer.detach()
            _release(self._fd, self.registry / f"{self.token}.active")
            self._fd = None
        if alone:
            try:
                self.registry.rmdir()  # only when empty: another run may have registered meanwhile
            except OSError:
                pass

    def _others_active(self) -> bool:
        """Whether another run holds its marker now (a marker nobody holds is a killed run's: not active)."""
        for path in [*self.registry.glob("*.active"), *self.registry.glob("*.new")]:  # .new: registering now
            if path.stem == self.token:
                continue
            try:
                fd = os.open(path, os.O_RDONLY)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            finally:
                os.close(fd)
        return False

    def _note(self, text: str) -> None:
        self.notes = getattr(self, "notes", []) + [text]

    # ---- the summary

    def summary(self, end_wall: float | None = None) -> dict:
        out: dict = {
            "version": 1,
            "thresholds": {"other_cpus": OTHER_CPUS_MAX, "steal_pct": STEAL_PCT_MAX},
            "waited_for_lock": self.waited,
            "lock_wait_s": round(self.lock_wait_s, 1),
            "overlapped": sorted(self.overlaps.values(), key=lambda o: str(o.get("start"))),
        }
        if getattr(self, "notes", None):
            out["notes"] = self.notes
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
            "start": _iso(self.start_wall), "end": _iso(end_wall or self.wallclock()),
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


def _release(fd: int, marker: Path) -> None:
    try:
        marker.unlink(missing_ok=True)
    except OSError:
        pass
    try:
        os.close(fd)
    except OSError:
        pass


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
