"""Results from many machines: `mechsym bundle` packs a machine's runs, `mechsym import` adds them elsewhere,
refusing a corrupt or foreign archive, or a clashing run id, with one line and exit 2, and never overwriting."""

from __future__ import annotations

import io
import json
import tarfile
from pathlib import Path

import pytest

from conftest import mechsym
from synthetic import save_synthetic, synthetic_locks


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
    r = mechsym("bundle", "--include-smoke", "--output", str(archive), env=env)
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
    from mechsym.store import runs as store

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
    r = mechsym("bundle", "--machine", "machine-a", "--include-smoke", "--output", str(out))
    assert r.returncode == 0, r.stderr
    one_line_error(mechsym("bundle", "--machine", "machine-a", "--include-smoke", "--output", str(out)),
                   "already exists")
    one_line_error(mechsym("bundle", "--machine", "nope"), "machine 'nope': no stored results to bundle")
    r = mechsym("bundle", "--machine", "all", "--include-smoke", "--output", str(tmp_path / "all.tar.gz"))
    assert r.returncode == 0 and "1 runs of machine-a" in r.stdout


def test_smoke_runs_stay_out_unless_asked(results_dir, tmp_path, monkeypatch):
    """A smoke run's numbers are not measurements: a bundle leaves them out (and says so) unless --include-smoke."""
    from mechsym.store import runs as store

    smoke = save_synthetic(synthetic_locks(), "machine-a")
    out = tmp_path / "only-smoke.tar.gz"
    r = mechsym("bundle", "--machine", "machine-a", "--output", str(out))
    one_line_error(r, "no complete stored runs to bundle for machine-a")
    assert "(1 smoke runs left out: add --include-smoke to pack them)" in r.stderr
    assert not out.exists() and not list(tmp_path.glob(".only-smoke*"))
    df = synthetic_locks()
    meta = {"preset": "standard", "status": "complete", "machine": {"machine_id": "machine-a"}}
    standard = store.save("locks", df.drop(columns=["run_id", "machine"]), meta, machine="machine-a").stem
    before = files(results_dir)
    r = mechsym("bundle", "--machine", "machine-a", "--output", str(out))
    assert r.returncode == 0, r.stderr
    assert "1 runs of machine-a (locks 1); 1 smoke runs left out (--include-smoke packs them)" in r.stdout
    with tarfile.open(out) as tar:
        manifest = json.load(tar.extractfile("mechsym-bundle.json"))
    assert [(x["run_id"], x["preset"]) for x in manifest["runs"]] == [(standard, "standard")]
    both = tmp_path / "both.tar.gz"
    r = mechsym("bundle", "--machine", "machine-a", "--include-smoke", "--output", str(both))
    assert r.returncode == 0 and "2 runs of machine-a (locks 2)" in r.stdout and "left out" not in r.stdout
    with tarfile.open(both) as tar:
        assert {x["run_id"] for x in json.load(tar.extractfile("mechsym-bundle.json"))["runs"]} == {smoke, standard}
    assert files(results_dir) == before


# ---------------------------------------------------------------- a run whose CSV does not match its JSON

def cut_lines(csv_path: Path, drop: int = 2) -> None:
    """Cut a CSV at a line boundary, `drop` rows short (what `truncate` or a full disk leaves)."""
    lines = csv_path.read_bytes().splitlines(keepends=True)
    csv_path.write_bytes(b"".join(lines[:-drop]))


def test_bundle_refuses_a_truncated_or_missing_run(results_dir, tmp_path):
    save_synthetic(synthetic_locks(), "machine-a")
    save_synthetic(synthetic_locks(), "machine-a")
    csv = sorted(results_dir.rglob("*.csv"))[-1]
    cut_lines(csv)
    before = files(results_dir)
    out = tmp_path / "cut.tar.gz"
    r = mechsym("bundle", "--machine", "machine-a", "--include-smoke", "--output", str(out))
    one_line_error(r, f"corrupt results file {csv}: ")
    assert "bundle refused" in r.stderr and "nothing written" in r.stderr
    assert not out.exists() and not list(tmp_path.glob(".cut.tar.gz*"))
    csv.unlink()
    one_line_error(mechsym("bundle", "--machine", "machine-a", "--include-smoke", "--output", str(out)),
                   f"results file {csv} is missing")
    assert not out.exists()
    assert {k: v for k, v in files(results_dir).items() if k != csv.relative_to(results_dir)} == \
           {k: v for k, v in before.items() if k != csv.relative_to(results_dir)}


def test_bundle_into_a_folder_it_cannot_write_says_why(results_dir, tmp_path):
    save_synthetic(synthetic_locks(), "machine-a")
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    r = mechsym("bundle", "--machine", "machine-a", "--include-smoke", "--output", str(blocker / "x.tar.gz"))
    one_line_error(r, f"output {blocker / 'x.tar.gz'}: cannot be written ({blocker} is a file, not a folder)")


def reseal(archive: Path, out: Path, change) -> Path:
    """Copy an archive, changing members through change(name, bytes), and write a manifest whose checksums fit:
    what a bundle made from a store with a cut file looked like."""
    with tarfile.open(archive) as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar.getmembers()}
    manifest = json.loads(members.pop("mechsym-bundle.json"))
    members = {n: change(n, b) for n, b in members.items()}
    import hashlib

    manifest["files"] = {n: {"sha256": hashlib.sha256(b).hexdigest(), "bytes": len(b)} for n, b in members.items()}
    with tarfile.open(out, "w:gz") as tar:
        for name, data in [("mechsym-bundle.json", json.dumps(manifest).encode()), *sorted(members.items())]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out


def drop_rows(b: bytes, n: int = 2) -> bytes:
    return b"".join(b.splitlines(keepends=True)[:-n])


def test_import_refuses_a_run_cut_at_a_line_boundary(other_machine, results_dir, tmp_path):
    _, archive = other_machine
    cut = reseal(archive, tmp_path / "cut.tar.gz", lambda n, b: drop_rows(b) if n.endswith(".csv") else b)
    r = mechsym("import", str(cut))
    one_line_error(r, "corrupt results: ")
    assert "where its metadata records" in r.stderr and "nothing imported" in r.stderr
    assert files(results_dir) == {}

    # a sidecar from before checksums: the row count alone catches it
    def old_and_cut(n, b):
        if n.endswith(".json"):
            m = json.loads(b)
            m.pop("csv_sha256"), m.pop("csv_bytes")
            return json.dumps(m).encode()
        return drop_rows(b)

    old = reseal(archive, tmp_path / "old.tar.gz", old_and_cut)
    one_line_error(mechsym("import", str(old)), "rows where its metadata records")
    assert files(results_dir) == {}


# ---------------------------------------------------------------- import is all or nothing

def test_a_disk_filling_part_way_through_import_leaves_the_store_as_it_was(other_machine, results_dir, monkeypatch):
    import errno

    from mechsym import MechsymError
    from mechsym.store import bundle, runs as store

    _, archive = other_machine
    save_synthetic(synthetic_locks(), "machine-a")
    before = files(results_dir)
    real = bundle._write
    calls = []

    def fills_up(path, data):
        calls.append(path)
        if len(calls) == 3:  # the first run's two files went in; the disk is full at the third
            real(path, data[: len(data) // 2])
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(path, data)

    monkeypatch.setattr(bundle, "_write", fills_up)
    with pytest.raises(MechsymError) as e:
        bundle.import_bundle(archive)
    assert len(str(e.value).splitlines()) == 1
    assert "No space left on device" in str(e.value) and "the store is as it was (nothing imported)" in str(e.value)
    assert files(results_dir) == before
    assert sorted(p.name for p in results_dir.iterdir()) == ["machine-a"]  # no staging folder, no empty machine
    monkeypatch.setattr(bundle, "_write", real)
    assert bundle.import_bundle(archive).startswith("imported 2 runs")


def test_a_failure_while_renaming_into_place_is_rolled_back(other_machine, results_dir, monkeypatch):
    import os

    from mechsym import MechsymError
    from mechsym.store import bundle

    _, archive = other_machine
    real = os.link
    n = []

    def fails(src, dst):
        n.append(dst)
        if len(n) == 3:  # the first run is in place, the second run's CSV fails
            raise OSError(5, "Input/output error")
        return real(src, dst)

    monkeypatch.setattr(os, "link", fails)
    with pytest.raises(MechsymError, match=r"Input/output error\); the store is as it was"):
        bundle.import_bundle(archive)
    assert files(results_dir) == {} and list(results_dir.iterdir()) == []


def test_import_refuses_a_full_store_before_writing(other_machine, results_dir, monkeypatch):
    import os

    from mechsym import MechsymError
    from mechsym.store import bundle

    _, archive = other_machine
    real = os.statvfs(results_dir)

    class Full:
        f_bavail, f_frsize, f_files, f_favail = 1, real.f_frsize, real.f_files, real.f_favail

    monkeypatch.setattr(os, "statvfs", lambda p: Full)
    with pytest.raises(MechsymError, match="MiB free on its filesystem.*nothing imported"):
        bundle.import_bundle(archive)
    assert list(results_dir.iterdir()) == []


@pytest.mark.kernel
def test_stale_staging_of_a_killed_import_is_cleaned(other_machine, results_dir):
    import subprocess

    from mechsym.store import bundle, runs as store

    _, archive = other_machine
    dead = subprocess.run(["true"]).args and subprocess.Popen(["true"])
    dead.wait()
    stale = results_dir / f".import-{dead.pid}-abcdef"
    stale.mkdir()
    (stale / "0.x.csv").write_text("half")
    assert bundle.import_bundle(archive).startswith("imported 2 runs")
    assert not stale.exists()
    assert store.machines() == ["intel-xeon-16cpu-64g"]


# ---------------------------------------------------------------- runs re-labelled by the alias table

def test_relabelled_runs_travel_under_their_new_id(results_dir, tmp_path, monkeypatch):
    from mechsym.store import bundle, layout, runs as store

    monkeypatch.setenv("MECHSYM_MACHINE", "amd-epyc-2cpu-24g-aaaaaa")
    save_synthetic(synthetic_locks(), "amd-epyc-2cpu-24g")
    run = next(results_dir.rglob("*.json")).stem
    (results_dir / "machines.csv").write_text(",".join(layout.ALIAS_COLUMNS) + "\n"
                                              f"amd-epyc-2cpu-24g,{run},amd-epyc-2cpu-24g-aaaaaa,Synthetic CPU,,4,,6.0,test\n")
    before = files(results_dir)
    out, summary = bundle.bundle(tmp_path / "mine.tar.gz", include_smoke=True)
    assert "1 runs of amd-epyc-2cpu-24g-aaaaaa" in summary
    with tarfile.open(out) as tar:
        names = tar.getnames()
        manifest = json.load(tar.extractfile("mechsym-bundle.json"))
    assert f"results/amd-epyc-2cpu-24g-aaaaaa/locks/{run}.csv" in names
    assert manifest["relabelled"] == [{"run_id": run, "experiment": "locks", "stored_as": "amd-epyc-2cpu-24g",
                                       "machine": "amd-epyc-2cpu-24g-aaaaaa"}]
    # back into the same store: already there (under its old folder), nothing written
    assert "imported 0 runs" in bundle.import_bundle(out) and files(results_dir) == before
    # into another store, e.g. the other EPYC's, whose own runs sit under amd-epyc-2cpu-24g: kept apart
    other = tmp_path / "other"
    monkeypatch.setenv("MECHSYM_RESULTS", str(other))
    monkeypatch.setenv("MECHSYM_MACHINE", "amd-epyc-2cpu-24g-bbbbbb")
    save_synthetic(synthetic_locks(), "amd-epyc-2cpu-24g")
    bundle.import_bundle(out)
    assert store.machines() == ["amd-epyc-2cpu-24g", "amd-epyc-2cpu-24g-aaaaaa"]
    assert (other / "amd-epyc-2cpu-24g-aaaaaa" / "locks" / f"{run}.csv").read_bytes() == \
           before[Path("amd-epyc-2cpu-24g") / "locks" / f"{run}.csv"]


def test_members_are_checked_against_the_manifest_before_they_are_unpacked(other_machine, results_dir, tmp_path):
    _, archive = other_machine
    with tarfile.open(archive) as tar:
        members = [(m.name, tar.extractfile(m).read()) for m in tar.getmembers()]

    def write(out, items):
        with tarfile.open(out, "w:gz") as tar:
            for name, data in items:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
        return out

    late = write(tmp_path / "late.tar.gz", members[1:] + members[:1])
    one_line_error(mechsym("import", str(late)), "not a mechsym bundle (no mechsym-bundle.json as its first member")
    bomb = write(tmp_path / "bomb.tar.gz", members + [("results/x/locks/big.csv", b"0" * 2**22)])
    one_line_error(mechsym("import", str(bomb)), "results/x/locks/big.csv is not listed in mechsym-bundle.json")
    grown = write(tmp_path / "grown.tar.gz", [(n, d + b"1,2,3\n" if n.endswith(".csv") else d) for n, d in members])
    one_line_error(mechsym("import", str(grown)), "does not match its checksum; nothing imported")
    assert files(results_dir) == {}
