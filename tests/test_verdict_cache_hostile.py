"""The verdict cache meets files it did not write whole: a cut or corrupt pickle, rows of the wrong shape, a sidecar
that is not an object. Each is judged again (the same rows as a cold read) and the cache rewritten; never a
traceback, never the wrong rows. Synthetic locks runs in a private store; the cache in a private folder."""

from __future__ import annotations

import pickle

import pandas as pd
import pytest

from synthetic import save_synthetic, synthetic_locks

NAME = "locks"


@pytest.fixture
def cold(results_dir, tmp_path, monkeypatch):
    from mechsym.view import cache as verdict_cache, collect as verdict_collect

    monkeypatch.setenv("MECHSYM_MACHINE", "test-machine-a")
    monkeypatch.setenv(verdict_cache.CACHE_ENV, str(tmp_path / "cache"))
    save_synthetic(synthetic_locks(runs=1, jdks=("17",)), "test-machine-a")
    first = verdict_collect.collect(names=[NAME], replicate=False)
    (path,) = (tmp_path / "cache" / "verdicts").glob(f"{NAME}-*.pickle")
    calls = []
    real = verdict_collect.machine_verdicts
    monkeypatch.setattr(verdict_collect, "machine_verdicts", lambda *a, **k: calls.append(1) or real(*a, **k))
    return first, path, calls


def kept(path):
    return pickle.loads(path.read_bytes())


CORRUPT = {
    "garbage": lambda b, key: b"this is not a pickle\n" * 10,
    "cut in half": lambda b, key: b[: len(b) // 2],
    "empty": lambda b, key: b"",
    "header corrupted": lambda b, key: b[:2] + b"\xff\x00\x13" + b[5:],
    "rows a string": lambda b, key: pickle.dumps({"key": key, "rows": "holds"}),
    "rows a number": lambda b, key: pickle.dumps({"key": key, "rows": 42}),
    "rows empty": lambda b, key: pickle.dumps({"key": key, "rows": []}),
    "rows without outcome": lambda b, key: pickle.dumps({"key": key, "rows": [{"id": "x", "claim": "y"}]}),
    "rows of lists": lambda b, key: pickle.dumps({"key": key, "rows": [[1, 2, 3]]}),
    "not a dict": lambda b, key: pickle.dumps([key, []]),
}


@pytest.mark.parametrize("case", sorted(CORRUPT))
def test_a_corrupt_or_wrong_shape_cache_is_judged_again(cold, case):
    from mechsym.view import cache as verdict_cache, collect as verdict_collect

    first, path, calls = cold
    path.write_bytes(CORRUPT[case](path.read_bytes(), kept(path)["key"]))
    again = verdict_collect.collect(names=[NAME], replicate=False)
    assert calls, "the bad cache was used instead of judging again"
    pd.testing.assert_frame_equal(first, again)
    assert verdict_cache.rows_ok(kept(path)["rows"])   # and rewritten whole


def test_a_sidecar_that_is_not_an_object_leaves_the_key_computable(cold, results_dir):
    from mechsym.view import cache as verdict_cache

    sidecar = next(results_dir.rglob("*.json"))
    for text in ("[1, 2, 3]", '"a string"', "7", "null"):
        sidecar.write_text(text)
        assert isinstance(verdict_cache.cache_key(NAME, None, None, False), str)
    sidecar.write_text("[" * 100_000 + "]" * 100_000)
    verdict_cache.cache_key(NAME, None, None, False)   # None or a key; never a RecursionError
