"""Files written so that a crash leaves either the whole file or nothing, and the free room of a file system.

A file is written to a temporary name in its own directory, fsynced and renamed into place. Before a sweep or an
import writes anything, check_space refuses, with one line, a read-only file system or one without room; the
scratch space (scratch.py) reads its room through the same room().
"""

from __future__ import annotations

import contextlib
import fcntl
import math
import os
from pathlib import Path

from .. import MechsymError

MIN_FREE_INODES = 16


def remove(path: Path) -> None:
    """Remove a file if it is there; quietly not when it cannot be (on a read-only file system even unlinking a file
    that is not there fails with EROFS, which must not hide the error being reported)."""
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass


def write_synced(path: Path, data: bytes) -> None:
    """Write and fsync a new file; on any failure the file is removed again."""
    try:
        with open(path, "xb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        remove(path)
        raise


def atomic_write(path: Path, data: bytes | str) -> None:
    """`data` in `path`, whole or not at all: written under a temporary name beside it and renamed into place."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    remove(tmp)  # left by a killed process that had this pid
    try:
        write_synced(tmp, data)
        os.replace(tmp, path)
    finally:
        remove(tmp)


def room(path: Path) -> tuple[bool, int, int | None]:
    """(read-only?, bytes free to this user, free inodes or None when the file system does not count them) of the
    file system holding `path`; OSError when it cannot be read."""
    st = os.statvfs(path)
    return bool(getattr(st, "f_flag", 0) & os.ST_RDONLY), st.f_bavail * st.f_frsize, (st.f_favail if st.f_files else None)


def check_space(path: Path, need_bytes: int, what: str) -> None:
    """A one-line MechsymError when the filesystem of `path` has less than need_bytes (or almost no inodes) free."""
    try:
        read_only, free, inodes = room(path)
    except OSError as e:
        raise MechsymError(f"{what}: cannot read its free space ({e.strerror or e})") from e
    if read_only:  # said so, not "no room"
        raise MechsymError(f"{what}: is on a read-only file system")
    if free < need_bytes:
        raise MechsymError(f"{what}: {free / 2**20:.0f} MiB free on its filesystem, needs at least "
                           f"{math.ceil(need_bytes / 2**20)} MiB; free some space first")
    if inodes is not None and inodes < MIN_FREE_INODES:
        raise MechsymError(f"{what}: its filesystem has no free inodes ({inodes}); free some first")


LOCK = ".import.lock"   # <results root>/.import.lock: held by the one import writing into that store


@contextlib.contextmanager
def store_lock(root: Path, what: str, waiting=None):
    """One writer at a time into `root` (an exclusive flock on <root>/.import.lock, released by the kernel when its
    holder dies, even by kill -9). Two imports deciding at once which runs are new, then placing them, can each take
    the other's half-placed run for their own and roll it back: under this lock the decision and the placement are
    one step. `waiting(line)` is called once when another holder makes this one wait. The file is removed on release
    (the holder checks, after locking, that the name still holds its file: a waiter on a removed file retries), so a
    store is byte-identical before and after. A store where the file cannot be made (read-only, not ours) is not
    locked: nothing can be written there either, and the writer's own checks say so in one line."""
    path = root / LOCK
    while True:
        try:
            fd = os.open(path, os.O_CREAT | os.O_RDWR | os.O_NOFOLLOW, 0o644)
        except OSError:
            yield None
            return
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if waiting is not None:
                    waiting(f"{what}: another import into {root} is running; waiting for it to end")
                    waiting = None
                fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                same = os.path.samestat(os.fstat(fd), os.stat(path, follow_symlinks=False))
            except FileNotFoundError:
                same = False
            if not same:
                continue  # the last holder removed the file while this one waited on it: lock the new one
            try:
                yield fd
            finally:
                remove(path)
            return
        finally:
            os.close(fd)


def replace_whole(path: Path, data: bytes | str, what: str) -> None:
    """`data` in `path` whole or not at all, after a space check; a one-line MechsymError naming `what` and the path
    when it cannot be written (a full disk, a read-only folder), whatever was there before kept as it was."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    try:
        check_space(path.parent, len(data) + 2**20, f"{what} {path}")
        atomic_write(path, data)
    except OSError as e:
        raise MechsymError(f"{what} {path}: cannot be written ({e.strerror or e}); the old one is kept") from e
    except MechsymError as e:
        raise MechsymError(f"{e}; the old one is kept") from e
