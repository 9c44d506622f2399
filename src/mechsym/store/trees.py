"""The trees a fingerprint reads: the checkout as it is on disk (`WorkTree`, dirty or not) or one commit read from
git's object store (`CommitTree`, no checkout). The lesson: a run stored before fingerprints existed names a commit,
and the commit alone rebuilds what it ran, so both kinds of tree answer the same two questions (which files are
under a folder, what one file holds) and the fingerprint never knows which it reads.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


class ProvenanceError(Exception):
    """A fingerprint that cannot be derived (the message says why, in one line)."""


def repo_root() -> Path:
    """The checkout whose kernels runs are compared with: this repository, or $MECHSYM_CODE_ROOT (a copy of its
    java-src, jmh-src, c-src, pom.xml, Makefile and src/mechsym, e.g. to ask whether runs are current for another
    tree)."""
    other = os.environ.get("MECHSYM_CODE_ROOT")
    return Path(other) if other else Path(__file__).resolve().parents[3]


# ---------------------------------------------------------------- trees: the checkout, or a commit

class WorkTree:
    """Files of the checkout as they are on disk (dirty or not)."""

    def __init__(self, root: Path | str | None = None):
        self.root = Path(root or repo_root())

    def files(self, folder: str) -> list[str]:
        base = self.root / folder
        if not base.is_dir():
            return []
        return sorted(p.relative_to(self.root).as_posix() for p in base.rglob("*") if p.is_file())

    def read(self, path: str) -> bytes | None:
        try:
            return (self.root / path).read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def key(self) -> str:
        return f"work:{self.root}"


class CommitTree:
    """Files of one commit, read from git's object store (no checkout)."""

    def __init__(self, commit: str, root: Path | str | None = None):
        self.root = Path(root or repo_root())
        self.commit = commit
        r = _git(self.root, "ls-tree", "-r", "--name-only", commit)
        if r is None:
            raise ProvenanceError(f"commit {commit[:12]} is not in this repository's history")
        self._names = r.decode().splitlines()
        self._cache: dict[str, bytes | None] = {}

    def files(self, folder: str) -> list[str]:
        prefix = folder.rstrip("/") + "/"
        return sorted(n for n in self._names if n.startswith(prefix))

    def read(self, path: str) -> bytes | None:
        if not self._cache:
            self._prefetch()
        if path not in self._cache:
            self._cache[path] = _git(self.root, "show", f"{self.commit}:{path}") if path in self._names else None
        return self._cache[path]

    def _prefetch(self) -> None:
        """Every file a fingerprint can read, in one `git cat-file --batch` (one process, not one a file)."""
        wanted = [n for n in self._names if n in ("pom.xml", "Makefile")
                  or n.startswith(("java-src/", "jmh-src/", "c-src/")) or (n.startswith("src/mechsym/") and n.endswith(".py"))]
        try:
            r = subprocess.run(["git", "-C", str(self.root), "cat-file", "--batch"],
                               input="".join(f"{self.commit}:{n}\n" for n in wanted).encode(),
                               capture_output=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            return
        out, pos = r.stdout, 0
        for name in wanted:
            end = out.find(b"\n", pos)
            if end < 0:
                return
            header = out[pos:end].split()
            if len(header) != 3 or header[1] != b"blob":
                pos = end + 1
                continue
            size = int(header[2])
            self._cache[name] = out[end + 1:end + 1 + size]
            pos = end + 1 + size + 1

    def key(self) -> str:
        return f"commit:{self.commit}"


def _git(root: Path, *args: str) -> bytes | None:
    try:
        r = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout if r.returncode == 0 else None
