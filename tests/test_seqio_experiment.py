"""The seqio experiment: sizes, scratch safety, eviction, its cells and hooks in the lab's one run loop, reference
data, and its verdicts on synthetic forks (each outcome, both kernel protocols, two machines kept apart)."""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import default_sigint, mechsym
from test_cli import wait_for_child
from mechsym import MechsymError
from mechsym.run import bridge, sweep
from mechsym.store import runs as store
from mechsym.run import scratch as shared_scratch
from mechsym.experiments import seqio
from mechsym.run.launch import KernelError
from mechsym.judge.verdicts import FAILS, HOLDS, INCONCLUSIVE, OUTCOMES, UNMEASURABLE


@pytest.fixture
def scratch(tmp_path, monkeypatch):
    d = tmp_path / "scratch"
    monkeypatch.setenv("MECHSYM_SCRATCH", str(d))
    monkeypatch.delenv("MECHSYM_SEQIO_SIZE", raising=False)
    return d


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    """One smoke run for the module, through the lab's run loop, in a private results store and scratch directory."""
    root = tmp_path_factory.mktemp("seqio")
    mp = pytest.MonkeyPatch()
    mp.setenv("MECHSYM_RESULTS", str(root / "results"))
    mp.setenv("MECHSYM_SCRATCH", str(root / "scratch"))
    mp.delenv("MECHSYM_SEQIO_SIZE", raising=False)
    try:
        meta = sweep.execute(seqio, "smoke", progress=False)
        yield meta, root
    finally:
        mp.undo()


# ---------------------------------------------------------------- sizes and scratch

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
    assert shared_scratch.scratch_base().name == "scratch-io"
    monkeypatch.setenv("MECHSYM_SCRATCH", str(tmp_path))
    assert shared_scratch.scratch_base() == tmp_path.resolve()


def test_refuses_to_start_without_space(scratch):
    free = shutil.disk_usage(scratch.parent).free  # more than the disk has: no mock needed
    with pytest.raises(MechsymError) as e:
        shared_scratch.check_space(scratch, free + 1)
    assert "not enough free space" in str(e.value) and "\n" not in str(e.value)


@pytest.mark.kernel
def test_cli_refuses_in_one_line_and_writes_nothing(scratch, results_dir):
    r = mechsym("run", "seqio", "--preset", "smoke", "--no-progress", env={"MECHSYM_SEQIO_SIZE": "100T"})
    assert r.returncode == 2
    assert r.stderr.strip().count("\n") == 0 and "not enough free space" in r.stderr
    assert not scratch.exists() and not any(results_dir.iterdir())


def test_scratch_dir_is_removed_on_an_exception(scratch):
    with pytest.raises(RuntimeError):
        with shared_scratch.scratch_dir("seqio") as d:
            (d / "seqio.dat").write_bytes(b"x" * 4096)
            raise RuntimeError("boom")
    assert not scratch.exists()  # created by us, empty afterwards: removed too


def test_scratch_dir_keeps_a_base_that_was_there(scratch):
    scratch.mkdir()
    (scratch / "other").write_text("not ours")
    with shared_scratch.scratch_dir("seqio") as d:
        assert d.parent == scratch
    assert (scratch / "other").read_text() == "not ours" and len(list(scratch.iterdir())) == 1


def test_evict_drops_the_pages(scratch):
    scratch.mkdir()
    f = scratch / "e.dat"
    f.write_bytes(os.urandom(4 << 20))  # dirty pages: evict must sync them first
    f.read_bytes()
    assert shared_scratch.resident_fraction(f) > 0.5
    assert shared_scratch.evict(f) < 0.01


def test_preallocate_writes_zero_pages(scratch):
    scratch.mkdir()
    f = scratch / "p.dat"
    shared_scratch.preallocate(f, (1 << 20) + 3 * 4096)
    assert f.stat().st_size == (1 << 20) + 3 * 4096 and set(f.read_bytes()) == {0}
    with pytest.raises(FileExistsError):
        shared_scratch.preallocate(f, 4096)


@pytest.mark.kernel
def test_dd_source_is_the_kernels_data(tmp_path):
    f = tmp_path / "src.dat"
    seqio.write_pattern(f, 300 * 4096, seed=7)
    data = np.frombuffer(f.read_bytes(), dtype=np.int8)
    checksum = int(data.astype(np.int64).sum())
    checksum = (checksum + 2**31) % 2**32 - 2**31  # Java int arithmetic
    assert checksum == int(bridge.kernel(seqio.KERNEL).expectedChecksum(300 * 4096, 7))
    assert data.any()


def test_dd_failure_is_a_kernel_error(scratch):
    with pytest.raises(KernelError):
        seqio.dd(["if=/nonexistent/x", "of=/dev/null"], 10)


# ---------------------------------------------------------------- cells

@pytest.mark.kernel
def test_python_methods_and_protocols_are_the_kernels():
    k = bridge.kernel(seqio.KERNEL)
    assert seqio.KERNEL_METHODS == [str(m) for m in k.methods()]
    assert set(seqio.METHODS) == set(seqio.KERNEL_METHODS) | {"buffered-stream-biased"}
    assert sorted(seqio.PROTOCOL_NAMES) == sorted(str(p) for p in k.PROTOCOLS)
    r = mechsym_kernel("--method=nio")  # the kernel's own list of what --method takes, "all" among them
    assert seqio.ALL in r and all(m in r for m in seqio.KERNEL_METHODS)


def mechsym_kernel(*args) -> str:
    from conftest import java_kernel

    r = java_kernel(seqio.KERNEL, *args, "--file=/nonexistent/dir/x.dat")
    assert r.returncode == 2
    return r.stderr


def test_cells_cover_methods_regimes_and_dd(monkeypatch):
    from mechsym.machine.cpus import read_topology
    from mechsym.machine.jdk import discover

    monkeypatch.delenv("MECHSYM_SEQIO_SIZE", raising=False)
    cells = seqio.cells("standard", read_topology(), list(discover()))
    assert {c.labels["regime"] for c in cells} == {"page-cache", "evicted"}
    java = [c for c in cells if c.kernel == seqio.KERNEL]
    assert {c.variant for c in java} == set(seqio.METHODS) | {seqio.ALL}
    post = [c for c in java if c.params["protocol"] == "post"]
    assert {(c.labels["regime"], c.variant) for c in post} == {("page-cache", "all"), ("evicted", "all")}
    assert {c.params["protocol"] for c in java if c.variant != seqio.ALL} == {"lab"}
    assert {c.labels["regime"] for c in java if c.variant == "buffered-stream-biased"} == {"page-cache"}
    assert all(c.flags == seqio.BIASED for c in java if c.variant == "buffered-stream-biased")
    assert len({c.jdk for c in java}) == 1  # standard: one JDK
    assert {(c.labels["regime"], c.variant) for c in cells if c.kernel == "cmd:dd"} == \
        {("page-cache", "dd"), ("page-cache", "dd-cached"), ("evicted", "dd")}
    assert all(c.runner and not c.reply for c in cells if c.kernel == "cmd:dd")
    for c in java:
        cold = c.labels["regime"] == "evicted"
        assert c.params["sync"] == str(cold).lower() and c.params["evict"] == ("ask" if cold else "none")
        assert c.params["passes"] == 5 and (c.reply is not None) == cold and c.prepare and c.args
    assert all(c.forks >= 3 for c in cells), "one JVM's JIT decides how fast a mapped read is: 3 forks at least"
    assert {(c.labels["regime"], c.labels["size_bytes"]) for c in cells} == \
        {("page-cache", 409_600_000), ("evicted", 204_800_000)}


def test_size_env_larger_than_ram_is_a_real_file_regime(monkeypatch):
    monkeypatch.setenv("MECHSYM_SEQIO_SIZE", str(seqio.ram_bytes() * 2))
    assert [r for r, _, _ in seqio.regimes("standard")] == ["page-cache", "larger-than-ram"]
    monkeypatch.setenv("MECHSYM_SEQIO_SIZE", "64M")
    assert seqio.regimes("standard") == [("page-cache", 409_600_000, False), ("evicted", 64_000_000, True)]
    monkeypatch.delenv("MECHSYM_SEQIO_SIZE")
    assert seqio.regimes("standard") == [("page-cache", 409_600_000, False), ("evicted", 204_800_000, False)]


@pytest.mark.kernel
def test_threads_override_is_refused(scratch, results_dir):
    with pytest.raises(MechsymError, match="no thread-count parameter"):
        sweep.execute(seqio, "smoke", progress=False, threads="1,2")


@pytest.mark.kernel
def test_dry_run_names_every_cell_and_runs_nothing(scratch, results_dir):
    r = mechsym("run", "seqio", "--preset", "smoke", "--dry-run")
    assert r.returncode == 0, r.stderr
    out = re.sub(r" \\\n\s+", " ", r.stdout)   # a command continued on the next line (` \` then an indent) is one line
    assert "mechsym.io.SequentialIo --protocol=lab --method=mapped" in out
    assert "--protocol=post --method=all" in out and "dd (run by the experiment)" in out
    assert not scratch.exists() and not any(results_dir.iterdir())


# ---------------------------------------------------------------- the run loop with seqio's hooks

@pytest.mark.kernel
def test_smoke_run_is_stored_with_the_sweep_columns(smoke_run):
    meta, root = smoke_run
    assert meta["status"] == "complete" and not meta["failures"]
    saved = json.loads(Path(meta["json"]).read_text())
    for key in ("experiment", "preset", "run_id", "machine", "jdks", "git_commit", "taskset", "start", "end",
                "status", "commands", "failures", "unavailable", "rows", "scratch", "regimes", "dd", "eviction"):
        assert key in saved, key
    df = meta["frame"]
    for col in ("experiment", "variant", "regime", "size_bytes", "jdk", "jdk_version", "flags", "cpus", "fork",
                "iteration", "warmup", "metric", "value", "unit", "status", "note"):
        assert col in df.columns, col
    t = seqio.throughput(df)
    assert set(seqio.POST_METHODS) | {"channel-direct"} | set(seqio.DD) <= set(t["variant"]) <= set(seqio.METHODS) | set(seqio.DD)
    post = t[t["protocol"] == "post"]
    assert set(post["variant"]) == set(seqio.POST_METHODS) and set(t["protocol"]) == {"post", "lab", "-"}
    assert (t["value"] > 0).all() and set(t["unit"]) == {"MB/s"}
    assert set(df[df["variant"].isin(list(seqio.DD))]["jdk"]) == {"dd"}
    assert any(c.startswith("LC_ALL=C dd ") for c in meta["commands"])


@pytest.mark.kernel
def test_eviction_is_verified_to_zero_resident(smoke_run):
    """Every Java fork of the evicted regime asked before each phase, and mincore found nothing left."""
    df = smoke_run[0]["frame"]
    res = df[(df["metric"] == "evict_resident") & (df["regime"] == "evicted")]
    passes = seqio.PRESETS["smoke"]["passes"]
    for v in seqio.KERNEL_METHODS:
        assert len(res[res["variant"] == v]) == 2 * passes, v  # before every write and every read
    assert len(res[res["variant"] == seqio.ALL]) == 4 * 2 * passes  # the post protocol: four cases in one JVM
    assert res["value"].max() < 0.01
    assert (res["status"] == "ok").all()


@pytest.mark.kernel
def test_scratch_is_gone_after_a_run(smoke_run):
    _, root = smoke_run
    assert not (root / "scratch").exists() or not list((root / "scratch").iterdir())


@pytest.mark.kernel
def test_notebook_functions_on_smoke_results(smoke_run):
    df = smoke_run[0]["frame"].copy()
    df["machine"] = "test"
    ref = seqio.reference()
    s = seqio.summary(df, ref)
    assert set(s["regime"]) == {"page-cache", "evicted"}
    assert (s[s["method"] == "dd"].query("regime == 'evicted'")["x device ceiling (dd)"] == 1).all()
    assert not seqio.residency(df).empty
    seqio.plot_passes(df)
    seqio.plot_reference(ref)
    seqio.plot_protocols(df)
    vs = seqio.verdicts(df)
    assert {v.claim.id for v in vs} == {c.id for c in seqio.CLAIMS}
    assert all(v.outcome in OUTCOMES for v in vs)


@pytest.mark.kernel
def test_ctrl_c_removes_the_scratch_file_and_stores_an_interrupted_run(scratch, results_dir, monkeypatch):
    seen = []
    real = sweep.run

    def interrupt_second(launch, **kw):
        seen.append(next(a.split("=", 1)[1] for a in launch.command if a.startswith("--file=")))
        if len(seen) == 2:
            assert Path(seen[-1]).exists()
            raise KeyboardInterrupt
        return real(launch, **kw)
    monkeypatch.setattr(sweep, "run", interrupt_second)
    with pytest.raises(KeyboardInterrupt):
        sweep.execute(seqio, "smoke", progress=False)
    assert not Path(seen[1]).exists() and not scratch.exists()
    metas = store.runs("seqio", "all", include_incomplete=True)
    assert [m["status"] for m in metas] == ["interrupted"]
    assert store.load("seqio").empty  # notebooks ignore it


@pytest.mark.kernel
@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_a_signal_to_the_cli_removes_the_scratch_file(scratch, results_dir, sig):
    env = {**os.environ, "MECHSYM_SEQIO_SIZE": "256M"}
    p = subprocess.Popen([str(Path(sys.executable).parent / "mechsym"), "run", "seqio", "--preset", "smoke",
                          "--no-progress"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         preexec_fn=default_sigint)
    try:
        # the state to interrupt: a kernel JVM of this run working on its scratch file
        assert wait_for_child(p, "mechsym.io.SequentialIo", timeout=60), "the run never started a kernel"
        assert list(scratch.glob("seqio-*/seqio-*.dat"))
        p.send_signal(getattr(signal, sig))
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 128 + getattr(signal, sig), err  # the CLI's exit status for a run ended by that signal
    assert "interrupted" in err
    assert not scratch.exists(), list(scratch.rglob("*"))


# ---------------------------------------------------------------- reference

def test_reference_is_the_posts_tables():
    ref = seqio.reference()
    assert len(ref) == 80  # 2 files x 4 methods x 5 passes x write/read
    assert set(ref["post"]) == {"2011-12-26-java-sequential-io-performance.md"}
    first = ref[(ref["file_size"] == "400MB") & (ref["method"] == "random-access-file") & (ref["pass"] == 1)]
    assert first.set_index("direction")["value"].to_dict() == {"write": 379_610_750, "read": 1_452_482_269}
    last = ref[(ref["file_size"] == "8GB") & (ref["method"] == "mapped") & (ref["pass"] == 5)]
    assert last.set_index("direction")["value"].to_dict() == {"write": 120_362_615, "read": 231_190_382}
    assert (ref["unit"] == "bytes/s").all()
    text = Path(__file__).resolve().parents[2] / "shared" / "posts" / "2011-12-26-java-sequential-io-performance.md"
    if text.exists():  # every number in the reference file appears in the post's text, with its commas
        body = text.read_text()
        for v in ref["value"]:
            assert f"{int(v):,}" in body


def test_quotes_are_the_posts_words():
    text = Path(__file__).resolve().parents[2] / "shared" / "posts" / "2011-12-26-java-sequential-io-performance.md"
    if not text.exists():
        pytest.skip("the posts are not beside this checkout")
    body = " ".join(text.read_text().split())
    for c in seqio.CLAIMS:
        assert " ".join(c.quote.split()) in body, c.id


# ---------------------------------------------------------------- verdicts on synthetic forks

# (regime, direction) -> method -> MB/s, shaped like this lab's lab-kernel runs and the listing's
LAB = {("page-cache", "write"): {"random-access-file": 440, "buffered-stream": 70, "channel-heap": 575, "mapped": 840},
       ("page-cache", "read"): {"random-access-file": 1700, "buffered-stream": 76, "channel-heap": 1840, "mapped": 2150},
       ("evicted", "write"): {"random-access-file": 335, "buffered-stream": 69, "channel-heap": 448, "mapped": 731},
       ("evicted", "read"): {"random-access-file": 741, "buffered-stream": 67, "channel-heap": 628, "mapped": 1597}}
LISTING = {**LAB, ("page-cache", "read"): {"random-access-file": 1250, "buffered-stream": 50, "channel-heap": 1420,
                                           "mapped": 590}}


def synthetic(cells=LAB, protocol="lab", machine="m1", forks=6, spread=0.02, scale=1.0, seed=0, jdk="17"):
    """Tidy rows as the sweep stores them: every (regime, direction, method) cell, `forks` JVMs of 5 passes."""
    rng = np.random.default_rng(seed)
    rows = []
    for (regime, direction), methods in cells.items():
        for method, mbs in methods.items():
            for fork in range(forks):
                jvm = mbs * scale * (1 + spread * rng.standard_normal())
                for it in range(5):
                    rows.append(dict(run_id=f"{machine}-run", machine=machine, experiment="seqio", variant=method,
                                     method=method, regime=regime, size_bytes=409_600_000, jdk=jdk, protocol=protocol,
                                     fork=fork, iteration=it, warmup=it == 0, metric=f"{direction}_throughput",
                                     value=jvm * (0.5 if it == 0 else 1 + 0.005 * rng.standard_normal()),
                                     unit="MB/s", status="ok", note=""))
    return pd.DataFrame(rows)


def pick(vs, cid, protocol="lab", **scope):
    found = [v for v in vs if v.claim.id == cid and v.protocol == protocol
             and all(v.scope.get(k) == x for k, x in scope.items())]
    assert len(found) == 1, (cid, protocol, scope, [(v.claim.id, v.protocol, v.scope) for v in vs])
    return found[0]


def test_the_two_protocols_disagree_on_the_mapped_read():
    vs = seqio.verdicts(pd.concat([synthetic(LISTING, "post"), synthetic(LAB, "lab", seed=1)]))
    post = pick(vs, "seqio.raf-channel-read-fastest", "post")
    lab = pick(vs, "seqio.raf-channel-read-fastest", "lab")
    assert post.outcome == HOLDS and lab.outcome == FAILS
    assert post.forks == lab.forks == 6 and post.low <= post.now_value <= post.high
    assert post.scope == {"jdk": "17", "regime": "page-cache"}


def test_each_claim_holds_fails_or_is_inconclusive_with_the_numbers():
    lab = synthetic(LAB)
    vs = seqio.verdicts(lab)
    assert pick(vs, "seqio.mapped-wins-writes").outcome == HOLDS
    assert pick(vs, "seqio.streams-lag", regime="page-cache").outcome == HOLDS
    assert pick(vs, "seqio.channels-best-optimised").outcome == HOLDS
    assert pick(vs, "seqio.cold-narrows-write", regime="evicted").outcome == FAILS   # 12.0x -> 10.6x: 0.88
    slow_mapped = {k: {**v, "mapped": v["mapped"] / 3} for k, v in LAB.items()}
    assert pick(seqio.verdicts(synthetic(slow_mapped)), "seqio.mapped-wins-writes").outcome == FAILS
    fast_streams = {k: {**v, "buffered-stream": 5000} for k, v in LAB.items()}
    vs = seqio.verdicts(synthetic(fast_streams))
    assert pick(vs, "seqio.streams-lag", regime="page-cache").outcome == FAILS
    assert pick(vs, "seqio.channels-best-optimised").outcome == FAILS
    # the mapped read level with RandomAccessFile and noisy forks: the interval straddles 1
    close = {**LAB, ("page-cache", "read"): {"random-access-file": 1700, "buffered-stream": 76, "channel-heap": 1840,
                                             "mapped": 1700}}
    v = pick(seqio.verdicts(synthetic(close, spread=0.15, forks=5)), "seqio.raf-channel-read-fastest")
    assert v.outcome == INCONCLUSIVE and "more forks" in v.why


def test_one_fork_is_inconclusive_and_old_runs_have_no_post_protocol():
    old = synthetic(LAB, forks=1).drop(columns="protocol")
    vs = seqio.verdicts(old)
    assert {v.outcome for v in vs if v.protocol == "lab"} == {INCONCLUSIVE}
    post = [v for v in vs if v.protocol == "post"]
    assert {v.claim.id for v in post} == {c.id for c in seqio.CLAIMS}
    assert all(v.outcome == UNMEASURABLE and "post-protocol" in v.why for v in post)


def test_verdicts_without_results():
    vs = seqio.verdicts(pd.DataFrame({"status": [], "metric": [], "machine": []}))
    assert vs and all(v.outcome == UNMEASURABLE for v in vs)


def test_two_machines_are_never_mixed():
    fast = synthetic(LAB, machine="fast-box")
    slow = synthetic(LAB, machine="slow-box", scale=0.1, seed=3)
    both = pd.concat([fast, slow, synthetic(LISTING, "post", machine="slow-box", scale=0.1, seed=4)],
                     ignore_index=True)
    vs = seqio.verdicts(both)
    assert {v.machine for v in vs} == {"fast-box", "slow-box"}
    for m, rows in (("fast-box", fast), ("slow-box", both[both["machine"] == "slow-box"])):
        alone = seqio.verdicts(rows)
        mine = [v for v in vs if v.machine == m]
        assert [(v.claim.id, v.protocol, v.outcome, v.now_value) for v in mine] == \
            [(v.claim.id, v.protocol, v.outcome, v.now_value) for v in alone]
    s = seqio.summary(both, seqio.reference())
    assert set(s["machine"]) == {"fast-box", "slow-box"}
    med = s.set_index(["machine", "regime", "direction", "protocol", "method"])["median MB/s"]
    ratio = med.loc["slow-box"].loc[("page-cache", "read", "lab", "mapped")] / \
        med.loc["fast-box"].loc[("page-cache", "read", "lab", "mapped")]
    assert 0.08 < ratio < 0.12  # a 10x slower machine stays 10x slower: no row of one machine's and the other's
    p = seqio.protocols(both)
    assert set(p.dropna(subset=["lab / post"])["machine"]) == {"slow-box"}  # only the slow box ran both protocols
    assert p[p["machine"] == "fast-box"]["note"].str.contains("one kernel protocol").all()
    assert "fast-box" not in seqio.findings(both).split("**slow-box**")[1]
    seqio.plot_passes(both)
    seqio.plot_protocols(both)
