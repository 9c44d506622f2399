"""Every notebook executed by papermill at PRESET="smoke" (into a private results store) and exported to HTML."""

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from chromium import check_page, find_chromium, table_problems
from conftest import ROOT, VENV_BIN

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


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_at_smoke_and_exports(nb, results_dir, artifacts, tmp_path, request):
    from mechsym.reports import execute, to_html

    out = tmp_path / nb.name
    secs = execute(nb, out, preset="smoke", timeout=600)
    executed = nbformat.read(out, as_version=4)
    errors = [o for c in executed.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.output_type == "error"]
    assert not errors
    images = [o for c in executed.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if "image/png" in o.get("data", {})]
    assert images, f"{nb.name} drew no figure"
    html = artifacts / f"{nb.stem}.smoke.html"
    to_html(out, html)
    text = html.read_text()
    assert "data:image/png;base64" in text and "Verdicts" in text
    # tables read as numbers: no scientific notation, no NaN, no cell cut with '…' (issue 13)
    assert table_problems(text) == [], nb.name
    # the page in headless Chromium, screenshot in tests/artifacts/reports-<notebook>.smoke.png (without Chromium,
    # tests/test_reports.py's browser test skips and says why)
    if find_chromium():
        check_page(request.getfixturevalue("browser"), html, artifacts, html.stem)
    # the smoke run was stored in the private store, not in data/results (the overview runs nothing itself)
    if nb.stem != "00-overview":
        assert list(results_dir.rglob("*.json"))
