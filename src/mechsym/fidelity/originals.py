"""The authors' own code, built outside the repository and run beside the kernels (`mechsym fidelity-run`).

    python -m mechsym.fidelity.originals build [--only=repos|posts] [--tiny]
                                           copy the fetched trees (git archive at a named commit) and the posts' own
                                           Java listings (mechsym.fidelity.listings) into the scratch directory and
                                           compile them with javac 17; nothing lands in the repository (--tiny:
                                           the listings at tiny sizes, into <scratch>/posts-tiny)
    python -m mechsym.fidelity.originals commands [--tiny]
                                           print the `mechsym fidelity-run` commands for the comparisons below and
                                           mechsym.fidelity.listings.COMPARISONS (--tiny: at tiny sizes, to check that
                                           both programs' output parses; never for numbers)
    python -m mechsym.fidelity.originals listing NAME [--rows=N] [--pings=...]
                                           run one original (its client and server, or producer and consumer, as
                                           separate JVMs in the current directory) and print its output; stop it
                                           after N result rows (its loop counts are fixed in its source)

Sources (fetched with the search tool's `fetch`, or any clone; $MECHSYM_ORIGINALS_GIT names a directory holding
`<owner>+<name>/repo` git directories, default /work/.mirror):
- nitsanw/java-ping at 99d6df0 (2013-06-30, the last commit before "A Java Ping Buffet", 2013-07-01): IpcPingClient /
  IpcPingServer (1,000,000 pings a row, 100 rows; 32-byte message copied, echo counter spun on with a CAS) and
  PingMain -client/-server -spin (TCP busy-spin, 100,000 pings a row, -Dloop rows).
- nitsanw/QueueEvolution at 0ede180 (2013-03-26, the date of the post "Java IPC queue"): IpcPerfTest p|c, the
  P1C1OffHeapQueue over a memory-mapped file between two JVMs, capacity 1 << -Dscale (16), -Dreps millions (50) of
  messages a run, 20 runs; the producer prints ops/sec per run.

- The posts' Java listings (false sharing, write combining, AtomicLong, inter-thread latency, locks and condition
  variables), cut out of the posts' text ($MECHSYM_POSTS, default /work/shared/posts): mechsym.fidelity.listings.
  "Single Writer Principle" prints no listing, so CounterCost has none to be compared with.

Scratch: $MECHSYM_SCRATCH/originals, default /tmp/mechsym-originals (refused inside the repository).
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
import tarfile
import io
import time
from pathlib import Path

from .. import MechsymError, repo_root
from . import listings as post_listings

ORIGINALS = {
    # name: (repository, commit, source root in the tree)
    "java-ping": ("nitsanw/java-ping", "99d6df0", "src"),
    "QueueEvolution": ("nitsanw/QueueEvolution", "0ede180", "src/java"),
}
GIT_ENV = "MECHSYM_ORIGINALS_GIT"


def scratch() -> Path:
    env = os.environ.get("MECHSYM_SCRATCH")
    base = (Path(env) / "originals") if env else Path("/tmp/mechsym-originals")
    base = base.expanduser().resolve()
    root = repo_root().resolve()
    if base == root or root in base.parents:
        raise MechsymError(f"originals scratch {base}: inside the repository; set MECHSYM_SCRATCH outside it")
    return base


def git_dir(repo: str) -> Path:
    base = Path(os.environ.get(GIT_ENV, "/work/.mirror"))
    d = base / repo.replace("/", "+") / "repo"
    if not d.is_dir():
        raise MechsymError(f"{repo}: no git directory at {d}; fetch it (github:{repo}) or set {GIT_ENV}")
    return d


def javac17() -> Path:
    from ..machine.jdk import select

    jdk = select("17")[0]
    javac = jdk.home / "bin" / "javac"
    if not javac.exists():
        raise MechsymError(f"JDK 17 at {jdk.home}: has no javac; install a JDK, not a JRE")
    return javac


def build(out=print, only: str | None = None, tiny: bool = False) -> Path:
    """Every original copied at its commit into <scratch>/<name>/src and compiled into <scratch>/<name>/classes;
    the posts' listings into <scratch>/posts[-tiny]/<name> (mechsym.fidelity.listings). only: repos | posts."""
    if only not in (None, "repos", "posts"):
        raise MechsymError(f"--only {only}: allowed repos, posts")
    base = scratch()
    if only != "repos":
        post_listings.build(base, javac17, tiny, out)
    if only == "posts" or tiny:
        return base
    javac = javac17()
    for name, (repo, commit, src) in ORIGINALS.items():
        g = git_dir(repo)
        r = subprocess.run(["git", f"--git-dir={g}", "archive", "--format=tar", commit, src], capture_output=True)
        if r.returncode != 0:
            raise MechsymError(f"{repo}: git archive {commit}: {r.stderr.decode().strip().splitlines()[-1]}")
        where = base / name
        shutil.rmtree(where, ignore_errors=True)
        (where / "classes").mkdir(parents=True)
        with tarfile.open(fileobj=io.BytesIO(r.stdout)) as t:
            t.extractall(where / "tree", filter="data")
        sources = sorted(str(p) for p in (where / "tree" / src).rglob("*.java"))
        c = subprocess.run([str(javac), "--release", "17", "-nowarn", "-XDignore.symbol.file", "-d",
                            str(where / "classes"), *sources], capture_output=True, text=True)
        if c.returncode != 0:
            raise MechsymError(f"{name}: javac failed: {c.stderr.strip().splitlines()[0]}")
        (where / "COMMIT").write_text(f"{repo} {commit}\n")
        out(f"{name}: {repo} at {commit}, {len(sources)} sources compiled into {where / 'classes'}")
    return base


# ---------------------------------------------------------------- running one original

def _java() -> str:
    from ..machine.jdk import select

    return select("17")[0].java


def _stop(p: subprocess.Popen) -> None:
    if p.poll() is None:
        p.kill()
    p.wait()


def _rows(client: subprocess.Popen, rows: int, looks_like, timeout: float) -> int:
    """Echo the client's stdout; stop after `rows` lines that look like result rows. Returns how many were read."""
    seen = 0
    deadline = time.monotonic() + timeout
    for line in client.stdout:
        sys.stdout.write(line)
        if looks_like(line):
            seen += 1
            if seen >= rows:
                break
        if time.monotonic() > deadline:
            break
    sys.stdout.flush()
    return seen


def listing(name: str, rows: int, message_size: int = 32, reps_millions: int = 50, scale: int = 16,
            timeout: float = 900.0) -> int:
    """Run one original in the current directory (outside the repository) and print its output rows."""
    here = Path.cwd().resolve()
    if here == repo_root().resolve() or repo_root().resolve() in here.parents:
        raise MechsymError(f"listing {name}: run it from a scratch directory outside the repository (cwd {here})")
    java = _java()
    base = scratch()
    if name in ("ipc-ping", "tcp-spin-ping"):
        cp = str(base / "java-ping" / "classes")
        if name == "ipc-ping":
            Path("ping.ipc").unlink(missing_ok=True)
            server_cmd = [java, "-server", "-cp", cp, "IpcPingServer", str(message_size)]
            client_cmd = [java, "-server", "-cp", cp, "IpcPingClient", str(message_size)]
        else:
            port = _free_port()
            server_cmd = [java, "-server", "-cp", cp, "PingMain", "-server", "-spin", "127.0.0.1", str(port)]
            client_cmd = [java, "-server", f"-Dloop={rows}", "-cp", cp, "PingMain", "-client", "-spin", "127.0.0.1",
                          str(port), str(message_size)]
        server = subprocess.Popen(server_cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            first = server.stdout.readline()  # "Ipc server file: ..." / "Listening on interface : ..."
            if not first:
                raise MechsymError(f"{name}: the server did not start: {server.stderr.read().strip()[:160]}")
            if name == "tcp-spin-ping":
                time.sleep(0.5)  # accept() follows the line it printed
            client = subprocess.Popen(client_cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                got = _rows(client, rows, lambda s: s[:1].isdigit() and s.count(",") == 6, timeout)
            finally:
                _stop(client)
        finally:
            _stop(server)
            Path("ping.ipc").unlink(missing_ok=True)
    elif name == "ipc-queue":
        cp = str(base / "QueueEvolution" / "classes")
        flags = [f"-Dscale={scale}", f"-Dreps={reps_millions}", "-cp", cp, "psy.lob.saw.ipc.IpcPerfTest"]
        Path("queue.ipc").unlink(missing_ok=True)
        producer = subprocess.Popen([java, "-server", *flags, "p"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                    text=True)
        consumer = subprocess.Popen([java, "-server", *flags, "c"], stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, text=True)
        try:
            got = _rows(producer, rows, lambda s: "ops/sec=" in s, timeout)
        finally:
            _stop(producer)
            _stop(consumer)
            Path("queue.ipc").unlink(missing_ok=True)
    else:
        raise MechsymError(f"listing '{name}': unknown (known: ipc-ping, tcp-spin-ping, ipc-queue)")
    if got < rows:
        raise MechsymError(f"listing {name}: {got} of {rows} result rows before it ended")
    return 0


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- the fidelity-run commands

#: (name, expected seconds per set on a 2-vCPU VM, fidelity-run arguments); {py} is this Python, {rows} the
#: listing's rows. A set is the kernel and the listing twice.
COMPARISONS = [
    ("ipc-ping p50", 15, dict(
        experiment="pingbuffet",
        kernel="mechsym.ping.PingBuffet --mode=ipc-spin --protocol=post --pings=1000000 --runs={rows}",
        listing="{py} -m mechsym.fidelity.originals listing ipc-ping --rows={rows}",
        kernel_figure="csv:rtt_p50", listing_figure=r"^\d+,(\d+),\d+,\d+,\d+,\d+,\d+$", direction="duration",
        cell="ipc-spin, 32-byte message, CAS spin, 1 M pings x {rows} rows, unpinned, median of the rows' p50",
        listing_label="java-ping 99d6df0 IpcPingClient/IpcPingServer, compiled outside the repository, stopped "
                      "after {rows} rows")),
    ("tcp-spin-ping p50", 25, dict(
        experiment="pingbuffet",
        kernel="mechsym.ping.PingBuffet --mode=tcp-spin --protocol=post --pings=100000 --runs={rows}",
        listing="{py} -m mechsym.fidelity.originals listing tcp-spin-ping --rows={rows}",
        kernel_figure="csv:rtt_p50", listing_figure=r"^\d+,(\d+),\d+,\d+,\d+,\d+,\d+$", direction="duration",
        cell="tcp-spin, 32-byte message, 100 k pings x {rows} rows, unpinned, median of the rows' p50",
        listing_label="java-ping 99d6df0 PingMain -client/-server -spin -Dloop={rows}, compiled outside the "
                      "repository")),
    ("ipc-queue throughput", 30, dict(
        experiment="ipcqueue",
        kernel="mechsym.ipc.IpcThroughput --protocol=post --capacity=65536 --messages=50000000 --runs={rows}",
        listing="{py} -m mechsym.fidelity.originals listing ipc-queue --rows={rows}",
        kernel_figure="csv:throughput", listing_figure=r"ops/sec=([\d,]+)", direction="speed",
        cell="P1C1 off-heap queue between two JVMs, capacity 1<<16, 50 M messages x {rows} runs, median run",
        listing_label="QueueEvolution 0ede180 IpcPerfTest p|c (-Dscale=16 -Dreps=50), compiled outside the "
                      "repository, stopped after {rows} runs")),
]


def commands(rows: int = 5, sets: int = 8, tiny: bool = False) -> list[tuple[str, int, list[str]]]:
    py = sys.executable
    out = []
    run_dir = ["--listing-dir", str(scratch() / "run")]
    for name, secs, args in COMPARISONS:
        a = {k: v.replace("{rows}", str(rows)).replace("{py}", py) for k, v in args.items()}
        if tiny:  # correctness only: small sizes
            a["kernel"] = (a["kernel"].replace("--pings=1000000", "--pings=20000").replace("--pings=100000",
                                                                                          "--pings=20000")
                           .replace("--messages=50000000", "--messages=1000000"))
        out.append((name, secs, _argv(a, sets, run_dir)))
    for name, secs, a in post_listings.comparisons(scratch(), tiny):
        out.append((name, secs, _argv(a, sets, run_dir)))
    return out


def _argv(a: dict, sets: int, run_dir: list[str]) -> list[str]:
    a = dict(a)
    argv = ["mechsym", "fidelity-run", a.pop("experiment"), "--sets", str(sets), *run_dir]
    for k, v in a.items():
        argv += [f"--{k.replace('_', '-')}", v]
    return argv


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m mechsym.fidelity.originals")
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("--only", choices=("repos", "posts"), default=None)
    b.add_argument("--tiny", action="store_true", help="the posts' listings at tiny sizes (parsing checks)")
    c = sub.add_parser("commands")
    c.add_argument("--rows", type=int, default=5)
    c.add_argument("--sets", type=int, default=8)
    c.add_argument("--tiny", action="store_true", help="tiny sizes: to check the output parses, not for numbers")
    li = sub.add_parser("listing")
    li.add_argument("name")
    li.add_argument("--rows", type=int, default=5)
    li.add_argument("--message-size", type=int, default=32)
    li.add_argument("--reps", type=int, default=50, help="QueueEvolution -Dreps (millions of messages a run)")
    li.add_argument("--scale", type=int, default=16, help="QueueEvolution -Dscale (capacity 1 << scale)")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "build":
            build(only=a.only, tiny=a.tiny)
        elif a.cmd == "commands":
            (scratch() / "run").mkdir(parents=True, exist_ok=True)
            for name, secs, cmd in commands(a.rows, a.sets, a.tiny):
                print(f"# {name}: ~{secs} s a set, {a.sets} sets: ~{secs * a.sets / 60:.0f} min")
                print(shlex.join(cmd))
        else:
            if a.rows < 1:
                raise MechsymError(f"--rows {a.rows}: allowed 1 or more")
            return listing(a.name, a.rows, a.message_size, a.reps, a.scale)
    except MechsymError as e:
        print(f"mechsym.fidelity.originals: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
