import errno
import json
import os
import re
from pathlib import Path

import pandas as pd
import pytest

from mechsym import MechsymError
from mechsym.store import files as fsio, layout, integrity as runcheck, runs as store
from mechsym.machine import identity as machine


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
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing_replace)
    with pytest.raises(MechsymError, match="could not be stored in .*No space left on device.*earlier runs untouched"):
        store.save("demo", rows(value=9), meta(), machine="m1")
    monkeypatch.setattr(os, "replace", real_replace)
    # the half-written run has no JSON, so it does not exist for the loader; its CSV and temp files are gone too
    assert len(store.runs("demo", "m1")) == 1
    assert store.load("demo", "m1")["value"].unique().tolist() == [1.0]
    assert snapshot(results_dir) == before


@pytest.mark.parametrize("which", ["csv", "json"])
def test_a_full_disk_during_save_leaves_no_temp_file(results_dir, monkeypatch, which):
    """A write that fails part-way (ENOSPC from fsync, after the bytes went to the page cache) leaves nothing."""
    store.save("demo", rows(), meta(), machine="m1")
    before = snapshot(results_dir)
    real_fsync = os.fsync
    seen = []

    def full(fd):
        name = os.readlink(f"/proc/self/fd/{fd}")
        seen.append(name)
        if f".{which}.tmp-" in name:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_fsync(fd)

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(MechsymError) as e:
        store.save("demo", rows(value=9), meta(), machine="m1")
    assert len(str(e.value).splitlines()) == 1 and "No space left on device" in str(e.value)
    assert any(f".{which}.tmp-" in s for s in seen)
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert snapshot(results_dir) == before
    assert not [p for p in results_dir.rglob("*") if ".tmp-" in p.name]


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


# ---------------------------------------------------------------- a CSV that does not match its JSON

def two_runs(results_dir):
    """An older and a newer run of one machine; returns their JSON paths."""
    a = store.save("demo", rows(n=5, value=1), meta(run_id="20260101T000000Z-standard-aaaaaa"), machine="m1")
    b = store.save("demo", rows(n=5, value=2), meta(run_id="20260102T000000Z-standard-bbbbbb"), machine="m1")
    return a, b


def cut_lines(csv_path: Path, keep: int) -> None:
    """Cut a CSV at a line boundary after the header and `keep` rows (what `truncate` or a full disk leaves)."""
    lines = csv_path.read_bytes().splitlines(keepends=True)
    csv_path.write_bytes(b"".join(lines[: 1 + keep]))


def test_sidecar_records_rows_bytes_and_checksum(results_dir):
    path = store.save("demo", rows(n=4), meta(), machine="m1")
    saved = json.loads(path.read_text())
    data = path.with_suffix(".csv").read_bytes()
    import hashlib

    assert saved["rows"] == 4 and saved["csv_bytes"] == len(data)
    assert saved["csv_sha256"] == hashlib.sha256(data).hexdigest()


def test_a_truncated_csv_is_skipped_with_a_warning_never_shown(results_dir, capsys):
    a, b = two_runs(results_dir)
    cut_lines(b.with_suffix(".csv"), 3)  # the newest run lost two rows, at a line boundary
    before = snapshot(results_dir)
    df = store.load("demo", "m1")
    assert df["value"].unique().tolist() == [1]  # the older, intact run; never the cut one
    assert [m["run_id"] for m in store.runs("demo", "m1")] == [a.stem]
    assert [m["run_id"] for m in store.runs("demo", "all")] == [a.stem]
    assert [m["run_id"] for m in store.chosen_runs("demo", "m1")] == [a.stem]
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err  # one warning, once
    assert f"corrupt results file {b.with_suffix('.csv')}" in err[0] and "run skipped" in err[0]
    assert store.skipped_runs("demo", "m1") and snapshot(results_dir) == before
    # with nothing else left, the warning is the error
    cut_lines(a.with_suffix(".csv"), 4)
    with pytest.raises(MechsymError, match=r"corrupt results file .*\.csv: .*truncated or changed"):
        store.load("demo", "m1")
    with pytest.raises(MechsymError, match=r"corrupt results file"):
        store.chosen_runs("demo", "m1")
    assert store.runs("demo", "m1") == []  # the list of what is valid: empty, with the warnings


def test_a_csv_changed_in_place_is_skipped(results_dir):
    a, b = two_runs(results_dir)
    csv_path = b.with_suffix(".csv")
    data = csv_path.read_bytes()
    csv_path.write_bytes(data.replace(b"throughput,2,", b"throughput,3,", 1))  # same size, other bytes
    assert csv_path.read_bytes() != data
    assert store.load("demo", "m1")["value"].unique().tolist() == [1]
    csv_path.unlink()
    assert store.load("demo", "m1")["value"].unique().tolist() == [1]
    assert any("is missing" in s for s in store.skipped_runs("demo", "m1"))


def old_style(json_path: Path) -> None:
    """Rewrite a sidecar as runs were stored before checksums: rows only."""
    m = json.loads(json_path.read_text())
    m.pop("csv_sha256"), m.pop("csv_bytes")
    json_path.write_text(json.dumps(m, indent=2, sort_keys=True) + "\n")


def test_old_sidecars_are_checked_by_row_count(results_dir):
    a, b = two_runs(results_dir)
    old_style(a), old_style(b)
    assert store.load("demo", "m1")["value"].unique().tolist() == [2]  # intact old-style runs are valid
    cut_lines(b.with_suffix(".csv"), 4)
    assert store.load("demo", "m1")["value"].unique().tolist() == [1]
    assert "4 rows where its metadata records 5" in store.skipped_runs("demo", "m1")[0]
    # cut mid-line: the row count may still match, the missing newline gives it away
    data = a.with_suffix(".csv").read_bytes()
    a.with_suffix(".csv").write_bytes(data[:-3])
    with pytest.raises(MechsymError, match="cut mid-line"):
        store.load("demo", "m1")


def test_sidecars_without_rows_stay_readable(results_dir):
    path = store.save("demo", rows(), meta(), machine="m1")
    m = json.loads(path.read_text())
    for k in ("rows", "csv_sha256", "csv_bytes"):
        m.pop(k)
    path.write_text(json.dumps(m))
    assert len(store.load("demo", "m1")) == 3


@pytest.mark.parametrize("text", ["[]", "{}", '"a string"', '{"run_id": 3}'])
def test_valid_json_that_is_not_a_run_is_named(results_dir, text):
    path = store.save("demo", rows(), meta(), machine="m1")
    path.write_text(text)
    with pytest.raises(MechsymError, match=rf"corrupt metadata file .*{path.name}: not a run's metadata"):
        store.load("demo", "m1")  # the only run: its reason is the error (beside others it is skipped with a warning)


def test_header_only_csv(results_dir):
    path = store.save("demo", rows(), meta(), machine="m1")
    old_style(path)
    m = json.loads(path.read_text())
    m["rows"] = 0
    path.write_text(json.dumps(m))
    cut_lines(path.with_suffix(".csv"), 0)
    with pytest.raises(MechsymError, match="a header and no rows"):
        store.load("demo", "m1")


# ---------------------------------------------------------------- the store is checked before measuring

def test_check_writable_accepts_a_fresh_store_and_creates_no_run_folder(results_dir, monkeypatch):
    monkeypatch.setenv("MECHSYM_MACHINE", "m1")
    folder = store.check_writable("demo")
    assert folder == results_dir / "m1" / "demo"
    assert list(results_dir.iterdir()) == []  # no empty machine folder left to confuse "this machine"
    missing = results_dir / "new" / "root"
    monkeypatch.setenv("MECHSYM_RESULTS", str(missing))
    store.check_writable("demo")
    assert not (results_dir / "new").exists()  # nothing is created before there is a run to store


def test_check_writable_refuses_a_file_as_results_dir(tmp_path, monkeypatch):
    f = tmp_path / "results.txt"
    f.write_text("not a folder\n")
    monkeypatch.setenv("MECHSYM_RESULTS", str(f))
    with pytest.raises(MechsymError, match=r"results directory .*results\.txt \(MECHSYM_RESULTS\): is not a directory"):
        store.check_writable("demo")
    assert f.read_text() == "not a folder\n"
    # a file where the machine's folder belongs
    root = tmp_path / "r"
    (root).mkdir()
    (root / "m1").write_text("")
    monkeypatch.setenv("MECHSYM_RESULTS", str(root))
    with pytest.raises(MechsymError, match="is a file where a folder of runs belongs"):
        store.check_writable("demo", machine="m1")


def test_check_writable_refuses_a_read_only_store(results_dir, monkeypatch):
    # tests run as root, for whom chmod does not make a folder read-only: fail the write as a read-only mount does
    def read_only(path, data):
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(fsio, "write_synced", read_only)
    with pytest.raises(MechsymError) as e:
        store.check_writable("demo", machine="m1")
    assert len(str(e.value).splitlines()) == 1
    assert f"results directory {results_dir}" in str(e.value) and "Read-only file system" in str(e.value)
    assert "nothing measured" in str(e.value)


def test_check_writable_refuses_a_full_disk(results_dir, monkeypatch):
    real = os.statvfs(results_dir)

    class Full:
        f_bavail, f_frsize, f_files, f_favail = 10, real.f_frsize, real.f_files, real.f_favail

    monkeypatch.setattr(os, "statvfs", lambda p: Full)
    with pytest.raises(MechsymError, match=r"MiB free on its filesystem, needs at least 64 MiB"):
        store.check_writable("demo", machine="m1")

    class NoInodes:
        f_bavail, f_frsize, f_files, f_favail = real.f_bavail, real.f_frsize, 1000, 0

    monkeypatch.setattr(os, "statvfs", lambda p: NoInodes)
    with pytest.raises(MechsymError, match="no free inodes"):
        store.check_writable("demo", machine="m1")
    assert not [p for p in results_dir.rglob("*")]


# ---------------------------------------------------------------- machine ids

BAD_IDS = ["../escaped", "/tmp/abs", ".hidden", "a b;$(x)", "Upper", "a..b", "x" * 65, "-dash", "a/b", "a\nb", ""]


@pytest.mark.parametrize("bad", [b for b in BAD_IDS if b])
def test_mechsym_machine_is_validated(results_dir, monkeypatch, bad):
    monkeypatch.setenv("MECHSYM_MACHINE", bad)
    for call in (store.machine_id, lambda: store.check_writable("demo"),
                 lambda: store.save("demo", rows(), {"preset": "smoke", "status": "complete"})):
        with pytest.raises(MechsymError) as e:
            call()
        msg = str(e.value)
        assert len(msg.splitlines()) == 1 and msg.startswith("MECHSYM_MACHINE ")
        assert "allowed: 1-64 characters a-z 0-9 . _ -" in msg and "no '..'" in msg
    assert not [p for p in results_dir.rglob("*")]
    assert not (results_dir.parent / "escaped").exists()


@pytest.mark.parametrize("good", ["m1", "intel-xeon-16cpu-64g", "amd-epyc-2cpu-24g-74cfa7", "a.b_c-9", "x" * 64])
def test_good_machine_ids(results_dir, monkeypatch, good):
    monkeypatch.setenv("MECHSYM_MACHINE", good)
    assert store.machine_id() == good
    assert store.save("demo", rows(), {"preset": "smoke", "status": "complete"}).parent.parent.name == good


def test_save_refuses_a_bad_machine_or_experiment(results_dir):
    with pytest.raises(MechsymError, match="machine id '../x'"):
        store.save("demo", rows(), meta(), machine="../x")
    with pytest.raises(MechsymError, match="experiment '../demo'"):
        store.save("../demo", rows(), meta(), machine="m1")
    assert not [p for p in results_dir.parent.rglob("*.csv")]


def fake_host(tmp_path, name, model="AMD EPYC", mhz=("2596.122", "2596.122"), mem_kb=24684092, machine_id="3d12",
              max_khz=None):
    """A fake /proc, /sys/devices/system/cpu and /etc of a host."""
    proc, sys_cpu, etc = tmp_path / name / "proc", tmp_path / name / "sys", tmp_path / name / "etc"
    for d in (proc, sys_cpu, etc):
        d.mkdir(parents=True)
    (proc / "cpuinfo").write_text("".join(f"processor\t: {i}\nmodel name\t: {model}\ncpu MHz\t\t: {m}\n\n"
                                          for i, m in enumerate(mhz)))
    (proc / "meminfo").write_text(f"MemTotal:       {mem_kb} kB\nMemFree:        1000 kB\n")
    if machine_id is not None:
        (etc / "machine-id").write_text(machine_id + "\n")
    if max_khz is not None:
        (sys_cpu / "cpu0" / "cpufreq").mkdir(parents=True)
        (sys_cpu / "cpu0" / "cpufreq" / "cpuinfo_max_freq").write_text(f"{max_khz}\n")
    from mechsym.machine.cpus import Cpu, Topology

    topo = Topology(tuple(Cpu(i, i, 0) for i in range(len(mhz))), model)
    return machine.id_from_facts(machine.machine_facts(topo, proc, sys_cpu, etc))


def test_machine_id_tells_hosts_apart(tmp_path):
    here = fake_host(tmp_path, "a")
    assert re.fullmatch(r"amd-epyc-2cpu-24g-[0-9a-f]{6}", here) and layout.MACHINE_ID.match(here)
    # the same host on another boot: the clock calibrated 0.002 MHz off, MemTotal 8 KiB less (another kernel build)
    assert fake_host(tmp_path, "a2", mhz=("2596.124", "2596.124"), mem_kb=24684084) == here
    # a second EPYC with the same readable part, another clock, so another id
    other = fake_host(tmp_path, "b", mhz=("1996.249", "1996.249"))
    assert other != here and other.rsplit("-", 1)[0] == here.rsplit("-", 1)[0]
    assert fake_host(tmp_path, "c", machine_id="ffff") != here
    assert fake_host(tmp_path, "d", machine_id=None) != here
    assert fake_host(tmp_path, "e", mhz=("2596.1",) * 4).startswith("amd-epyc-4cpu-24g-")
    assert fake_host(tmp_path, "f", mem_kb=16 * 2**20).startswith("amd-epyc-2cpu-16g-")


def test_nominal_clock_sources(tmp_path):
    # bare metal: the current clock wanders; the model name or cpufreq's maximum does not
    a = fake_host(tmp_path, "a", model="Intel(R) Xeon(R) CPU E5-2670 0 @ 2.60GHz", mhz=("1200.000", "3300.000"))
    b = fake_host(tmp_path, "b", model="Intel(R) Xeon(R) CPU E5-2670 0 @ 2.60GHz", mhz=("2900.000", "1250.000"))
    assert a == b and a.startswith("intel-xeon-e5-2670-0-2cpu-24g-")
    c = fake_host(tmp_path, "c", model="AMD Ryzen 7", mhz=("1400.0", "4100.0"), max_khz=4_700_000)
    d = fake_host(tmp_path, "d", model="AMD Ryzen 7", mhz=("3900.0", "2000.0"), max_khz=4_700_000)
    assert c == d
    assert machine.nominal_mhz("Intel(R) Core(TM)2 CPU 6600 @ 2.40GHz") == (2400, "model name")


def test_this_machine_id_is_stable_and_valid(monkeypatch):
    monkeypatch.delenv("MECHSYM_MACHINE", raising=False)
    ids = set()
    for _ in range(5):
        machine._own_id.cache_clear()
        ids.add(store.machine_id())
    assert len(ids) == 1 and layout.MACHINE_ID.match(ids.pop())
    facts = machine.machine_facts()
    assert set(machine.HASHED_FACTS) <= set(facts) and facts["nominal_mhz"] is not None


# ---------------------------------------------------------------- runs stored under an older id: the alias table

def legacy_store(results_dir, monkeypatch):
    """A legacy directory holding one run of this host (listed in machines.csv) and one of another host."""
    monkeypatch.setenv("MECHSYM_MACHINE", "amd-epyc-2cpu-24g-aaaaaa")
    ours = store.save("demo", rows(value=1), meta(run_id="20260101T000000Z-standard-111111",
                                                  machine={"machine_id": "amd-epyc-2cpu-24g", "cpu_model": "AMD EPYC",
                                                           "cpu_mhz": 2596.124, "logical_cpus": 2}),
                      machine="amd-epyc-2cpu-24g")
    theirs = store.save("demo", rows(value=7), meta(run_id="20260103T000000Z-standard-222222",
                                                    machine={"machine_id": "amd-epyc-2cpu-24g", "cpu_model": "AMD EPYC",
                                                             "cpu_mhz": 1996.249, "logical_cpus": 2}),
                        machine="amd-epyc-2cpu-24g")
    (results_dir / "machines.csv").write_text(
        "directory,run_id,machine_id,cpu_model,cpu_mhz,logical_cpus,memory_bytes,kernel,evidence\n"
        "amd-epyc-2cpu-24g,20260101T000000Z-standard-111111,amd-epyc-2cpu-24g-aaaaaa,AMD EPYC,2596.124,2,"
        "25276502016,6.18,\"recorded facts match this host\"\n")
    return ours, theirs


def test_aliases_relabel_this_hosts_legacy_runs_only(results_dir, monkeypatch):
    ours, theirs = legacy_store(results_dir, monkeypatch)
    before = snapshot(results_dir)
    assert store.machines() == ["amd-epyc-2cpu-24g", "amd-epyc-2cpu-24g-aaaaaa"]
    # "this machine" finds its own legacy run, and never the other host's (which is newer)
    assert store.default_machine("demo") == "amd-epyc-2cpu-24g-aaaaaa"
    df = store.load("demo")
    assert df["value"].unique().tolist() == [1] and set(df["machine"]) == {"amd-epyc-2cpu-24g-aaaaaa"}
    assert [m["_dir"] for m in store.runs("demo")] == ["amd-epyc-2cpu-24g"]
    # the unlisted run keeps its old id, which is not this machine, and says so
    assert store.load("demo", "amd-epyc-2cpu-24g")["value"].unique().tolist() == [7]
    label = layout.machine_label("amd-epyc-2cpu-24g")
    assert "not verified as this machine" in label and "2000 MHz" in label
    assert layout.machine_label("amd-epyc-2cpu-24g-aaaaaa").endswith(": this machine")
    assert "2600 MHz" in layout.machine_label("amd-epyc-2cpu-24g-aaaaaa")
    assert sorted(store.load("demo", "all")["machine"].unique()) == ["amd-epyc-2cpu-24g", "amd-epyc-2cpu-24g-aaaaaa"]
    # a new run of this machine goes under its new id, beside the re-labelled one
    store.save("demo", rows(value=3), {"preset": "standard", "status": "complete", "run_id": "20260104T000000Z-standard-333333"})
    assert [m["_dir"] for m in store.runs("demo")] == ["amd-epyc-2cpu-24g", "amd-epyc-2cpu-24g-aaaaaa"]
    assert store.load("demo")["value"].unique().tolist() == [3]
    assert all(snapshot(results_dir)[k] == v for k, v in before.items())  # every stored file byte-identical


def test_on_another_host_the_relabelled_runs_are_not_this_machine(results_dir, monkeypatch):
    legacy_store(results_dir, monkeypatch)
    monkeypatch.setenv("MECHSYM_MACHINE", "amd-epyc-2cpu-24g-bbbbbb")
    assert "amd-epyc-2cpu-24g-bbbbbb" not in store.machines()
    assert layout.machine_label("amd-epyc-2cpu-24g-aaaaaa").endswith(": another machine")
    assert not machine.is_this_machine(store.default_machine("demo"))


def test_a_bad_alias_table_is_named(results_dir, monkeypatch):
    legacy_store(results_dir, monkeypatch)
    (results_dir / "machines.csv").write_text("directory,machine_id\nx,y\n")
    with pytest.raises(MechsymError, match=r"alias table .*machines\.csv: missing columns run_id"):
        store.machines()
    (results_dir / "machines.csv").write_text(",".join(layout.ALIAS_COLUMNS) + "\n../x,20260101T000000Z-standard-111111,y,,,,,,\n")
    with pytest.raises(MechsymError, match="line 2: needs a directory"):
        store.machines()


def test_the_stored_results_alias_table_matches_its_runs():
    """data/results/machines.csv (read only): every row names a stored run whose recorded facts it repeats and
    whose CSV is intact; every run of the legacy id is listed; on the host that took them they are this machine's."""
    import csv

    root = Path(__file__).resolve().parents[1] / "data" / "results"
    table = root / "machines.csv"
    if not table.exists():
        pytest.skip("no alias table")
    rows_ = list(csv.DictReader(table.open()))
    assert rows_
    listed = set()
    for r in rows_:
        j = root / r["directory"] / "*" / f"{r['run_id']}.json"
        found = list(root.glob(f"{r['directory']}/*/{r['run_id']}.json"))
        assert len(found) == 1, j
        m = json.loads(found[0].read_text())
        mi = m["machine"]
        assert mi["machine_id"] == r["directory"] and mi["cpu_model"] == r["cpu_model"]
        assert str(mi["logical_cpus"]) == r["logical_cpus"] and str(mi["memory_bytes"]) == r["memory_bytes"]
        assert str(mi.get("cpu_mhz") or "") == r["cpu_mhz"] and mi["kernel"] == r["kernel"] and r["evidence"]
        assert runcheck.check_csv({**m, "_csv": str(found[0].with_suffix(".csv")), "_json": str(found[0])}) is None
        listed.add((r["directory"], r["run_id"]))
    dirs = {d for d, _ in listed}
    assert {(j.parent.parent.name, j.stem) for d in dirs for j in (root / d).glob("*/*.json")} == listed
    targets = {r["machine_id"] for r in rows_}
    assert len(targets) == 1
    if os.environ.get("MECHSYM_MACHINE") is None and store.machine_id() in targets:
        assert targets <= set(store.machines(root)) and not dirs & set(store.machines(root))
        assert layout.machine_label(targets.pop(), root).endswith(": this machine")


@pytest.mark.kernel
def test_a_sweep_refuses_an_unwritable_store_before_measuring(tmp_path, monkeypatch):
    from mechsym import experiments
    from mechsym.run import sweep

    f = tmp_path / "results-file"
    f.write_text("")
    monkeypatch.setenv("MECHSYM_RESULTS", str(f))
    monkeypatch.setattr(sweep, "plan", lambda *a, **k: pytest.fail("planned (and would have measured) before refusing"))
    with pytest.raises(MechsymError, match=r"results directory .*results-file \(MECHSYM_RESULTS\): is not a directory"):
        sweep.execute(experiments.get("locks"), "smoke", progress=False)
    monkeypatch.setenv("MECHSYM_RESULTS", str(tmp_path / "ok"))
    monkeypatch.setenv("MECHSYM_MACHINE", "../escaped")
    with pytest.raises(MechsymError, match="MECHSYM_MACHINE '../escaped': not a machine id"):
        sweep.execute(experiments.get("locks"), "smoke", progress=False)
    assert not (tmp_path / "escaped").exists()


def test_stored_metadata_names_no_persons_directories(results_dir, tmp_path, monkeypatch):
    """Paths in a run's metadata are relative to the repository or $MECHSYM_SCRATCH, never absolute."""
    import json

    import pandas as pd

    from mechsym import repo_root
    from mechsym.store import runs as store

    scratch = tmp_path / "scratch"
    monkeypatch.setenv("MECHSYM_SCRATCH", str(scratch))
    meta = {"preset": "smoke", "commands": [f"java -cp {repo_root()}/build/mechsym.jar K --file={scratch}/f.dat"],
            "scratch": str(scratch / "seqio-1")}
    path = store.save("locks", pd.DataFrame({"metric": ["m"], "value": [1.0]}), meta)
    saved = json.loads(path.read_text())
    assert saved["commands"] == ["java -cp build/mechsym.jar K --file=$MECHSYM_SCRATCH/f.dat"]
    assert saved["scratch"] == "$MECHSYM_SCRATCH/seqio-1"
    assert str(repo_root()) not in path.read_text()
