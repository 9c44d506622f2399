"""The verdict cache (verdict_cache): each experiment's verdict rows kept outside the committed store, keyed by
the stored runs and the verdict code's fingerprint; a warm read judges nothing, a change to the code judges again.
Reads the committed stored runs (read-only); the cache goes to a private directory."""

from __future__ import annotations

import pandas as pd
import pytest

from mechsym.store import runs as store
from mechsym.view import cache as verdict_cache, collect as verdict_collect

NAME = "callerchoose"


@pytest.fixture
def counted(tmp_path, monkeypatch):
    if not store.runs(NAME, "all"):
        pytest.skip(f"no stored {NAME} runs")
    monkeypatch.setenv(verdict_cache.CACHE_ENV, str(tmp_path))
    calls = []
    real = verdict_collect.machine_verdicts
    monkeypatch.setattr(verdict_collect, "machine_verdicts", lambda *a, **k: calls.append(1) or real(*a, **k))
    return calls


def test_a_warm_read_judges_nothing_and_gives_the_same_rows(counted, tmp_path):
    cold = verdict_collect.collect(names=[NAME], replicate=False)
    assert counted and list((tmp_path / "verdicts").glob(f"{NAME}-*.pickle"))
    counted.clear()
    warm = verdict_collect.collect(names=[NAME], replicate=False)
    assert not counted
    pd.testing.assert_frame_equal(cold, warm)


def test_a_changed_claim_judges_again(counted, monkeypatch):
    verdict_collect.collect(names=[NAME], replicate=False)
    counted.clear()
    real = verdict_cache.code_fingerprint
    monkeypatch.setattr(verdict_cache, "code_fingerprint", lambda name: real(name) + "-a claim changed")
    verdict_collect.collect(names=[NAME], replicate=False)
    assert counted


def test_the_code_fingerprint_is_stable_and_per_experiment():
    here = verdict_cache.code_fingerprint(NAME)
    assert here == verdict_cache.code_fingerprint(NAME) and here != verdict_cache.code_fingerprint("locks")
