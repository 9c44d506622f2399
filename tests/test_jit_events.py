"""Compilation events (mechsym.run.harness: parse_jit_line, jit_events, jit_event_rows) and the writecombining fork that
records them (variant listing-jit, notebook 07's "Which code each repetition ran").

The parser reads lines captured once from `-Xlog:jit+compilation=debug:stderr:uptimemillis` on JDK 17.0 (Ubuntu
OpenJDK) and JDK 25 (Temurin) running WriteCombining --protocol=post; the sweep's rows come from the shared smoke
run (`mechsym run writecombining --preset smoke`, once per test session)."""

import math
import shutil

import pandas as pd
import pytest

from mechsym.run import harness
from mechsym.view import nb
from mechsym.store import runs as store
from mechsym.machine.cpus import Cpu, Topology
from mechsym.experiments import writecombining as exp

JDK17 = """\
[176ms]    1       3       java.lang.Object::<init> (1 bytes)
[194ms]    8     n 0       java.lang.System::arraycopy (native)   (static)
[212ms]   14     n 0       java.lang.invoke.MethodHandle::linkToStatic(LLLLLLL)L (native)   (static)
[295ms]   49   !   3       java.util.concurrent.ConcurrentHashMap::putVal (432 bytes)
[428ms]  230 %     3       mechsym.writecombining.WriteCombining::splitLoop @ 2 (79 bytes)
[449ms]  231       3       mechsym.writecombining.WriteCombining::splitLoop (79 bytes)
[451ms]  230 %     3       mechsym.writecombining.WriteCombining::splitLoop @ 2 (79 bytes)   made not entrant
[489ms]  234 %     4       mechsym.writecombining.WriteCombining::splitLoop @ 41 (79 bytes)
[740ms]  244       4       mechsym.writecombining.WriteCombining::splitLoop (79 bytes)
"""
JDK25 = """\
[85ms]    4     n 0       jdk.internal.vm.Continuation::enterSpecial (native)   (static)
[92ms]    2       3       java.lang.Byte::toUnsignedInt (6 bytes)   made not entrant: not used
[428ms]  112 %     3       mechsym.writecombining.WriteCombining::loop6 @ 2 (58 bytes)   made not entrant: OSR invalidation of lower level
[454ms]  114 %     4       mechsym.writecombining.WriteCombining::loop6 @ 2 (58 bytes)   made not entrant: uncommon trap
[855ms]  205       4       mechsym.writecombining.WriteCombining::splitLoop (79 bytes)
"""
NOT_EVENTS = [
    "WriteCombining: CHECK FAILED: array 5 slot 1 holds 0, expected 1",
    "[0.012s][warning][gc] -XX:+PrintGCDetails is deprecated",
    "OpenJDK 64-Bit Server VM warning: Options -Xverify:none and -noverify were deprecated",
    "",
]


def test_parses_jdk17_lines():
    e = harness.jit_events(JDK17)
    assert len(e) == len(JDK17.splitlines())
    first = e.iloc[0]
    assert (first.uptime_ms, first.compile_id, first.method, first.tier, first.kind) == (
        176.0, 1, "java.lang.Object::<init>", 3, harness.COMPILE)
    assert math.isnan(first.osr_bci)
    native = e.iloc[1]
    assert native.tier == 0 and native.method == "java.lang.System::arraycopy" and native.kind == harness.COMPILE
    assert e.iloc[2].method == "java.lang.invoke.MethodHandle::linkToStatic(LLLLLLL)L"
    assert e.iloc[3].tier == 3 and e.iloc[3].method.endswith("::putVal")   # "!": has exception handlers
    osr = e.iloc[4]
    assert (osr.compile_id, osr.tier, osr.osr_bci, osr.kind) == (230, 3, 2, harness.COMPILE)
    gone = e.iloc[6]
    assert (gone.compile_id, gone.osr_bci, gone.kind, gone.reason) == (230, 2, "made not entrant", "")
    assert e.iloc[7].osr_bci == 41 and e.iloc[8].tier == 4 and math.isnan(e.iloc[8].osr_bci)


def test_parses_jdk25_lines_with_their_reasons():
    e = harness.jit_events(JDK25)
    assert list(e["kind"]) == [harness.COMPILE] + ["made not entrant"] * 3 + [harness.COMPILE]
    assert list(e["reason"]) == ["", "not used", "OSR invalidation of lower level", "uncommon trap", ""]
    assert list(e["compile_id"]) == [4, 2, 112, 114, 205]


def test_other_lines_are_not_events_and_a_prefix_filters():
    assert all(harness.parse_jit_line(line) is None for line in NOT_EVENTS)
    mixed = JDK17.splitlines() + NOT_EVENTS
    mine = harness.jit_events(mixed, prefix="mechsym.writecombining.")
    assert len(mine) == 5 and set(mine["method"].map(harness.short_method)) == {"WriteCombining::splitLoop"}
    assert harness.parse_jit_line("[0.428s]  230 %     3       a.B::c @ 2 (79 bytes)")["uptime_ms"] == 428.0


def kernel_rows(spans):
    """A post-protocol fork's rows as the kernel prints them: (iteration, per_loop, start, end) per timed run."""
    rows = []
    for it, per_loop, start, end in spans:
        base = dict(arrays=6, per_loop=per_loop, iteration=it, warmup=False)
        rows += [dict(base, metric="duration", value=(end - start) * 1e6, unit="ns"),
                 dict(base, metric=harness.UPTIME_START, value=start, unit="ms"),
                 dict(base, metric=harness.UPTIME_END, value=end, unit="ms")]
    return pd.DataFrame(rows)


def test_events_are_placed_in_the_timed_run_around_them():
    k = kernel_rows([(0, 6, 100, 200), (0, 3, 210, 300), (1, 6, 300, 400)])
    lines = [f"[{t}ms]  {i}       3       mechsym.writecombining.WriteCombining::m (9 bytes)"
             for i, t in enumerate([50, 150, 205, 300, 450], start=1)]
    r = harness.jit_event_rows(harness.jit_events(lines), k)
    assert list(r["metric"]) == [harness.JIT_EVENT] * 5 and set(r["unit"]) == {"ms"}
    assert list(r["value"]) == [50, 150, 205, 300, 450]
    assert list(r["iteration"]) == [0, 0, 0, 1, 1]            # before any run: the first's; after the last: the last's
    assert list(r["jit_timed"]) == [False, True, False, True, False]
    assert list(r["per_loop"].astype("object")) == [pd.NA, 6, pd.NA, 6, pd.NA]   # 300: the run that starts then
    assert set(r["arrays"]) == {6} and r["jit_method"].iloc[0] == "WriteCombining::m"
    assert str(r["per_loop"].dtype) == "Int64"   # stays whole beside the kernel's rows


def test_placing_needs_the_kernels_uptime_rows():
    k = kernel_rows([(0, 6, 100, 200)])
    with pytest.raises(ValueError, match="uptime_start"):
        harness.jit_event_rows(harness.jit_events(JDK17), k[k["metric"] == "duration"])


def test_one_jit_logged_listing_fork_per_jdk():
    from mechsym.machine.jdk import discover

    jdks = list(discover())
    topo = Topology((Cpu(0, 0, 0), Cpu(1, 1, 0)), "fake")
    for preset in ("smoke", "standard"):
        cells = [c for c in exp.cells(preset, topo, jdks) if c.variant == "listing-jit"]
        want = jdks if exp.PRESETS[preset]["all_jdks"] else jdks[:1]
        assert [c.jdk for c in cells] == want and all(c.forks == 1 for c in cells)
        assert all(c.flags == (harness.JIT_LOG,) and c.params["protocol"] == "post" and c.runner for c in cells)


@pytest.fixture(scope="module")
def smoke_rows(tmp_path_factory, smoke_store):
    """The shared smoke run, read back through the store (whose row checks every run must pass)."""
    root = tmp_path_factory.mktemp("wc-store")
    shutil.copytree(smoke_store(exp.NAME), root, dirs_exist_ok=True)
    return store.load(exp.NAME, "all", root=root, preset="smoke")


def test_the_smoke_run_stores_placed_events(smoke_rows):
    df = smoke_rows[smoke_rows["variant"] == "listing-jit"]
    ev = df[df["metric"] == harness.JIT_EVENT]
    assert len(ev) and set(ev["jit_method"].str.split("::").str[0]) == {"WriteCombining"}
    spans = exp.jit_spans(next(iter(exp.jit_forks(smoke_rows).values())))
    assert (spans["start"] <= spans["end"]).all()
    assert (spans["end"].iloc[:-1].to_numpy() <= spans["start"].iloc[1:].to_numpy()).all()   # one after another
    assert list(zip(spans["repetition"], spans["case"])) == [
        (r, c) for r in (1, 2, 3) for c in ("single loop", "split loops")]
    for e in ev.itertuples():
        inside = ((spans["start"] <= e.value) & (e.value <= spans["end"])).any()
        assert bool(inside) == (str(e.jit_timed) == "True"), e


def test_the_notebook_section_with_events(smoke_rows):
    runs = exp.jit_runs_table(smoke_rows)
    assert len(runs) == 6 * len(exp.jit_forks(smoke_rows)) and "compiled before it, still entrant" in runs
    fig = exp.plot_jit_timeline(smoke_rows)
    assert len(fig.axes) == len(exp.jit_forks(smoke_rows))
    html = nb.collapsed(exp.jit_events_table(smoke_rows), runs).data
    assert "WriteCombining::" in html and "not recorded" not in html


def test_the_notebook_section_without_events(smoke_rows):
    plain = smoke_rows[smoke_rows["variant"] != "listing-jit"]
    assert exp.jit_forks(plain) == {}
    for table in (exp.jit_runs_table(plain), exp.jit_events_table(plain)):
        assert list(table.iloc[:, 0]) == [exp.NOT_RECORDED]
    fig = exp.plot_jit_timeline(plain)
    assert any("not recorded in this run" in t.get_text() for t in fig.axes[0].texts)
