"""Scratch space for experiments that need files: where it lives, whether it has room, and a run directory that goes
away whatever happens.

Scratch lives in $MECHSYM_SCRATCH (default <repo>/scratch-io, the same file system as data/), in a subdirectory of
the run's own (<experiment>-<pid>-<hex>) that is removed at the end of a run whatever happens (the run loop turns
SIGTERM into the same KeyboardInterrupt as Ctrl-C); nothing is written anywhere else. The subdirectories of runs
whose process is gone (killed outright: SIGKILL, a power cut) are removed when the next run starts. A run refuses
to start, with one line, when $MECHSYM_SCRATCH is a file, is on a read-only file system, or has less free space
than its files plus a margin (or no free inodes). Used by seqio (its data files) and ipcqueue and pingbuffet (their
memory-mapped files). A file is made by writing it for real (preallocate) and dropped from the page cache by evict.
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
import subprocess
import sys
import time
from pathlib import Path

from .. import MechsymError, repo_root
from ..store import files as fsio, runs as store

SCRATCH_ENV = "MECHSYM_SCRATCH"


def scratch_base() -> Path:
    """$MECHSYM_SCRATCH, or <repo>/scratch-io (the same file system as data/)."""
    env = os.environ.get(SCRATCH_ENV)
    return Path(env).expanduser().resolve() if env else (repo_root() / "scratch-io").resolve()


def margin(size: int) -> int:
    return max(1 << 30, size // 10)


MIN_INODES = 8  # the run's directory, its data files and dd's sources


def check_apart(base: Path, results: Path) -> None:
    """Scratch files never go into the results store (a killed run would leave gigabytes among the runs)."""
    b, r = base.resolve(), results.resolve()
    if b == r or r in b.parents:
        raise MechsymError(f"{SCRATCH_ENV}={base}: inside the results directory {results}; set {SCRATCH_ENV} to a "
                           "directory outside it")


def check_space(base: Path, size: int) -> None:
    """One line and no run when the scratch directory cannot take `size` bytes of files: a file where it belongs,
    a read-only file system, too little room for them plus a margin, or no free inodes. The room is read as the
    store's check reads it (fsio.room); the words name $MECHSYM_SCRATCH and what to do about it."""
    probe = base if base.exists() else base.parent
    if not probe.exists():
        raise MechsymError(f"{SCRATCH_ENV}={base}: neither it nor its parent directory exists")
    if not probe.is_dir():
        raise MechsymError(f"{SCRATCH_ENV}={base}: {probe} is a file, not a directory; set {SCRATCH_ENV} to a "
                           "directory on a writable disk")
    try:
        read_only, free, inodes = fsio.room(probe)
    except OSError as e:
        raise MechsymError(f"{SCRATCH_ENV}={base}: cannot read its file system ({e.strerror or e})") from e
    if read_only:
        raise MechsymError(f"{SCRATCH_ENV}={base}: {probe} is on a read-only file system; set {SCRATCH_ENV} to a "
                           "directory on a writable disk")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise MechsymError(f"{SCRATCH_ENV}={base}: {probe} is not writable by this user; set {SCRATCH_ENV} to a "
                           "directory you can write")
    if inodes is not None and inodes < MIN_INODES:
        raise MechsymError(f"{SCRATCH_ENV}={base}: its file system has {inodes} free inodes, the scratch files "
                           f"need {MIN_INODES}; free some or set {SCRATCH_ENV} elsewhere")
    need = size + margin(size)
    if free < need:
        raise MechsymError(f"not enough free space in {probe}: {free / 1e9:.1f} GB free, the {size / 1e9:.2f} GB of "
                           f"scratch files need {need / 1e9:.1f} GB with the margin; free space or set {SCRATCH_ENV} "
                           f"elsewhere")


RUN_DIR = re.compile(r"^[a-z][a-z0-9]*-([0-9]+)-[0-9a-f]{6}$")


def clean_stale(base: Path) -> list[Path]:
    """Remove the run directories (<experiment>-<pid>-<hex>) of processes that are gone; returns what was removed."""
    removed = []
    try:
        entries = list(base.iterdir()) if base.is_dir() else []
    except OSError:
        return removed
    for d in entries:
        m = RUN_DIR.match(d.name)
        if not m or d.is_symlink() or not d.is_dir() or int(m.group(1)) == os.getpid():
            continue
        try:
            os.kill(int(m.group(1)), 0)
            continue  # that run is still going
        except ProcessLookupError:
            pass
        except (PermissionError, OverflowError, OSError):
            continue  # another user's live process, or a pid that cannot be asked about: left alone
        shutil.rmtree(d, ignore_errors=True)
        if not d.exists():
            removed.append(d)
    return removed


def remove_stale(base: Path) -> None:
    """clean_stale, saying what it removed (one line each)."""
    for d in clean_stale(base):
        print(f"mechsym: removed {d}: scratch of a run that was killed (process {d.name.split('-')[1]} is gone)",
              file=sys.stderr)


@contextlib.contextmanager
def scratch_dir(prefix: str, base: Path | None = None):
    """A fresh subdirectory of the scratch base (<prefix>-<pid>-<hex>), removed at the end whatever happens (the
    base too, when this created it and it is empty). Scratch left by runs whose process is gone is removed first
    (one line each)."""
    base = base or scratch_base()
    created_base = not base.exists()
    remove_stale(base)
    d = base / f"{prefix}-{os.getpid()}-{secrets.token_hex(3)}"
    try:
        base.mkdir(parents=True, exist_ok=True)
        d.mkdir()
    except OSError as e:
        if created_base:
            with contextlib.suppress(OSError):
                base.rmdir()
        raise MechsymError(f"{SCRATCH_ENV}={base}: cannot create the run's scratch directory {d.name} "
                           f"({e.strerror or e}); set {SCRATCH_ENV} to a writable directory") from e
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)
        if created_base:
            with contextlib.suppress(OSError):
                base.rmdir()  # only when empty


def filesystem(path: Path) -> dict:
    """Device, type, mount point and whether it is rotational, for the run's metadata."""
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


@contextlib.contextmanager
def session(prefix: str, size: int, meta: dict):
    """An experiment's run-wide hook (its `session`) for files under the scratch base: refuse to start, with one line,
    without room for `size` bytes; record the file system in the run's metadata; give the run its own directory and
    remove it whatever happens."""
    base = scratch_base()
    check_apart(base, store.results_root())
    check_space(base, size)
    meta["scratch"] = {"base": str(base), **filesystem(base)}
    with scratch_dir(prefix, base) as d:
        yield d


def dir_arg(prefix: str):
    """A cell's per-fork `args` hook giving the kernel --dir=<the run's scratch directory> (a placeholder in a dry
    run, which has no directory)."""
    def args(fork) -> dict:
        return {"dir": str(fork.workspace) if fork.workspace is not None
                else str(scratch_base() / f"{prefix}-PID-XXXXXX")}
    return args


def preallocate(path: Path, size: int) -> None:
    """Zero pages written for real and synced (as the post's preallocateTestFile), not fallocate's unwritten extents."""
    chunk = bytes(1 << 20)
    try:
        with open(path, "xb", buffering=0) as f:
            left = size
            while left > 0:
                left -= f.write(chunk[:min(left, len(chunk))])
            os.fsync(f.fileno())
    except BaseException:  # a full disk or Ctrl-C: no short file left for a later fork to take as the whole one
        path.unlink(missing_ok=True)
        raise


# ---------------------------------------------------------------- the page cache

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
