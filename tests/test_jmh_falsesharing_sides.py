"""post | lab | JMH for falsesharing's shape of stored runs: the lab's run also holds layout rows (offsets, sizes)
whose threads column is blank, so its threads are read back as floats (2.0); JMH's run has whole threads (2). The
cells must still meet (jmh_views.side_by_side), or the side-by-side has no JMH value and no lab/JMH ratio."""

from __future__ import annotations

import pandas as pd
import pytest

from mechsym.jmh import ratios as jmh_ratios, views as jmh_views
from mechsym.store import runs as store

META = {"preset": "standard", "machine": {"machine_id": "m1"}, "status": "complete"}
LAYOUTS = ("unpadded", "padded-longs")


def _save_runs():
    rate = {"unpadded": 40.0, "padded-longs": 100.0}
    lab = [{"experiment": "fsdemo", "variant": v, "layout": v, "protocol": "lab", "threads": t,
            "placement": "cross-core", "jdk": 17, "fork": f, "iteration": i, "warmup": False, "metric": "throughput",
            "value": rate[v] * t + f, "unit": "ops/s", "status": "ok", "note": ""}
           for v in LAYOUTS for t in (1, 2) for f in range(5) for i in range(3)]
    # the layout rows: one per layout and field, no threads (as falsesharing's sweep stores its JOL offsets)
    lab += [{"experiment": "fsdemo", "variant": v, "layout": v, "protocol": "lab", "threads": None,
             "placement": "cross-core", "jdk": 17, "fork": 0, "iteration": 0, "warmup": False, "metric": "offset",
             "value": 16.0, "unit": "bytes", "status": "ok", "note": ""} for v in LAYOUTS]
    jmh_rows = [{"experiment": "fsdemo", "variant": v, "layout": v, "threads": t, "placement": "cross-core", "jdk": 17,
                 "benchmark": "mechsym.jmh.FalseSharing.pair", "jmh_method": "pair", "fork": f, "iteration": 3 + i,
                 "warmup": False, "metric": "throughput", "value": rate[v] * t + f, "unit": "ops/s", "protocol": "jmh",
                 "status": "ok", "note": ""}
                for v in LAYOUTS for t in (1, 2) for f in range(5) for i in range(2)]
    store.save("fsdemo", pd.DataFrame(lab), {**META, "run_id": "20260101T000000Z-standard-aaaaaa"}, machine="m1")
    store.save("fsdemo", pd.DataFrame(jmh_rows), {**META, "run_id": "20260102T000000Z-standard-bbbbbb",
                                                  "overrides": {"protocol": "jmh"}}, machine="m1")


def test_lab_threads_read_back_as_floats_still_meet_jmhs_whole_threads(results_dir):
    _save_runs()
    assert store.load("fsdemo", "m1")["threads"].dtype.kind == "f"   # the shape that hid the cells
    t = jmh_views.side_by_side("fsdemo", ["variant", "threads", "jdk"], machine="m1", where={"placement": "cross-core"})
    assert len(t) == 4 and (t["reading"] == "comparable").all()
    assert t["JMH forks"].tolist() == [5] * 4 and t["lab/JMH"].tolist() == pytest.approx([1.0] * 4)
    cell = t.set_index(["variant", "threads"]).loc[("padded-longs", 2)]
    assert cell["lab"] == cell["JMH"] == 202.0
    spec = jmh_views.Spec("demo", ("variant", "threads", "jdk"), "throughput", "ops/s", {"placement": "cross-core"},
                          headline=({"variant": "unpadded", "threads": 2},))
    assert [jmh_ratios.cell_name(spec, r) for _, r in spec.table("fsdemo", "m1").iterrows()] == ["unpadded, threads 2"]
