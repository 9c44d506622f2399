"""Every experiment's smoke run through `mechsym run` (tests/conftest.py's smoke_store), first in the serial group.

The file sorts first so that the serial worker sweeps every experiment before the other worker reaches the notebook
renders and the smoke-sweep tests that read these runs: they then wait for no kernel. Each run must be complete, with
no failed cell, and hold rows for its experiment."""

import json

import pytest

from mechsym import experiments

pytestmark = pytest.mark.kernel  # every test here runs a kernel or a sweep: serial


@pytest.mark.parametrize("name", experiments.names())
def test_smoke_run_is_complete(name, smoke_store):
    stored = smoke_store(name)
    (meta,) = [json.loads(p.read_text()) for p in stored.rglob("*.json")]
    assert meta["experiment"] == name and meta["preset"] == "smoke"
    assert meta["status"] == "complete" and meta["failures"] == [], meta["failures"]
    assert meta["rows"] > 0
