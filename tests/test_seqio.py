"""The seqio experiment: sizes, scratch safety, eviction, the run loop, reference data, verdicts."""

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from conftest import default_sigint, mechsym
from mechsym import MechsymError, store
from mechsym.experiments import seqio
from mechsym.launch import KernelError
from mechsym.verdicts import OUTCOMES


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    d = tmp_path / "scratch"
    monkeypatch.setenv("MECHSYM_SCRATCH", str(d))
    monkeypatch.delenv("MECHSYM_SEQIO_SIZE", raising=False)
    return d


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    """One smoke run for the module, stored in a private results store and scratch directory."""
    root = tmp_path_factory.mktemp("seqio")
    mp = pytest.MonkeyPatch()
    mp.setenv("MECHSYM_RESULTS", str(root / "results"))
    mp.setenv("MECHSYM_SCRATCH", str(root / "scratch"))
    mp.delenv("MECHSYM_SEQIO_SIZE", raising=False)
    try:
        meta = seqio.run("smoke", progress=False)
        yield meta, root
    finally:
        mp.undo()


@pytest.mark.parametrize("text, size", [("400M", 399_998_976), ("8G", 8_000_000_000), ("30GiB", 30 * 2**30),
                                        ("409600000", 409_600_000), ("1.5G", 1_499_996_160), ("10k", 8192)])
def test_parse_size(text, size):
    assert seqio.parse_size(text) == size


@pytest.mark.parametrize("text", ["", "lots", "-4G", "12X", "100"])
def test_parse_size_rejects(text):
    with pytest.raises(MechsymError, match="MECHSYM_SEQIO_SIZE"):
        seqio.parse_size(text)


def test_scratch_defaults_to_the_repo_and_follows_the_env(monkeypatch, tmp_path):
    monkeypatch.delenv("MECHSYM_SCRATCH", raising=False)
    assert seqio.scratch_base().name == "scratch-io"
    monkeypatch.setenv("MECHSYM_SCRATCH", str(tmp_path))
    assert seqio.scratch_base() == tmp_path.resolve()


def test_refuses_to_start_without_space(scratch, monkeypatch):
    monkeypatch.setattr(shutil, "disk_usage", lambda p: shutil._ntuple_diskusage(10**12, 10**12 - 10**9, 10**9))
    with pytest.raises(MechsymError) as e:
        seqio.check_space(scratch, 2 * 10**9)
    assert "not enough free space" in str(e.value) and "\n" not in str(e.value)


def test_cli_refuses_in_one_line_and_writes_nothing(scratch, results_dir):
    r = mechsym("run", "seqio", "--preset", "smoke", "--no-progress", env={"MECHSYM_SEQIO_SIZE": "100T"})
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "not enough free space" in r.stderr
    assert not scratch.exists() and not any(results_dir.iterdir())


def test_scratch_dir_is_removed_on_an_exception(scratch):
    with pytest.raises(RuntimeError):
        with seqio.scratch_dir() as d:
            (d / "seqio.dat").write_bytes(b"x" * 4096)
            raise RuntimeError("boom")
    assert not scratch.exists()  # created by us, empty afterwards: removed too


def test_scratch_dir_keeps_a_base_that_was_there(scratch):
    scratch.mkdir()
    (scratch / "other").write_text("not ours")
    with seqio.scratch_dir() as d:
        assert d.parent == scratch
    assert (scratch / "other").read_text() == "not ours" and len(list(scratch.iterdir())) == 1


def test_ctrl_c_removes_the_scratch_file_and_stores_an_interrupted_run(scratch, results_dir, monkeypatch):
    calls = []
    real = seqio.run_java

    def interrupt_second(cell, path, commands):
        calls.append(path)
        if len(calls) == 2:
            assert path.exists()
            raise KeyboardInterrupt
        return real(cell, path, commands)
    monkeypatch.setattr(seqio, "run_java", interrupt_second)
    with pytest.raises(KeyboardInterrupt):
        seqio.run("smoke", progress=False)
    assert not calls[1].exists() and not scratch.exists()
    metas = store.runs("seqio", "all", include_incomplete=True)
    assert [m["status"] for m in metas] == ["interrupted"]
    assert store.load("seqio").empty  # notebooks ignore it


def test_evict_drops_the_pages(scratch):
    scratch.mkdir()
    f = scratch / "e.dat"
    f.write_bytes(os.urandom(4 << 20))  # dirty pages: evict must sync them first
    f.read_bytes()
    assert seqio.resident_fraction(f) > 0.5
    assert seqio.evict(f) < 0.01


def test_preallocate_writes_zero_pages(scratch):
    scratch.mkdir()
    f = scratch / "p.dat"
    seqio.preallocate(f, (1 << 20) + 3 * 4096)
    assert f.stat().st_size == (1 << 20) + 3 * 4096 and set(f.read_bytes()) == {0}
    with pytest.raises(FileExistsError):
        seqio.preallocate(f, 4096)


def test_cells_cover_methods_regimes_and_dd(monkeypatch):
    from mechsym.cpus import read_topology
    from mechsym.jdk import discover

    monkeypatch.delenv("MECHSYM_SEQIO_SIZE", raising=False)
    cells = seqio.cells("standard", read_topology(), list(discover()))
    regimes = {c.labels["regime"] for c in cells}
    assert regimes == {"page-cache", "evicted"}
    java = [c for c in cells if c.kernel == seqio.KERNEL]
    assert {c.variant for c in java} == set(seqio.METHODS)
    assert {c.labels["regime"] for c in java if c.variant == "buffered-stream-biased"} == {"page-cache"}
    assert all(c.flags == seqio.BIASED for c in java if c.variant == "buffered-stream-biased")
    assert len({c.jdk for c in java}) == 1  # standard: one JDK
    assert {(c.labels["regime"], c.variant) for c in cells if c.kernel == "dd"} == \
        {("page-cache", "dd"), ("page-cache", "dd-cached"), ("evicted", "dd")}
    for c in java:
        cold = c.labels["regime"] == "evicted"
        assert c.params["sync"] == str(cold).lower() and c.params["evict"] == ("ask" if cold else "none")
        assert c.params["passes"] == 5
    assert {c.labels["size_bytes"] for c in cells} == {409_600_000, 1_024_000_000}


def test_size_env_larger_than_ram_is_a_real_file_regime(monkeypatch):
    monkeypatch.setenv("MECHSYM_SEQIO_SIZE", str(seqio.ram_bytes() * 2))
    assert [r for r, _, _ in seqio.regimes("standard")] == ["page-cache", "larger-than-ram"]
    monkeypatch.setenv("MECHSYM_SEQIO_SIZE", "64M")
    assert seqio.regimes("standard") == [("page-cache", 409_600_000, False), ("evicted", 64_000_000, True)]


def test_threads_override_is_refused(scratch, results_dir):
    with pytest.raises(MechsymError, match="no thread-count parameter"):
        seqio.run("smoke", progress=False, threads="1,2")


def test_smoke_run_is_stored_with_the_sweep_columns(smoke_run):
    meta, root = smoke_run
    assert meta["status"] == "complete" and not meta["failures"]
    saved = json.loads(Path(meta["json"]).read_text())
    for key in ("experiment", "preset", "run_id", "machine", "jdks", "git_commit", "taskset", "start", "end",
                "status", "commands", "failures", "unavailable", "rows"):
        assert key in saved, key
    df = meta["frame"]
    for col in ("experiment", "variant", "regime", "size_bytes", "jdk", "jdk_version", "flags", "cpus", "fork",
                "iteration", "warmup", "metric", "value", "unit", "status", "note"):
        assert col in df.columns, col
    ok = df[df["status"] == "ok"]
    t = seqio.throughput(df)
    assert set(seqio.POST_METHODS) | {"channel-direct"} | set(seqio.DD) <= set(t["variant"]) <= set(seqio.METHODS) | set(seqio.DD)
    assert (t["value"] > 0).all() and set(t["unit"]) == {"MB/s"}
    assert ok[ok["metric"] == "evict_resident"]["value"].max() < 0.01
    assert not list((root / "scratch").glob("*")) if (root / "scratch").exists() else True


def test_notebook_functions_on_smoke_results(smoke_run):
    meta, _ = smoke_run
    df = meta["frame"].copy()
    df["machine"] = "test"
    ref = seqio.reference()
    s = seqio.summary(df, ref)
    assert set(s["regime"]) == {"page-cache", "evicted"}
    assert (s[s["method"] == "dd"].query("regime == 'evicted'")["x device ceiling (dd)"] == 1).all()
    assert not seqio.residency(df).empty
    seqio.plot_passes(df)
    seqio.plot_reference(ref)
    vs = seqio.verdicts(df)
    assert {v.claim.id for v in vs} == {c.id for c in seqio.CLAIMS}
    assert all(v.outcome in OUTCOMES for v in vs)


def test_verdicts_without_results():
    vs = seqio.verdicts(pd.DataFrame({"status": [], "metric": [], "machine": []}))
    assert all(v.outcome == "not measurable here" for v in vs)


def test_reference_is_the_posts_tables():
    ref = seqio.reference()
    assert len(ref) == 80  # 2 files x 4 methods x 5 passes x write/read
    assert set(ref["post"]) == {seqio.POST}
    first = ref[(ref["file_size"] == "400MB") & (ref["method"] == "random-access-file") & (ref["pass"] == 1)]
    assert first.set_index("direction")["value"].to_dict() == {"write": 379_610_750, "read": 1_452_482_269}
    last = ref[(ref["file_size"] == "8GB") & (ref["method"] == "mapped") & (ref["pass"] == 5)]
    assert last.set_index("direction")["value"].to_dict() == {"write": 120_362_615, "read": 231_190_382}
    assert (ref["unit"] == "bytes/s").all()
    # every number in the reference file appears in the post's text, with its commas
    text = (Path(__file__).resolve().parents[2] / "shared" / "posts" / seqio.POST)
    if text.exists():
        body = text.read_text()
        for v in ref["value"]:
            assert f"{int(v):,}" in body


def test_dd_failure_is_a_kernel_error(scratch):
    with pytest.raises(KernelError):
        seqio._dd(["if=/nonexistent/x", "of=/dev/null"], 10)


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_signal_to_the_cli_removes_the_scratch_file(scratch, results_dir, sig):
    import signal
    import subprocess
    import sys
    import time

    env = {**os.environ, "MECHSYM_SEQIO_SIZE": "256M"}
    p = subprocess.Popen([str(Path(sys.executable).parent / "mechsym"), "run", "seqio", "--preset", "smoke",
                          "--no-progress"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=default_sigint)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not list(scratch.glob("seqio-*/seqio.dat")):
        time.sleep(0.05)
    assert list(scratch.glob("seqio-*/seqio.dat")), "the run never created its scratch file"
    time.sleep(1.0)
    p.send_signal(getattr(signal, sig))
    out, err = p.communicate(timeout=60)
    assert p.returncode != 0
    assert not scratch.exists(), list(scratch.rglob("*"))


def test_dd_source_is_the_kernels_data(tmp_path):
    import numpy as np

    from mechsym import bridge

    f = tmp_path / "src.dat"
    seqio.write_pattern(f, 300 * 4096, seed=7)
    data = np.frombuffer(f.read_bytes(), dtype=np.int8)
    checksum = int(data.astype(np.int64).sum())
    checksum = (checksum + 2**31) % 2**32 - 2**31  # Java int arithmetic
    assert checksum == int(bridge.kernel(seqio.KERNEL).expectedChecksum(300 * 4096, 7))
    assert data.any()
