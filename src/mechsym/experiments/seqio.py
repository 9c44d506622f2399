"""Sequential file IO from Java: notebook 04.

Post: "Java Sequential IO Performance" (2011-12-26), Martin Thompson. Kernel:
mechsym.io.SequentialIo (RandomAccessFile, buffered streams, FileChannel with
a heap or a direct ByteBuffer, MappedByteBuffer), five write+read passes per
JVM, as the post. The device's own limit comes from `dd` on the same file.

Regimes (the `regime` column):
- page-cache: a 400MB file (the post's first size) that fits the page cache;
  nothing is synced or evicted, as in the post.
- evicted: the post's second regime ("much larger" than the cache: 8GB on an
  8GB machine) reproduced without filling the disk: before every timed phase
  the driver syncs the file and drops its pages from the page cache
  (os.posix_fadvise POSIX_FADV_DONTNEED), so every read comes from the
  device, and every write phase ends with the data on the device (the kernel's
  --sync=true: fsync/force inside the timed region, as dd conv=fdatasync).
- larger-than-ram: opt-in (MECHSYM_SEQIO_SIZE larger than this machine's
  RAM, or the `full` preset when the disk has room): a real file larger than
  RAM, no eviction and no sync, exactly the post's setup.

How eviction stays outside the timed region: one JVM per method and regime
runs all five passes (so the JIT warm-up shows, as in the post); with
--evict=ask it closes the file before every timed phase, prints
"seqio: evict before <phase> pass <n>" on stderr and waits for a line on
stdin. This driver then evicts, checks with mincore(2) how much of the file
is still resident (stored as metric evict_resident, a fraction), and answers.
That is why this module has its own run loop (run()) instead of
sweep.execute's: same metadata keys, same tidy columns, same store.

Safety: the scratch file lives in $MECHSYM_SCRATCH (default <repo>/scratch-io),
in a subdirectory of its own (seqio-<pid>-<hex>) that is removed at the end,
also on an exception, Ctrl-C or SIGTERM; nothing is written anywhere else. A
run refuses to start, with one line, when that file system has less free
space than the largest file plus a margin.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import mmap
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import MechsymError, plots, repo_root, store
from ..cpus import Topology, read_topology, taskset_available
from ..jdk import Jdk
from ..launch import KernelError, java_command, parse_csv
from ..sweep import Cell, bench_lock, check_preset
from ..verdicts import Claim, Verdict, legacy_judge as judge, unmeasurable

NAME = "seqio"
TITLE = "Sequential file writes and reads: RandomAccessFile, buffered streams, FileChannel, MappedByteBuffer, vs dd"
NOTEBOOKS = ["04-sequential-io"]
KERNEL = "mechsym.io.SequentialIo"
POST = "2011-12-26-java-sequential-io-performance.md"
REFERENCE = "2011-12-26-java-sequential-io"
PAGE = 4096

# variant -> (what it is, the post's name for it)
METHODS = {
    "random-access-file": ("RandomAccessFile, 4 KiB byte[] per call", "RandomAccessFile"),
    "buffered-stream": ("BufferedOutputStream / BufferedInputStream, one byte per call", "BufferedStreamFile"),
    "channel-heap": ("FileChannel with a 4 KiB heap ByteBuffer", "BufferedChannelFile"),
    "channel-direct": ("FileChannel with a 4 KiB direct ByteBuffer (not in the post)", ""),
    "mapped": ("MappedByteBuffer, windows of at most 2 GiB", "MemoryMappedFile"),
    "buffered-stream-biased": ("buffered streams with -XX:+UseBiasedLocking (JDK <= 17 only; on by default in the "
                               "post's JDK 6): the streams' synchronized per-byte calls, biased", ""),
}
BIASED = ("-XX:+UseBiasedLocking", "-XX:BiasedLockingStartupDelay=0")
POST_METHODS = ["random-access-file", "buffered-stream", "channel-heap", "mapped"]
DD = {
    "dd": "dd bs=1M: writes conv=fdatasync, reads after eviction (the device's own limit); "
          "writes copy a cached file of the kernel's data, not /dev/zero",
    "dd-cached": "dd bs=1M through the page cache: no sync, no eviction",
}
COLORS = {"random-access-file": "#1f77b4", "buffered-stream": "#d62728", "channel-heap": "#2ca02c",
          "channel-direct": "#98df8a", "mapped": "#ff7f0e",
          "buffered-stream-biased": "#ff9896", "dd": "#000000", "dd-cached": "#7f7f7f"}
REGIMES = {
    "page-cache": "the file fits the page cache: no sync, no eviction (the post's 400MB file)",
    "evicted": "the file's pages are synced and evicted before every phase; writes end with fsync "
               "(stands for the post's 8GB file on an 8GB machine)",
    "larger-than-ram": "a real file larger than RAM, no sync, no eviction (the post's 8GB setup)",
}
POST_REGIME = {"page-cache": "page-cache", "evicted": "larger-than-ram", "larger-than-ram": "larger-than-ram"}

MB = 1e6  # MB/s = 10^6 bytes per second, as the post's bytes/sec divided by 10^6
PRESETS = {
    # sizes are multiples of 4096; 409,600,000 = 4096 x 100,000 (the post's 400MB)
    "smoke": {"cache_size": 8 * 2**20, "cold_size": 8 * 2**20, "passes": 2, "forks": 1, "window": 2**20,
              "methods": POST_METHODS + ["channel-direct"], "jdks": 1, "larger_than_ram": False, "timeout": 60},
    "standard": {"cache_size": 409_600_000, "cold_size": 1_024_000_000, "passes": 5, "forks": 1, "window": None,
                 "methods": POST_METHODS + ["channel-direct"], "jdks": 1, "larger_than_ram": False, "timeout": 900},
    "full": {"cache_size": 409_600_000, "cold_size": 8_192_000_000, "passes": 5, "forks": 3, "window": None,
             "methods": POST_METHODS + ["channel-direct"], "jdks": None, "larger_than_ram": True, "timeout": 7200},
}
WARMUP_PASSES = 1
SIZE_ENV = "MECHSYM_SEQIO_SIZE"     # the "does not fit" file's size, e.g. 30G; larger than RAM = a real file
SCRATCH_ENV = "MECHSYM_SCRATCH"


# ---------------------------------------------------------------- sizes, scratch

def parse_size(text: str) -> int:
    """'400M', '8G', '30GiB', '409600000' -> bytes, rounded down to a multiple of 4096."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*", str(text), re.I)
    if not m:
        raise MechsymError(f"{SIZE_ENV}={text}: expected a size such as 400M, 8G or 30GiB")
    unit = m.group(2).lower()
    base = 1024 if m.group(3).lower().startswith("i") else 1000
    value = float(m.group(1)) * base ** " kmgt".index(unit or " ")
    size = int(value) // PAGE * PAGE
    if size < PAGE:
        raise MechsymError(f"{SIZE_ENV}={text}: at least 4096 bytes")
    return size


def ram_bytes() -> int:
    return store._mem_bytes()


def scratch_base() -> Path:
    """$MECHSYM_SCRATCH, or <repo>/scratch-io (the same file system as data/)."""
    env = os.environ.get(SCRATCH_ENV)
    return Path(env).expanduser().resolve() if env else (repo_root() / "scratch-io").resolve()


def margin(size: int) -> int:
    return max(1 << 30, size // 10)


def check_space(base: Path, size: int) -> None:
    """One line and no run when the scratch file system lacks the room for the file plus a margin."""
    probe = base if base.exists() else base.parent
    if not probe.exists():
        raise MechsymError(f"{SCRATCH_ENV}={base}: neither it nor its parent directory exists")
    free = shutil.disk_usage(probe).free
    need = size + margin(size)
    if free < need:
        raise MechsymError(f"not enough free space in {probe}: {free / 1e9:.1f} GB free, the {size / 1e9:.2f} GB scratch "
                           f"file needs {need / 1e9:.1f} GB with its margin; free space or set {SCRATCH_ENV} elsewhere")


@contextlib.contextmanager
def scratch_dir(base: Path | None = None):
    """A fresh subdirectory of the scratch base, removed at the end whatever happens (SIGTERM included)."""
    base = base or scratch_base()
    created_base = not base.exists()
    base.mkdir(parents=True, exist_ok=True)
    d = base / f"seqio-{os.getpid()}-{secrets.token_hex(3)}"
    d.mkdir()
    old = None
    if threading.current_thread() is threading.main_thread():
        def _term(signum, frame):
            raise KeyboardInterrupt(f"signal {signum}")
        old = signal.signal(signal.SIGTERM, _term)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)
        if created_base:
            with contextlib.suppress(OSError):
                base.rmdir()  # only when empty
        if old is not None:
            signal.signal(signal.SIGTERM, old)


def preallocate(path: Path, size: int) -> None:
    """Zero pages written for real and synced (as the post's preallocateTestFile), not fallocate's unwritten extents."""
    chunk = bytes(1 << 20)
    with open(path, "xb", buffering=0) as f:
        left = size
        while left > 0:
            left -= f.write(chunk[:min(left, len(chunk))])
        os.fsync(f.fileno())


def write_pattern(path: Path, size: int, seed: int = 1) -> None:
    """The kernel's data for one seed (byte i = (i & 0x7F) + salt(page, seed)): dd's source, so that dd writes the
    same kind of bytes as the Java methods (a virtual disk may write zeros much faster than data)."""
    pages = [bytes(((k & 0x7F) + s) & 0xFF for k in range(PAGE)) for s in range(256)]
    mask = (1 << 64) - 1
    a, b = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F
    total = size // PAGE
    with open(path, "xb", buffering=0) as f:
        for start in range(0, total, 256):
            f.write(b"".join(pages[(((p + 1) * a + seed * b) & mask) >> 56] for p in range(start, min(total, start + 256))))


# ---------------------------------------------------------------- eviction

_libc = None


def _mincore():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        _libc.mmap.restype = ctypes.c_void_p
        _libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
        _libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
        _libc.mincore.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_char_p]
    return _libc


def resident_fraction(path: Path) -> float:
    """Fraction of the file's pages in the page cache (mincore(2)); nan when that cannot be asked."""
    try:
        size = path.stat().st_size
        if size == 0:
            return 0.0
        libc = _mincore()
        fd = os.open(path, os.O_RDONLY)
        try:
            addr = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
            if addr in (None, ctypes.c_void_p(-1).value):
                return float("nan")
            try:
                pages = (size + mmap.PAGESIZE - 1) // mmap.PAGESIZE
                vec = ctypes.create_string_buffer(pages)
                if libc.mincore(addr, size, vec) != 0:
                    return float("nan")
                return sum(b & 1 for b in vec.raw) / pages
            finally:
                libc.munmap(addr, size)
        finally:
            os.close(fd)
    except (OSError, AttributeError):
        return float("nan")


def evict(path: Path) -> float:
    """Sync the file (dirty pages cannot be dropped) and drop its pages; returns the fraction still resident."""
    fd = os.open(path, os.O_RDONLY)
    try:
        for _ in range(3):
            os.fdatasync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            left = resident_fraction(path)
            if not left > 0.01:  # nan (cannot tell) or evicted
                return left
            time.sleep(0.2)
        return left
    finally:
        os.close(fd)


def eviction_available() -> str | None:
    """None when this system can evict a file's pages, else why not."""
    if not hasattr(os, "posix_fadvise") or not hasattr(os, "POSIX_FADV_DONTNEED"):
        return "os.posix_fadvise(POSIX_FADV_DONTNEED) is not available on this system"
    return None


# ---------------------------------------------------------------- the plan

def regimes(preset: str) -> list[tuple[str, int, bool]]:
    """(regime, file size, asked for) for a preset; MECHSYM_SEQIO_SIZE sets the second file's size.

    A size the user asked for must fit the disk (else the run refuses to start);
    the `full` preset's own larger-than-RAM file is skipped, with the reason, when it does not."""
    p = PRESETS[preset]
    out = [("page-cache", p["cache_size"], False)]
    env = os.environ.get(SIZE_ENV)
    if env:
        size = parse_size(env)
        out.append(("larger-than-ram" if size > ram_bytes() else "evicted", size, True))
        return out
    out.append(("evicted", p["cold_size"], False))
    if p["larger_than_ram"]:
        size = (int(ram_bytes() * 1.25) // (1 << 30) + 1) * (1 << 30)
        out.append(("larger-than-ram", size, False))
    return out


def dd_version() -> str | None:
    exe = shutil.which("dd")
    if not exe:
        return None
    try:
        r = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=10)
        first = r.stdout.splitlines()[0] if r.returncode == 0 and r.stdout else ""
        return first if "coreutils" in first else None
    except (OSError, subprocess.TimeoutExpired):
        return None


def cells(preset: str, topo: Topology, jdks: list[Jdk]) -> list[Cell]:
    """One cell per regime x method x JDK (each fork = one JVM doing every pass), plus the dd cells."""
    check_preset(preset)
    p = PRESETS[preset]
    use = jdks if p["jdks"] is None else jdks[: p["jdks"]]
    why_evict = eviction_available()
    ddv = dd_version()
    out: list[Cell] = []
    for regime, size, asked in regimes(preset):
        sync = regime == "evicted"
        evict_mode = "ask" if regime == "evicted" else "none"
        unavailable = why_evict if regime == "evicted" else None
        if regime == "larger-than-ram" and not asked:
            try:
                check_space(scratch_base(), size)
            except MechsymError as e:
                unavailable = f"no room for a file larger than RAM: {e}"
        labels = {"regime": regime, "size_bytes": size}
        for jdk in use:
            for variant in p["methods"] + (["buffered-stream-biased"] if regime == "page-cache" else []):
                method = "buffered-stream" if variant == "buffered-stream-biased" else variant
                params = {"method": method, "size": size, "passes": p["passes"], "warmup-passes": WARMUP_PASSES,
                          "sync": str(sync).lower(), "evict": evict_mode, "preallocate": "false"}
                if p["window"]:
                    params["window"] = p["window"]
                out.append(Cell(variant=variant, kernel=KERNEL, jdk=jdk, params=params, labels=labels, forks=p["forks"],
                                timeout=p["timeout"], unavailable=unavailable,
                                flags=BIASED if variant == "buffered-stream-biased" else ()))
        dd_cells = [("dd", True, True)] + ([("dd-cached", False, False)] if regime == "page-cache" else [])
        for name, dd_sync, dd_evict in dd_cells:
            un = unavailable or (None if ddv else "GNU dd (coreutils) not found")
            if dd_evict and why_evict:
                un = why_evict
            out.append(Cell(variant=name, kernel="dd", params={"method": name, "size": size, "passes": p["passes"],
                                                              "warmup-passes": WARMUP_PASSES,
                                                              "sync": str(dd_sync).lower(),
                                                              "evict": "ask" if dd_evict else "none"},
                            labels=labels, forks=p["forks"], timeout=p["timeout"], unavailable=un))
    return out


# ---------------------------------------------------------------- running

_DD_LINE = re.compile(r"^(\d+) bytes .*copied, ([\d.eE+-]+) s")


def _dd(args: list[str], timeout: float) -> tuple[int, float]:
    """Run dd; return (bytes, seconds) from its own summary line."""
    r = subprocess.run(["dd", *args], capture_output=True, text=True, timeout=timeout,
                       env={**os.environ, "LC_ALL": "C"})
    if r.returncode != 0:
        raise KernelError(f"dd {' '.join(args)}: {r.stderr.strip().splitlines()[-1] if r.stderr.strip() else r.returncode}",
                          "crashed", ["dd", *args], r.stderr)
    for line in r.stderr.splitlines():
        m = _DD_LINE.match(line.strip())
        if m:
            return int(m.group(1)), float(m.group(2))
    raise KernelError(f"dd: no summary line on stderr: {r.stderr.strip()[:200]}", "bad-output", ["dd", *args], r.stderr)


def run_dd(cell: Cell, path: Path, commands: list[str], source: Path) -> pd.DataFrame:
    """dd's passes over the same file, with the same regime rules; rows in the kernel's format.

    Writes copy `source` (the kernel's pattern, a file of the same size kept in the page cache), not /dev/zero."""
    size = int(cell.params["size"])
    sync = cell.params["sync"] == "true"
    evict_mode = cell.params["evict"] == "ask"
    rows = []
    for n in range(int(cell.params["passes"])):
        warm = n < int(cell.params["warmup-passes"])
        for phase in ("write", "read"):
            if evict_mode:
                rows.append((n, warm, "evict_resident", evict(path), "fraction", phase))
            if phase == "write":
                args = [f"if={source}", f"of={path}", "bs=1M", "conv=notrunc" + (",fdatasync" if sync else "")]
            else:
                args = [f"if={path}", "of=/dev/null", "bs=1M"]
            commands.append("LC_ALL=C dd " + " ".join(args))
            nbytes, secs = _dd(args, cell.timeout)
            if nbytes != size:
                raise KernelError(f"dd {phase} pass {n}: copied {nbytes} bytes, the file has {size}", "check-failed",
                                  ["dd", *args])
            rows.append((n, warm, f"{phase}_duration", round(secs * 1e9), "ns", phase))
            rows.append((n, warm, f"{phase}_throughput", nbytes / secs / MB, "MB/s", phase))
    df = pd.DataFrame(rows, columns=["iteration", "warmup", "metric", "value", "unit", "phase"])
    df.insert(0, "method", cell.variant)
    return df


def run_java(cell: Cell, path: Path, commands: list[str]) -> pd.DataFrame:
    """One JVM doing every pass; answers its eviction requests (see module doc). KernelError when it fails."""
    launch = java_command(cell.jdk, cell.kernel, {**cell.params, "file": str(path)}, cell.flags, cell.cpus)
    commands.append(launch.command_line)
    cmd = launch.command
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.append(proc.stdout.read()), daemon=True)
    reader.start()
    timer = threading.Timer(cell.timeout, lambda: _killpg(proc))
    timer.start()
    err_lines: list[str] = []
    resident: list[tuple] = []
    try:
        for line in proc.stderr:
            m = re.match(r"seqio: evict before (\w+) pass (\d+)", line)
            if m:
                left = evict(path)
                n = int(m.group(2))
                resident.append((n, n < WARMUP_PASSES, "evict_resident", left, "fraction", m.group(1)))
                proc.stdin.write("ok\n")
                proc.stdin.flush()
            else:
                err_lines.append(line)
        proc.wait()
        reader.join()
    except BaseException:
        _killpg(proc)
        proc.wait()
        raise
    finally:
        timer.cancel()
        with contextlib.suppress(OSError):
            proc.stdin.close()
    err = "".join(err_lines)
    last = next((ln.strip() for ln in reversed(err_lines) if ln.strip() and "warning:" not in ln.lower()),
                "(no message on stderr)")
    if proc.returncode == 2:
        raise KernelError(f"SequentialIo: {last}", "bad-argument", cmd, err)
    if proc.returncode == 3:
        raise KernelError(f"SequentialIo: {last}", "check-failed", cmd, err)
    if proc.returncode == -signal.SIGKILL:
        raise KernelError(f"SequentialIo: killed after its timeout of {cell.timeout:g} s", "timeout", cmd, err)
    if proc.returncode != 0:
        raise KernelError(f"SequentialIo exited with code {proc.returncode}: {last}", "crashed", cmd, err)
    df = parse_csv(out[0] if out else "", cmd, err)
    df["phase"] = df["metric"].str.split("_").str[0]
    if resident:
        r = pd.DataFrame(resident, columns=["iteration", "warmup", "metric", "value", "unit", "phase"])
        for c in ("method", "sync", "evict", "size_bytes"):
            r.insert(0, c, df[c].iloc[0])
        df = pd.concat([df, r[df.columns]], ignore_index=True)
    return df


def _killpg(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


def _columns(cell: Cell) -> dict:
    cols = cell.columns()
    if cell.kernel == "dd":
        cols.update(jdk="dd", jdk_version=dd_version() or "", flags="")
    return cols


def run(preset: str, jdks: list[Jdk] | None = None, progress: bool = True, dry_run: bool = False,
        store_results: bool = True, results_root: Path | None = None, lock: bool | None = None,
        **overrides) -> dict:
    """Run the sweep (regimes x methods x forks, and dd) and store it as sweep.execute does.

    overrides: those of sweep.plan (cpus, jvm_flags, timeout; threads is refused: one thread does the IO)."""
    from tqdm.auto import tqdm

    from .. import sweep
    from ..jdk import select

    check_preset(preset)
    topo = read_topology()
    jdks = jdks if jdks is not None else select(None)
    if not jdks:
        raise MechsymError("no JDK found: install a JDK 17 or set MECHSYM_JDKS")
    overrides = {k: v for k, v in overrides.items() if v not in (None, (), "")}
    plan = sweep.plan(sys.modules[__name__], preset, jdks, topo, **overrides)
    base = scratch_base()
    if dry_run:
        print(f"scratch directory: {base} (set {SCRATCH_ENV} to change)")
        for c in plan:
            where = f"{c.labels['regime']:16s} {c.labels['size_bytes'] / 1e6:>9,.0f} MB"
            if c.unavailable:
                print(f"{c.variant:20s} {where} SKIP {c.unavailable}")
            elif c.kernel == "dd":
                print(f"{c.variant:20s} {where} dd bs=1M sync={c.params['sync']} evict={c.params['evict']}")
            else:
                print(f"{c.variant:20s} {where} "
                      f"{java_command(c.jdk, c.kernel, {**c.params, 'file': str(base / 'seqio-PID' / 'seqio.dat')}).command_line}")
        return {}
    sizes = [int(c.labels["size_bytes"]) * (2 if c.kernel == "dd" else 1) for c in plan if not c.unavailable]
    check_space(base, max(sizes))  # the file, and dd's source file beside it

    meta = {
        **sweep.run_metadata(NAME, preset, topo, plan, overrides),
        "scratch": {"base": str(base), **_filesystem(base)},
        "regimes": {r: REGIMES[r] for r in dict.fromkeys(c.labels["regime"] for c in plan)},
        "dd": dd_version(),
        "eviction": "os.fdatasync + os.posix_fadvise(POSIX_FADV_DONTNEED) before every phase; residency by mincore(2)",
    }
    frames: list[pd.DataFrame] = []
    total = sum(c.forks for c in plan if not c.unavailable)
    lock = preset != "smoke" if lock is None else lock
    ctx = bench_lock() if lock else contextlib.nullcontext()
    try:
        with ctx, scratch_dir(base) as work, tqdm(total=total, desc=f"{NAME} [{preset}]", unit="fork",
                                                  disable=not progress, file=sys.stderr, dynamic_ncols=True) as bar:
            started = time.monotonic()  # after the bench lock, as sweep.execute: waiting is not this run's time
            path = work / "seqio.dat"
            source = work / "dd-source.dat"
            current = None
            for cell in plan:
                cols = _columns(cell)
                if cell.unavailable:
                    frames.append(sweep.unavailable_rows(NAME, cols, cell.unavailable, meta))
                    continue
                size = int(cell.labels["size_bytes"])
                if current != size:
                    path.unlink(missing_ok=True)
                    bar.set_postfix_str(f"pre-allocating {size / 1e6:,.0f} MB", refresh=True)
                    preallocate(path, size)
                    source.unlink(missing_ok=True)
                    current = size
                if cell.kernel == "dd" and not source.exists():
                    bar.set_postfix_str(f"writing dd's {size / 1e6:,.0f} MB source file", refresh=True)
                    write_pattern(source, size)
                for fork in range(cell.forks):
                    bar.set_postfix_str(f"{cell.labels['regime']} {cell.variant} fork {fork + 1}/{cell.forks}",
                                        refresh=True)
                    try:
                        df = run_dd(cell, path, meta["commands"], source) if cell.kernel == "dd" \
                            else run_java(cell, path, meta["commands"])
                    except KernelError as e:
                        sweep.record_failure(meta, cols, fork, e, bar, f"{cell.labels['regime']} {cell.variant}")
                        continue
                    df = df.drop(columns=[c for c in ("method", "sync", "evict", "size_bytes") if c in df])
                    taskset = "taskset" if cell.cpus and cell.kernel != "dd" and taskset_available() else "none"
                    frames.append(sweep.tag_rows(df, NAME, cols, fork, taskset))
                    bar.update(1)
        meta["status"] = "complete"
    except KeyboardInterrupt:
        sweep.save_interrupted(NAME, frames, meta, store_results, results_root, note="; scratch file removed")
        raise
    return sweep.finish(NAME, frames, meta, started, store_results, results_root)


def _filesystem(path: Path) -> dict:
    probe = path if path.exists() else path.parent
    info: dict = {}
    try:
        r = subprocess.run(["df", "-PT", str(probe)], capture_output=True, text=True, timeout=10)
        parts = r.stdout.splitlines()[-1].split()
        info.update(device=parts[0], fstype=parts[1], mount=parts[-1])
        dev = Path(parts[0]).name
        rot = Path(f"/sys/block/{re.sub(r'[0-9]+$', '', dev) if not dev.startswith('nvme') else dev}/queue/rotational")
        if rot.exists():
            info["rotational"] = rot.read_text().strip() == "1"
    except (OSError, IndexError, subprocess.TimeoutExpired):
        pass
    return info


def results(preset: str = "stored", machine: str | None = None, progress: bool = True) -> pd.DataFrame:
    """What the notebook renders: stored rows, or a fresh run of this module's own loop."""
    from .. import nb

    nb.check(preset, machine)
    if preset == "stored":
        return nb.results(NAME, "stored", machine)
    meta = run(preset, progress=progress)
    df = meta["frame"].copy()
    df.insert(0, "run_id", meta["run_id"])
    df["machine"] = meta["machine"]["machine_id"]
    return df


# ---------------------------------------------------------------- analysis

def throughput(df: pd.DataFrame, measured_only: bool = False) -> pd.DataFrame:
    """MB/s rows of runs that passed their checks, with a `direction` column (write/read) and pass = iteration + 1."""
    m = df[(df["status"] == "ok") & df["metric"].isin(["write_throughput", "read_throughput"])].copy()
    m["direction"] = m["metric"].str.split("_").str[0]
    m["warmup"] = m["warmup"].astype(str).str.lower().isin(["true", "1"])
    m["pass"] = m["iteration"].astype(int) + 1
    if measured_only:
        m = m[~m["warmup"]]
    return m


def reference() -> pd.DataFrame:
    from ..reference import load

    ref = load(REFERENCE).copy()
    ref["MB/s"] = ref["value"] / MB
    ref["pass"] = ref["iteration"].astype(int) + 1
    return ref


def reference_table(ref: pd.DataFrame) -> pd.DataFrame:
    """The post's two tables: MB/s per pass, method x (file, direction)."""
    t = ref.pivot_table(index=["file_size", "post_name"], columns=["direction", "pass"], values="MB/s", aggfunc="first")
    t = t.reindex(columns=["write", "read"], level=0)
    t = t.reindex(["400MB", "8GB"], level=0)
    order = [METHODS[m][1] for m in POST_METHODS]
    t = t.reindex(order, level=1)
    t.columns.names = ["MB/s", "pass"]
    return t.round(0)


def plot_reference(ref: pd.DataFrame):
    """The post's numbers in the same layout as this machine's plot: file x direction, pass vs MB/s."""
    fig, axes = plt.subplots(2, 2, figsize=(11, 7), sharex=True, squeeze=False)
    for i, size in enumerate(["400MB", "8GB"]):
        for j, direction in enumerate(["write", "read"]):
            ax = axes[i][j]
            for method in POST_METHODS:
                sub = ref[(ref["file_size"] == size) & (ref["direction"] == direction) & (ref["method"] == method)]
                ax.plot(sub["pass"], sub["MB/s"], "-o", color=COLORS[method], label=METHODS[method][1])
            ax.set_title(f"post, {size} file: {direction}")
            ax.set_ylim(bottom=0)
            ax.set_xticks(range(1, 6))
            if j == 0:
                ax.set_ylabel("MB/s")
            if i == 1:
                ax.set_xlabel("pass")
    axes[0][1].legend(fontsize=8)
    fig.suptitle("2011: Sandy Bridge 2.0GHz, 8GB RAM, Intel 320 SSD, ext4, JDK 1.6.0_30", fontsize=10)
    return fig


def ceilings(df: pd.DataFrame) -> pd.DataFrame:
    """Median MB/s of dd (measured passes) per regime and direction: `dd` and, where run, `dd-cached`."""
    m = throughput(df, measured_only=True)
    m = m[m["variant"].isin(list(DD))]
    return m.groupby(["regime", "variant", "direction"])["value"].median().unstack("variant")


def device_ceiling(df: pd.DataFrame) -> dict:
    """The device's own limit per direction: dd's median in the evicted regime (else larger-than-ram, else any)."""
    m = throughput(df, measured_only=True)
    m = m[m["variant"] == "dd"]
    for regime in ("evicted", "larger-than-ram", "page-cache"):
        sub = m[m["regime"] == regime]
        if len(sub):
            return {d: float(s["value"].median()) for d, s in sub.groupby("direction")} | {"regime": regime}
    return {}


def regime_order(df: pd.DataFrame) -> list[str]:
    have = set(df["regime"].dropna()) if "regime" in df else set()
    return [r for r in REGIMES if r in have]


def plot_passes(df: pd.DataFrame):
    """This machine: pass vs MB/s per method, one row per regime, write and read; dd drawn as horizontal lines."""
    m = throughput(df)
    regs = regime_order(m)
    ceiling = device_ceiling(df)
    fig, axes = plt.subplots(len(regs), 2, figsize=(15, 3.8 * len(regs)), squeeze=False)
    for i, regime in enumerate(regs):
        size = m[m["regime"] == regime]["size_bytes"].astype(float).max()
        for j, direction in enumerate(["write", "read"]):
            ax = axes[i][j]
            sub = m[(m["regime"] == regime) & (m["direction"] == direction)]
            java = sub[sub["variant"].isin(list(METHODS))]
            plots.points_and_median(ax, java, "pass", "value", "variant",
                                    order=[v for v in METHODS if v in set(java["variant"])], colors=COLORS)
            top = java["value"].max() if len(java) else 0
            d = sub[(sub["variant"] == "dd") & ~sub["warmup"]]
            if len(d):
                ax.axhline(d["value"].median(), color=COLORS["dd"], ls="--", lw=1.2,
                           label=f"dd, fdatasync writes / evicted reads: {d['value'].median():,.0f}")
                top = max(top, d["value"].median())
            elif direction in ceiling:
                ax.axhline(ceiling[direction], color="#444444", ls="-.", lw=1,
                           label=f"device ceiling (dd, {ceiling['regime']}): {ceiling[direction]:,.0f}")
                top = max(top, ceiling[direction])
            ax.set_ylim(0, top * 1.12 if top else None)
            d = sub[(sub["variant"] == "dd-cached") & ~sub["warmup"]]
            if len(d):  # usually far above everything else: a note, not a line that flattens the plot
                med = d["value"].median()
                if med > top * 1.12:
                    ax.plot([], [], " ", label=f"dd through the page cache: {med:,.0f} (off the scale)")
                else:
                    ax.axhline(med, color=COLORS["dd-cached"], ls=":", lw=1.2,
                               label=f"dd through the page cache: {med:,.0f}")
            ax.set_title(f"{regime}, {size / 1e6:,.0f} MB file: {direction}", fontsize=10)
            ax.set_xticks(sorted(m["pass"].unique()))
            ax.set_xlabel("pass (1 = first in a fresh JVM)")
            if j == 0:
                ax.set_ylabel("MB/s (dots = forks, line = median)")
            ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return fig


def summary(df: pd.DataFrame, ref: pd.DataFrame | None = None) -> pd.DataFrame:
    """Median MB/s over measured passes (2..5) per regime, direction and method, with spread,
    the fraction of the device ceiling (dd), and the post's median for the matching file."""
    m = throughput(df, measured_only=True)
    s = plots.median_spread(m, ["regime", "direction", "variant"])
    ceiling = device_ceiling(df)
    s["x device ceiling (dd)"] = [v / ceiling[d] if d in ceiling else np.nan for v, d in zip(s["median"], s["direction"])]
    if ref is not None:
        r = ref[ref["pass"] > WARMUP_PASSES].groupby(["regime", "direction", "method"])["MB/s"].median()
        s["post median MB/s"] = [r.get((POST_REGIME.get(g, g), d, v), np.nan)
                                 for g, d, v in zip(s["regime"], s["direction"], s["variant"])]
    s["regime"] = pd.Categorical(s["regime"], [r for r in REGIMES if r in set(s["regime"])])
    s["direction"] = pd.Categorical(s["direction"], ["write", "read"])
    s["variant"] = pd.Categorical(s["variant"], list(METHODS) + list(DD))
    s = s.sort_values(["regime", "direction", "variant"]).rename(columns={"variant": "method", "median": "median MB/s"})
    cols = ["regime", "direction", "method", "median MB/s", "min", "max", "n", "x device ceiling (dd)"]
    cols += ["post median MB/s"] if ref is not None else []
    out = s[cols].reset_index(drop=True)
    return out.round({"median MB/s": 0, "min": 0, "max": 0, "x device ceiling (dd)": 2, "post median MB/s": 0})


def residency(df: pd.DataFrame) -> pd.DataFrame:
    """How much of the file was still in the page cache right after each eviction (should be ~0)."""
    r = df[(df["status"] == "ok") & (df["metric"] == "evict_resident")]
    if r.empty:
        return pd.DataFrame()
    return r.groupby(["regime", "variant"])["value"].agg(["count", "max"]).rename(
        columns={"count": "evictions", "max": "largest fraction left resident"})


# ---------------------------------------------------------------- claims and verdicts

NB = "04-sequential-io"
CLAIMS = [
    Claim("seqio.raf-channel-read-fastest", POST, NB,
          "For reading, RandomAccessFile and NIO FileChannel do very well: they read fastest from the page cache.",
          "400MB file, passes 2-5: RandomAccessFile 1,422-1,495 MB/s, FileChannel 374-1,540 MB/s; "
          "MemoryMappedFile ~304-311, BufferedStreamFile 153-289",
          "page-cache regime, median MB/s over passes 2-5: random-access-file and channel-heap both above "
          "buffered-stream and mapped."),
    Claim("seqio.mapped-wins-writes", POST, NB,
          "Memory-mapped files win for writes in some cases.",
          "400MB file: MemoryMappedFile 301-328 MB/s vs RandomAccessFile 250-380, FileChannel 213-266, streams 83-113",
          "the mapped method has the highest median write MB/s of the post's four methods in at least one regime."),
    Claim("seqio.streams-lag", POST, NB,
          "Buffered streams lag behind the other means (never found useful for performance).",
          "400MB file: 83-113 MB/s writes, 153-289 MB/s reads, the slowest of the four",
          "page-cache regime: buffered-stream has the lowest median MB/s of the post's four methods, for writes and for reads."),
    Claim("seqio.cold-narrows-write", POST, NB,
          "When the file does not fit the page cache (8GB file), the differences between the methods narrow: writes.",
          "fastest/slowest median write (passes 2-5): 400MB 3.1x -> 8GB 1.6x",
          "fastest/slowest median write MB/s of the post's four methods, cold regime vs page-cache regime: holds if it "
          "shrinks by at least 20%."),
    Claim("seqio.cold-narrows-read", POST, NB,
          "When the file does not fit the page cache (8GB file), the differences between the methods narrow: reads.",
          "fastest/slowest median read (passes 2-5): 400MB 10.0x -> 8GB 1.7x",
          "fastest/slowest median read MB/s of the post's four methods, cold regime vs page-cache regime: holds if it "
          "shrinks by at least 20%."),
]
CLAIM = {c.id: c for c in CLAIMS}
NARROWER = 0.8  # "narrows": the cold regime's fastest/slowest ratio at most 80% of the page cache's


def _medians(df: pd.DataFrame) -> pd.Series:
    m = throughput(df, measured_only=True)
    m = m[m["variant"].isin(POST_METHODS)]
    return m.groupby(["regime", "direction", "variant"])["value"].median()


def spread_ratio(med: pd.Series, regime: str, direction: str) -> float | None:
    try:
        s = med.loc[(regime, direction)]
    except KeyError:
        return None
    s = s.reindex(POST_METHODS).dropna()
    return float(s.max() / s.min()) if len(s) == len(POST_METHODS) else None


def verdicts(df: pd.DataFrame) -> list[Verdict]:
    machine = ",".join(sorted(df["machine"].astype(str).unique())) if "machine" in df else ""
    med = _medians(df) if len(df) and "regime" in df else pd.Series(dtype=float)
    if med.empty:
        return [unmeasurable(c, "no measured results", machine) for c in CLAIMS]
    fmt = lambda v: f"{v:,.0f} MB/s"
    out: list[Verdict] = []
    colds = [r for r in ("evicted", "larger-than-ram") if r in med.index.get_level_values(0)]

    def get(regime, direction):
        try:
            return med.loc[(regime, direction)].reindex(POST_METHODS)
        except KeyError:
            return pd.Series(dtype=float)

    # 1. RAF and channel read fastest from the page cache
    c = CLAIM["seqio.raf-channel-read-fastest"]
    r = get("page-cache", "read")
    if r.notna().all() and len(r) == 4:
        holds = min(r["random-access-file"], r["channel-heap"]) > max(r["buffered-stream"], r["mapped"])
        out.append(judge(c, holds, "page cache reads: " + ", ".join(f"{k} {fmt(v)}" for k, v in r.items()),
                         then_value=1.422e3 / 304, now_value=min(r["random-access-file"], r["channel-heap"])
                         / max(r["buffered-stream"], r["mapped"]), machine=machine))
    else:
        out.append(unmeasurable(c, "page-cache reads of the four methods missing", machine))
    # 2. mapped wins writes in some regime
    c = CLAIM["seqio.mapped-wins-writes"]
    wins, bits, best_ratio = [], [], []
    for regime in med.index.get_level_values(0).unique():
        w = get(regime, "write")
        if w.notna().all() and len(w) == 4:
            others = w.drop("mapped").max()
            best_ratio.append(w["mapped"] / others)
            bits.append(f"{regime}: mapped {fmt(w['mapped'])} vs best other {fmt(others)} ({w.drop('mapped').idxmax()})")
            if w["mapped"] > others:
                wins.append(regime)
    if bits:
        out.append(judge(c, bool(wins), "; ".join(bits), then_value=327 / 256, now_value=max(best_ratio), machine=machine))
    else:
        out.append(unmeasurable(c, "writes of the four methods missing", machine))
    # 3. streams lag
    c = CLAIM["seqio.streams-lag"]
    w, r = get("page-cache", "write"), get("page-cache", "read")
    if w.notna().all() and r.notna().all() and len(w) == len(r) == 4:
        holds = w.idxmin() == "buffered-stream" and r.idxmin() == "buffered-stream"
        out.append(judge(c, holds, f"page cache: buffered-stream writes {fmt(w['buffered-stream'])} (slowest: {w.idxmin()}), "
                         f"reads {fmt(r['buffered-stream'])} (slowest: {r.idxmin()})",
                         then_value=153 / 1422, now_value=r["buffered-stream"] / r.max(), machine=machine))
    else:
        out.append(unmeasurable(c, "page-cache results of the four methods missing", machine))
    # 4, 5. the cold regime narrows the differences
    ref = reference()
    for direction in ("write", "read"):
        c = CLAIM[f"seqio.cold-narrows-{direction}"]
        hot = spread_ratio(med, "page-cache", direction)
        if hot is None or not colds:
            out.append(unmeasurable(c, "needs the page-cache and a cold regime", machine))
            continue
        rmed = ref[ref["pass"] > WARMUP_PASSES].groupby(["regime", "direction", "method"])["MB/s"].median()
        then_hot, then_cold = spread_ratio(rmed, "page-cache", direction), spread_ratio(rmed, "larger-than-ram", direction)
        for cold in colds:
            cr = spread_ratio(med, cold, direction)
            if cr is None:
                out.append(unmeasurable(c, f"{cold}: the four methods' {direction}s missing", machine))
                continue
            out.append(judge(c, cr <= NARROWER * hot, f"fastest/slowest {direction}: page cache {hot:.1f}x -> {cold} {cr:.1f}x",
                             then_value=then_cold / then_hot if then_hot else None, now_value=cr / hot, machine=machine))
    return out


# ---------------------------------------------------------------- notebook text

def run_info(df: pd.DataFrame) -> pd.DataFrame:
    """Where the file lived and how each regime was made, from the runs' metadata."""
    from .. import nb

    rows = []
    for m in nb.run_metadata(df, NAME):
        sc = m.get("scratch", {})
        sizes = df[df["run_id"] == m["run_id"]].groupby("regime")["size_bytes"].max() if "regime" in df else {}
        rows.append({
            "run": m["run_id"], "preset": m.get("preset"),
            "scratch directory": sc.get("base"), "file system": f"{sc.get('fstype', '?')} on {sc.get('device', '?')}"
            + (" (rotational)" if sc.get("rotational") else " (non-rotational)" if "rotational" in sc else ""),
            "RAM": f"{m.get('machine', {}).get('memory_bytes', 0) / 2**30:.0f} GiB",
            "dd": m.get("dd"), "eviction": m.get("eviction"),
            **{f"{r} file": f"{int(s) / 1e6:,.0f} MB" for r, s in dict(sizes).items()},
            "minutes": round(m.get("seconds", 0) / 60, 1) if m.get("seconds") else None,
        })
    if not rows:
        return pd.DataFrame()
    return pd.DataFrame(rows).T.rename(columns=lambda i: "" if len(rows) == 1 else i)


def regimes_table(df: pd.DataFrame) -> pd.DataFrame:
    """Which regime each number comes from, what was done to the page cache, and the post's counterpart."""
    have = regime_order(throughput(df)) or list(REGIMES)
    sizes = throughput(df).groupby("regime")["size_bytes"].max() if len(df) else {}
    post = {"page-cache": "400MB file", "evicted": "8GB file (8GB RAM)", "larger-than-ram": "8GB file (8GB RAM)"}
    return pd.DataFrame([{"regime": r, "file here": f"{int(sizes[r]) / 1e6:,.0f} MB" if r in sizes else "",
                          "what is done": REGIMES[r], "compare with the post's": post[r]} for r in have]).set_index("regime")


def findings(df: pd.DataFrame) -> str:
    """A few sentences with this run's numbers (Markdown)."""
    s = summary(df)
    if s.empty:
        return "No measured results."
    med = s.set_index(["regime", "direction", "method"])["median MB/s"]
    ceiling = device_ceiling(df)
    lines = []
    if ceiling:
        lines.append(f"- **Device ceiling** (dd, {ceiling['regime']} regime): writes with fdatasync "
                     f"{ceiling.get('write', float('nan')):,.0f} MB/s, reads after eviction "
                     f"{ceiling.get('read', float('nan')):,.0f} MB/s.")
    for regime in regime_order(throughput(df)):
        for direction in ("write", "read"):
            try:
                sub = med.loc[(regime, direction)]
            except KeyError:
                continue
            java = sub.reindex(list(METHODS)).dropna().sort_values(ascending=False)
            if java.empty:
                continue
            parts = ", ".join(f"{k} {v:,.0f}" for k, v in java.items())
            frac = ""
            if direction in ceiling:
                frac = (f" (best {java.iloc[0] / ceiling[direction]:.2f}x, worst {java.iloc[-1] / ceiling[direction]:.2f}x "
                        f"the device ceiling)")
            lines.append(f"- **{regime}, {direction}s** (median MB/s over the passes after the first): {parts}{frac}.")
    return "\n".join(lines)
