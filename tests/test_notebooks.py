"""Every notebook executed by papermill over a smoke run of its experiment (in a private results store) and exported
to HTML; one of them (OWN_SWEEP) runs its own smoke sweep instead."""

import shutil
from pathlib import Path

import nbformat
import pytest

from chromium import check_page, find_chromium, table_problems
from conftest import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]-*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_matches_its_source(nb):
    src = ROOT / "notebooks" / "src" / f"{nb.stem}.py"
    assert src.exists(), f"{src} missing: notebooks are written as jupytext sources"
    import jupytext

    from_src = jupytext.read(src)
    stored = nbformat.read(nb, as_version=4)
    a = [(c.cell_type, c.source.strip()) for c in from_src.cells]
    b = [(c.cell_type, c.source.strip()) for c in stored.cells]
    assert a == b, f"{nb.name} is out of date: run `make notebooks`"
    assert not any(c.get("outputs") for c in stored.cells if c.cell_type == "code"), f"{nb.name}: commit without outputs"
    params = [c for c in stored.cells if "parameters" in c.metadata.get("tags", [])]
    assert len(params) == 1 and "PRESET" in params[0].source and "MACHINE" in params[0].source


def experiment_of(nb: Path) -> str | None:
    """The experiment a notebook re-runs (None for the overview, which runs nothing; calibration, which has no post,
    names the overview as its page but is not what it re-runs)."""
    from mechsym import experiments

    return next((m.NAME for m in experiments.all_modules() if nb.stem in m.NOTEBOOKS and m.POST_FILE), None)


def render_and_export(nb, out, preset, artifacts, request, page="smoke"):
    """Execute `nb` into `out` at `preset` and export it to tests/artifacts/<notebook>.<page>.html: no error, a
    figure, tables that read as numbers, and the page as a browser shows it."""
    from mechsym.view.reports import execute, to_html

    execute(nb, out, preset=preset, timeout=600)
    executed = nbformat.read(out, as_version=4)
    errors = [o for c in executed.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    images = [o for c in executed.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if "image/png" in o.get("data", {})]
    assert images, f"{nb.name} drew no figure"
    html = artifacts / f"{nb.stem}.{page}.html"
    to_html(out, html)
    text = html.read_text()
    assert "data:image/png;base64" in text and "Verdicts" in text
    # tables read as numbers: no scientific notation, no NaN, no cell cut with '…'
    assert table_problems(text) == [], nb.name
    # the page in headless Chromium, screenshot in tests/artifacts/reports-<notebook>.<page>.png (without Chromium,
    # tests/test_reports.py's browser test skips and says why)
    if find_chromium():
        check_page(request.getfixturevalue("browser"), html, artifacts, html.stem)


#: The notebook that runs its own smoke sweep (PRESET="smoke": the sweep in the notebook's kernel, with its progress
#: bar, stored in the private store, not in data/results) instead of rendering the shared one: the smallest
#: experiment's. One execution covers both: its page is the render of that run.
OWN_SWEEP = "12-processor-affinity"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_renders_a_smoke_run_and_exports(nb, results_dir, smoke_store, artifacts, tmp_path, request):
    """Every notebook over a store holding one smoke run of its experiment (the sweep runs once per pytest run, for
    every notebook and worker: tests/conftest.py's smoke_store), so the rendering runs beside other tests' kernels.
    The overview runs nothing itself: it renders at PRESET="smoke" over an empty store. OWN_SWEEP runs its sweep."""
    name = experiment_of(nb)
    if nb.stem == OWN_SWEEP:
        render_and_export(nb, tmp_path / nb.name, "smoke", artifacts, request)
        assert list(results_dir.rglob("*.json")), f"{nb.stem}: its own smoke sweep stored no run in the private store"
        return
    if name is not None:
        shutil.copytree(smoke_store(name), results_dir, dirs_exist_ok=True)
    render_and_export(nb, tmp_path / nb.name, "stored" if name else "smoke", artifacts, request)
