"""Run one kernel in a fresh process: [taskset -c CPUS] <jdk>/bin/java <flags> -cp ... <Kernel> --k=v ...

The kernel prints CSV (with a header) on stdout and diagnostics on stderr.
The launcher never times anything itself: the numbers are the kernel's own.
"""

from __future__ import annotations

import contextlib
import io
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pandas as pd

from .. import MechsymError, classpath, repo_root
from ..machine.cpus import format_cpu_list, taskset_available
from ..machine.jdk import Jdk

REQUIRED_COLUMNS = ["iteration", "warmup", "metric", "value", "unit"]
MAX_TIMEOUT = 24 * 3600.0  # seconds: a fork that needs longer than a day is a mistake, not a measurement


def check_timeout(value, what: str = "timeout") -> float:
    """A fork's timeout in seconds: a finite number > 0 and at most MAX_TIMEOUT (24 h); else one line."""
    try:
        seconds = float(value)
    except (TypeError, ValueError):
        seconds = float("nan")
    if not 0 < seconds <= MAX_TIMEOUT:  # also refuses nan and inf
        raise MechsymError(f"{what} '{value}': must be a number of seconds > 0 and at most {MAX_TIMEOUT:.0f} (24 h)")
    return seconds


class KernelError(MechsymError):
    """A kernel run that produced no usable numbers. `kind` is one of
    bad-argument, check-failed, timeout, crashed, bad-output."""

    def __init__(self, message: str, kind: str, command: list[str], stderr: str = ""):
        super().__init__(message)
        self.kind = kind
        self.command = command
        self.stderr = stderr


@dataclass
class Launch:
    command: list[str]
    pinned: str            # "taskset" | "none" | "taskset-missing"
    cpus: list[int] = field(default_factory=list)

    @property
    def command_line(self) -> str:
        return shlex.join(self.command)


def java_argv(java: str, kernel: str, argv=(), flags=()) -> list[str]:
    """The one way a Java kernel's command line is built: `<java> <flags> -cp <classpath> <class> <argv>`
    (the sweeps, `mechsym.run.kernels.command` and the tests all use it)."""
    return [str(java), *flags, "-cp", classpath(), kernel, *argv]


def native_path(binary: str | Path) -> Path:
    """A C kernel's binary: `binary` itself when absolute, else build/c/<binary>; MechsymError when not built."""
    path = Path(binary)
    if not path.is_absolute():
        path = repo_root() / "build" / "c" / path
    if not path.exists():
        raise MechsymError(f"C kernel {path.name}: not built ({path} missing); run `make` first")
    return path


def java_command(jdk: Jdk, kernel: str, args: dict, flags: list[str] | tuple[str, ...] = (),
                 cpus: list[int] | None = None) -> Launch:
    return _with_taskset(java_argv(jdk.java, kernel, [f"--{k}={v}" for k, v in args.items()], flags), cpus)


def native_command(binary: str | Path, args: dict, cpus: list[int] | None = None) -> Launch:
    cmd = [str(native_path(binary))] + [f"--{k}={v}" for k, v in args.items()]
    return _with_taskset(cmd, cpus)


def _with_taskset(cmd: list[str], cpus: list[int] | None) -> Launch:
    if not cpus:
        return Launch(cmd, "none", [])
    if not taskset_available():
        return Launch(cmd, "taskset-missing", [])
    ids = sorted(set(cpus))
    return Launch(["taskset", "-c", format_cpu_list(ids), *cmd], "taskset", ids)


# Options every JVM reads from its environment, on top of its command line. A kernel's options are its command line
# (recorded with the run); these would change them with no trace, so kernels run without them, and the values the
# bench found are recorded in the run's metadata ("java_environment"): cleared, not obeyed, and visible either way.
JAVA_ENV = ("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS")


def java_environment() -> dict:
    """The JVM option variables set in this process's environment, and what kernels get of them (nothing)."""
    found = {k: os.environ[k] for k in JAVA_ENV if k in os.environ}
    return {"found": found, "kernels": "cleared"}


def kernel_env(extra: dict | None = None) -> dict:
    """A kernel's environment: this process's, less the JVM option variables, plus `extra`."""
    return {**{k: v for k, v in os.environ.items() if k not in JAVA_ENV}, **(extra or {})}


def run(launch: Launch, timeout: float = 600.0, env: dict | None = None,
        reply: Callable[[str], str | None] | None = None) -> pd.DataFrame:
    """Run a kernel; return its CSV rows. KernelError (with the kernel's stderr) when it fails.

    reply: a handshake on the kernel's stderr and stdin. Every stderr line is passed to reply(line) while the kernel
    runs; a returned string is written to the kernel's stdin as one line (the kernel may wait for it, e.g. while the
    bench evicts a file's pages between two timed phases); None means "not a request". Lines that were requests are
    left out of the stderr kept for messages.

    The kernel runs in a process group of its own (a Ctrl-C in the terminal reaches the bench, which decides); every
    way out of this function (a timeout, an exception, Ctrl-C, SIGTERM) kills that group, and the kernel dies with
    the bench even when the bench is killed outright (SIGKILL: PR_SET_PDEATHSIG). A timeout that is not a finite
    number of seconds in (0, 24 h] is refused (MechsymError) before anything starts."""
    cmd = launch.command
    timeout = check_timeout(timeout)
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                                stdin=subprocess.PIPE if reply else None,
                                env=kernel_env(env), start_new_session=True,
                                preexec_fn=_die_with_parent())
    except OSError as e:
        raise KernelError(f"cannot start {cmd[0]}: {e}", "crashed", cmd) from e
    timed_out = False
    try:
        if reply is None:
            try:
                out, err = proc.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                _kill(proc)
                out, err = proc.communicate()
                timed_out = True
        else:
            out, err, timed_out = _converse(proc, reply, timeout)
    except BaseException:  # Ctrl-C, SIGTERM turned into KeyboardInterrupt, or a failing reply: no orphan kernel
        _kill(proc)
        proc.wait()
        raise
    if timed_out:
        raise KernelError(f"{_name(cmd)}: killed after its timeout of {timeout:g} s", "timeout", cmd, err)
    last = _last_line(err, out)
    said = last if last.startswith(f"{_name(cmd)}:") else f"{_name(cmd)}: {last}"  # kernels name themselves
    if proc.returncode == 2:
        raise KernelError(said, "bad-argument", cmd, err)
    if proc.returncode == 3:
        raise KernelError(said, "check-failed", cmd, err)
    if proc.returncode != 0:
        raise KernelError(f"{_name(cmd)} exited with code {proc.returncode}: {last}", "crashed", cmd, err)
    return parse_csv(out, cmd, err)


def _converse(proc: subprocess.Popen, reply: Callable[[str], str | None], timeout: float) -> tuple[str, str, bool]:
    """Answer the kernel's requests on stderr through its stdin until it exits; (stdout, other stderr, timed out)."""
    out: list[str] = []
    reader = threading.Thread(target=lambda: out.append(proc.stdout.read()), daemon=True)
    reader.start()
    fired = threading.Event()

    def expire():
        fired.set()
        _kill(proc)
    timer = threading.Timer(timeout, expire)
    timer.start()
    err: list[str] = []
    try:
        for line in proc.stderr:
            answer = reply(line.rstrip("\n"))
            if answer is None:
                err.append(line)
                continue
            with contextlib.suppress(BrokenPipeError, ValueError):  # the kernel may have exited meanwhile
                proc.stdin.write(answer + "\n")
                proc.stdin.flush()
        proc.wait()
        reader.join()
    finally:
        timer.cancel()
        with contextlib.suppress(OSError, BrokenPipeError, ValueError):
            proc.stdin.close()
    return (out[0] if out else ""), "".join(err), fired.is_set()


def parse_csv(out: str, cmd: list[str] | None = None, err: str = "") -> pd.DataFrame:
    cmd = cmd or ["kernel"]
    if not out.strip():
        raise KernelError(f"{_name(cmd)}: printed no CSV on stdout", "bad-output", cmd, err)
    try:
        df = pd.read_csv(io.StringIO(out), low_memory=False)  # no dtype guessing per chunk
    except Exception as e:  # pandas raises several types
        raise KernelError(f"{_name(cmd)}: stdout is not CSV ({e})", "bad-output", cmd, err) from e
    missing = [c for c in REQUIRED_COLUMNS if c not in df.columns]
    if missing:
        raise KernelError(f"{_name(cmd)}: CSV lacks columns {', '.join(missing)}", "bad-output", cmd, err)
    if df.empty:
        raise KernelError(f"{_name(cmd)}: CSV has a header but no rows", "bad-output", cmd, err)
    df["warmup"] = df["warmup"].astype(str).str.lower().isin(["true", "1"])
    values = pd.to_numeric(df["value"], errors="coerce")
    bad = values.isna() & df["value"].notna() | values.isin([float("inf"), float("-inf")])
    if df["value"].isna().any() or bad.any():
        i = int((bad | df["value"].isna()).to_numpy().argmax())
        raise KernelError(f"{_name(cmd)}: printed {str(df['value'].iloc[i])!r} as the value of {df['metric'].iloc[i]} "
                          f"(row {i + 1}): not a finite number", "bad-output", cmd, err)
    df["value"] = values
    return df


def _kill(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        proc.kill()
    time.sleep(0.05)


_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> Callable[[], None] | None:
    """A preexec_fn asking Linux to SIGKILL the kernel when the bench dies (prctl PR_SET_PDEATHSIG), or None where
    that cannot be asked. Resolved here, in the parent: the child only makes the call."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None
    prctl.restype = ctypes.c_int
    prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
    args = (_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    parent = os.getpid()

    def preexec() -> None:
        prctl(*args)
        if os.getppid() != parent:  # the bench died before the request was made
            os._exit(1)
    return preexec


def _name(cmd: list[str]) -> str:
    for part in reversed(cmd):
        if part.startswith("mechsym.") or "/build/c/" in part:
            return part.rsplit("/", 1)[-1].rsplit(".", 1)[-1]
    return Path(cmd[0]).name


def _last_line(err: str, out: str = "") -> str:
    """The kernel's own last word: its last line on stderr, else on stdout (the JVM prints some of its start-up
    errors there, e.g. "Too small maximum heap")."""
    for text in (err, out):
        lines = [ln for ln in text.strip().splitlines() if ln.strip() and "warning:" not in ln.lower()]
        if lines:
            return lines[-1].strip()[:300]
    return "(no message on stderr or stdout)"
