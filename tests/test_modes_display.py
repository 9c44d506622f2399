"""Bimodal cells as the notebooks show them (mechsym.judge.modes): the mode table with each mode's value and share, the
recorded number that separates the modes (named only when one does), a claim on a bimodal cell judged per mode,
and the verdict table's marks explained in its caption. Synthetic locks rows, no kernel."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pandas as pd
import pytest

from mechsym.judge import modes, tables as verdict_tables, verdicts
from mechsym.style import plots
from mechsym.judge.verdicts import FAILS, HOLDS, INCONCLUSIVE, Claim, Rule, Verdict
from synthetic import synthetic_locks

BIMODAL = [20e6, 21e6, 60e6, 61e6, 62e6]     # forks 0-1 slow, 2-4 fast


def frame(ops=None, recorded: dict | None = None) -> pd.DataFrame:
    """One JDK, one and two threads; `recorded`: metric -> one value per fork, added to every cell's forks."""
    df = synthetic_locks(ops, jdks=("17",), threads=(1, 2), forks=5)
    ok = df[df["status"] == "ok"]
    extra = [ok.assign(metric=name, unit="ms", value=ok["fork"].map(dict(enumerate(values))))
             for name, values in (recorded or {}).items()]
    return pd.concat([df, *extra], ignore_index=True)


def test_a_bimodal_cell_shows_both_modes_with_their_shares():
    cells = modes.bimodal_cells(frame({("monitor-thin", 2): BIMODAL}))
    # the cell in both warm-up policies of the synthetic grid, and no other
    assert sorted(c.label.split(", ")[2] for c in cells) == ["warmup_policy short", "warmup_policy single"]
    assert all(c.label.startswith("variant monitor-thin, threads 2, ") for c in cells)
    assert {round(s, 1) for c in cells for s in c.modes.shares} == {0.4, 0.6}
    t = modes.table(cells)
    assert list(t.columns[:6]) == ["cell", "metric", "forks", "low mode (share)", "high mode (share)", "gap"]
    row = t.iloc[0]
    assert row["low mode (share)"].endswith("(40%)") and row["high mode (share)"].endswith("(60%)")
    assert row["forks"] == 5 and float(row["gap"].rstrip("x")) > 2.5
    forks = cells[0].forks
    assert list(forks["mode"]) == ["low", "low", "high", "high", "high"]
    fig = plots.modes_strips(cells)
    assert len(fig.axes) == len(cells)
    matplotlib.pyplot.close(fig)


def test_a_unimodal_run_has_no_bimodal_cell():
    assert modes.bimodal_cells(frame()) == []
    assert modes.table([]).empty


def test_the_separating_column_is_named_when_one_separates():
    jit = [40, 42, 3, 4, 5]          # the slow forks spent ~10x longer compiling
    unrelated = [5, 50, 5, 50, 27]   # the same mean in both modes
    cell = modes.bimodal_cells(frame({("monitor-thin", 2): BIMODAL}, {"jit_ms": jit, "gc_ms": unrelated}))[0]
    sep = cell.separation
    assert sep is not None and sep.column == "jit_ms" and sep.r < -0.9 and sep.perfect and sep.tested == 2
    assert "jit_ms" in modes.table([cell]).iloc[0]["recorded column that separates them"]
    assert {"jit_ms", "gc_ms"} <= set(cell.forks.columns)


def test_no_column_is_named_when_none_separates():
    cell = modes.bimodal_cells(frame({("monitor-thin", 2): BIMODAL}, {"gc_ms": [5, 50, 5, 50, 27],
                                                                          "jit_ms": [7, 7, 7, 7, 7]}))[0]
    assert cell.separation is None
    assert modes.table([cell]).iloc[0]["recorded column that separates them"] == "none"


RATIO = Claim("modes.ratio", "post.md", "nb", "A is at least 3x B.", "3x", "A over B", quote="A is 3x B",
              rule=Rule(">=", 3.0, reading="read as at least 3x"), statistic="A / B", unit="x")


def test_a_claim_on_a_bimodal_cell_is_judged_per_mode():
    """Ten forks, five in each mode: the slow mode's ratio (~2.1x) does not hold, the fast one's (~5x) holds, each
    with its own interval; the cell as a whole stays inconclusive: bimodal."""
    a = [8.3, 8.5, 8.4, 8.2, 8.6, 20.1, 20.3, 20.2, 20.0, 20.4]
    b = [4.0, 4.1, 3.9, 4.0, 4.05, 3.95, 4.02, 3.98, 4.01, 3.99]
    v = verdicts.judge(RATIO, verdicts.estimate(lambda x, y: x / y, a, b), scope={"jdk": "17"})
    assert v.outcome == INCONCLUSIVE and v.why.startswith("bimodal") and "per mode" in v.why
    assert [m.outcome for _, m in v.modes] == [FAILS, HOLDS]
    assert all(m.low is not None and m.high is not None and m.forks == 5 for _, m in v.modes)
    shown = verdict_tables.display([v])
    assert list(shown["row"]) == ["primary", "per mode", "per mode"]
    status = [c for c in shown.columns if c.startswith("holds on")][0]
    assert list(shown[status]) == ["inconclusive: bimodal", FAILS, HOLDS]
    assert "low mode: 50% of forks near 8.4" in shown["scope"].iloc[1]
    assert "bimodal" in verdict_tables.styled([v]).caption


def test_a_small_mode_has_no_interval():
    """Two forks in a mode: judged, but too few forks for an interval."""
    v = verdicts.judge(RATIO, verdicts.estimate(lambda x, y: x / y, BIMODAL, [1e7] * 4 + [1.01e7]))
    assert [m.outcome for _, m in v.modes] == [INCONCLUSIVE, INCONCLUSIVE]
    assert v.modes[0][1].why.startswith("one mode of a bimodal cell: 2 forks, an interval needs at least 5")


def test_a_row_near_its_threshold_is_marked_and_the_caption_says_why():
    near = Verdict(RATIO, HOLDS, "3.01x [3.00x, 3.2x], 5 forks", near=True, low=3.0, high=3.2, forks=5)
    plain = Verdict(RATIO, HOLDS, "4x [3.8x, 4.2x], 5 forks", low=3.8, high=4.2, forks=5)
    shown = verdict_tables.display([near, plain])
    status = [c for c in shown.columns if c.startswith("holds on")][0]
    assert list(shown[status]) == [f"{HOLDS} {verdict_tables.NEAR_MARK}", HOLDS]
    caption = verdict_tables.styled([near, plain]).caption
    assert verdict_tables.NEAR_MARK in caption and "seed" in caption and "1 row" in caption
    assert verdict_tables.styled([plain]).caption is None


@pytest.mark.parametrize("values", [[1.0, 1.0, 1.0, 1.0], [np.nan, 2.0, 3.0]])
def test_split_needs_two_clusters(values):
    assert modes.split(values) is None
