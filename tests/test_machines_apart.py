"""Two machines in one store, every notebook rendered with MACHINE="all": the machines stay apart.

The store holds this lab's newest stored standard run of each experiment (its first FORKS forks of each cell) plus
the same rows relabelled as a second host that is 10x slower (times x10, rates /10, everything else as measured).
A notebook that pooled the two would print a verdict on a mixture, or a row naming both; one that keeps them apart
judges the same claims on each machine and names one machine per row. Renders from stored results only: measures nothing. The notebooks run in
this test process (tests/inprocess.py: an IPython shell, no Jupyter kernel to start, a cell's value kept as the
kernel would send it). Every figure is built for both machines (one that fails to build fails its cell) but not
drawn into a PNG (Agg: what is asserted here is in the tables); the figures are drawn by the smoke renders
(tests/test_notebooks.py), and their panels per machine are checked in each experiment's tests."""

import json

import nbformat
import pytest
from bs4 import BeautifulSoup

from conftest import ROOT
from mechsym import experiments
from mechsym.store import runs as store

# one worker builds the two-machine store once and renders every notebook over it, the overview first: the verdicts
# it judges for both machines are then read from the verdict cache by the notebooks after it (the module's fixture
# would run on each worker it reached, each judging everything again in its own store)
pytestmark = pytest.mark.xdist_group("machines_apart")

SLOW = "slow-box-10x"
STORED = ROOT / "data" / "results"
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))
TIME_UNITS = ("ns", "us", "µs", "ms", "s", "cycles")
FORKS = 6   # forks kept per cell of each copied run (a spsc standard run has 650 forks: judged twice, it is slow)


def slower(unit) -> float:
    """What a 10x slower machine does to a number in this unit."""
    u = str(unit)
    if u.endswith("/s"):
        return 0.1
    return 10.0 if u.split("/")[0] in TIME_UNITS else 1.0


def newest_standard(name: str) -> dict | None:
    runs = store.chosen_runs(name, root=STORED, preset="standard")
    return runs[0] if runs else None   # the run itself; forks added until decided (its extensions) come after it


@pytest.fixture(scope="module")
def two_machines(tmp_path_factory):
    import pandas as pd

    root = tmp_path_factory.mktemp("two-machines")
    for name in experiments.names():
        meta = newest_standard(name)
        if meta is None:
            continue
        rows = pd.read_csv(meta["_csv"], low_memory=False).drop(columns="run_id")
        if "fork" in rows:   # the first forks of each cell: what is tested is which machine a row names
            rows = rows[pd.to_numeric(rows["fork"], errors="coerce").fillna(0) < FORKS]
        kept = {k: v for k, v in json.loads(open(meta["_json"]).read()).items()
                if k not in ("run_id", "rows", "csv_bytes", "csv_sha256", "saved_at")}
        store.save(name, rows.copy(), dict(kept), machine=meta["_machine"], root=root)
        if "unit" in rows:
            rows["value"] = rows["value"] * rows["unit"].map(slower)
        slow = {**kept, "machine": {**kept.get("machine", {}), "machine_id": SLOW}}
        store.save(name, rows, slow, machine=SLOW, root=root)
    return root


def body(table) -> list[list[str]]:
    """The body's rows as text, a cell spanning rows (an index level, e.g. the machine) repeated in each."""
    rows, carry = [], {}
    tbody = table.find("tbody", recursive=False)
    for tr in tbody.find_all("tr", recursive=False) if tbody else []:   # a table folded inside a cell is its own
        row, cells, col = [], list(tr.find_all(["th", "td"], recursive=False)), 0
        while cells or col in carry:
            if col in carry:
                text, left = carry[col]
                row.append(text)
                carry = {**carry, col: (text, left - 1)} if left > 1 else {k: v for k, v in carry.items() if k != col}
            else:
                c = cells.pop(0)
                row.append(c.get_text(strip=True))
                if int(c.get("rowspan", 1)) > 1:
                    carry[col] = (row[-1], int(c["rowspan"]) - 1)
            col += 1
        rows.append(row)
    return rows


def machine_columns(executed) -> list[tuple[list[str], bool]]:
    """Every HTML table with a 'machine' column: its machine cells, and whether it is a verdict table."""
    found = []
    for cell in executed.cells:
        for out in cell.get("outputs", []) if cell.cell_type == "code" else []:
            html = out.get("data", {}).get("text/html", "")
            for table in BeautifulSoup(html, "html.parser").find_all("table") if "<table" in html else []:
                thead = table.find("thead", recursive=False)
                head = next((tr for tr in (thead.find_all("tr", recursive=False) if thead else [])
                             if "machine" in [th.get_text(strip=True) for th in tr.find_all("th", recursive=False)]),
                            None)
                if head is None:
                    continue
                names = [th.get_text(strip=True) for th in head.find_all("th", recursive=False)
                         for _ in range(int(th.get("colspan", 1)))]
                rows = body(table)
                bad = [r for r in rows if len(r) != len(names)]
                assert not bad, f"a table whose rows do not match its header {names}: {bad[:2]}"
                cells = [r[names.index("machine")] for r in rows]
                found.append((cells, any(n.startswith("holds on") for n in names)))
    return found


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_two_machines_stay_apart(nb, two_machines, tmp_path, monkeypatch):
    import inprocess

    # the overview is every experiment's page (calibration, which has no post, names it without being its subject)
    mine = [m for m in experiments.all_modules() if nb.stem in m.NOTEBOOKS and m.POST_FILE] or experiments.all_modules()
    if not any(newest_standard(m.NAME) for m in mine):
        pytest.skip(f"{nb.stem}: no stored standard run to copy")
    monkeypatch.setenv("MECHSYM_RESULTS", str(two_machines))
    monkeypatch.setenv("MECHSYM_BENCH_LOCK", str(tmp_path / "bench.lock"))
    tables = machine_columns(inprocess.execute(nb, preset="stored", machine="all"))
    assert tables, f"{nb.stem}: with two machines stored, no table says which machine a row is from"
    seen = {c for cells, _ in tables for c in cells}
    assert any(SLOW in c for c in seen) and any(SLOW not in c for c in seen), f"{nb.stem}: machines shown {seen}"
    for cells, verdict in tables:
        assert not [c for c in cells if "," in c], f"{nb.stem}: a row pools machines: {sorted(set(cells))}"
        if verdict:
            slow = sum(SLOW in c for c in cells)
            assert slow == len(cells) - slow, f"{nb.stem}: {slow} verdicts on {SLOW}, {len(cells) - slow} on the other"
