"""The one reader of stored sidecars (store.runs.read_meta), met with hostile files: wrong shapes, wrong types,
deep nesting, a file too large to be metadata, a clock set ahead (a start in the future) or a negative length. Each bad sidecar skips its own run with one line naming the file;
the other runs are read; nothing is written. Parametrized cases stand in for property tests (Hypothesis is not
in the lock)."""

from __future__ import annotations

import json

import pytest

from synthetic import save_synthetic, synthetic_locks


def nested(n: int) -> dict:
    v: dict = {}
    for _ in range(n):
        v = {"a": v}
    return v


def files(root):
    return {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}


HOSTILE = {
    "a list": lambda meta: "[1, 2, 3]",
    "a string": lambda meta: '"run"',
    "a number": lambda meta: "7",
    "null": lambda meta: "null",
    "not JSON": lambda meta: "{ this is not json",
    "nested 100,000 deep": lambda meta: "[" * 100_000 + "]" * 100_000,
    "nested 40 deep inside a real sidecar": lambda meta: json.dumps({**meta, "noise": nested(40)}),
    "machine a list": lambda meta: json.dumps({**meta, "machine": [1, 2]}),
    "rows a string": lambda meta: json.dumps({**meta, "rows": "many"}),
    "rows true": lambda meta: json.dumps({**meta, "rows": True}),
    "run_id a number": lambda meta: json.dumps({**meta, "run_id": 5}),
    "too large": lambda meta: json.dumps({**meta, "pad": "x" * (5 * 2**20)}),
    "start ten years ahead": lambda meta: json.dumps({**meta, "start": "2036-11-29T08:00:00Z"}),
    "saved ten years ahead": lambda meta: json.dumps({**meta, "saved_at": "2036-11-29T08:00:00+00:00"}),
    "a negative length": lambda meta: json.dumps({**meta, "seconds": -86398.7}),
    "a length of NaN": lambda meta: json.dumps({**meta, "seconds": float("nan")}),
}


@pytest.fixture
def two_runs(results_dir, monkeypatch):
    monkeypatch.setenv("MECHSYM_MACHINE", "test-machine-a")
    a = save_synthetic(synthetic_locks(runs=1, jdks=("17",)), "test-machine-a")
    b = save_synthetic(synthetic_locks(runs=1, jdks=("17",), scale=1.1), "test-machine-a")
    return results_dir, a, b


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_sidecar_skips_its_run_and_only_its_run(two_runs, case):
    from mechsym.store import runs as store

    root, a, b = two_runs
    sidecar = next(root.rglob(f"{a}.json"))
    sidecar.write_text(HOSTILE[case](json.loads(sidecar.read_text())))
    before = files(root)
    found, skipped = store.scan("locks", "test-machine-a")
    assert [m["run_id"] for m in found] == [b]
    assert len(skipped) == 1 and "\n" not in skipped[0] and str(sidecar) in skipped[0], skipped
    assert files(root) == before


def test_the_deepest_sidecar_this_bench_writes_is_within_the_bound(two_runs):
    from mechsym.store import runs as store

    root, a, _ = two_runs
    meta = json.loads(next(root.rglob(f"{a}.json")).read_text())
    assert store.depth(meta) <= store.MAX_META_DEPTH // 2
