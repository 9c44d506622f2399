"""Noise on record: a run's sidecar says what else used the CPUs while it measured. Fake /proc trees and a fake
clock: nothing here depends on real timing or on what else this machine runs."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from mechsym.machine import noise, procstat
from mechsym.store import runs as store

SELF = 100  # the run's own process (the sweep); its kernels are its children


class FakeProc:
    """A /proc with stat, loadavg and <pid>/stat files, advanced by hand."""

    def __init__(self, root: Path, cpus: int = 2):
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        self.cpu = {f"cpu{i}": [0] * 8 for i in range(cpus)}
        self.procs: dict[int, dict] = {}
        self.load = (0.1, 0.1, 0.1)
        self.t = 0.0
        self.add(1, "init", 0)
        self.add(SELF, "python", 1)
        self.write()

    def add(self, pid, comm, ppid, utime=0, stime=0, cutime=0, cstime=0, start=None, kthread=False):
        self.procs[pid] = dict(comm=comm, ppid=ppid, utime=utime, stime=stime, cutime=cutime, cstime=cstime,
                               start=start if start is not None else int(self.t * 100) + pid, kthread=kthread)
        self.write()

    def run(self, seconds: float, busy: dict[int, float] | None = None, steal: float = 0.0, idle_cpus=None):
        """Let `seconds` pass: each pid in busy uses that many CPUs; steal is the share of every CPU stolen."""
        busy = busy or {}
        ticks = int(round(seconds * 100))
        for pid, cpus in busy.items():
            self.procs[pid]["utime"] += int(round(ticks * cpus))
        used = sum(busy.values())
        n = len(self.cpu)
        for c in self.cpu.values():
            st = int(round(ticks * steal))
            user = min(int(round(ticks * min(used / n, 1.0))), ticks - st)
            c[0] += user
            c[7] += st
            c[3] += max(ticks - user - st, 0)
        self.t += seconds
        self.write()

    def end(self, pid):
        """A process exits and its parent reaps it: the parent's cutime takes its whole life."""
        p = self.procs.pop(pid)
        parent = self.procs.get(p["ppid"])
        if parent:
            parent["cutime"] += p["utime"] + p["cutime"]
            parent["cstime"] += p["stime"] + p["cstime"]
        self.write()

    def write(self):
        lines = ["cpu  " + " ".join(str(sum(c[i] for c in self.cpu.values())) for i in range(8)) + " 0 0"]
        lines += [f"{k} " + " ".join(map(str, v)) + " 0 0" for k, v in self.cpu.items()]
        (self.root / "stat").write_text("\n".join(lines) + "\nintr 0\nctxt 0\n")
        (self.root / "loadavg").write_text(" ".join(map(str, self.load)) + " 1/100 999\n")
        for d in self.root.iterdir():
            if d.name.isdigit() and int(d.name) not in self.procs:
                (d / "stat").unlink()
                d.rmdir()
        for pid, p in self.procs.items():
            (self.root / str(pid)).mkdir(exist_ok=True)
            flags = procstat.PF_KTHREAD if p["kthread"] else 0
            (self.root / str(pid) / "stat").write_text(
                f"{pid} ({p['comm']}) S {p['ppid']} {pid} {pid} 0 -1 {flags} 0 0 0 0 {p['utime']} {p['stime']} "
                f"{p['cutime']} {p['cstime']} 20 0 1 0 {p['start']} 1000 100 0 0 0\n")

    def clock(self):
        return self.t


@pytest.fixture
def proc(tmp_path):
    return FakeProc(tmp_path / "proc")


def recorder(proc: FakeProc, tmp_path: Path, **kw) -> noise.Recorder:
    return noise.Recorder(proc=proc.root, self_pid=SELF, registry=tmp_path / "runs", clock=proc.clock,
                          wallclock=lambda: 1_800_000_000 + proc.t, clk_tck=100, **kw)


def sweep(proc: FakeProc, rec: noise.Recorder, forks: int, seconds: float, others: dict | None = None, steal=0.0):
    """What execute() does: begin after the lock, a tick before each fork, the kernel a child of the run."""
    rec.begin()
    for i in range(forks):
        rec.tick("v", i)
        kernel = 1000 + i
        proc.add(kernel, "java", SELF)
        proc.run(seconds, {kernel: 2.0, **(others or {})}, steal=steal)
        proc.end(kernel)  # reaped by the run: its time goes to the run's cutime, which is the run's own
    return rec.stop()


def test_a_quiet_run(proc, tmp_path):
    proc.add(200, "sshd", 1)
    s = sweep(proc, recorder(proc, tmp_path), forks=4, seconds=2.0, others={200: 0.01})
    assert s["quiet"] is True and noise.is_quiet({"noise": s}) is True
    assert s["wall_s"] == 8.0 and s["cpus"] == 2
    assert s["other_cpu_s"] == pytest.approx(0.08, abs=0.011)
    assert s["own_cpu_s"] == pytest.approx(16.0)  # the kernels: excluded from "other"
    assert s["other_cpus"] < noise.OTHER_CPUS_MAX and s["steal_pct"] == 0
    assert s["fork_columns"] == ["variant", "fork", "wall_s", "other_cpu_s", "steal_pct"]
    assert [f[:3] for f in s["forks"]] == [["v", i, 2.0] for i in range(4)] and s["busy_forks"] == 0
    assert s["waited_for_lock"] is False and s["overlapped"] == []
    assert s["loadavg_1m"] == {"start": 0.1, "end": 0.1, "max": 0.1}


def test_other_processes_make_a_run_busy(proc, tmp_path):
    proc.add(300, "cc1plus", 1)
    s = sweep(proc, recorder(proc, tmp_path), forks=3, seconds=1.0, others={300: 0.5})
    assert s["quiet"] is False and noise.is_quiet({"noise": s}) is False
    assert s["other_cpu_s"] == pytest.approx(1.5) and s["other_cpus"] == pytest.approx(0.5)
    assert s["other_cpu_pct"] == pytest.approx(25.0)  # of the run's wall time x 2 CPUs
    assert "other processes used 0.50 CPUs on average (over 0.1 allowed)" in s["why"]
    assert s["top_others"][0] == {"command": "cc1plus", "cpu_s": 1.5}
    assert s["busy_forks"] == 3


def test_threshold_is_ten_percent_of_one_cpu(proc, tmp_path):
    proc.add(300, "x", 1)
    assert sweep(proc, recorder(proc, tmp_path), 2, 5.0, {300: 0.09})["quiet"] is True
    proc2 = FakeProc(tmp_path / "p2")
    proc2.add(300, "x", 1)
    assert sweep(proc2, recorder(proc2, tmp_path / "r2"), 2, 5.0, {300: 0.12})["quiet"] is False


def test_steal_makes_a_run_busy(proc, tmp_path):
    s = sweep(proc, recorder(proc, tmp_path), forks=2, seconds=1.0, steal=0.10)
    assert s["steal_pct"] == pytest.approx(10.0) and s["steal_pct_per_cpu"] == {"cpu0": 10.0, "cpu1": 10.0}
    assert s["quiet"] is False and "steal 10.0% (over 5.0%)" in s["why"]
    assert all(f[4] == pytest.approx(10.0) for f in s["forks"])


def test_a_process_that_ends_counts_only_its_time_inside_the_run(proc, tmp_path):
    proc.add(250, "bash", 1)
    proc.add(251, "make", 250, utime=5000)  # 50 s of CPU before the run started
    rec = recorder(proc, tmp_path)
    rec.begin()
    rec.tick()
    proc.run(1.0, {251: 0.3})
    proc.end(251)  # bash's cutime jumps by 50.3 s; only 0.3 s of it ran during this run
    proc.add(252, "short-lived", 1)
    proc.run(1.0, {252: 0.2})
    s = rec.stop()
    assert s["other_cpu_s"] == pytest.approx(0.5)


def test_kernel_threads_and_pid_reuse(proc, tmp_path):
    proc.add(2, "kthreadd", 0, kthread=True)
    proc.add(40, "kworker/0:1", 2, kthread=True)
    proc.add(500, "old", 1, utime=900, start=5)
    rec = recorder(proc, tmp_path)
    rec.begin()
    proc.run(1.0, {40: 0.4})
    proc.end(500)  # reaped by init
    proc.add(500, "new", 1, utime=10, start=999)  # and its pid reused by a new process
    s = rec.stop()
    assert s["kernel_threads_cpu_s"] == pytest.approx(0.4)
    assert s["other_cpu_s"] == pytest.approx(0.1)  # the new process's 0.1 s, not 9 s less nor 9 s more


def test_a_run_that_waited_for_the_lock_says_so(proc, tmp_path, capsys):
    rec = recorder(proc, tmp_path)
    rec.waited_for_lock("waiting for another measurement on this machine to finish (/tmp/x.lock)")
    assert "waiting for another measurement" in capsys.readouterr().err
    proc.add(700, "java", 1)
    proc.run(30.0, {700: 2.0})  # the other measurement, while this run waited: not this run's noise
    s = sweep(proc, rec, forks=1, seconds=1.0)
    assert s["waited_for_lock"] is True and s["lock_wait_s"] == 30.0
    assert s["quiet"] is True and s["wall_s"] == 1.0


def test_overlapping_measurements_are_marked_on_both_sides(proc, tmp_path):
    a, b = recorder(proc, tmp_path), recorder(proc, tmp_path)
    a.begin()
    b.begin()  # b sees a measuring
    a.tick()
    sa, sb = a.stop(), b.stop()
    assert sa["quiet"] is False and len(sa["overlapped"]) == 1 and "overlapped 1 other measurement" in sa["why"]
    assert sb["quiet"] is False and sb["overlapped"][0]["pid"] == SELF
    # one that started and ended inside another's run, between its samples, is found in the log
    c, d = recorder(proc, tmp_path), recorder(proc, tmp_path)
    c.begin()
    proc.run(1.0)
    d.begin()
    proc.run(1.0)
    d.stop()
    proc.run(1.0)
    assert c.stop()["overlapped"] and not list((tmp_path / "runs").glob("*.active"))
    # and runs one after the other do not overlap
    e = recorder(proc, tmp_path)
    e.begin()
    proc.run(1.0)
    assert e.stop()["overlapped"] == []


def test_a_stale_marker_is_not_an_overlap(proc, tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir()
    (runs / "99999-dead.active").write_text('{"pid": 99999, "start": 1}')  # a run killed with -9: nobody holds it
    s = sweep(proc, recorder(proc, tmp_path), 1, 1.0)
    assert s["overlapped"] == [] and s["quiet"] is True
    assert not (runs / "99999-dead.active").exists()


def test_no_proc_means_unknown_not_busy(tmp_path):
    rec = noise.Recorder(proc=tmp_path / "nothing", self_pid=SELF, registry=tmp_path / "runs", clk_tck=100)
    rec.begin()
    rec.tick()
    s = rec.stop()
    assert s["quiet"] is None and "noise not measured: cannot sample" in s["why"]
    assert noise.is_quiet({"noise": s}) is None


def test_runs_stored_before_noise_are_unknown():
    assert noise.is_quiet({"run_id": "x", "preset": "standard"}) is None
    assert noise.is_quiet({"noise": {"quiet": "yes"}}) is None
    assert noise.describe({"run_id": "x"}) == "unknown (stored before noise was recorded)"
    assert noise.describe({"noise": {"quiet": True, "why": "other processes 0.010 CPUs, steal 0.0%"}}).startswith("quiet: ")
    assert noise.describe({"noise": {"quiet": False, "why": "steal 9%"}}) == "busy: steal 9%"
    assert noise.stop({})["quiet"] is None  # no recorder: nothing measured, nothing claimed


def test_the_sidecar_stores_the_summary_not_the_recorder(proc, tmp_path, results_dir):
    rec = recorder(proc, tmp_path)
    rec.begin()
    proc.run(1.0)
    df = pd.DataFrame({"experiment": "demo", "metric": ["m"], "value": [1.0]})
    path = store.save("demo", df, {"preset": "smoke", "status": "interrupted", "_noise": rec}, machine="m1")
    saved = json.loads(path.read_text())
    assert "_noise" not in saved and saved["noise"]["quiet"] is True and saved["noise"]["wall_s"] == 1.0
    assert not list((tmp_path / "runs").glob("*.active"))


def test_parse_a_command_name_with_spaces_and_parens():
    p = procstat.parse_proc_stat("42 (Web Content (x)) S 1 42 42 0 -1 4194560 0 0 0 0 7 3 1 1 20 0 1 0 555 0 0\n")
    assert p.pid == 42 and p.comm == "Web Content (x)" and p.ppid == 1 and p.ticks == 12 and p.own == 10
    assert p.starttime == 555 and not p.kthread
    assert procstat.parse_proc_stat("garbage") is None


def test_a_recorder_dropped_without_stop_does_not_stay_measuring(proc, tmp_path):
    import gc

    rec = recorder(proc, tmp_path)
    rec.begin()
    assert list((tmp_path / "runs").glob("*.active"))
    del rec
    gc.collect()
    assert not list((tmp_path / "runs").glob("*.active"))
    s = sweep(proc, recorder(proc, tmp_path), 1, 1.0)
    assert s["overlapped"] == []
    rec = recorder(proc, tmp_path)
    rec.begin()
    assert rec.stop() is rec.stop()
