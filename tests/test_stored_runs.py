"""The committed results: what every notebook shows by default is a run of the kernels in this checkout.

A kernel change (its Java or C, the jars it imports, its sweep's cells) makes its experiment's stored runs stale
(mechsym.store.provenance); this test then fails until the experiment's `standard` preset is re-run at a clean commit that
contains the change (`make refresh`) and the run is committed with it."""

import pytest

from conftest import ROOT
from mechsym import experiments
from mechsym.store import provenance, runs as store

STORE = ROOT / "data" / "results"


@pytest.mark.parametrize("name", experiments.names())
def test_the_run_a_notebook_shows_by_default_is_current(name):
    machine = store.default_machine(name, STORE)
    assert machine, f"{name}: no stored run in {STORE}"
    shown, *extensions = store.chosen_runs(name, machine, root=STORE)   # a run, then forks added until decided
    assert shown.get("preset") in ("standard", "full") and not shown.get("extends"), (name, shown["run_id"])
    assert all(e.get("extends") == shown["run_id"] for e in extensions), (name, [e["run_id"] for e in extensions])
    for run in (shown, *extensions):
        state, why = provenance.status(run)
        assert state == provenance.CURRENT, (f"{name}: the run notebooks show ({run['run_id']}) is {state}: {why}; "
                                             "re-run it with `make refresh` and commit the run")
