"""`mechsym reports` as a reader meets it: reports/index.html and the pages built from stored results, opened in
headless Chromium (tests/chromium.py).

The pages are built from a copy of the committed stored results (no kernel runs). In Chromium a page must load with
no JavaScript error, no console error, no failed or off-machine request; its figures must have a real size and its
tables read as numbers. Screenshots are kept in tests/artifacts/ (reports-<page>.png, with the page's length in
reports-<page>.json); every notebook's page is opened the same way at smoke size by tests/test_notebooks.py
(reports-<notebook>.smoke.png).
When Chromium cannot be found the browser tests skip with the reason, except under CI=true, where they fail.
"""

from __future__ import annotations

import re
import shutil

import pytest

from chromium import check_page, page_text, table_problems
from conftest import ROOT, mechsym

# one worker builds the pages once for every test here (the module's fixture would run on each worker it reached)
pytestmark = pytest.mark.xdist_group("reports")


def newest_runs(committed, results):
    """A copy of the committed results with the newest run of each machine and experiment only (the pages are what
    is tested here; judging every older run again for "runs agreeing" is tested in tests/test_verdict_core.py and
    would double the build's time)."""
    for exp_dir in sorted(p for p in committed.glob("*/*") if p.is_dir()):
        runs = sorted(exp_dir.glob("*.json"), key=lambda f: (f.stem.split("-")[1] == "standard", f.stem))
        if runs:
            (results / exp_dir.relative_to(committed)).mkdir(parents=True)
            for f in (runs[-1], runs[-1].with_suffix(".csv")):
                shutil.copy(f, results / exp_dir.relative_to(committed) / f.name)


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """reports/ built from a copy of the committed results (no new runs; the newest run of each machine and
    experiment): 00-overview and 01."""
    tmp = tmp_path_factory.mktemp("reports")
    results = tmp / "results"
    results.mkdir()
    committed = ROOT / "data" / "results"
    if committed.is_dir():
        newest_runs(committed, results)
    out = tmp / "reports"
    r = mechsym("reports", "--preset", "stored", "--only", "00-overview,01-lock-implementations", "--output", str(out),
                "--machine", "all", env={"MECHSYM_RESULTS": str(results)}, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return out, results, r.stderr


def test_reports_are_written_and_self_contained(built):
    out, _, _ = built
    names = sorted(p.name for p in out.glob("*.html"))
    assert names == ["00-overview.html", "01-lock-implementations.html", "index.html"]
    for page in out.glob("*.html"):
        text = page.read_text()
        # nothing the page would fetch: no remote scripts, stylesheets, fonts or images
        assert not re.search(r'<(script|img|iframe)[^>]+src="(https?:)?//', text), page.name
        assert not re.search(r'<link[^>]+href="(https?:)?//', text), page.name
        assert not re.search(r'@import|url\((["\']?)(https?:)?//', text), page.name
    overview = (out / "00-overview.html").read_text()
    assert 'href="01-lock-implementations.html"' in overview and ".ipynb\"" not in overview
    assert "data:image/png;base64" in overview


def test_index_and_the_stored_pages_open_in_chromium(browser, built, artifacts):
    out, _, _ = built
    index = check_page(browser, out / "index.html", artifacts, "index", figures=False)
    assert "00-overview.html" in index["links"] and "01-lock-implementations.html" in index["links"]
    assert "holds" in index["text"] and "01" in index["text"]
    assert (artifacts / "reports-index.png").stat().st_size > 5000
    for name in ("01-lock-implementations", "00-overview"):
        page = check_page(browser, out / f"{name}.html", artifacts, name)
        assert "Verdicts" in page["text"]
    # the overview reads in a minute: every claim on one line, the rest folded; at a 1400 px wide window it is
    # under 15,000 px tall (it was 98,551 px before the claims were folded by notebook)
    browser.call("Emulation.setDeviceMetricsOverride", width=1400, height=900, deviceScaleFactor=1, mobile=False)
    try:
        tall = browser.open((out / "00-overview.html").as_uri())["height"]
    finally:
        browser.call("Emulation.setDeviceMetricsOverride", width=1280, height=900, deviceScaleFactor=1, mobile=False)
    assert tall < 15000, f"00-overview is {tall} px tall at 1400 px wide"


def test_index_counts_every_notebook(built):
    out, results, _ = built
    text = (out / "index.html").read_text()
    for stem in ("00-overview", "01-lock-implementations"):
        assert f'href="{stem}.html"' in text
    # the counts come from the same verdicts as `mechsym verdicts`
    r = mechsym("verdicts", "locks", "--format", "csv", "--machine", "all", env={"MECHSYM_RESULTS": str(results)})
    assert r.returncode == 0, r.stderr


def test_a_failing_notebook_is_named_and_the_others_still_written(tmp_path, results_dir):
    """A notebook that fails (MACHINE names no stored machine) is reported in one line; index.html still lists it."""
    out = tmp_path / "reports"
    r = mechsym("reports", "--only", "00-overview", "--machine", "no-such-machine", "--output", str(out))
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1].startswith("mechsym: 1 of 1 notebooks failed")
    assert "not rendered" in (out / "index.html").read_text()


def test_make_reports_prints_no_alarming_lines(built):
    """The kernel's TCP warning and the KeyboardInterrupt papermill's shutdown makes it log stay out of the build."""
    _, _, stderr = built
    for alarm in ("without encryption", "KeyboardInterrupt", "ERROR", "Traceback", "Warning"):
        assert alarm not in stderr, stderr


def test_pages_leave_the_code_and_the_parameters_out(built):
    out, _, _ = built
    for name in ("00-overview", "01-lock-implementations"):
        html = page_text((out / f"{name}.html").read_text())
        assert 'class="highlight' not in html, f"{name}: a code cell is shown"
        assert "PRESET =" not in html and "injected-parameters" not in html, f"{name}: a parameters cell is shown"
        assert "jp-InputPrompt jp-InputArea-prompt\">In" not in html


def test_tables_read_as_numbers(built):
    """No scientific notation, no NaN and no cell cut with '…' in any table of a page."""
    out, _, _ = built
    for page in sorted(out.glob("*.html")):
        assert table_problems(page.read_text()) == [], page.name


def test_with_code_keeps_the_code_and_never_the_parameters(tmp_path):
    """mechsym reports --with-code: code cells shown, the parameters cells (papermill's and the notebook's) not."""
    import nbformat

    from mechsym.view.reports import SETUP, SETUP_TAG, to_html

    nb = nbformat.v4.new_notebook()
    table = {"text/html": "<table><tr><td>312.4M ops/s</td><td>cross-core</td></tr></table>",
             "text/plain": "312.4M ops/s"}
    nb.cells = [
        nbformat.v4.new_code_cell(SETUP, metadata={"tags": [SETUP_TAG]}),
        nbformat.v4.new_markdown_cell("# A post"),
        nbformat.v4.new_code_cell('PRESET = "stored"', metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell('PRESET = "standard"', metadata={"tags": ["injected-parameters"]}),
        nbformat.v4.new_code_cell("import mechsym  # nothing shown"),
        nbformat.v4.new_code_cell("summary_table()", outputs=[nbformat.v4.new_output("execute_result", data=table,
                                                                                      execution_count=5)]),
    ]
    executed = tmp_path / "nb.ipynb"
    nbformat.write(nb, str(executed))
    for with_code in (False, True):
        html = tmp_path / f"page-{with_code}.html"
        to_html(executed, html, with_code)
        text = page_text(html.read_text())
        assert "312.4M ops/s" in text and "A post" in text
        assert "PRESET" not in text and "display_defaults" not in text
        assert ("summary_table" in text) == with_code and ("nothing shown" in text) == with_code
        # numbers right-aligned, text left-aligned
        assert '<td class="mechsym-num">312.4M ops/s</td>' in text and "<td>cross-core</td>" in text


def test_reports_name_each_notebook_as_it_starts(tmp_path, monkeypatch, capsys):
    """`make reports` is not silent for the first minute: a notebook is named before it renders, then its page."""
    from mechsym.view import index, reports

    said_before = []

    def execute(nb, out, preset, machine):
        said_before.append(capsys.readouterr().err)
        out.write_text("{}")
        return 1.0

    monkeypatch.setattr(reports, "execute", execute)
    monkeypatch.setattr(reports, "to_html", lambda src, html, with_code: html.write_text("<html></html>"))
    monkeypatch.setattr(index, "write_index", lambda out, written, **kw: out / "index.html")
    reports.build(output=str(tmp_path), only=["07-write-combining", "16-let-the-caller-choose"])
    assert said_before[0] == "[1/2] 07-write-combining: rendering (stored)\n"
    assert said_before[1].splitlines() == [f"[1/2] 07-write-combining: {tmp_path}/07-write-combining.html (1.0 s)",
                                           "[2/2] 16-let-the-caller-choose: rendering (stored)"]
