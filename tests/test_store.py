import json
import os

import pandas as pd
import pytest

from mechsym import MechsymError, store


def rows(n=3, value=1.0):
    return pd.DataFrame({"experiment": "demo", "variant": "a", "fork": 0, "iteration": range(n), "warmup": False,
                         "metric": "throughput", "value": [value] * n, "unit": "ops/s", "status": "ok", "note": ""})


def meta(preset="standard", **kw):
    return {"preset": preset, "machine": {"machine_id": "m1"}, "status": "complete", **kw}


def snapshot(root):
    return {p.relative_to(root): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_round_trip(results_dir):
    path = store.save("demo", rows(), meta(), machine="m1")
    assert path.exists() and path.with_suffix(".csv").exists()
    df = store.load("demo", "m1")
    assert len(df) == 3 and set(df["run_id"]) == {path.stem}
    saved = json.loads(path.read_text())
    assert saved["experiment"] == "demo" and saved["rows"] == 3


def test_runs_are_appended_never_overwritten(results_dir):
    a = store.save("demo", rows(value=1), meta(), machine="m1")
    before = snapshot(results_dir)
    b = store.save("demo", rows(value=2), meta(), machine="m1")
    assert a != b
    after = snapshot(results_dir)
    assert all(after[k] == v for k, v in before.items())
    assert len(store.runs("demo", "m1")) == 2
    assert store.load("demo", "m1")["value"].unique().tolist() == [2]  # newest shown by default
    assert sorted(store.load("demo", "m1", latest=False)["value"].unique()) == [1, 2]


def test_same_run_id_is_refused(results_dir):
    store.save("demo", rows(), meta(run_id="20260101T000000Z-standard-abcdef"), machine="m1")
    with pytest.raises(MechsymError, match="already stored"):
        store.save("demo", rows(), meta(run_id="20260101T000000Z-standard-abcdef"), machine="m1")


def test_failed_write_leaves_no_run_and_keeps_earlier_ones(results_dir, monkeypatch):
    store.save("demo", rows(), meta(), machine="m1")
    before = snapshot(results_dir)
    real_replace = os.replace
    calls = []

    def failing_replace(src, dst):
        calls.append(dst)
        if str(dst).endswith(".json"):
            raise OSError("disk full")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(OSError):
        store.save("demo", rows(value=9), meta(), machine="m1")
    monkeypatch.setattr(os, "replace", real_replace)
    # the half-written run has no JSON, so it does not exist for the loader
    assert len(store.runs("demo", "m1")) == 1
    assert store.load("demo", "m1")["value"].unique().tolist() == [1.0]
    after = snapshot(results_dir)
    assert all(after[k] == v for k, v in before.items())


def test_interrupted_runs_are_hidden_by_default(results_dir):
    store.save("demo", rows(value=1), meta(), machine="m1")
    store.save("demo", rows(value=5), meta(status="interrupted"), machine="m1")
    assert store.load("demo", "m1")["value"].unique().tolist() == [1]
    assert len(store.runs("demo", "m1", include_incomplete=True)) == 2


def test_corrupt_csv_names_the_file(results_dir):
    path = store.save("demo", rows(), meta(), machine="m1")
    path.with_suffix(".csv").write_text("run_id,metric,value\nx,throughput,not-a-number\n")
    with pytest.raises(MechsymError, match=rf"corrupt results file .*{path.stem}\.csv"):
        store.load("demo", "m1")
    path.with_suffix(".csv").write_bytes(b"\x00\x01garbage")
    with pytest.raises(MechsymError, match=rf"corrupt results file .*{path.stem}\.csv"):
        store.load("demo", "m1")


def test_corrupt_json_names_the_file(results_dir):
    path = store.save("demo", rows(), meta(), machine="m1")
    path.write_text("{not json")
    with pytest.raises(MechsymError, match=rf"corrupt metadata file .*{path.name}"):
        store.load("demo", "m1")


def test_unknown_machine(results_dir):
    store.save("demo", rows(), meta(), machine="m1")
    with pytest.raises(MechsymError, match="machine 'nope': no stored results .*m1"):
        store.load("demo", "nope")


def test_all_machines(results_dir):
    store.save("demo", rows(value=1), meta(), machine="m1")
    store.save("demo", rows(value=2), meta(), machine="m2")
    df = store.load("demo", "all")
    assert sorted(df["machine"].unique()) == ["m1", "m2"]


def test_preset_preference(results_dir):
    store.save("demo", rows(value=1), meta("standard"), machine="m1")
    store.save("demo", rows(value=2), meta("smoke"), machine="m1")
    assert store.load("demo", "m1")["value"].unique().tolist() == [1]
    assert store.load("demo", "m1", preset="smoke")["value"].unique().tolist() == [2]


def test_machine_id_is_stable():
    assert store.machine_id() == store.machine_id()
    assert store.machine_id().endswith("g")
