"""Which code made a stored run: the git state (with the diff of a dirty tree), the built artefacts' hashes, and
its experiment's kernel fingerprint (mechsym.store.fingerprint); and whether a stored run is current, stale or unknown.

A run is compared within its protocol family (`family`: the lab's kernels, or JMH's benchmarks): one whose
fingerprint (recorded, or derived from the clean commit it names) is the checkout's is **current**; one
whose fingerprint differs is **stale**: it was measured with other kernels; one whose code cannot be traced (a dirty
commit stored without its diff, a commit not in this history) is **unknown**. Pages show the newest current run
and mark any other under a banner; only current runs of the same fingerprint vote as replications.
"""

from __future__ import annotations

import functools
import hashlib
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .fingerprint import (
    FAMILIES, JMH, LAB, VERSION, CommitTree, Inputs, ProvenanceError, WorkTree, _git, commit_fingerprint, fingerprint,
    inputs, java_tokens, python_tokens, repo_root)

STALE, CURRENT, UNKNOWN = "stale", "current", "unknown"
#: What the git state looks at: what a kernel fingerprint is made of (the kernels, the JMH benchmarks, pom.xml, the
#: experiments) and the shared code that builds and runs them. Notebooks, docs, tests and stored results are not code
#: that makes a number: a notebook saved in JupyterLab, or the runs a refresh has just stored, never refuse a run.
CODE = ("java-src", "jmh-src", "c-src", "pom.xml", "src", "Makefile", "pyproject.toml", "requirements.lock")


# ---------------------------------------------------------------- the git state and the built artefacts

@dataclass
class GitState:
    commit: str          # 40 hex digits, or "unknown" outside a git checkout
    clean: bool
    diff: bytes          # the tracked changes against HEAD and the untracked files, as one patch (empty when clean)

    @property
    def diff_sha256(self) -> str | None:
        return hashlib.sha256(self.diff).hexdigest() if self.diff else None

    def dirty_files(self) -> list[str]:
        return sorted({m.group(1).decode() for m in re.finditer(rb"^diff --git a/(\S+) ", self.diff, re.M)})


def git_state(root: Path | str | None = None) -> GitState:
    """The checkout's commit, whether its code (CODE) is clean, and (when not) the diff that rebuilds it from the
    commit.

    Untracked files that git does not ignore count as changes (a new kernel source is code): they are in the diff as
    new files. Only CODE is looked at: the results store is output (the runs a refresh has just stored do not make
    the next experiment's tree dirty), and a notebook, a page or a test decides no number."""
    root = Path(root or repo_root())
    head = _git(root, "rev-parse", "HEAD")
    if head is None:
        return GitState("unknown", False, b"")
    commit = head.decode().strip()
    diff = _git(root, "diff", "--binary", "HEAD", "--", *CODE) or b""
    untracked = (_git(root, "ls-files", "--others", "--exclude-standard", "-z", "--", *CODE)
                 or b"").split(b"\0")
    for name in filter(None, untracked):
        try:
            r = subprocess.run(["git", "-C", str(root), "diff", "--binary", "--no-index", "/dev/null", name.decode()],
                               capture_output=True, timeout=60)
            diff += r.stdout
        except (OSError, subprocess.TimeoutExpired):
            diff += b"untracked file (unreadable): " + name + b"\n"
    return GitState(commit, not diff, diff)


def sha256_file(path: Path) -> str | None:
    try:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        return h.hexdigest()
    except OSError:
        return None


def artefacts(root: Path | str | None = None) -> dict:
    """sha256 of the kernels' jar and of every C binary (absent ones are left out)."""
    root = Path(root or repo_root())
    out = {}
    jar = sha256_file(root / "build" / "mechsym.jar")
    if jar:
        out["build/mechsym.jar"] = jar
    cdir = root / "build" / "c"
    if cdir.is_dir():
        for p in sorted(cdir.iterdir()):
            if p.is_file():
                out[f"build/c/{p.name}"] = sha256_file(p)
    return out


def family(meta: dict) -> str:
    """The protocol family of a stored run: JMH for a `--protocol jmh` run (recorded in its overrides), else LAB."""
    return JMH if (meta.get("overrides") or {}).get("protocol") == JMH else LAB


def record(experiment: str, state: GitState, allow_dirty: bool = False, root: Path | str | None = None,
           protocol_family: str = LAB) -> dict:
    """The provenance block of a new run's metadata (its diff is stored beside the run by the store)."""
    return {"version": VERSION, "commit": state.commit, "clean": state.clean,
            "diff_sha256": state.diff_sha256, "allow_dirty": bool(allow_dirty and not state.clean),
            "artefacts": artefacts(root), "family": protocol_family,
            **_fingerprint_or_why(experiment, root, protocol_family)}


def _fingerprint_or_why(experiment: str, root, protocol_family: str) -> dict:
    """{"fingerprint": ...}, or {"fingerprint": None, "fingerprint_error": why} for an experiment this checkout
    cannot fingerprint (a module made up by a test, say): such a run is never current."""
    try:
        return {"fingerprint": fingerprint(experiment, WorkTree(root), protocol_family)}
    except ProvenanceError as e:
        return {"fingerprint": None, "fingerprint_error": str(e)}


# ---------------------------------------------------------------- stale or current

def run_fingerprint(meta: dict, root: Path | str | None = None) -> tuple[str | None, str]:
    """(fingerprint, how it was known) of a stored run: recorded, derived from its clean commit, or None with why."""
    prov = meta.get("provenance") or {}
    experiment = str(meta.get("experiment", ""))
    fam = family(meta)
    if prov.get("fingerprint") and prov.get("version") == VERSION:
        return str(prov["fingerprint"]), "recorded"
    commit = str(prov.get("commit") or meta.get("git_commit") or "")
    if prov.get("fingerprint") and (prov.get("clean") is False or not re.fullmatch(r"[0-9a-f]{40}", commit)):
        return None, f"fingerprint of another version ({prov.get('version')}) and no clean commit to derive it from"
    if not re.fullmatch(r"[0-9a-f]{40}", commit):
        why = "made from a dirty tree" if commit.endswith("-dirty") else "no commit recorded"
        return None, f"{why}: {commit[:12] or 'none'}"
    how = "derived from its commit" + (f" (recorded under fingerprint v{prov.get('version')})"
                                        if prov.get("fingerprint") else "")
    try:
        return _derived(experiment, commit, root, fam), how
    except ProvenanceError as e:
        return None, str(e)


def _derived(experiment: str, commit: str, root, fam: str = LAB) -> str:
    """commit_fingerprint, kept on disk (build/cache/fingerprints.json): a commit never changes, so its fingerprint
    under this normalisation (VERSION) is computed once per checkout, not once per process."""
    import json

    from .files import atomic_write

    path = Path(root or repo_root()) / "build" / "cache" / "fingerprints.json"
    key = f"v{VERSION}:{commit}:{experiment}:{fam}"
    try:
        known = json.loads(path.read_text())
        if isinstance(known, dict) and isinstance(known.get(key), str):
            return known[key]
    except (OSError, ValueError):
        known = {}
    value = commit_fingerprint(experiment, commit, root, fam)
    if not isinstance(known, dict):
        known = {}
    known[key] = value
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(known, sort_keys=True))
    except OSError:
        pass   # a read-only checkout: computed again next time
    return value


@functools.lru_cache(maxsize=None)
def _checkout_fingerprint(root: str, experiment: str, fam: str, stamp: tuple) -> str | None:
    try:
        return fingerprint(experiment, WorkTree(root), fam)
    except ProvenanceError:
        return None


def _stamp(root: Path) -> tuple:
    """A cheap change detector for what fingerprints read in the checkout (newest mtime and count), so a long-lived
    process (a notebook kernel, the test suite) sees an edited kernel, benchmark, shared constant or Makefile."""
    newest, count = 0.0, 0
    for folder, pattern in (("java-src", "*"), ("jmh-src", "*"), ("c-src", "*"), ("src/mechsym", "*.py")):
        for p in (root / folder).rglob(pattern):
            try:
                newest, count = max(newest, p.stat().st_mtime), count + 1
            except OSError:
                pass
    for f in ("pom.xml", "Makefile"):
        try:
            newest = max(newest, (root / f).stat().st_mtime)
        except OSError:
            pass
    return newest, count


def checkout_fingerprint(experiment: str, root: Path | str | None = None, fam: str = LAB) -> str | None:
    """The checkout's fingerprint of `experiment` for family `fam`, None when it has none (no sweep, no benchmark)."""
    root = Path(root or repo_root())
    return _checkout_fingerprint(str(root), experiment, fam, _stamp(root))


def status(meta: dict, root: Path | str | None = None) -> tuple[str, str]:
    """(current | stale | unknown, why) of a stored run against the checkout."""
    experiment = str(meta.get("experiment", ""))
    mine, how = run_fingerprint(meta, root)
    if mine is None:
        return UNKNOWN, how
    fam = family(meta)
    now = checkout_fingerprint(experiment, root, fam)
    if now is None:
        return UNKNOWN, f"the checkout has no {'JMH benchmark' if fam == JMH else 'sweep'} for '{experiment}'"
    if mine == now:
        return CURRENT, how
    what = "older JMH benchmarks" if fam == JMH else "older kernels"
    return STALE, f"measured with {what} (commit {commit_of(meta)})"


def commit_of(meta: dict, default: str = "?") -> str:
    """The short commit a stored run names: its provenance's, else the git_commit it recorded before provenance."""
    return str((meta.get("provenance") or {}).get("commit") or meta.get("git_commit") or default)[:7]


def is_current(meta: dict, root: Path | str | None = None) -> bool:
    return status(meta, root)[0] == CURRENT


def dirty(meta: dict) -> bool:
    """Whether a stored run was made from a tree that was not clean (`--allow-dirty`, or a smoke run)."""
    prov = meta.get("provenance") or {}
    return prov.get("clean") is False or str(meta.get("git_commit") or "").endswith("-dirty")


def banner(metas: list[dict], root: Path | str | None = None) -> str | None:
    """One line for the runs a page shows when any of them is not current, or was made from a dirty tree (current
    or not: its code is the commit plus a diff no other run shares), else None."""
    old = [(m, status(m, root)) for m in metas]
    old = [(m, s) for m, s in old if s[0] != CURRENT or dirty(m)]
    if not old:
        return None
    parts = []
    for m, (st, why) in old:
        name = f"run {m.get('run_id')}" + (" (JMH)" if family(m) == JMH else "")
        note = " from a dirty tree (--allow-dirty)" if dirty(m) else ""
        if st == STALE:
            what = "older JMH benchmarks" if family(m) == JMH else "older kernels"
            parts.append(f"{name} was measured{note} with {what} (commit {commit_of(m, 'unknown')})")
        elif st == CURRENT:
            parts.append(f"{name} was measured{note} at commit {commit_of(m, 'unknown')}, its diff stored beside it")
        else:
            parts.append(f"{name} was measured{note} with code that cannot be traced ({why})")
    head = "Stale results" if any(s[0] != CURRENT for _, s in old) else "Results from a dirty tree"
    return (f"{head}: " + "; ".join(parts) + ". Its numbers may not be those of the code in this "
            "checkout: set the parameters cell's PRESET to \"standard\" and re-run, or run `make refresh`.")
