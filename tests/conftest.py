"""Shared fixtures and helpers, and which tests may run in parallel.

`make test` runs pytest-xdist with `--dist loadgroup`: every test marked `kernel` (it runs a kernel, a sweep or a
smoke notebook's sweep itself: `@pytest.mark.kernel`, or `pytestmark = pytest.mark.kernel` for a whole file) is put
in one xdist group, "serial", so those run one after another on one worker (two kernels at once on a 2-CPU machine
would each wait for the other's threads), each holding the kernel lock from its setup to its teardown. The tests that
measure nothing (tables and verdicts on synthetic rows, pages rendered from stored results, the store, bundles, CLI
parsing, a kernel's refusal of a bad argument before it runs) are not marked and run on both workers meanwhile.
A test that only reads a smoke run is not marked either: `smoke_store` runs each experiment's smoke sweep once per
pytest run, for every worker, under the kernel lock (a flock in a directory the workers share), so the notebooks'
rendering (most of their time) runs beside the kernels. Without -n every test runs in order."""

import contextlib
import fcntl
import functools
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
VENV_BIN = Path(sys.executable).parent
# the environment as pytest started, before any test's monkeypatch: the shared smoke runs get this one, not the
# environment of whichever test happened to ask first
SESSION_ENV = dict(os.environ)
ARTIFACTS = ROOT / "tests" / "artifacts"

def serial(item) -> bool:
    """Whether a test runs a kernel or a sweep itself: it is marked `kernel`."""
    return item.get_closest_marker("kernel") is not None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    for item in items:
        item.mechsym_serial = serial(item)
        if item.mechsym_serial:
            item.add_marker(pytest.mark.xdist_group("serial"))
        group = item.get_closest_marker("xdist_group")
        if group and getattr(config.option, "loadgroup", False) and hasattr(item, "_id"):
            # pytest-xdist 3.8 passes the group to its scheduler as a node id suffix written to item._nodeid,
            # which pytest 9.2's structured node ids no longer read, so the group is silently ignored
            # (pytest-xdist#1386, fix proposed in #1388): write the suffix where pytest 9.2 reads it.
            from _pytest.nodeid import NodeId

            item._id = NodeId.parse(f"{item.nodeid}@{group.args[0] if group.args else group.kwargs['name']}")


def run_dir(config) -> Path:
    """A directory of this pytest run that every xdist worker shares (the parent of the workers' base temps; without
    xdist, the base temp)."""
    base = config._tmp_path_factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


class KernelLock:
    """An exclusive flock on `path` (one kernel at a time across the run's workers), re-entrant within a process."""

    def __init__(self, path: Path):
        self.path, self.depth, self.fd = path, 0, None

    def __enter__(self):
        if self.depth == 0:
            self.fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o644)
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        self.depth += 1
        return self

    def __exit__(self, *exc):
        self.depth -= 1
        if self.depth == 0:
            fcntl.flock(self.fd, fcntl.LOCK_UN)
            os.close(self.fd)
            self.fd = None


@functools.cache
def kernel_lock(config) -> KernelLock:
    return KernelLock(run_dir(config) / "kernels.lock")


# Under xdist the kernel tests are the run's critical path (one worker runs them all, ~250 s of a ~305 s run), so
# the other tests, and what they start, run a little below them (nice 5): a notebook render on the other CPU then
# keeps a kernel's threads waiting less. Priority only: no test waits on another, and none asserts a time.
OTHERS_NICE = 5


def _priority(serial_test: bool) -> None:
    if os.environ.get("PYTEST_XDIST_WORKER"):
        try:
            os.setpriority(os.PRIO_PROCESS, 0, 0 if serial_test else OTHERS_NICE)
        except OSError:   # not allowed to go back to 0 (no CAP_SYS_NICE): stay where it is
            pass


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """A serial test holds the kernel lock from its setup to its teardown (fixtures that run kernels included)."""
    _priority(getattr(item, "mechsym_serial", False))
    with kernel_lock(item.config) if getattr(item, "mechsym_serial", False) else contextlib.nullcontext():
        yield


@pytest.fixture
def kernels(pytestconfig) -> KernelLock:
    """The kernel lock, for a test that runs kernels for a part of its time only and is not marked `kernel` (the fleet
    over SSH: a minute of building hosts, seconds of sweeps): it holds the lock around that part, `with kernels:`."""
    return kernel_lock(pytestconfig)


@pytest.fixture(scope="session")
def smoke_store(pytestconfig):
    """`smoke_store(name)`: the results store of one `mechsym run <name> --preset smoke`, run once per pytest run
    for all workers, under the kernel lock. Read it, do not write it: copy it into a test's own store. Once the run
    is done, asking for it again does not wait for the lock (for whichever kernel test holds it)."""

    def get(name: str) -> Path:
        here = run_dir(pytestconfig) / "smoke" / name
        if (here / "done").exists():   # written last, after the run: no need to wait for the lock to read it
            return here / "results"
        with kernel_lock(pytestconfig):
            if not (here / "done").exists():
                shutil.rmtree(here, ignore_errors=True)
                here.mkdir(parents=True)
                r = mechsym("run", name, "--preset", "smoke", "--no-progress", timeout=600, base_env=SESSION_ENV,
                            env={"MECHSYM_RESULTS": str(here / "results"), "MECHSYM_BENCH_LOCK": str(here / "bench.lock")})
                assert r.returncode == 0, f"mechsym run {name} --preset smoke: exit {r.returncode}\n{r.stderr[-3000:]}"
                (here / "done").write_text(r.stdout)
        return here / "results"

    return get


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


def mechsym(*args, env=None, timeout=300, base_env=None, **kw):
    """Run the `mechsym` CLI in a subprocess; returns CompletedProcess. Its environment is `base_env` (default: this
    process's, with any test's monkeypatches) updated with `env`."""
    return subprocess.run([str(VENV_BIN / "mechsym"), *args], capture_output=True, text=True, timeout=timeout,
                          env={**(os.environ if base_env is None else base_env), **(env or {})}, **kw)


def java_kernel(kernel, *args, jdk=None, flags=(), timeout=120):
    """Run a Java kernel class in a fresh process (its command line as mechsym.run.kernels.command builds it)."""
    return kernel_process(kernel, *args, jdk=jdk, flags=flags, timeout=timeout)


def default_sigint():
    """preexec_fn for a child that must see Ctrl-C: a shell running a script in the background starts its
    commands with SIGINT ignored, and Python then installs no KeyboardInterrupt handler."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_DFL)


def kernel_process(kernel, *args, jdk=None, flags=(), timeout=120):
    """Run any kernel by name (a Java class, or c:<binary> for build/c/<binary>; see mechsym.run.kernels) in a
    fresh process; returns the CompletedProcess, whatever its exit code."""
    from mechsym.run.kernels import command

    return subprocess.run(command(kernel, args, jdk=jdk, flags=flags), capture_output=True, text=True,
                          timeout=timeout)


def run_kernel(kernel, *args, jdk=None, flags=(), timeout=120):
    """Run a kernel that must succeed (exit 0); returns its CSV rows as mechsym.run.launch.parse_csv reads them."""
    from mechsym.run import launch

    r = kernel_process(kernel, *args, jdk=jdk, flags=flags, timeout=timeout)
    assert r.returncode == 0, f"{kernel} {' '.join(args)}: exit {r.returncode}\n{r.stderr}"
    return launch.parse_csv(r.stdout)


#: The rows every Java kernel adds to each timed run (common/JitGc.java), named <phase>_jit_ms ... where a run
#: has several timed phases.
JIT_GC = frozenset({"jit_ms", "gc_ms", "gc_count"})


def without_jit_gc(df):
    """A Java kernel's rows without its JIT and GC time rows (what the kernel measured), once they were found
    there, each a whole number >= 0."""
    harness = df["metric"].str.endswith(tuple(JIT_GC))
    found = {m.rsplit("_", 2)[-2] + "_" + m.rsplit("_", 1)[-1] for m in df.loc[harness, "metric"]}
    assert found == JIT_GC, f"JIT/GC rows: {sorted(found)}, expected {sorted(JIT_GC)}"
    values = df.loc[harness, "value"]
    assert (values >= 0).all() and (values == values.round()).all(), df[harness]
    return df[~harness]


def assert_refused(r, name):
    """A kernel run refused as a bad argument: exit 2, nothing on stdout, exactly one line on stderr, naming the
    argument (`name`, e.g. "--threads")."""
    assert r.returncode == 2, f"exit {r.returncode}\nstdout: {r.stdout[:500]}\nstderr: {r.stderr}"
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1, lines
    assert name in lines[0], lines[0]
