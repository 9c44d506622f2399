"""Presets, methods, regimes and cells of seqio, and the hooks it gives the lab's one run loop (mechsym.run.sweep).

Regimes (the `regime` column):
- page-cache: a 400MB file (the post's first size) that fits the page cache; nothing is synced or evicted.
- evicted: the post's second regime ("much larger" than the cache: 8GB on an 8GB machine) reproduced without
  filling the disk: before every timed phase the file is synced and its pages dropped from the page cache
  (posix_fadvise DONTNEED), so every read comes from the device, and every write phase ends with the data on the
  device (the kernel's --sync=true: fsync/force inside the timed region, as dd conv=fdatasync).
- larger-than-ram: opt-in (MECHSYM_SEQIO_SIZE larger than RAM, or the `full` preset when the disk has room): a
  real file larger than RAM, no eviction, no sync, exactly the post's setup.

How eviction stays outside the timed region: one JVM per method and regime runs all five passes (the JIT's
warm-up shows, as in the post); with --evict=ask it closes the file before every timed phase, prints
"seqio: evict before <phase> pass <n>" on stderr and waits for a line on stdin. The cell's `reply` hook evicts,
checks with mincore(2) how much of the file is still resident (stored as metric evict_resident, a fraction) and
answers. dd is a cell of its own (kernel "cmd:dd", run by `run_dd`) on the same file, in the same run.

Kernel protocols (the `protocol` column): `lab` cells run one method per JVM with the lab's kernel; a `post` cell
(variant "all") runs the post's four cases in one JVM, in the post's order, in the shape of its TestSequentialIoPerf
listing (the kernel's --protocol=post --method=all), as the post ran them; its rows name their case in `method`.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from ... import MechsymError
from ...run import scratch
from ...store import runs as store
from ...machine.cpus import Topology
from ...machine.jdk import Jdk
from ...run.launch import KernelError
from ...run.scratch import check_space, evict, eviction_available, scratch_base
from ...run.sweep import Cell, Fork, check_preset
from .meta import PRESETS

KERNEL = "mechsym.io.SequentialIo"
WARMUP_PASSES = 1
MB = 1e6  # MB/s = 10^6 bytes per second, as the post's bytes/sec divided by 10^6

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
KERNEL_METHODS = ["random-access-file", "buffered-stream", "channel-heap", "channel-direct", "mapped"]
ALL = "all"  # the post protocol's cell: the post's four cases in one JVM
BIASED = ("-XX:+UseBiasedLocking", "-XX:BiasedLockingStartupDelay=0")
DD = {
    "dd": "dd bs=1M: writes conv=fdatasync, reads after eviction (the device's own limit); "
          "writes copy a cached file of the kernel's data, not /dev/zero",
    "dd-cached": "dd bs=1M through the page cache: no sync, no eviction",
}
REGIMES = {
    "page-cache": "the file fits the page cache: no sync, no eviction (the post's 400MB file)",
    "evicted": "the file's pages are synced and evicted before every phase; writes end with fsync "
               "(stands for the post's 8GB file on an 8GB machine)",
    "larger-than-ram": "a real file larger than RAM, no sync, no eviction (the post's 8GB setup)",
}
POST_REGIME = {"page-cache": "page-cache", "evicted": "larger-than-ram", "larger-than-ram": "larger-than-ram"}


PAGE = 4096
SIZE_ENV = "MECHSYM_SEQIO_SIZE"     # the "does not fit" file's size, e.g. 30G; larger than RAM = a real file


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


def write_pattern(path: Path, size: int, seed: int = 1) -> None:
    """The kernel's data for one seed (byte i = (i & 0x7F) + salt(page, seed)): dd's source, so that dd writes the
    same kind of bytes as the Java methods (a virtual disk may write zeros much faster than data)."""
    pages = [bytes(((k & 0x7F) + s) & 0xFF for k in range(PAGE)) for s in range(256)]
    mask = (1 << 64) - 1
    a, b = 0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F
    total = size // PAGE
    try:
        with open(path, "xb", buffering=0) as f:
            for start in range(0, total, 256):
                f.write(b"".join(pages[(((p + 1) * a + seed * b) & mask) >> 56]
                                 for p in range(start, min(total, start + 256))))
    except BaseException:  # a full disk or Ctrl-C: no short file left behind
        path.unlink(missing_ok=True)
        raise


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
        evicted = regime == "evicted"
        unavailable = why_evict if evicted else None
        if regime == "larger-than-ram" and not asked:
            try:
                check_space(scratch_base(), size)
            except MechsymError as e:
                unavailable = f"no room for a file larger than RAM: {e}"
        labels = {"regime": regime, "size_bytes": size}
        hooks = dict(prepare=prepare, args=file_arg, reply=reply_evicted if evicted else None)
        for jdk in use:
            for variant in p["methods"] + (["buffered-stream-biased"] if regime == "page-cache" else []):
                method = "buffered-stream" if variant == "buffered-stream-biased" else variant
                out.append(Cell(variant=variant, kernel=KERNEL, jdk=jdk, params=_params(p, "lab", method, size, evicted),
                                labels=labels, forks=p["forks"], timeout=p["timeout"], unavailable=unavailable,
                                flags=BIASED if variant == "buffered-stream-biased" else (), **hooks))
            out.append(Cell(variant=ALL, kernel=KERNEL, jdk=jdk, params=_params(p, "post", ALL, size, evicted),
                            labels=labels, forks=p["forks"], timeout=p["timeout"] * 2, unavailable=unavailable, **hooks))
        for name, dd_sync in [("dd", True)] + ([("dd-cached", False)] if regime == "page-cache" else []):
            un = unavailable or (None if ddv else "GNU dd (coreutils) not found")
            if dd_sync and why_evict:
                un = why_evict
            out.append(Cell(variant=name, kernel="cmd:dd", params={
                "method": name, "size": size, "passes": p["passes"], "warmup-passes": WARMUP_PASSES,
                "sync": str(dd_sync).lower(), "evict": "ask" if dd_sync else "none"},
                labels={**labels, "jdk_version": ddv or ""}, forks=p["forks"], timeout=p["timeout"],
                unavailable=un, prepare=prepare, runner=run_dd))
    return out


def _params(p: dict, protocol: str, method: str, size: int, evicted: bool) -> dict:
    params = {"protocol": protocol, "method": method, "size": size, "passes": p["passes"],
              "warmup-passes": WARMUP_PASSES, "sync": str(evicted).lower(), "evict": "ask" if evicted else "none",
              "preallocate": "false"}
    return params | ({"window": p["window"]} if p["window"] else {})


# ---------------------------------------------------------------- the hooks

@dataclass(frozen=True)
class Workspace:
    """The run's scratch directory: one file per size (written once, reused by every cell of that size) and,
    for dd, one source file per size holding the kernel's data."""
    dir: Path

    def file(self, size: int) -> Path:
        return self.dir / f"seqio-{size}.dat"

    def source(self, size: int) -> Path:
        return self.dir / f"dd-source-{size}.dat"


@contextlib.contextmanager
def session(cells: list[Cell], meta: dict):
    """The run-wide hook: refuse to start without room, make the scratch directory, remove it whatever happens."""
    base = scratch_base()
    scratch.check_apart(base, store.results_root())
    scratch.remove_stale(base)  # scratch of killed runs first: its room counts
    sizes = {int(c.labels["size_bytes"]) for c in cells}
    dd_sizes = {int(c.labels["size_bytes"]) for c in cells if c.runner}
    check_space(base, sum(sizes) + sum(dd_sizes))
    meta.update({
        "scratch": {"base": str(base), **scratch.filesystem(base)},
        "regimes": {r: REGIMES[r] for r in dict.fromkeys(c.labels["regime"] for c in cells)},
        "dd": dd_version(),
        "eviction": "os.fdatasync + os.posix_fadvise(POSIX_FADV_DONTNEED) before every phase; residency by mincore(2)",
    })
    with scratch.scratch_dir("seqio", base) as d:
        yield Workspace(d)


def _size(fork: Fork) -> int:
    return int(fork.cell.labels["size_bytes"])


def prepare(fork: Fork) -> None:
    """Before a fork, untimed: the pre-allocated file of the cell's size (and dd's source file) exist."""
    ws, size = fork.workspace, _size(fork)
    if not ws.file(size).exists():
        scratch.preallocate(ws.file(size), size)
    if fork.cell.runner and not ws.source(size).exists():
        write_pattern(ws.source(size), size)


def file_arg(fork: Fork) -> dict:
    """The kernel's --file: in the run's scratch directory (a placeholder in a dry run)."""
    size = _size(fork)
    if fork.workspace is None:
        return {"file": str(scratch_base() / "seqio-PID-XXXXXX" / f"seqio-{size}.dat")}
    return {"file": str(fork.workspace.file(size))}


_REQUEST = re.compile(r"seqio: evict before (\w+) pass (\d+)")


def reply_evicted(fork: Fork, line: str) -> str | None:
    """The handshake: on the kernel's request, evict the file's pages, record how much stayed resident, answer."""
    m = _REQUEST.match(line)
    if not m:
        return None
    n = int(m.group(2))
    fork.rows.append({"iteration": n, "warmup": n < WARMUP_PASSES, "metric": "evict_resident",
                      "value": evict(fork.workspace.file(_size(fork))), "unit": "fraction", "phase": m.group(1)})
    return "ok"


_DD_LINE = re.compile(r"^(\d+) bytes .*copied, ([\d.eE+-]+) s")


def dd(args: list[str], timeout: float) -> tuple[int, float]:
    """Run dd; return (bytes, seconds) from its own summary line. KernelError when it fails."""
    cmd = ["dd", *args]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env={**os.environ, "LC_ALL": "C"})
    except subprocess.TimeoutExpired as e:
        raise KernelError(f"dd: killed after its timeout of {timeout:g} s", "timeout", cmd) from e
    if r.returncode != 0:
        last = r.stderr.strip().splitlines()[-1] if r.stderr.strip() else f"exit code {r.returncode}"
        raise KernelError(f"dd {' '.join(args)}: {last}", "crashed", cmd, r.stderr)
    for line in r.stderr.splitlines():
        m = _DD_LINE.match(line.strip())
        if m:
            return int(m.group(1)), float(m.group(2))
    raise KernelError(f"dd: no summary line on stderr: {r.stderr.strip()[:200]}", "bad-output", cmd, r.stderr)


def run_dd(fork: Fork) -> pd.DataFrame:
    """dd's passes over the run's file, with the cell's regime rules; rows in the kernel's format.

    Writes copy the source file (the kernel's pattern, kept in the page cache), not /dev/zero."""
    cell, ws, size = fork.cell, fork.workspace, _size(fork)
    path, sync, evicting = ws.file(size), cell.params["sync"] == "true", cell.params["evict"] == "ask"
    rows = []
    for n in range(int(cell.params["passes"])):
        warm = n < int(cell.params["warmup-passes"])
        for phase in ("write", "read"):
            if evicting:
                rows.append((n, warm, "evict_resident", evict(path), "fraction", phase))
            if phase == "write":
                args = [f"if={ws.source(size)}", f"of={path}", "bs=1M", "conv=notrunc" + (",fdatasync" if sync else "")]
            else:
                args = [f"if={path}", "of=/dev/null", "bs=1M"]
            fork.commands.append("LC_ALL=C dd " + " ".join(args))
            nbytes, secs = dd(args, cell.timeout)
            if nbytes != size:
                raise KernelError(f"dd {phase} pass {n}: copied {nbytes} bytes, the file has {size}", "check-failed",
                                  ["dd", *args])
            rows.append((n, warm, f"{phase}_duration", round(secs * 1e9), "ns", phase))
            rows.append((n, warm, f"{phase}_throughput", nbytes / secs / MB, "MB/s", phase))
    return pd.DataFrame(rows, columns=["iteration", "warmup", "metric", "value", "unit", "phase"])
