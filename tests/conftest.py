import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
ARTIFACTS = ROOT / "tests" / "artifacts"


@pytest.fixture(scope="session", autouse=True)
def _built():
    from mechsym import jar_path

    if not jar_path().exists():
        pytest.exit(f"{jar_path()} missing: run `make` first", returncode=2)


@pytest.fixture
def results_dir(tmp_path, monkeypatch):
    """A private results store: tests never touch data/results."""
    d = tmp_path / "results"
    d.mkdir()
    monkeypatch.setenv("MECHSYM_RESULTS", str(d))
    monkeypatch.setenv("MECHSYM_BENCH_LOCK", str(tmp_path / "bench.lock"))
    return d


@pytest.fixture(scope="session")
def artifacts():
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


def mechsym(*args, env=None, timeout=300, **kw):
    """Run the `mechsym` CLI in a subprocess; returns CompletedProcess."""
    return subprocess.run([str(VENV_BIN / "mechsym"), *args], capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})}, **kw)


def java_kernel(kernel, *args, jdk=None, flags=(), timeout=120):
    from mechsym import classpath
    from mechsym.jdk import discover

    java = (jdk or discover()[0]).java
    return subprocess.run([java, *flags, "-cp", classpath(), kernel, *args], capture_output=True, text=True, timeout=timeout)


def default_sigint():
    """preexec_fn for a child that must see Ctrl-C: a shell running a script in the background starts its
    commands with SIGINT ignored, and Python then installs no KeyboardInterrupt handler."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def kernel_process(kernel, *args, jdk=None, flags=(), timeout=120):
    """Run any kernel by name (a Java class, or c:<binary> for build/c/<binary>; see mechsym.kernels) in a
    fresh process; returns the CompletedProcess, whatever its exit code."""
    from mechsym.kernels import command

    return subprocess.run(command(kernel, args, jdk=jdk, flags=flags), capture_output=True, text=True,
                          timeout=timeout)


def run_kernel(kernel, *args, jdk=None, flags=(), timeout=120):
    """Run a kernel that must succeed (exit 0); returns its CSV rows as mechsym.launch.parse_csv reads them."""
    from mechsym import launch

    r = kernel_process(kernel, *args, jdk=jdk, flags=flags, timeout=timeout)
    assert r.returncode == 0, f"{kernel} {' '.join(args)}: exit {r.returncode}\n{r.stderr}"
    return launch.parse_csv(r.stdout)


def assert_refused(r, name):
    """A kernel run refused as a bad argument: exit 2, nothing on stdout, exactly one line on stderr, naming the
    argument (`name`, e.g. "--threads")."""
    assert r.returncode == 2, f"exit {r.returncode}\nstdout: {r.stdout[:500]}\nstderr: {r.stderr}"
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1, lines
    assert name in lines[0], lines[0]
