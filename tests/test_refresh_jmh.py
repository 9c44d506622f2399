"""A stale run never hides: `make refresh` lists the JMH run a notebook shows as well as the lab's, the notebook's
JMH section opens with the banner of a stale or dirty JMH run, and the machine table keeps "-dirty"."""

from __future__ import annotations

import pandas as pd

from mechsym.cli import refresh
from mechsym.jmh import ratios as jmh_ratios
from mechsym.store import provenance, runs as store
from mechsym.view import nb

NAME = "locks"


def save(run: str, fingerprint: str, jmh: bool, clean: bool = True):
    """A run of locks on this machine whose provenance records `fingerprint` under this VERSION."""
    rows = pd.DataFrame([{"experiment": NAME, "variant": "a", "threads": 1, "jdk": 17, "fork": f, "iteration": 1,
                          "warmup": False, "metric": "throughput", "value": 100.0 + f, "unit": "ops/s",
                          **({"protocol": "jmh", "jmh_method": "m"} if jmh else {}), "status": "ok", "note": ""}
                         for f in range(5)])
    meta = {"preset": "standard", "status": "complete", "run_id": f"20260101T00000{run}Z-standard-{run * 6}",
            "provenance": {"version": provenance.VERSION, "commit": "f" * 40, "clean": clean,
                           "fingerprint": fingerprint}}
    if jmh:
        meta["overrides"] = {"protocol": "jmh"}
    store.save(NAME, rows, meta, machine=store.machine_id())
    return meta["run_id"]


def test_refresh_lists_a_stale_jmh_run_beside_a_current_lab_run(results_dir):
    save("1", provenance.checkout_fingerprint(NAME), jmh=False)
    stale = save("2", "0" * 16, jmh=True)
    [(name, protocol, why)] = refresh.stale_experiments([NAME])
    assert (name, protocol) == (NAME, "jmh") and stale in why and "older JMH benchmarks" in why


def test_a_lab_kernel_fingerprint_does_not_make_a_jmh_run_current(results_dir):
    """The JMH run is compared with the checkout's JMH fingerprint, not the lab's (they differ)."""
    lab = provenance.checkout_fingerprint(NAME)
    assert lab != provenance.checkout_fingerprint(NAME, fam="jmh")
    save("1", lab, jmh=False)
    save("2", lab, jmh=True)
    assert [p for _, p, _ in refresh.stale_experiments([NAME])] == ["jmh"]
    save("3", provenance.checkout_fingerprint(NAME, fam="jmh"), jmh=True)
    assert refresh.stale_experiments([NAME]) == []


def test_the_jmh_section_opens_with_the_banner_of_a_stale_jmh_run(results_dir):
    save("1", provenance.checkout_fingerprint(NAME), jmh=False)
    stale = save("2", "0" * 16, jmh=True)
    text, _ = jmh_ratios.summary(NAME, machine=store.machine_id())
    assert text.startswith("> **⚠ Stale results") and stale in text and "(JMH)" in text


def test_the_jmh_section_names_a_dirty_jmh_run(results_dir):
    save("1", provenance.checkout_fingerprint(NAME), jmh=False)
    dirty = save("2", provenance.checkout_fingerprint(NAME, fam="jmh"), jmh=True, clean=False)
    text, _ = jmh_ratios.summary(NAME, machine=store.machine_id())
    assert text.startswith("> **⚠ Results from a dirty tree") and dirty in text


def test_the_machine_table_keeps_dirty_when_it_cuts_the_commit():
    assert nb.short_commit({"git_commit": "0123456789abcdef" * 2 + "01234567-dirty"}) == "0123456789ab-dirty"
    assert nb.short_commit({"git_commit": "0123456789abcdef" * 2 + "01234567"}) == "0123456789ab"
    assert nb.short_commit({"git_commit": "0123456789ab", "provenance": {"clean": False}}) == "0123456789ab-dirty"
