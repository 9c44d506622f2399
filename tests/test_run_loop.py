"""The lab's one run loop (mechsym.run.sweep.execute) and its hooks: a session around the run, a prepare step before each
fork, a handshake on a kernel's stderr/stdin (through mechsym.run.launch), cells run by a runner instead of a process,
and rows the hooks record. Fake kernels are small Python programs; nothing here measures anything."""

from __future__ import annotations

import contextlib
import sys
import textwrap
import types

import pandas as pd
import pytest

from mechsym import MechsymError
from mechsym.run import cells, launch, sweep
from mechsym.store import runs as store
from mechsym.run.launch import KernelError, Launch
from mechsym.run.sweep import Cell

CSV = "print('iteration,warmup,metric,value,unit'); "


def fake(code: str) -> Launch:
    return Launch([sys.executable, "-c", textwrap.dedent(code)], "none")


@pytest.mark.kernel
def test_handshake_answers_each_request_and_keeps_other_stderr():
    k = fake("""
        import sys
        answers = []
        for n in range(3):
            print(f"fake: ask {n}", file=sys.stderr, flush=True)
            answers.append(int(sys.stdin.readline()))
        print("a note", file=sys.stderr)
        print("iteration,warmup,metric,value,unit")
        for n, a in enumerate(answers):
            print(f"{n},false,answer,{a},x")
    """)
    asked = []

    def reply(line):
        if not line.startswith("fake: ask"):
            return None
        asked.append(line)
        return str(10 * (len(asked)))
    df = launch.run(k, timeout=30, reply=reply)
    assert df["value"].tolist() == [10, 20, 30] and len(asked) == 3


@pytest.mark.kernel
@pytest.mark.parametrize("code, kind", [("sys.exit(2)", "bad-argument"), ("sys.exit(3)", "check-failed"),
                                        ("sys.exit(5)", "crashed")])
def test_handshake_maps_exit_codes_as_the_plain_path(code, kind):
    k = fake(f"import sys; print('one line reason', file=sys.stderr); {code}")
    with pytest.raises(KernelError) as e:
        launch.run(k, timeout=30, reply=lambda line: None)
    assert e.value.kind == kind and "one line reason" in str(e.value)
    with pytest.raises(KernelError) as plain:
        launch.run(k, timeout=30)
    assert plain.value.kind == kind


@pytest.mark.kernel
def test_a_kernel_waiting_for_an_answer_that_never_comes_times_out():
    k = fake("import sys; print('fake: ask', file=sys.stderr, flush=True); sys.stdin.readline(); " + CSV)
    with pytest.raises(KernelError) as e:
        launch.run(k, timeout=1, reply=lambda line: None)  # never answers
    assert e.value.kind == "timeout"


@pytest.mark.kernel
def test_a_failing_reply_kills_the_kernel():
    k = fake("import sys, time; print('fake: ask', file=sys.stderr, flush=True); sys.stdin.readline(); "
             "time.sleep(60)")

    def boom(line):
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        launch.run(k, timeout=120, reply=boom)


# ---------------------------------------------------------------- execute() with hooks

def module(events: list, fail_at: int | None = None):
    """A fake experiment: one process cell with prepare + args + handshake, one runner cell; a session."""

    @contextlib.contextmanager
    def session(cells, meta):
        events.append("enter")
        meta["session"] = "yes"
        try:
            yield {"dir": "W"}
        finally:
            events.append("exit")

    def prepare(fork):
        events.append(f"prepare {fork.cell.variant} {fork.number}")
        if fail_at is not None and len([e for e in events if e.startswith("prepare")]) == fail_at:
            raise KeyboardInterrupt

    def reply(fork, line):
        if line != "fake: ask":
            return None
        fork.rows.append({"iteration": 0, "warmup": False, "metric": "checked", "value": 1.0, "unit": "count"})
        return "go"

    def runner(fork):
        fork.commands.append("fake-runner")
        return pd.DataFrame([{"iteration": 0, "warmup": False, "metric": "speed", "value": 7.0, "unit": "count"}])

    code = ("import sys; print('fake: ask', file=sys.stderr, flush=True); w = sys.stdin.readline().strip(); "
            "print('where,iteration,warmup,metric,value,unit'); print(f'{sys.argv[-1]},0,false,speed,3.0,count')")

    def cells(preset, topo, jdks):
        proc = Cell("proc", "c:python", params={}, forks=2, prepare=prepare, reply=reply,
                    args=lambda fork: {"where": (fork.workspace or {}).get("dir", "none")})
        return [proc, Cell("run", "cmd:fake", params={"n": 1}, forks=2, prepare=prepare, runner=runner)]

    return types.SimpleNamespace(NAME="fake", cells=cells, session=session, code=code)


def run_python_cells(monkeypatch, code: str) -> None:
    """'c:python' cells run `code` (their arguments, --where=... last, on its command line)."""
    def native(binary, params, cpus=None):
        return Launch([sys.executable, "-c", code] + [f"--{k}={v}" for k, v in params.items()], "none")
    monkeypatch.setattr(cells, "native_command", native)


@pytest.mark.kernel
def test_execute_runs_the_hooks_in_order_and_stores_their_rows(results_dir, monkeypatch):
    events = []
    m = module(events)
    run_python_cells(monkeypatch, m.code)
    meta = sweep.execute(m, "smoke", progress=False)
    assert events == ["enter", "prepare proc 0", "prepare run 0", "prepare proc 1", "prepare run 1", "exit"]
    df = meta["frame"]
    proc = df[df["variant"] == "proc"]
    assert set(proc["metric"]) == {"speed", "checked"} and set(proc["where"]) == {"--where=W"}
    assert set(df[df["variant"] == "run"]["jdk"]) == {"fake"}
    assert meta["commands"].count("fake-runner") == 2 and meta["session"] == "yes"
    assert store.runs("fake", "all")[0]["status"] == "complete"


@pytest.mark.kernel
def test_ctrl_c_in_a_hook_leaves_the_session_and_keeps_what_finished(results_dir, monkeypatch):
    events = []
    m = module(events, fail_at=3)
    run_python_cells(monkeypatch, m.code)
    with pytest.raises(KeyboardInterrupt):
        sweep.execute(m, "smoke", progress=False)
    assert events[-1] == "exit"
    metas = store.runs("fake", "all", include_incomplete=True)
    assert [x["status"] for x in metas] == ["interrupted"]


def test_a_dry_run_line_for_every_cell_kind():
    m = module([])
    proc, run = m.cells("smoke", None, [])
    assert run.command_line().startswith("fake (run by the experiment) --n=1")
    with pytest.raises(MechsymError, match="run by its runner"):
        run.launch()
