#!/usr/bin/env python3
"""A fleet host's side of `make fleet`: its checkout, its pack, and its build and sweep as one job detached from the
SSH connection that started it.

The lesson: nothing long may live inside an SSH session. A laptop that sleeps or a dropped connection kills what the
session runs, so the job (`make`, then each experiment's `mechsym run`) runs in a session of its own and keeps its
state in files; the controller (fleet/site.yml) starts it, polls it, and a later `make fleet` re-attaches to it, or
resumes the steps that did not end well (a step that exited 0 is never run twice in one round).

A round is one (commit, preset, experiments); its state is a folder <checkout>/build/fleet-host/<round>/:
    spec.json   the steps, in order: {"name": "run locks", "argv": [...], "cwd": ..., "stop": false}
    runner.lock held (flock) by the detached runner and its steps while they run; runner.pid names it
    <step>.log  a step's stdout and stderr; <step>.rc its exit status, written (atomically) when it ends
    finished    written when the runner has gone through every step
Commands (Python >= 3.10, the standard library only: it runs before the lab's environment exists):
    checkout REPO BUNDLE COMMIT [PREBUILT]   clone or fetch the commit from a git bundle, check it out
    unpack TAR REPO                          a `make pack` archive into REPO/build (for hosts without internet)
    start STATE SPEC                         start the round's runner, or attach to the one running
    poll STATE                               one JSON line: finished?, and each step's state and progress
    gathered STATE                           the round's runs are imported here: its folder goes
Each prints one line (JSON for start and poll) and exits 1 with one line naming the problem.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

PACK_SOURCES = ("java-src", "jmh-src", "pom.xml")   # what the pack's jars are built from (see digest)
PREBUILT = ("lib", "jmh-lib", "c", "classes", "jmh-classes", "mechsym.jar", "jmh.jar")
TQDM = re.compile(r"(\d+)/(\d+) \[")


class HostError(Exception):
    """One line: what on this host stops the step."""


def write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_text(text)
    os.replace(tmp, path)


def git(repo: Path | None, *args: str) -> str:
    cmd = ["git"] + (["-C", str(repo)] if repo else []) + list(args)
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise HostError(f"git {' '.join(args[:2])}: {(r.stderr.strip().splitlines() or ['failed'])[-1]}")
    return r.stdout.strip()


# ---------------------------------------------------------------- the checkout

def checkout(repo: str, bundle: str, commit: str, prebuilt: str = "") -> str:
    """The checkout at `commit`, cloned from (or fetched out of) a git bundle; its path. Refused while a runner of
    another commit works in it (moving the tree under a sweep would change what it measures)."""
    path = Path(os.path.abspath(os.path.expanduser(repo)))
    if (path / ".git").is_dir():
        for state in sorted((path / "build" / "fleet-host").glob("*/")):
            pid = runner_pid(state)
            theirs = (state / "commit").read_text().strip() if (state / "commit").exists() else "?"
            if pid and theirs != commit:
                raise HostError(f"{path}: a fleet job of commit {theirs[:12]} still runs there (pid {pid}); the "
                                f"next `make fleet` at that commit gathers it, or stop it (kill {pid})")
        git(path, "fetch", "-q", bundle, "HEAD")
    elif path.exists() and any(path.iterdir()):
        raise HostError(f"{path} exists and is not a git checkout: empty it or set mechsym_path")
    else:
        git(None, "clone", "-q", "--no-checkout", bundle, str(path))
    git(path, "-c", "advice.detachedHead=false", "checkout", "-q", "--detach", commit)
    if git(path, "rev-parse", "HEAD") != commit:
        raise HostError(f"{path}: HEAD is not {commit[:12]} after the checkout")
    if prebuilt:   # a built checkout on this host lends its build and environment (tests, the example inventory)
        build = path / "build"
        build.mkdir(exist_ok=True)
        for name, target in [(f"build/{n}", Path(prebuilt) / "build" / n) for n in PREBUILT] + \
                            [(".venv", Path(prebuilt) / ".venv")]:
            link = path / name
            if link.is_symlink() or link.is_file():
                link.unlink()
            elif link.is_dir():
                shutil.rmtree(link)
            link.symlink_to(target)
        exclude = path / ".git" / "info" / "exclude"   # a linked .venv is a file to git, not the ignored folder
        if "/.venv\n" not in (exclude.read_text() if exclude.exists() else ""):
            with open(exclude, "a") as f:
                f.write("/.venv\n")
    return str(path)


# ---------------------------------------------------------------- the pack

def digest(root: Path) -> str:
    """sha256 over the files the kernels' jars are built from (names and contents), so a host can tell whether a
    pack's jars are its checkout's."""
    h = hashlib.sha256()
    for top in PACK_SOURCES:
        files = [root / top] if (root / top).is_file() else sorted(p for p in (root / top).rglob("*") if p.is_file())
        for p in files:
            h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def unpack(tar: str, repo: str) -> str:
    """A pack (fleet/pack.py) into REPO/build: the wheelhouse, the Maven jars with their stamps made current, and the
    kernels' jars when they were built from this checkout's sources (else `make` rebuilds them here with javac)."""
    build = Path(repo) / "build"
    build.mkdir(exist_ok=True)
    with tarfile.open(tar) as t:
        pack = json.loads(t.extractfile("pack.json").read())
        want, have = (pack["python"][:2], pack["machine"]), (list(sys.version_info[:2]), platform.machine())
        if list(want[0]) != have[0] or want[1] != have[1]:
            raise HostError(f"the pack is for Python {'.'.join(map(str, want[0]))} on {want[1]}; this host's "
                            f"{sys.executable} is {'.'.join(map(str, have[0]))} on {have[1]}: run `make pack "
                            "PACK_PYTHON=...` with that Python, or set ansible_python_interpreter")
        for m in t.getmembers():
            if m.name.startswith(("/", "..")) or "/../" in m.name or not (m.isfile() or m.isdir()):
                raise HostError(f"{tar}: member {m.name!r} is not a plain file under build/")
        for name in ("wheelhouse", "lib", "jmh-lib"):
            shutil.rmtree(build / name, ignore_errors=True)
        t.extractall(build)
    for stamp in ("lib/.stamp", "jmh-lib/.stamp"):
        (build / stamp).touch()   # the pack's Maven jars are pom.xml's: make must not ask Maven Central again
    same = digest(Path(repo)) == pack["sources"]
    for jar in ("mechsym.jar", "jmh.jar"):
        if same:
            (build / jar).touch()
        else:
            (build / jar).unlink(missing_ok=True)
    write(build / ".pack-id", pack["id"])
    Path(tar).unlink()
    return (f"pack {pack['id'][:12]}: {pack['wheels']} wheels for Python {'.'.join(map(str, want[0]))}; "
            + ("the kernels' jars from the pack" if same else "the kernels' jars built here (other Java sources)"))


# ---------------------------------------------------------------- the job

def slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")


def runner_pid(state: Path) -> int | None:
    """The pid of the round's runner while it (or the step it runs) lives, else None. Alive means holding the
    round's lock (runner.lock, an flock the runner and its steps inherit from `start` and the kernel drops when the
    last of them ends): no pid reuse or half-started process can fool it."""
    try:
        fd = os.open(state / "runner.lock", os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        try:
            return int((state / "runner.pid").read_text())
        except (OSError, ValueError):
            return -1
    finally:
        os.close(fd)
    return None


def rc_of(state: Path, step: dict) -> int | None:
    try:
        return int((state / f"{slug(step['name'])}.rc").read_text())
    except (OSError, ValueError):
        return None


def start(state: str, spec: str) -> dict:
    folder = Path(state)
    folder.mkdir(parents=True, exist_ok=True)
    lock = os.open(folder / "runner.lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return {"attached": runner_pid(folder)}
        data = json.loads(spec)
        write(folder / "spec.json", json.dumps(data, indent=1))
        write(folder / "commit", data.get("commit", ""))
        (folder / "finished").unlink(missing_ok=True)
        kept = [s["name"] for s in data["steps"] if rc_of(folder, s) == 0]
        with open(folder / "runner.log", "ab") as log:
            p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "run", str(folder), str(lock)],
                                 stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True,
                                 pass_fds=(lock,))
        write(folder / "runner.pid", str(p.pid))
        return {"started": p.pid, "kept": kept}
    finally:
        os.close(lock)   # the runner holds the lock now


def run(state: str, lock: str = "") -> None:
    """The runner: every step not yet ended well, in order; a failed step with "stop" ends the round (a failed
    `make` leaves nothing to run). Each step inherits the round's lock, so a step outliving a killed runner still
    keeps a second runner from starting beside it."""
    folder = Path(state)
    held = (int(lock),) if lock else ()
    for step in json.loads((folder / "spec.json").read_text())["steps"]:
        if rc_of(folder, step) == 0:
            continue
        name = slug(step["name"])
        (folder / f"{name}.rc").unlink(missing_ok=True)
        with open(folder / f"{name}.log", "wb") as log:
            try:
                rc = subprocess.run(step["argv"], cwd=step.get("cwd"), stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, pass_fds=held).returncode
            except OSError as e:
                log.write(f"{step['argv'][0]}: {e.strerror or e}\n".encode())
                rc = 127
        write(folder / f"{name}.rc", str(rc))
        if rc != 0 and step.get("stop"):
            break
    write(folder / "finished", time.strftime("%Y-%m-%dT%H:%M:%S"))


def last_line(log: Path) -> str:
    """The last line a step wrote (a progress bar's last state: tqdm rewrites its line with carriage returns)."""
    try:
        with open(log, "rb") as f:
            f.seek(max(0, f.seek(0, 2) - 4096))
            tail = f.read().decode("utf-8", "replace")
    except OSError:
        return ""
    lines = [s.strip() for s in re.split(r"[\r\n]+", re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", tail)) if s.strip()]
    return lines[-1][:200] if lines else ""


def poll(state: str) -> dict:
    folder = Path(state)
    try:
        steps = json.loads((folder / "spec.json").read_text())["steps"]
    except (OSError, ValueError):
        return {"finished": True, "alive": False, "steps": [], "error": f"{folder}: no job here"}
    alive, finished = runner_pid(folder) is not None, (folder / "finished").exists()
    out, current = [], True
    for step in steps:
        rc, log = rc_of(folder, step), folder / f"{slug(step['name'])}.log"
        last = last_line(log)
        if rc is not None:
            state_ = "done" if rc == 0 else "failed"
        elif alive and current:
            state_, current = "running", False
            m = TQDM.search(last)
            last = f"{m.group(1)} of {m.group(2)} forks" if m else (last or "started")
        elif finished:
            state_ = "not run"
        else:
            state_ = "waiting" if alive else "stopped"
        out.append({"name": step["name"], "state": state_, "rc": rc, "last": last})
    return {"finished": finished or not alive, "alive": alive, "steps": out}


def main(argv: list[str]) -> int:
    commands = {"checkout": (checkout, 3, 4), "unpack": (unpack, 2, 2), "start": (start, 2, 2), "run": (run, 1, 2),
                "poll": (poll, 1, 1), "gathered": (lambda s: shutil.rmtree(s, ignore_errors=True) or "gathered", 1, 1)}
    if not argv or argv[0] not in commands or not commands[argv[0]][1] <= len(argv) - 1 <= commands[argv[0]][2]:
        print(f"hostjob: give one of {', '.join(commands)} with its arguments (see this file's docstring)",
              file=sys.stderr)
        return 2
    try:
        out = commands[argv[0]][0](*argv[1:])
    except (HostError, OSError, KeyError, ValueError) as e:
        print(f"{e}" if isinstance(e, HostError) else f"{argv[0]}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    if out is not None:
        print(json.dumps(out) if isinstance(out, dict) else out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
