"""The scratch file and the page cache: how big the files are, how they are made and evicted.

Where they live, the room check and the run's own directory (seqio-<pid>-<hex>) are the shared mechsym.scratch.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import mmap
import os
import re
import time
from pathlib import Path

from ... import MechsymError, store
from ...scratch import (SCRATCH_ENV, check_apart, check_space, clean_stale, filesystem, margin,  # noqa: F401
                        remove_stale, scratch_base, scratch_dir)

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
