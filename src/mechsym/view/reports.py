"""Notebooks -> self-contained HTML under reports/ (figures embedded as base64 PNGs).

Each notebook is executed by papermill with its PRESET parameter (default
"stored": render from committed results, no new runs) into a temporary copy,
never in place, then exported by nbconvert.

A page is written for a reader: the code cells are left out (`--with-code`
keeps them), and so are the parameters cells papermill reads and writes; a
progress bar shows how it ended, as one line. A hidden first cell sets
pandas' display options for every table (no cell cut with "…", no scientific
notation). The kernel's own log (its TCP warning, the KeyboardInterrupt that
papermill's shutdown interrupt makes it print) is kept out of the build's
output; a failing cell is still reported, by papermill, with its error.

A build leaves nothing behind: its executed copies and the kernels' Jupyter connection files (each holds the
kernel's HMAC key) live in one scratch folder named with the build's process id, removed when the build ends, by
an exception too, and by the next build when a kill -9 left it. A page is written whole or not at all (a
temporary file renamed into place): on a full disk or a read-only folder the old good page stays and the build
says so in one line."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from .. import MechsymError, repo_root
from ..store import files as fsio


def notebooks(root: Path | None = None) -> list[Path]:
    root = root or repo_root() / "notebooks"
    return sorted(p for p in root.glob("[0-9][0-9]-*.ipynb"))


SETUP_TAG = "mechsym-report-setup"
SETUP = "import mechsym.view.reports\nmechsym.view.reports.display_defaults()"
HIDDEN_TAGS = {SETUP_TAG, "injected-parameters", "parameters"}   # never shown on a page
KERNEL_QUIET = ["--IPKernelApp.log_level=CRITICAL"]


def _plain_number(v: float) -> str:
    """A float as a table shows it: no scientific notation, no '.0' on whole numbers, 4 significant digits."""
    if v != v:
        return "—"
    if float(v).is_integer() and abs(v) < 1e15:
        return f"{v:,.0f}"
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 0.001:
        return f"{v:.4g}"
    return f"{v:.3g}" if a >= 1e-9 else "0"


def display_defaults() -> None:
    """pandas' display options for a report (the hidden first cell calls this): whole cells, no scientific notation,
    '—' for a missing value in styled tables."""
    import pandas as pd

    pd.set_option("display.max_colwidth", None)
    pd.set_option("display.width", 250)
    pd.set_option("display.float_format", _plain_number)
    pd.set_option("styler.format.na_rep", "—")


def execute(notebook: Path, output: Path, preset: str = "stored", machine: str | None = None,
            timeout: int = 1800) -> float:
    """Run a notebook with papermill; returns seconds taken. MechsymError naming the notebook on failure."""
    import nbformat
    import papermill as pm

    nb = nbformat.read(str(notebook), as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell(SETUP, metadata={"tags": [SETUP_TAG]}))
    t0 = time.monotonic()
    try:
        pm.execute_notebook(nb, str(output), parameters={"PRESET": preset, "MACHINE": machine},
                            kernel_name="python3", cwd=str(notebook.parent), progress_bar=False,
                            execution_timeout=timeout, log_output=False, extra_arguments=KERNEL_QUIET)
    except pm.PapermillExecutionError as e:
        cell = e.exec_count - 1 if isinstance(e.exec_count, int) else e.exec_count  # less the hidden first cell
        raise MechsymError(f"notebook {notebook.name}: cell {cell} failed: {e.ename}: {e.evalue}") from e
    return time.monotonic() - t0


# nbconvert's lab template, minus what it would fetch from a CDN when the page opens: require.js, MathJax,
# the widget manager and mermaid (our notebooks use none of them). Figures are embedded PNGs, CSS is inline.
SELF_CONTAINED = """{%- extends 'index.html.j2' -%}
{% block html_head_js %}{% endblock html_head_js %}
{% block jupyter_widgets %}{% endblock jupyter_widgets %}
{% block html_head_js_mathjax %}{% endblock html_head_js_mathjax %}
{% block html_head_js_mermaidjs %}{% endblock html_head_js_mermaidjs %}
{% block notebook_css %}{{ super() }}
<style>
/* tables: text left-aligned, numbers right-aligned in tabular figures (JupyterLab right-aligns every cell) */
:not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon td, :not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon th {
  text-align: left; vertical-align: top; }
:not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon table thead tr th { text-align: left; }  /* over pandas' own */
:not(.jp-RenderedMarkdown).jp-RenderedHTMLCommon td.mechsym-num {
  text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
</style>
{% endblock notebook_css %}
"""
NOTEBOOK_LINK = re.compile(r'href="(\d\d-[A-Za-z0-9_-]+)\.ipynb(#[^"]*)?"')
TABLE_CELL = re.compile(r"<td(\s[^>]*)?>(.*?)</td>", re.S)
# A number as a table shows one: optional sign or comparison, digits, then at most a short unit ('312.4M ops/s',
# '1.02x', '32.86 µs', '—').
NUMBER = re.compile(r"[\s+\-−~≈<>≤≥]*(\d[\d,.\u2009]*(\s?[A-Za-zµ%×]{1,8}(/[a-z]{1,3})?){0,2}(\s*\[[^\]]{0,40}\])?|—|-)\s*")


def _align(body: str) -> str:
    """Marks the table cells that hold a number (class mechsym-num, right-aligned); text cells stay left-aligned."""
    def mark(m):
        attrs, inner = m.group(1) or "", m.group(2)
        if not NUMBER.fullmatch(re.sub(r"<[^>]+>", "", inner)):
            return m.group(0)
        if 'class="' in attrs:
            attrs = attrs.replace('class="', 'class="mechsym-num ', 1)
        else:
            attrs += ' class="mechsym-num"'
        return f"<td{attrs}>{inner}</td>"
    return TABLE_CELL.sub(mark, body)


def for_reader(nb, with_code: bool = False):
    """The notebook as a page shows it: without the parameters cells and the hidden set-up cell; without code
    unless with_code (code cells that print nothing go altogether); progress bars as the line they ended on."""
    widgets = _widget_state(nb)
    cells = []
    for cell in nb.cells:
        if HIDDEN_TAGS & set(cell.get("metadata", {}).get("tags", [])):
            continue
        if cell.cell_type == "code":
            if not with_code and not cell.get("outputs"):
                continue
            for out in cell.get("outputs", []):
                _freeze_widget(out, widgets)
        cells.append(cell)
    nb.cells = cells
    nb.metadata.pop("widgets", None)
    return nb


def _widget_state(nb) -> dict:
    return nb.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})


def _freeze_widget(out, state: dict) -> None:
    """A widget output (a tqdm bar in a notebook) becomes the text of its last saved state, e.g.
    'locks [standard]: 100% |██████████| 650/650 [08:01<00:00]'; the page has no widget manager to draw it."""
    import html as html_lib

    data = out.get("data", {})
    view = data.get("application/vnd.jupyter.widget-view+json")
    if not view:
        return
    box = state.get(view.get("model_id"), {}).get("state", {})
    parts = []
    for ref in box.get("children", []):
        child = state.get(str(ref).removeprefix("IPY_MODEL_"), {})
        s = child.get("state", {})
        if child.get("model_name") == "FloatProgressModel" and s.get("max"):
            filled = int(round(10 * float(s.get("value", 0)) / float(s["max"])))
            parts.append("|" + "█" * filled + " " * (10 - filled) + "|")
        elif s.get("value"):
            parts.append(html_lib.unescape(re.sub(r"<[^>]+>", "", str(s["value"]))).replace("\u2007", " ").strip())
    text = " ".join(p for p in parts if p) or data.get("text/plain", "")
    out["data"] = {"text/plain": text}


def to_html(executed: Path, html: Path, with_code: bool = False) -> None:
    """A self-contained HTML page; links to sibling notebooks (NN-name.ipynb) point to their pages (NN-name.html)."""
    import jinja2
    import nbformat
    from nbconvert import HTMLExporter

    nb = for_reader(nbformat.read(str(executed), as_version=4), with_code)
    exporter = HTMLExporter(template_name="lab", template_file="mechsym-self-contained.html.j2",
                            extra_loaders=[jinja2.DictLoader({"mechsym-self-contained.html.j2": SELF_CONTAINED})],
                            exclude_input=not with_code, exclude_input_prompt=not with_code,
                            exclude_output_prompt=not with_code)
    body, _ = exporter.from_notebook_node(nb)
    body = _align(NOTEBOOK_LINK.sub(lambda m: f'href="{m.group(1)}.html{m.group(2) or ""}"', body))
    fsio.replace_whole(html, body, "page")


SCRATCH = "mechsym-reports-"   # <tmp>/mechsym-reports-<pid>-xxxx: one build's executed copies and connection files


@contextlib.contextmanager
def scratch():
    """A scratch folder for one build, with Jupyter's runtime folder (the kernels' connection files) inside it;
    removed, and JUPYTER_RUNTIME_DIR restored, however the build ends."""
    tmp = Path(tempfile.mkdtemp(prefix=f"{SCRATCH}{os.getpid()}-"))
    runtime = tmp / "runtime"
    runtime.mkdir(mode=0o700)
    old = os.environ.get("JUPYTER_RUNTIME_DIR")
    os.environ["JUPYTER_RUNTIME_DIR"] = str(runtime)
    try:
        yield tmp
    finally:
        if old is None:
            os.environ.pop("JUPYTER_RUNTIME_DIR", None)
        else:
            os.environ["JUPYTER_RUNTIME_DIR"] = old
        shutil.rmtree(tmp, ignore_errors=True)


def clean_stale_scratch(base: Path | None = None) -> list[Path]:
    """Scratch folders of builds whose process is gone (a kill -9): removed, with their connection files."""
    removed = []
    for d in Path(base or tempfile.gettempdir()).glob(f"{SCRATCH}*"):
        try:
            pid = int(d.name[len(SCRATCH):].split("-")[0])
            os.kill(pid, 0)
            continue   # that build is still going
        except ProcessLookupError:
            pass
        except (ValueError, PermissionError, OverflowError, OSError):
            continue
        if d.is_dir() and not d.is_symlink():
            shutil.rmtree(d, ignore_errors=True)
            removed.append(d)
    return removed


def rel(path: Path) -> str:
    """A path relative to the repository when it is inside it."""
    try:
        return str(path.resolve().relative_to(repo_root().resolve()))
    except ValueError:
        return str(path)


def build(preset: str = "stored", output: str | None = None, machine: str | None = None,
          only: list[str] | None = None, with_code: bool = False) -> list[Path]:
    """Render every notebook (00-overview last, so it sees what the others just ran), then reports/index.html.

    A notebook that fails is named in the index and in the error raised at the end; the others are still written."""
    from ..run.overrides import PRESETS

    if preset not in ("stored", *PRESETS):  # checked before the first notebook renders, not after the last
        raise MechsymError(f"preset '{preset}': allowed presets are stored, {', '.join(PRESETS)}")
    out = Path(output) if output else repo_root() / "reports"
    blocker = next((p for p in [out, *out.parents] if p.exists()), None)
    if blocker is not None and not blocker.is_dir():
        raise MechsymError(f"output {out}: {blocker} is a file; give --output a folder for the HTML reports")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise MechsymError(f"output {out}: cannot be created ({e.strerror or e})") from e
    written, failed = [], {}
    todo = [nb for nb in notebooks() if not only or nb.stem in only]
    todo.sort(key=lambda p: (p.stem.startswith("00-"), p.stem))
    clean_stale_scratch()
    with scratch() as tmp:
        for n, nb in enumerate(todo, 1):
            executed = Path(tmp) / nb.name
            # said as it starts: a notebook that re-runs its sweep, or the overview, takes a minute or more
            print(f"[{n}/{len(todo)}] {nb.stem}: rendering ({preset})", file=sys.stderr, flush=True)
            try:
                secs = execute(nb, executed, preset, machine)
            except MechsymError as e:
                failed[nb.stem] = str(e)
                print(f"{nb.name}: FAILED: {e}", file=sys.stderr)
                continue
            html = out / f"{nb.stem}.html"
            to_html(executed, html, with_code)
            print(f"[{n}/{len(todo)}] {nb.stem}: {rel(html)} ({secs:.1f} s)", file=sys.stderr, flush=True)
            written.append(html)
    if not todo:
        raise MechsymError("no notebooks found under notebooks/" + (f" named {', '.join(only)}" if only else ""))
    from .index import write_index

    index = write_index(out, written, machine=machine, preset=preset, failed=failed, with_code=with_code)
    print(f"{index}", file=sys.stderr)
    written.append(index)
    if failed:
        first = next(iter(failed.values()))
        raise MechsymError(f"{len(failed)} of {len(todo)} notebooks failed (the others are in {out}): first: {first}")
    return written
