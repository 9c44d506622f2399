"""The registry of concurrent runs: a folder beside the bench lock where every measuring run holds a locked
marker (<token>.active) and, when it ends, logs its interval. A run that measured at the same time as another
(smoke runs take no lock) learns so from the markers held while it measures and from the log of runs that ended
meanwhile; a marker nobody holds is a run that died without unregistering, and is removed.
"""

from __future__ import annotations

import fcntl
import json
import os
import weakref
from datetime import datetime, timezone
from pathlib import Path

LOG_KEEP_S = 2 * 86400


def default_registry() -> Path:
    lock = Path(os.environ.get("MECHSYM_BENCH_LOCK", "/tmp/mechsym-bench.lock"))
    return lock.with_name(lock.name + ".runs")


def iso(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


class Registry:
    """One run's place in the registry folder: its marker while it measures, the other runs it overlapped
    (token -> pid, start, end), and notes on what could not be registered or logged."""

    def __init__(self, folder: Path, token: str, self_pid: int):
        self.registry, self.token, self.self_pid = folder, token, self_pid
        self.start_wall = 0.0
        self.overlaps: dict[str, dict] = {}
        self.notes: list[str] = []
        self._fd = None

    def register(self, start_wall: float) -> None:
        """This run measures from now (start_wall: its wall-clock start)."""
        self.start_wall = start_wall
        self._register()

    def scan(self) -> None:
        """Record the other runs measuring now."""
        self._scan_active()

    def unregister(self, start_wall: float, end_wall: float) -> None:
        """This run measured from start_wall to end_wall: log it, note the runs that overlapped it, drop the marker."""
        self.start_wall = start_wall
        self._unregister(end_wall)

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
            held = _held(path)
            if held:
                info = self._info(path)
                self.overlaps[path.stem] = {"pid": info.get("pid"), "start": iso(info["start"]) if "start" in info else None,
                                            "end": None}
            elif held is False:
                path.unlink(missing_ok=True)  # its run died without unregistering (a token is never used again)

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
                        self.overlaps[token] = {"pid": pid, "start": iso(start), "end": iso(end)}
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
            if path.stem != self.token and _held(path):
                return True
        return False

    def _note(self, text: str) -> None:
        self.notes.append(text)


def _held(marker: Path) -> bool | None:
    """Whether a run holds `marker` now (its flock), or None when the marker is gone (its run ended meanwhile)."""
    try:
        fd = os.open(marker, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def _release(fd: int, marker: Path) -> None:
    try:
        marker.unlink(missing_ok=True)
    except OSError:
        pass
    try:
        os.close(fd)
    except OSError:
        pass
