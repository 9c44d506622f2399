"""Run an experiment's sweep: cells x forks, one fresh process per fork. The one run loop of the lab.

An experiment package (src/mechsym/experiments/<name>/) lists its cells for a
preset; this module probes the JVM flags of every cell, runs the forks one
after another (never two measurements at once) under a tqdm progress bar,
tags every row with the cell's parameters, and stores the run. A cell whose
flags the JDK does not take is stored as one row with status "unavailable"
and the reason ("not available on JDK 25: ..."), never as an error or a zero.

Hooks, for experiments that need more than "start a kernel, read its CSV" (seqio):
- `session(cells, meta)` on the experiment: a context manager entered once per run, after the bench lock and
  before the first fork, left whatever happens (an exception, Ctrl-C, SIGTERM); what it yields is every fork's
  `workspace` (e.g. a scratch directory it removes at the end). It may refuse to start (MechsymError) and add
  to the run's metadata.
- on a cell: `prepare(fork)` before each fork, outside anything timed (e.g. create the file the kernel reads);
  `args(fork)`: kernel arguments known only once the run has started (that file's path); `reply(fork, line)`:
  a handshake, every stderr line of the running kernel, a returned string goes to its stdin (the kernel waits
  while the bench evicts the file's pages, say); `runner(fork)`: a cell that is not a kernel process (kernel
  "cmd:<name>", e.g. dd) returns its own tidy rows. Rows a hook records in `fork.rows` are stored with the fork's.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import sys
import threading
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

import pandas as pd

from . import MechsymError, rowcheck, store
from .cpus import Topology, read_topology, taskset_available
from .jdk import Jdk, check_flags, select
from .launch import KernelError, Launch, check_timeout, java_command, native_command, run

PRESETS = ("smoke", "standard", "full")
LOCK_FILE = Path(os.environ.get("MECHSYM_BENCH_LOCK", "/tmp/mechsym-bench.lock"))


@dataclass
class Cell:
    """One point of a sweep: a kernel with its arguments, flags, JDK and CPUs.

    kernel is a Java class name ("mechsym.locks.LockContention"), "c:<binary>"
    for a C kernel built into build/c/, or "cmd:<name>" for a cell its `runner`
    runs (e.g. dd). params are the kernel's --k=v arguments; labels are extra
    columns for the results (variant names, placements...). prepare, args,
    reply and runner are the hooks described in the module's doc."""
    variant: str
    kernel: str
    params: dict = field(default_factory=dict)
    labels: dict = field(default_factory=dict)
    flags: tuple[str, ...] = ()
    jdk: Jdk | None = None
    cpus: list[int] | None = None     # taskset -c; None or [] = unpinned
    forks: int = 3
    timeout: float = 300.0
    unavailable: str | None = None    # reason, when the machine lacks what the cell needs
    prepare: Callable[["Fork"], None] | None = None
    args: Callable[["Fork"], dict] | None = None
    reply: Callable[["Fork", str], str | None] | None = None
    runner: Callable[["Fork"], pd.DataFrame] | None = None

    def launch(self, fork: "Fork | None" = None) -> Launch:
        params = {**self.params, **(self.args(fork or Fork(self, 0)) if self.args else {})}
        if self.kernel.startswith("c:"):
            return native_command(self.kernel[2:], params, self.cpus)
        if self.kernel.startswith("cmd:"):
            raise MechsymError(f"cell {self.variant}: {self.kernel} is run by its runner, not launched")
        if self.jdk is None:
            raise MechsymError(f"cell {self.variant}: a Java kernel needs a JDK")
        return java_command(self.jdk, self.kernel, params, self.flags, self.cpus)

    def command_line(self) -> str:
        """What a fork runs (for dry runs; hooks see no workspace)."""
        if self.runner:
            return f"{self.kernel.removeprefix('cmd:')} (run by the experiment) " + " ".join(
                f"--{k}={v}" for k, v in self.params.items())
        return self.launch().command_line

    def columns(self) -> dict:
        cols = {"variant": self.variant, **{k.replace("-", "_"): v for k, v in self.params.items()}, **self.labels}
        if self.kernel.startswith("c:"):
            cols.update(jdk="c", jdk_version="gcc", flags="")
        elif self.kernel.startswith("cmd:"):
            cols.update(jdk=self.kernel.removeprefix("cmd:"), flags="")
            cols.setdefault("jdk_version", "")
        else:
            cols.update(jdk=self.jdk.feature if self.jdk else "", jdk_version=self.jdk.version if self.jdk else "",
                        flags=" ".join(self.flags))
        cols["cpus"] = ",".join(map(str, sorted(set(self.cpus)))) if self.cpus else "all"
        return cols


@dataclass
class Fork:
    """One fork of a cell as the run loop runs it, handed to the cell's hooks.

    workspace: what the experiment's session yielded (None outside a run: a dry run). rows: rows a hook records
    for this fork (e.g. a check between two timed phases) in the kernel's columns (iteration, warmup, metric,
    value, unit, ...); they are stored with the fork's own. commands: the run's command list (a runner adds the
    commands it runs)."""
    cell: Cell
    number: int
    workspace: object = None
    rows: list[dict] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)


@contextlib.contextmanager
def bench_lock(wait_message: Callable[[str], None] = lambda m: print(m, file=sys.stderr)):
    """One measurement at a time on this machine (an exclusive flock)."""
    try:
        LOCK_FILE.parent.mkdir(parents=True, exist_ok=True)
        f = open(LOCK_FILE, "a+")
    except OSError as e:
        raise MechsymError(f"bench lock {LOCK_FILE}: cannot be opened ({e.strerror or e}); set MECHSYM_BENCH_LOCK "
                           "to a file path this user can write") from e
    with f:
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            wait_message(f"waiting for another measurement on this machine to finish ({LOCK_FILE})")
            fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def check_preset(preset: str) -> None:
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)} (and 'stored' in notebooks)")


def parse_threads(spec) -> list[int]:
    """'1,2,4' or [1, 2, 4] -> [1, 2, 4]; MechsymError unless every value is a whole number >= 1."""
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    out = []
    for item in items:
        text = str(item).strip()
        if not (text.isascii() and text.isdigit()) or int(text) < 1:
            raise MechsymError(f"threads '{text}': must be a whole number >= 1 (e.g. --threads 1,2,4)")
        out.append(int(text))
    if not out:
        raise MechsymError("threads: give at least one thread count (e.g. --threads 1,2,4)")
    return out


def parse_cpus(spec, topo: Topology) -> list[int]:
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    ids = []
    for item in items:
        text = str(item).strip()
        if not (text.isascii() and text.isdigit()):  # '¹' is a digit to str.isdigit, not to int()
            raise MechsymError(f"CPU id '{text}': must be a whole number; this machine has CPUs {','.join(map(str, topo.ids))}")
        ids.append(int(text))
    topo.check_ids(ids)
    return ids


# Words of a java command line that are not VM options: the bench gives the class path and main class itself.
_NOT_VM_OPTIONS = {"-cp", "-classpath", "--class-path", "-jar", "-m", "--module", "-p", "--module-path",
                   "--upgrade-module-path", "--source", "-version", "--version", "-showversion", "--show-version",
                   "-h", "-help", "-?", "--help", "-X", "--help-extra", "--list-modules", "-d", "--describe-module",
                   "--validate-modules", "--dry-run", "-fullversion", "--full-version"}


def check_jvm_flags(flags) -> tuple[str, ...]:
    """Extra JVM flags from the command line: VM options only (each a word starting with '-', none that replaces the
    class path or main class, prints something and exits, or reads more words from a file); else one line."""
    out = tuple(flags)
    for f in out:
        if not isinstance(f, str) or not f.startswith("-") or f.split("=", 1)[0] in _NOT_VM_OPTIONS:
            raise MechsymError(f"JVM flag '{f}': not a VM option for the kernels' JVM; give options such as "
                               "-XX:+UseParallelGC, -Xmx2g or -Dname=value (the bench sets the class path and "
                               "main class itself)")
    return out


def select_cells(cells: list[Cell], only: str) -> list[Cell]:
    """Cells whose columns match every KEY=V1,V2 clause (clauses separated by ';')."""
    known = sorted({k for c in cells for k in c.columns()})
    kept = cells
    for clause in str(only).split(";"):
        clause = clause.strip()
        if not clause:
            continue
        key, sep, values = clause.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not values.strip():
            raise MechsymError(f"only '{clause}': expected KEY=VALUE[,VALUE] (keys: {', '.join(known)})")
        if key not in known:
            raise MechsymError(f"only '{clause}': unknown key '{key}' (keys: {', '.join(known)})")
        wanted = {v.strip() for v in values.split(",")}
        kept = [c for c in kept if str(c.columns().get(key)) in wanted]
    if not kept:
        raise MechsymError(f"only '{only}': matches no cell of this sweep")
    return kept


def plan(module, preset: str, jdks: list[Jdk] | None = None, topo: Topology | None = None,
         threads=None, cpus=None, jvm_flags=(), timeout: float | None = None, only=None) -> list[Cell]:
    """The cells of a sweep, with unavailable flags and placements already marked.

    Overrides (from the command line): threads replaces the thread counts of
    cells that have a `threads` parameter; cpus runs every cell under
    `taskset -c CPUS`; jvm_flags are added to every Java cell (each JDK must
    take them); timeout replaces every cell's timeout (seconds)."""
    check_preset(preset)
    if timeout is not None:
        timeout = check_timeout(timeout)
    jvm_flags = check_jvm_flags(jvm_flags or ())
    topo = topo or read_topology()
    jdks = jdks if jdks is not None else select(None)
    cells = module.cells(preset, topo, jdks)
    if only:
        cells = select_cells(cells, only)
    if threads is not None:
        counts = parse_threads(threads)
        if not any("threads" in c.params for c in cells):
            raise MechsymError(f"threads: experiment {module.NAME} has no thread-count parameter")
        seen, new = set(), []
        for c in cells:
            if "threads" not in c.params:
                new.append(c)
                continue
            for t in counts:
                params = {**c.params, "threads": t}
                key = (c.variant, c.kernel, tuple(sorted(map(str, params.items()))), tuple(sorted(map(str, c.labels.items()))),
                       c.flags, c.jdk)
                if key not in seen:
                    seen.add(key)
                    new.append(replace(c, params=params))
        cells = new
    if cpus is not None:
        ids = parse_cpus(cpus, topo)
        cells = [replace(c, cpus=ids) for c in cells]
    if jvm_flags:
        flags = tuple(jvm_flags)
        for jdk in {c.jdk for c in cells if c.jdk}:
            probe = check_flags(jdk, flags)
            if not probe.accepted:
                raise MechsymError(f"JVM flags '{' '.join(flags)}': JDK {jdk.feature} ({jdk.home}) rejects them: {probe.reason}")
        cells = [replace(c, flags=c.flags + flags) if c.jdk else c for c in cells]
    if timeout is not None:
        cells = [replace(c, timeout=timeout) for c in cells]
    for c in cells:
        if c.unavailable or c.kernel.startswith(("c:", "cmd:")) or c.jdk is None:
            continue
        probe = check_flags(c.jdk, c.flags)
        if not probe.accepted:
            c.unavailable = f"not available on JDK {c.jdk.feature}: {probe.reason}"
    return cells


def run_metadata(name: str, preset: str, topo: Topology, cells: list[Cell], overrides: dict | None = None) -> dict:
    """The JSON sidecar of a run as it starts: machine, JDKs, preset, git commit, taskset; commands and
    failures are appended as the run goes. Shared by every run loop, so every stored run has the same keys."""
    from . import noise  # "_noise": what else used the CPUs (finish() stores its summary as "noise")
    return {
        "experiment": name,
        "preset": preset,
        "run_id": store.new_run_id(preset),
        "machine": store.machine_info(topo),
        "jdks": [j.as_dict() for j in sorted({c.jdk for c in cells if c.jdk}, key=lambda j: j.feature)],
        "git_commit": store.git_commit(),
        "taskset": "available" if taskset_available() else "missing: every cell ran unpinned",
        "overrides": {k: v for k, v in (overrides or {}).items() if v not in (None, (), [])},
        "start": store.now_utc(),
        "status": "running",
        "commands": [],
        "failures": [],
        "unavailable": [],
        "_noise": noise.Recorder(),
    }


def execute(module, preset: str, jdks: list[Jdk] | None = None, progress: bool = True,
            store_results: bool = True, results_root: Path | None = None, lock: bool | None = None,
            **overrides) -> dict:
    """Run a sweep and store it. Returns the run's metadata (with 'rows' and 'json' keys).

    Ctrl-C (and SIGTERM or SIGHUP, turned into the same) stores what completed as an
    'interrupted' run (which the notebooks ignore) and re-raises; the running
    kernel is killed, the experiment's session is left (its scratch files
    removed); earlier runs are never touched. Any other failure that stops the
    run part-way (a full disk or no inodes left in a hook, a bug) keeps what
    finished the same way, says why in one line and raises (MechsymError for
    the machine's own errors: OSError). A run that measures while another
    measurement does says so, once per other measurement."""
    from tqdm.auto import tqdm

    if store_results:
        store.check_writable(module.NAME, root=results_root)  # a store it cannot write is refused before measuring
    topo = read_topology()
    cells = plan(module, preset, jdks, topo, **overrides)
    name = module.NAME
    meta = run_metadata(name, preset, topo, cells, overrides)
    frames: list[pd.DataFrame] = []
    total = sum(c.forks for c in cells if not c.unavailable)
    lock = preset != "smoke" if lock is None else lock
    ctx = bench_lock(meta["_noise"].waited_for_lock) if lock else contextlib.nullcontext()
    runnable = [c for c in cells if not c.unavailable]
    open_session = getattr(module, "session", None)  # the experiment's run-wide hook, if it has one
    session = open_session(runnable, meta) if open_session else contextlib.nullcontext()
    said: set[str] = set()  # other measurements this run has said it overlaps
    where = "before the first fork"
    try:
        with _signals_interrupt(), ctx, session as work, tqdm(total=total, desc=f"{name} [{preset}]", unit="fork",
                                                             disable=not progress, file=sys.stderr,
                                                             dynamic_ncols=True) as bar:
            started = time.monotonic()  # after the bench lock: waiting for another sweep is not this run's time
            meta["_noise"].begin()
            say_overlaps(meta["_noise"], said, lambda line: bar.write(line, file=sys.stderr))
            # Unavailable cells first (nothing runs), then the forks round-robin over the cells (fork 0 of every
            # cell, then fork 1, ...), so a burst of background load spreads over many cells instead of one.
            for cell in cells:
                if cell.unavailable:
                    frames.append(unavailable_rows(name, cell.columns(), cell.unavailable, meta))
            rounds = max((c.forks for c in runnable), default=0)
            for fork in range(rounds):
                for cell in runnable:
                    if fork >= cell.forks:
                        continue
                    cols = cell.columns()
                    meta["_noise"].tick(cell.variant, fork)  # between forks, outside the timed region
                    say_overlaps(meta["_noise"], said, lambda line: bar.write(line, file=sys.stderr))
                    where = f"at {cell.variant} fork {fork + 1}/{cell.forks}"
                    bar.set_postfix_str(f"{cell.variant} {_short(cell)} fork {fork + 1}/{cell.forks}", refresh=False)
                    try:
                        df, pinned = run_fork(Fork(cell, fork, work, commands=meta["commands"]))
                    except KernelError as e:
                        record_failure(meta, cols, fork, e, bar, cell.variant)
                        continue
                    frames.append(tag_rows(df, name, cols, fork, pinned))
                    bar.update(1)
            where = "after the last fork"
        meta["status"] = "complete"
    except KeyboardInterrupt:
        meta["noise"] = noise_stop(meta)
        save_interrupted(name, frames, meta, store_results, results_root)
        raise
    except Exception as e:  # the run cannot go on: keep what finished (the error itself is the one line)
        meta["noise"] = noise_stop(meta)
        meta["stopped"] = f"{where}: {_reason(e)}"
        if any((f["status"] == "ok").any() for f in frames):
            save_interrupted(name, frames, meta, store_results, results_root, why=f"stopped {where}")
        if isinstance(e, OSError):
            raise MechsymError(f"{name}: stopped {where}: {_reason(e)}") from e
        raise
    return finish(name, frames, meta, started, store_results, results_root, said)


def _reason(e: BaseException) -> str:
    """An exception in one line: an OSError as its message and file, anything else as its type and message."""
    if isinstance(e, OSError):
        return f"{e.strerror or e}" + (f": {e.filename}" if e.filename else "")
    if isinstance(e, MechsymError):
        return str(e)
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:300]


def noise_stop(meta: dict) -> dict:
    from . import noise
    return noise.stop(meta)


def say_overlaps(recorder, said: set, write: Callable[[str], None]) -> None:
    """One line per other measurement this run overlaps (the recorder notes each in the run's "noise")."""
    for token, o in list(getattr(recorder, "overlaps", {}).items()):
        if token in said:
            continue
        said.add(token)
        since = f", started {o['start'].replace('T', ' ').rstrip('Z')} UTC" if o.get("start") else ""
        write(f"mechsym: another measurement (pid {o.get('pid', '?')}{since}) ran at the same time as this one: "
              "both runs' numbers may be disturbed (noted in this run's metadata)")


def run_fork(fork: Fork) -> tuple[pd.DataFrame, str]:
    """One fork of a cell: its prepare step (untimed), then its kernel process (answering its handshake, if the cell
    has one) or its runner. Returns the rows, with those the hooks recorded, and how the process was pinned."""
    cell = fork.cell
    if cell.prepare:
        cell.prepare(fork)
    if cell.runner:
        df, pinned = cell.runner(fork), "none"
    else:
        launch = cell.launch(fork)
        fork.commands.append(launch.command_line)
        reply = (lambda line: cell.reply(fork, line)) if cell.reply else None
        df, pinned = run(launch, timeout=cell.timeout, reply=reply), launch.pinned
    if fork.rows:
        extra = pd.DataFrame(fork.rows)
        for c in df.columns:  # the kernel's own constant columns (method, size...) hold for the hooks' rows too
            if c not in extra and df[c].nunique(dropna=False) == 1:
                extra[c] = df[c].iloc[0]
        df = pd.concat([df, extra], ignore_index=True)
    problem = rowcheck.kernel_problem(df)  # the rules every read applies: a fork that breaks them keeps nothing
    if problem:
        raise KernelError(f"{cell.kernel.rsplit('.', 1)[-1]}: {problem}; nothing kept from this fork",
                          "bad-output", [cell.kernel])
    return df, pinned


STOP_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


@contextlib.contextmanager
def _signals_interrupt():
    """SIGTERM (and SIGHUP: the terminal closed) end a run as Ctrl-C does (kernel killed, what finished kept as
    'interrupted', sessions cleaned up)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def _term(signum, frame):
        raise KeyboardInterrupt(f"signal {signum}")
    # a signal the caller ignores stays ignored (`nohup mechsym run ...` must survive its terminal closing)
    old = {s: signal.signal(s, _term) for s in STOP_SIGNALS if signal.getsignal(s) is not signal.SIG_IGN}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)


@contextlib.contextmanager
def _signals_deferred():
    """While a run is being stored: Ctrl-C, SIGTERM and SIGHUP wait until it is (then raise KeyboardInterrupt), so
    that a signal never leaves half a run."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []
    sigs = [s for s in (signal.SIGINT, *STOP_SIGNALS) if signal.getsignal(s) is not signal.SIG_IGN]
    old = {s: signal.signal(s, lambda signum, frame: got.append(signum)) for s in sigs}
    try:
        yield
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    if got:
        raise KeyboardInterrupt(f"signal {got[0]}")


# The pieces of the run loop, each written once, so that every stored run has the same rows, failure records
# and endings.

def unavailable_rows(name: str, cols: dict, reason: str, meta: dict) -> pd.DataFrame:
    """The one row that stands for a cell this machine or JDK cannot run (and its entry in the metadata)."""
    meta["unavailable"].append({**cols, "reason": reason})
    return pd.DataFrame([{"experiment": name, **cols, "fork": -1, "iteration": -1, "warmup": False,
                          "metric": "", "value": float("nan"), "unit": "", "status": "unavailable", "note": reason}])


def tag_rows(df: pd.DataFrame, name: str, cols: dict, fork: int, taskset: str) -> pd.DataFrame:
    """A fork's kernel rows with the cell's columns (those the kernel did not print itself) and the run's tags."""
    for k, v in reversed(list(cols.items())):
        if k not in df.columns:
            df.insert(0, k, v)
    df.insert(0, "experiment", name)
    df["fork"] = fork
    df["taskset"] = taskset
    df["status"] = "ok"
    df["note"] = ""
    return df


def record_failure(meta: dict, cols: dict, fork: int, error: KernelError, bar, label: str) -> None:
    """A fork that produced no number: kept in the metadata, never in the rows. A bad argument is the bench's
    own mistake, not the machine's, and stops the run."""
    if error.kind == "bad-argument":
        raise error
    meta["failures"].append({**cols, "fork": fork, "kind": error.kind, "message": str(error),
                             "stderr_tail": error.stderr[-2000:]})
    bar.write(f"  {label} fork {fork}: {error}", file=sys.stderr)
    bar.update(1)


def save_interrupted(name: str, frames: list[pd.DataFrame], meta: dict, store_results: bool,
                     results_root: Path | None, note: str = "", why: str = "interrupted") -> None:
    """On Ctrl-C (or a failure that stops the run): what finished is stored as an 'interrupted' run (hidden by
    default); earlier runs untouched."""
    meta["status"] = "interrupted"
    meta["end"] = store.now_utc()
    if store_results and any((f["status"] == "ok").any() for f in frames):
        with _signals_deferred():
            path = store.save(name, tidy(frames), meta, root=results_root)
        print(f"{why}: kept what finished as {path.name} (status interrupted, not shown by default); "
              f"earlier runs untouched{note}", file=sys.stderr)
    else:
        print(f"{why}: nothing stored; earlier runs untouched{note}", file=sys.stderr)


def finish(name: str, frames: list[pd.DataFrame], meta: dict, started: float, store_results: bool,
           results_root: Path | None, said: set | None = None) -> dict:
    """End a completed run: refuse to store when every fork failed, else tidy the rows and store them."""
    from . import noise
    recorder = meta.get("_noise")
    meta["noise"] = noise.stop(meta)
    if said is not None and recorder is not None:  # measurements that ended while this one ran
        say_overlaps(recorder, said, lambda line: print(line, file=sys.stderr))
    meta["end"] = store.now_utc()
    meta["seconds"] = round(time.monotonic() - started, 1)
    if not any((f["status"] == "ok").any() for f in frames):
        first = meta["failures"][0]["message"] if meta["failures"] else "no cell could run here"
        raise MechsymError(f"{name}: every fork failed; nothing stored (first failure: {first})")
    rows = tidy(frames)
    meta["rows"] = len(rows)
    if store_results:
        with _signals_deferred():
            meta["json"] = str(store.save(name, rows, meta, root=results_root))
    meta["frame"] = rows
    return meta


def _short(cell: Cell) -> str:
    bits = [f"{k}={v}" for k, v in cell.params.items() if k in ("threads", "lock", "placement", "method")]
    if cell.jdk:
        bits.append(f"jdk{cell.jdk.feature}")
    return " ".join(bits)


def tidy(frames: list[pd.DataFrame]) -> pd.DataFrame:
    df = pd.concat(frames, ignore_index=True, sort=False)
    front = ["experiment", "variant"]
    back = ["fork", "iteration", "warmup", "metric", "value", "unit", "status", "note"]
    middle = [c for c in df.columns if c not in front + back]
    return df[[c for c in front + middle + back if c in df.columns]]
