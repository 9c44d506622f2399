"""Imports into one store at once: one at a time (a lock under the results root), so a bundle imported by eight
processes together is stored once and completely, and an import that fails removes only the files it wrote, never
a run another import completed. Processes synchronise by what they print (a line read with a deadline), never by
sleeping."""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

import mechsym
from synthetic import save_synthetic, synthetic_locks

SRC = str(Path(mechsym.__file__).resolve().parents[1])   # the children import the mechsym this test imports
RUNS = 6

IMPORT = "import sys\nfrom mechsym.store import bundle\nprint(bundle.import_bundle(sys.argv[1]))\n"

# an import that stops after placing its first file, says so, and then fails (or goes on) as its stdin says
STALLED = """import sys
from mechsym.store import bundle
real, placed = bundle._place, []
def stall(src, dst):
    real(src, dst)
    placed.append(dst)
    if len(placed) == 1:
        print("placed", dst, flush=True)
        if sys.stdin.readline().strip() == "fail":
            raise OSError(5, "Input/output error")
bundle._place = stall
print(bundle.import_bundle(sys.argv[1]))
"""


def files(root: Path) -> dict:
    return {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def start(script: str, archive: Path, **kw) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": SRC}
    return subprocess.Popen([sys.executable, "-c", script, str(archive)], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def line_within(stream, seconds: float = 60) -> str:
    """The next line of a child's pipe, or "" when it ends or says nothing within `seconds` (a deadline, not a
    pause: select returns as soon as the line is there)."""
    ready, _, _ = select.select([stream], [], [], seconds)
    return stream.readline() if ready else ""


@pytest.fixture
def source(tmp_path, monkeypatch):
    """A store of another machine with RUNS runs, and a bundle of it."""
    from mechsym.store import bundle

    root = tmp_path / "other"
    monkeypatch.setenv("MECHSYM_RESULTS", str(root))
    monkeypatch.setenv("MECHSYM_MACHINE", "intel-xeon-16cpu-64g")
    for i in range(RUNS):
        save_synthetic(synthetic_locks(scale=1 + i / 10, runs=1, jdks=("17",)), "intel-xeon-16cpu-64g")
    archive, _ = bundle.bundle(tmp_path / "xeon.tar.gz", include_smoke=True)
    return root, archive


@pytest.fixture
def target(tmp_path, monkeypatch, source):
    d = tmp_path / "results"
    d.mkdir()
    monkeypatch.setenv("MECHSYM_RESULTS", str(d))
    monkeypatch.setenv("MECHSYM_MACHINE", "amd-epyc-2cpu-24g")
    return d


def test_eight_concurrent_imports_store_the_bundle_once_and_completely(source, target):
    root, archive = source
    procs = [start(IMPORT, archive) for _ in range(8)]
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, [o[1] for o in outs]
    said = sorted(o[0].split(" (")[0].split(";")[0] for o in outs)
    assert said == [f"imported 0 runs of intel-xeon-16cpu-64g"] * 7 + [f"imported {RUNS} runs of intel-xeon-16cpu-64g"]
    assert files(target) == files(root)   # every run, byte for byte; no stage, no lock file left


def test_a_failing_import_never_removes_a_run_another_import_completed(source, target):
    root, archive = source
    first = start(STALLED, archive, stdin=subprocess.PIPE)
    try:
        assert line_within(first.stdout).startswith("placed ")      # one CSV of the first import is in place
        second = start(IMPORT, archive)
        waiting = line_within(second.stderr)
        assert "another import into" in waiting and "waiting for it to end" in waiting, waiting
        first.stdin.write("fail\n")
        first.stdin.flush()
        _, err = first.communicate(timeout=60)
        assert first.returncode != 0 and "Input/output error" in err
        out, err = second.communicate(timeout=60)
        assert second.returncode == 0, err
        assert out.startswith(f"imported {RUNS} runs of intel-xeon-16cpu-64g")
    finally:
        for p in (first,):
            if p.poll() is None:
                p.kill()
                p.wait()
    assert files(target) == files(root)


def test_the_lock_is_gone_after_an_import_and_a_refused_one(source, target):
    from mechsym import MechsymError
    from mechsym.store import bundle, files as fsio

    _, archive = source
    bundle.import_bundle(archive)
    assert not (target / fsio.LOCK).exists()
    clash = next(target.rglob("*.json"))
    clash.write_text(clash.read_text().replace("smoke", "standard"))
    with pytest.raises(MechsymError, match="with other contents"):
        bundle.import_bundle(archive)
    assert not (target / fsio.LOCK).exists()
