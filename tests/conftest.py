"""Shared fixtures and helpers, and which tests may run in parallel.

`make test` runs pytest-xdist with `--dist loadgroup`: every test that runs a kernel, a sweep or a notebook at smoke
size is put in one xdist group, "serial", so those run one after another on one worker (two kernels at once on a
2-CPU machine would each wait for the other's threads); the tests that measure nothing (tables and verdicts on
synthetic rows, pages rendered from stored results, the store, bundles, CLI parsing) run on the other worker
meanwhile. A test is serial when it is marked `kernel` or `notebook`, or when its code runs a kernel or a sweep
(SERIAL_CODE below, read from the test's source, its fixtures' and its module's helpers', so a new test that runs
kernels needs no list updated).
Without -n every test runs in order, as before."""

import ast
import functools
import inspect
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
ARTIFACTS = ROOT / "tests" / "artifacts"

#: What a test's code calls when it runs a kernel, a sweep or a smoke notebook (in-process through JPype too).
SERIAL_CODE = re.compile(r"\b(kernel_process|run_kernel|java_kernel|jpype)\b|\b(bridge|launch)\."
                         r"|\b(sweep\.execute|command|Popen|results)\(|preset=\"smoke\"|\"--preset\", \"smoke\""
                         r"|mechsym\(\"run\"")


def serial(item) -> bool:
    """Whether a test runs a kernel, a sweep or a smoke notebook: it is marked `kernel` or `notebook`, or its source,
    its fixtures' or that of a function of the test suite they use calls one (SERIAL_CODE)."""
    if item.get_closest_marker("kernel") or item.get_closest_marker("notebook"):
        return True
    fixtures = [d.func for name in item.fixturenames for d in item._fixtureinfo.name2fixturedefs.get(name, ())]
    return any(_runs_kernels(f, frozenset()) for f in [item.function, *fixtures] if _ours(f))


def _ours(func) -> bool:
    return Path(inspect.getsourcefile(func) or "").parent == ROOT / "tests"


@functools.cache
def _runs_kernels(func, seen: frozenset) -> bool:
    try:
        source = textwrap.dedent(inspect.getsource(func))
    except (OSError, TypeError):
        return True  # cannot tell: serial
    if SERIAL_CODE.search(source):
        return True
    module = inspect.getmodule(func)
    names = {n.id for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Name)}
    helpers = [getattr(module, n) for n in names if inspect.isfunction(getattr(module, n, None))]
    return any(_runs_kernels(h, seen | {func}) for h in helpers if h not in seen and h is not func and _ours(h))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        if serial(item):
            item.add_marker(pytest.mark.xdist_group("serial"))
            if getattr(config.option, "loadgroup", False) and hasattr(item, "_id"):
                # pytest-xdist 3.8 passes the group to its scheduler as a node id suffix written to item._nodeid,
                # which pytest 9.2's structured node ids no longer read, so the group is silently ignored
                # (pytest-xdist#1386, fix proposed in #1388): write the suffix where pytest 9.2 reads it.
                from _pytest.nodeid import NodeId

                item._id = NodeId.parse(f"{item.nodeid}@serial")


@pytest.fixture(autouse=True)
def _close_figures():
    """Figures a test drew are closed after it (pyplot keeps every open figure: memory, and a warning past 20)."""
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")


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


@pytest.fixture(scope="session")
def chromium():
    """The path of a headless Chromium; the test skips with the reason when there is none (fails under CI=true)."""
    from chromium import find_chromium

    path = find_chromium()
    if path is None:
        why = "chromium not found (Debian: apt-get install chromium; or set MECHSYM_CHROMIUM)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{why}: CI=true, so this is a failure, not a skip")
        pytest.skip(why)
    return path


@pytest.fixture(scope="session")
def browser(chromium):
    """One headless Chromium for the session (tests/chromium.py)."""
    from chromium import Browser

    b = Browser(chromium)
    yield b
    b.close()


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
