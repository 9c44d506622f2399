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
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

import pandas as pd

from .. import MechsymError
from ..store import provenance, rows as rowcheck, runs as store
from ..machine.cpus import Topology, read_topology, taskset_available
from . import calibrate, jmh
from .interrupts import signals_interrupt
from ..machine.jdk import Jdk, check_flags, select
from .launch import KernelError, check_timeout, java_environment, run
from ..machine.identity import machine_info
from .cells import Cell, Fork
from .overrides import check_jvm_flags, check_preset, parse_cpus, parse_threads, select_cells
from .loop import (
    finish, noise_stop, reason_of, record_failure, save_interrupted, say_overlaps, tag_rows, unavailable_rows)

OPENED = ("standard",)   # presets a short calibration opens (run/calibrate.py), recorded as meta["calibration"]
LOCK_FILE = Path(os.environ.get("MECHSYM_BENCH_LOCK", "/tmp/mechsym-bench.lock"))


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


def plan(module, preset: str, jdks: list[Jdk] | None = None, topo: Topology | None = None,
         threads=None, cpus=None, jvm_flags=(), timeout: float | None = None, only=None,
         protocol: str | None = None) -> list[Cell]:
    """The cells of a sweep, with unavailable flags and placements already marked.

    Overrides (from the command line): threads replaces the thread counts of
    cells that have a `threads` parameter; cpus runs every cell under
    `taskset -c CPUS`; jvm_flags are added to every Java cell (each JDK must
    take them); timeout replaces every cell's timeout (seconds); protocol "jmh" takes the experiment's JMH
    benchmark cells instead of its kernels' (mechsym.run.jmh)."""
    check_preset(preset)
    if timeout is not None:
        timeout = check_timeout(timeout)
    jvm_flags = check_jvm_flags(jvm_flags or ())
    topo = topo or read_topology()
    jdks = jdks if jdks is not None else select(None)
    if protocol in (None, "lab"):
        cells = module.cells(preset, topo, jdks)
    else:
        cells = jmh.cells(module, protocol, preset, topo, jdks)
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


#: Presets whose runs are results (stored, shown, voted): they are measured only at a clean commit.
MEASURING = ("standard", "full")


def check_clean(preset: str, allow_dirty: bool = False, state: "provenance.GitState | None" = None):
    """The checkout's git state; a `standard` or `full` run on a dirty tree is refused (one line) unless allow_dirty,
    so that a stored result always names the code that made it."""
    state = state or provenance.git_state()
    if preset in MEASURING and not state.clean and not allow_dirty:
        files = state.dirty_files()
        what = (f"{len(files)} changed file{'s' if len(files) != 1 else ''}: {', '.join(files[:3])}"
                + (", ..." if len(files) > 3 else "")) if files else "not a git checkout"
        raise MechsymError(f"preset '{preset}': the tree is not clean ({what}); commit first, "
                           "or pass --allow-dirty (recorded with the run and shown wherever it is used)")
    return state


def run_metadata(name: str, preset: str, topo: Topology, cells: list[Cell], overrides: dict | None = None,
                 state: "provenance.GitState | None" = None, allow_dirty: bool = False) -> dict:
    """The JSON sidecar of a run as it starts: machine, JDKs, preset, git commit, taskset, provenance (the commit,
    clean or not with the diff that rebuilds the tree, the artefacts' hashes, the kernel fingerprint); commands and
    failures are appended as the run goes. Shared by every run loop, so every stored run has the same keys."""
    from ..machine import noise  # "_noise": what else used the CPUs (finish() stores its summary as "noise")
    state = state or provenance.git_state()
    prov = provenance.record(name, state, allow_dirty,
                             protocol_family=provenance.family({"overrides": overrides or {}}))
    if state.diff:
        prov["diff"] = state.diff.decode("utf-8", "replace")
    return {
        "provenance": prov,
        "experiment": name,
        "preset": preset,
        "run_id": store.new_run_id(preset),
        "machine": machine_info(topo),
        "jdks": [j.as_dict() for j in sorted({c.jdk for c in cells if c.jdk}, key=lambda j: j.feature)],
        "git_commit": state.commit + ("" if state.clean else "-dirty"),
        "taskset": "available" if taskset_available() else "missing: every cell ran unpinned",
        "overrides": {k: v for k, v in (overrides or {}).items() if v not in (None, (), [])},
        "start": store.now_utc(),
        "java_environment": java_environment(),
        "status": "running",
        "commands": [],
        "failures": [],
        "unavailable": [],
        "_noise": noise.Recorder(),
    }


def execute(module, preset: str, jdks: list[Jdk] | None = None, progress: bool = True,
            store_results: bool = True, results_root: Path | None = None, lock: bool | None = None,
            allow_dirty: bool = False, **overrides) -> dict:
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

    state = check_clean(preset, allow_dirty)  # before anything is written: a refused run leaves no trace
    if store_results:
        store.check_writable(module.NAME, root=results_root)  # a store it cannot write is refused before measuring
    topo = read_topology()
    cells = plan(module, preset, jdks, topo, **overrides)
    name = module.NAME
    meta = run_metadata(name, preset, topo, cells, overrides, state, allow_dirty)
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
        with signals_interrupt(), ctx, session as work, tqdm(total=total, desc=f"{name} [{preset}]", unit="fork",
                                                             disable=not progress, file=sys.stderr,
                                                             dynamic_ncols=True) as bar:
            started = time.monotonic()  # after the bench lock: waiting for another sweep is not this run's time
            meta["_noise"].begin()
            say_overlaps(meta["_noise"], said, lambda line: bar.write(line, file=sys.stderr))
            if preset in OPENED and name != calibrate.EXPERIMENT:  # the machine's floors, before the first fork
                meta["calibration"] = calibrate.opening(topo, sorted({c.jdk for c in runnable if c.jdk},
                                                                     key=lambda j: j.feature) or (jdks or []),
                                                        meta, run_fork, tag_rows)
                bar.write(f"calibration (short form): {meta['calibration']['seconds']} s", file=sys.stderr)
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
        meta["stopped"] = f"{where}: {reason_of(e)}"
        if any((f["status"] == "ok").any() for f in frames):
            save_interrupted(name, frames, meta, store_results, results_root, why=f"stopped {where}")
        if isinstance(e, OSError):
            raise MechsymError(f"{name}: stopped {where}: {reason_of(e)}") from e
        raise
    return finish(name, frames, meta, started, store_results, results_root, said)


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


def _short(cell: Cell) -> str:
    bits = [f"{k}={v}" for k, v in cell.params.items() if k in ("threads", "lock", "placement", "method")]
    if cell.jdk:
        bits.append(f"jdk{cell.jdk.feature}")
    return " ".join(bits)
