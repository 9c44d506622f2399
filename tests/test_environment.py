"""The environment a reader gets: pinned dependencies that agree everywhere, notebook progress bars that save as
one line, and `make lab` that prints a URL that works.

requirements.lock (made by `make lock`) pins every package for every Python >= 3.10; `make` installs from it;
environment.yml lists pyproject.toml's dependencies at the lock's versions for its Python."""

from __future__ import annotations

import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
import tomllib
import urllib.request
from importlib import metadata

import pytest
from packaging.markers import Marker
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from conftest import ROOT

LOCK = ROOT / "requirements.lock"
NOT_PYTHON = {"python", "openjdk", "maven", "make", "gcc", "pip"}   # environment.yml's toolchain, not packages


def direct() -> dict[str, Requirement]:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    return {canonicalize_name(r.name): r for r in map(Requirement, deps)}


def lock_entries() -> list[tuple[str, str, Marker | None]]:
    """(name, version, marker) per pinned line of requirements.lock."""
    out = []
    for n, line in enumerate(LOCK.read_text().splitlines(), start=1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        req, _, marker = line.partition(";")
        m = re.fullmatch(r"([A-Za-z0-9._-]+)==([^\s]+)", req.strip())
        assert m, f"requirements.lock line {n}: not pinned with ==: {line}"
        out.append((canonicalize_name(m.group(1)), m.group(2), Marker(marker.strip()) if marker.strip() else None))
    return out


def pins_for(python: str) -> dict[str, str]:
    """The lock's version of each package on Linux x86-64 with this Python (e.g. '3.11.7')."""
    env = {"python_full_version": python, "python_version": ".".join(python.split(".")[:2]),
           "sys_platform": "linux", "platform_system": "Linux", "os_name": "posix", "platform_machine": "x86_64",
           "implementation_name": "cpython", "platform_python_implementation": "CPython"}
    return {name: v for name, v, marker in lock_entries() if marker is None or marker.evaluate(env)}


def environment_yml() -> tuple[str, dict[str, str]]:
    """environment.yml's Python version and its Python packages -> pinned version ('' when unpinned)."""
    import yaml

    doc = yaml.safe_load((ROOT / "environment.yml").read_text())
    python, packages = "", {}
    for dep in doc["dependencies"]:
        specs = dep["pip"] if isinstance(dep, dict) else [dep]
        for spec in specs:
            m = re.fullmatch(r"([A-Za-z0-9._-]+)\s*(?:(==|=)\s*([^\s]+))?", spec.strip())
            assert m, f"environment.yml: cannot read {spec!r}"
            name = canonicalize_name(m.group(1))
            if name == "python":
                python = m.group(3) or ""
            elif name not in NOT_PYTHON:
                packages[name] = m.group(3) or ""
    return python, packages


def test_the_lock_pins_every_dependency_within_pyproject_ranges():
    here = pins_for(".".join(map(str, sys.version_info[:3])))
    for name, req in direct().items():
        assert name in here, f"{name}: in pyproject.toml, not in requirements.lock: run `make lock`"
        assert req.specifier.contains(here[name], prereleases=True), \
            f"{name}: the lock pins {here[name]}, outside pyproject.toml's {req.specifier}: run `make lock`"
    for minor in ("3.10.0", "3.12.0", "3.13.0"):  # every supported Python gets a version of every dependency
        assert set(direct()) <= set(pins_for(minor)), f"requirements.lock: Python {minor} lacks packages"


def test_environment_yml_lists_the_same_packages_at_the_lock_versions():
    python, packages = environment_yml()
    assert set(packages) == set(direct()), (
        f"environment.yml and pyproject.toml differ: only in environment.yml: {sorted(set(packages) - set(direct()))}, "
        f"only in pyproject.toml: {sorted(set(direct()) - set(packages))}")
    assert re.fullmatch(r"3\.\d+", python), f"environment.yml: python={python!r}, expected one minor version (3.11)"
    locked = pins_for(python + ".0")
    wrong = {n: (v, locked[n]) for n, v in packages.items() if v != locked[n]}
    assert not wrong, "environment.yml versions differ from requirements.lock (yml, lock): " + \
        ", ".join(f"{n} {a} vs {b}" for n, (a, b) in sorted(wrong.items()))


def test_the_environment_is_the_locked_one():
    """`make` installed exactly the lock's versions (a stale .venv: run `make`)."""
    here = pins_for(".".join(map(str, sys.version_info[:3])))
    differ = {}
    for name, version in here.items():
        try:
            got = metadata.version(name)
        except metadata.PackageNotFoundError:
            got = "missing"
        if got != version:
            differ[name] = (got, version)
    assert not differ, "installed vs locked: " + ", ".join(f"{n} {a} vs {b}" for n, (a, b) in sorted(differ.items()))


@pytest.mark.timeout(180)
def test_a_progress_bar_is_one_line_in_a_saved_notebook(tmp_path):
    """A sweep's tqdm.auto bar, as notebooks run it: with ipywidgets, one widget output whose saved state is the
    finished bar (no 'IProgress not found' warning, no stack of text lines); a report shows it as one text line."""
    import nbformat
    import papermill as pm

    from mechsym.view.reports import KERNEL_QUIET, for_reader

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(
        "import sys\nfrom tqdm.auto import tqdm\n"
        "with tqdm(total=30, desc='locks [smoke]', unit='fork', file=sys.stderr, dynamic_ncols=True) as bar:\n"
        "    for _ in range(30):\n        bar.update(1)\n")]
    out = tmp_path / "out.ipynb"
    pm.execute_notebook(nb, str(out), kernel_name="python3", progress_bar=False, log_output=False,
                        extra_arguments=KERNEL_QUIET)
    done = nbformat.read(str(out), as_version=4)
    outputs = done.cells[0].outputs
    assert len(outputs) == 1, outputs
    assert "application/vnd.jupyter.widget-view+json" in outputs[0].get("data", {}), outputs
    state = done.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    bars = [m["state"] for m in state.values() if m["model_name"] == "FloatProgressModel"]
    assert bars and bars[0]["value"] == bars[0]["max"] == 30
    page = for_reader(done)
    text = page.cells[0].outputs[0]["data"]
    assert list(text) == ["text/plain"] and "100%" in text["text/plain"] and "30/30" in text["text/plain"], text


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.kernel
@pytest.mark.timeout(120)
def test_make_lab_prints_a_url_that_serves_the_lab():
    """`make lab` as whoever runs the tests (root in CI): headless, on 127.0.0.1, a URL with its token; the server
    answers that URL's token. The server's whole process group is stopped at the end."""
    port = free_port()
    proc = subprocess.Popen(["make", "-s", "-o", "all", "lab", f"LAB_PORT={port}"], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True,
                            env={k: v for k, v in os.environ.items() if k != "JUPYTER_TOKEN"})
    seen, url, running = [], None, False
    try:
        deadline = time.monotonic() + 90
        buf = b""
        while not (url and running):
            left = deadline - time.monotonic()
            assert left > 0, "no URL and 'is running' line within 90 s:\n" + "".join(seen)
            if not select.select([proc.stdout], [], [], left)[0]:
                continue
            chunk = os.read(proc.stdout.fileno(), 65536)
            assert chunk, f"make lab exited ({proc.wait()}):\n" + "".join(seen)
            buf += chunk
            *lines, buf = buf.split(b"\n")
            for line in (ln.decode(errors="replace") + "\n" for ln in lines):
                seen.append(line)
                m = re.search(rf"open (http://127\.0\.0\.1:{port}/lab\?token=[\w-]+)", line)
                url = url or (m.group(1) if m else None)
                running = running or "is running at" in line
        text = "".join(seen)
        assert f"ssh -N -L {port}:localhost:{port}" in text
        assert "Running as root is not recommended" not in text
        token = url.split("token=")[1]
        # Jupyter logs "is running at" a moment before its socket listens: poll the URL until it answers, waiting
        # on the server's output between tries.
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=20) as r:
                    assert r.status == 200
                break
            except urllib.error.URLError as e:
                if not isinstance(e.reason, ConnectionRefusedError) or time.monotonic() > deadline:
                    pytest.fail(f"{e}: port {port}, make lab exit {proc.poll()}\n{text}")
                if select.select([proc.stdout], [], [], 0.1)[0]:
                    text += os.read(proc.stdout.fileno(), 65536).decode(errors="replace")
        with pytest.raises(urllib.error.HTTPError):  # and only with its token
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token=wrong", timeout=20)
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stdout.close()
