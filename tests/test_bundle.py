"""Results from many machines: `mechsym bundle` packs a machine's runs, `mechsym import` adds them elsewhere,
refusing a corrupt or foreign archive, or a clashing run id, with one line and exit 2, and never overwriting."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from conftest import mechsym
from test_verdicts import save_synthetic, synthetic_locks


def one_line_error(r, text):
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert text in lines[0], lines[0]


def files(root: Path) -> dict:
    return {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}


@pytest.fixture
def other_machine(tmp_path):
    """A second results store, as on another machine, with two locks runs and a bundle made from it."""
    root = tmp_path / "other"
    root.mkdir()
    env = {"MECHSYM_RESULTS": str(root), "MECHSYM_MACHINE": "intel-xeon-16cpu-64g"}
    import os

    old = {k: os.environ.get(k) for k in env}
    os.environ.update(env)
    try:
        save_synthetic(synthetic_locks({("reentrant", 2): 10e6, ("reentrant", 3): 14e6}), "intel-xeon-16cpu-64g")
        save_synthetic(synthetic_locks(), "intel-xeon-16cpu-64g")
    finally:
        for k, v in old.items():
            os.environ.pop(k) if v is None else os.environ.__setitem__(k, v)
    archive = tmp_path / "xeon.tar.gz"
    r = mechsym("bundle", "--output", str(archive), env=env)
    assert r.returncode == 0, r.stderr
    assert "2 runs of intel-xeon-16cpu-64g (locks 2)" in r.stdout
    return root, archive


def test_round_trip(other_machine, results_dir):
    root, archive = other_machine
    save_synthetic(synthetic_locks(), "amd-epyc-2cpu-24g")  # this machine's own run is kept as it is
    before = files(results_dir)
    r = mechsym("import", str(archive))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("imported 2 runs of intel-xeon-16cpu-64g (locks 2)")
    after = files(results_dir)
    assert all(after[k] == v for k, v in before.items())
    # byte for byte what the other machine stored
    theirs = files(root)
    assert {k: after[k] for k in theirs} == theirs
    from mechsym import store

    assert store.machines() == ["amd-epyc-2cpu-24g", "intel-xeon-16cpu-64g"]
    assert len(store.runs("locks", "intel-xeon-16cpu-64g")) == 2
    assert set(store.load("locks", "all")["machine"]) == {"amd-epyc-2cpu-24g", "intel-xeon-16cpu-64g"}
    # importing it again adds nothing and is not an error
    r = mechsym("import", str(archive))
    assert r.returncode == 0 and "imported 0 runs" in r.stdout and "2 already stored" in r.stdout
    assert files(results_dir) == after
    # and both machines are judged side by side
    r = mechsym("verdicts", "locks", "--machine", "all", "--format", "csv")
    assert r.returncode == 0 and "intel-xeon-16cpu-64g" in r.stdout and "amd-epyc-2cpu-24g" in r.stdout


def test_manifest_names_every_file_with_its_checksum(other_machine):
    _, archive = other_machine
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        manifest = json.load(tar.extractfile("mechsym-bundle.json"))
    assert names[0] == "mechsym-bundle.json"
    assert manifest["format"] == "mechsym-results-bundle" and manifest["machines"] == ["intel-xeon-16cpu-64g"]
    assert sorted(manifest["files"]) == sorted(n for n in names if n != "mechsym-bundle.json")
    assert all(n.startswith("results/intel-xeon-16cpu-64g/locks/") for n in manifest["files"])
    assert len(manifest["runs"]) == 2


def rewrite(archive: Path, out: Path, change) -> Path:
    """Copy an archive, passing each (name, bytes) through change() (None drops the member)."""
    with tarfile.open(archive) as tar:
        members = [(m.name, tar.extractfile(m).read()) for m in tar.getmembers()]
    with tarfile.open(out, "w:gz") as tar:
        for name, data in members:
            got = change(name, data)
            if got is None:
                continue
            name, data = got
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out


def test_corrupt_archives_are_refused(other_machine, results_dir, tmp_path):
    _, archive = other_machine
    data = archive.read_bytes()
    truncated = tmp_path / "truncated.tar.gz"
    truncated.write_bytes(data[: len(data) // 2])
    one_line_error(mechsym("import", str(truncated)), f"archive {truncated}: corrupt archive")

    def edit_csv(name, b):
        return (name, b.replace(b",ok,", b",ok,", 1)[:-20] + b"9" * 20) if name.endswith(".csv") else (name, b)

    tampered = rewrite(archive, tmp_path / "tampered.tar.gz", edit_csv)
    one_line_error(mechsym("import", str(tampered)), "does not match its checksum; nothing imported")

    missing = rewrite(archive, tmp_path / "missing.tar.gz", lambda n, b: None if n.endswith(".json") and "results/" in n else (n, b))
    one_line_error(mechsym("import", str(missing)), "is listed in mechsym-bundle.json but missing; nothing imported")

    unsafe = rewrite(archive, tmp_path / "unsafe.tar.gz",
                     lambda n, b: ("../../evil.csv", b) if n.endswith(".csv") else (n, b))
    one_line_error(mechsym("import", str(unsafe)), "unsafe member name '../../evil.csv'")

    one_line_error(mechsym("import", str(tmp_path / "nope.tar.gz")), "no such file")
    assert files(results_dir) == {}
    assert not (tmp_path.parent / "evil.csv").exists()


def test_foreign_archives_are_refused(results_dir, tmp_path):
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"this is not an archive\n" * 50)
    one_line_error(mechsym("import", str(junk)), "not a mechsym bundle (not a tar or tar.gz archive)")
    foreign = tmp_path / "foreign.tar.gz"
    with tarfile.open(foreign, "w:gz") as tar:
        data = b"hello"
        info = tarfile.TarInfo("README.md")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    one_line_error(mechsym("import", str(foreign)), "not a mechsym bundle (no mechsym-bundle.json")
    other = tmp_path / "other-format.tar.gz"
    with tarfile.open(other, "w:gz") as tar:
        data = json.dumps({"format": "something-else", "version": 1, "files": {}}).encode()
        info = tarfile.TarInfo("mechsym-bundle.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    one_line_error(mechsym("import", str(other)), "does not say format 'mechsym-results-bundle'")
    assert files(results_dir) == {}


def test_a_clashing_run_id_is_refused_and_nothing_is_written(other_machine, results_dir):
    root, archive = other_machine
    # this store already holds one of the bundle's run ids, with other contents
    theirs = sorted(p for p in root.rglob("*.json"))
    clash = theirs[0].relative_to(root)
    target = results_dir / clash
    target.parent.mkdir(parents=True)
    target.with_suffix(".csv").write_text("run_id,metric,value\nx,throughput,1\n")
    target.write_text(json.dumps({"run_id": clash.stem, "experiment": "locks", "status": "complete"}))
    before = files(results_dir)
    r = mechsym("import", str(archive))
    one_line_error(r, f"run id {clash.stem} is already stored in")
    assert "runs are never overwritten (nothing imported)" in r.stderr
    assert files(results_dir) == before  # the other, new run was not written either


def test_bundle_errors(results_dir, tmp_path):
    one_line_error(mechsym("bundle", "--output", str(tmp_path / "x.tar.gz")), "no stored results to bundle")
    save_synthetic(synthetic_locks(), "machine-a")
    out = tmp_path / "x.tar.gz"
    r = mechsym("bundle", "--machine", "machine-a", "--output", str(out))
    assert r.returncode == 0, r.stderr
    one_line_error(mechsym("bundle", "--machine", "machine-a", "--output", str(out)), "already exists")
    one_line_error(mechsym("bundle", "--machine", "nope"), "machine 'nope': no stored results to bundle")
    r = mechsym("bundle", "--machine", "all", "--output", str(tmp_path / "all.tar.gz"))
    assert r.returncode == 0 and "1 runs of machine-a" in r.stdout
