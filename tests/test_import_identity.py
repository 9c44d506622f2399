"""Whose runs a bundle holds: a run's machine is what its own metadata says, and must agree with its folder, the
bundle's manifest and, for this machine's id, the local identity. A bundle posing as this machine (its folder or
its runs named with this machine's id) or a run extending a run of this store's other machine is refused with one
line and leaves the store byte-identical."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest

from synthetic import save_synthetic, synthetic_locks

HERE, OTHER = "amd-epyc-2cpu-24g", "intel-xeon-16cpu-64g"


def files(root: Path) -> dict:
    return {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def repack(archive: Path, out: Path, member=lambda n, b: (n, b), manifest=lambda m: m) -> Path:
    """A copy of a bundle with members (name, bytes) and the manifest changed, its checksums made to fit."""
    with tarfile.open(archive) as tar:
        members = {m.name: tar.extractfile(m).read() for m in tar.getmembers()}
    head = json.loads(members.pop("mechsym-bundle.json"))
    members = dict(member(n, b) for n, b in members.items())
    head["files"] = {n: {"sha256": hashlib.sha256(b).hexdigest(), "bytes": len(b)} for n, b in members.items()}
    head = manifest(head)
    with tarfile.open(out, "w:gz") as tar:
        for name, data in [("mechsym-bundle.json", json.dumps(head).encode()), *sorted(members.items())]:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return out


def meta_edit(change):
    def member(n, b):
        if n.endswith(".json"):
            meta = json.loads(b)
            change(meta)
            b = json.dumps(meta).encode()
        return n, b
    return member


def rename(old: str, new: str):
    def member(n, b):
        return n.replace(f"results/{old}/", f"results/{new}/"), b

    def manifest(m):
        m["machines"] = [new if x == old else x for x in m["machines"]]
        for r in m["runs"]:
            r["machine"] = new if r["machine"] == old else r["machine"]
        return m
    return member, manifest


@pytest.fixture
def setup(tmp_path, monkeypatch):
    """A bundle of OTHER's two runs, and this machine's (HERE's) store holding one run of its own."""
    from mechsym.store import bundle

    monkeypatch.setenv("MECHSYM_RESULTS", str(tmp_path / "other"))
    monkeypatch.setenv("MECHSYM_MACHINE", OTHER)
    save_synthetic(synthetic_locks(runs=1, jdks=("17",)), OTHER)
    save_synthetic(synthetic_locks(runs=1, jdks=("17",), scale=1.1), OTHER)
    archive, _ = bundle.bundle(tmp_path / "other.tar.gz", include_smoke=True)
    here = tmp_path / "results"
    here.mkdir()
    monkeypatch.setenv("MECHSYM_RESULTS", str(here))
    monkeypatch.setenv("MECHSYM_MACHINE", HERE)
    own = save_synthetic(synthetic_locks(runs=1, jdks=("17",)), HERE)
    return archive, here, own


def refused(archive: Path, here: Path, text: str, end: str = "nothing imported") -> None:
    from mechsym import MechsymError
    from mechsym.store import bundle

    before = files(here)
    with pytest.raises(MechsymError) as e:
        bundle.import_bundle(archive)
    line = str(e.value)
    assert len(line.splitlines()) == 1 and text in line and line.endswith(end), line
    assert files(here) == before


def test_the_genuine_bundle_is_imported(setup):
    from mechsym.store import bundle

    archive, here, _ = setup
    assert bundle.import_bundle(archive).startswith(f"imported 2 runs of {OTHER}")


def test_a_folder_named_for_this_machine_over_another_machines_runs_is_refused(setup, tmp_path):
    archive, here, _ = setup
    member, manifest = rename(OTHER, HERE)
    posing = repack(archive, tmp_path / "posing.tar.gz", member, manifest)
    refused(posing, here, f"its metadata names machine '{OTHER}', not the folder's {HERE}")


def test_runs_claiming_this_machines_id_throughout_are_refused(setup, tmp_path):
    archive, here, _ = setup
    member, manifest = rename(OTHER, HERE)

    def claim(meta):
        meta["machine"]["machine_id"] = HERE
    posing = repack(archive, tmp_path / "posing.tar.gz",
                    lambda n, b: meta_edit(claim)(*member(n, b)), manifest)
    refused(posing, here, f"claims this machine's id {HERE}; runs of this machine are made here, never imported")


def test_metadata_naming_another_machine_than_its_folder_is_refused(setup, tmp_path):
    archive, here, _ = setup

    def other(meta):
        meta["machine"]["machine_id"] = "arm-graviton-64cpu-128g"
    refused(repack(archive, tmp_path / "x.tar.gz", meta_edit(other)), here,
            "its metadata names machine 'arm-graviton-64cpu-128g', not the folder's")


def test_a_manifest_that_does_not_list_the_runs_machine_is_refused(setup, tmp_path):
    archive, here, _ = setup

    def manifest(m):
        m["machines"] = ["arm-graviton-64cpu-128g"]
        return m
    refused(repack(archive, tmp_path / "x.tar.gz", manifest=manifest), here, f"not listed under machine {OTHER}")


def test_a_run_extending_a_run_of_this_machine_is_refused(setup, tmp_path):
    archive, here, own = setup

    def extend(meta):
        meta["extends"] = own
    refused(repack(archive, tmp_path / "x.tar.gz", meta_edit(extend)), here,
            f"extends run '{own}', which is neither in the bundle nor stored under {OTHER}")


def test_a_run_id_too_long_for_a_path_is_refused_before_it_touches_one(setup, tmp_path):
    archive, here, _ = setup

    def longer(n, b):
        if n.startswith("results/"):
            stem = n.rsplit("/", 1)[1].split(".")[0]
            long = stem.replace("-smoke-", "-" + "s" * 280 + "-")
            n, b = n.replace(stem, long), b.replace(stem.encode(), long.encode())
        return n, b

    def manifest(m):
        for r in m["runs"]:
            r["run_id"] = r["run_id"].replace("-smoke-", "-" + "s" * 280 + "-")
        return m
    refused(repack(archive, tmp_path / "x.tar.gz", longer, manifest), here,
            "not a machine id / experiment / run id this bench writes", end="run id this bench writes")
