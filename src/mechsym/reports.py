"""Notebooks -> self-contained HTML under reports/ (figures embedded as base64 PNGs).

Each notebook is executed by papermill with its PRESET parameter (default
"stored": render from committed results, no new runs) into a temporary copy,
never in place, then exported by nbconvert."""

from __future__ import annotations

import os
import re
import sys
import tempfile
import time
from pathlib import Path

from . import MechsymError, repo_root


def notebooks(root: Path | None = None) -> list[Path]:
    root = root or repo_root() / "notebooks"
    return sorted(p for p in root.glob("[0-9][0-9]-*.ipynb"))


def execute(notebook: Path, output: Path, preset: str = "stored", machine: str | None = None,
            timeout: int = 1800) -> float:
    """Run a notebook with papermill; returns seconds taken. MechsymError naming the notebook on failure."""
    import papermill as pm

    t0 = time.monotonic()
    try:
        pm.execute_notebook(str(notebook), str(output), parameters={"PRESET": preset, "MACHINE": machine},
                            kernel_name="python3", cwd=str(notebook.parent), progress_bar=False,
                            execution_timeout=timeout, log_output=False)
    except pm.PapermillExecutionError as e:
        raise MechsymError(f"notebook {notebook.name}: cell {e.exec_count} failed: {e.ename}: {e.evalue}") from e
    return time.monotonic() - t0


# nbconvert's lab template, minus what it would fetch from a CDN when the page opens: require.js, MathJax,
# the widget manager and mermaid (our notebooks use none of them). Figures are embedded PNGs, CSS is inline.
SELF_CONTAINED = """{%- extends 'index.html.j2' -%}
{% block html_head_js %}{% endblock html_head_js %}
{% block jupyter_widgets %}{% endblock jupyter_widgets %}
{% block html_head_js_mathjax %}{% endblock html_head_js_mathjax %}
{% block html_head_js_mermaidjs %}{% endblock html_head_js_mermaidjs %}
"""
NOTEBOOK_LINK = re.compile(r'href="(\d\d-[A-Za-z0-9_-]+)\.ipynb(#[^"]*)?"')


def to_html(executed: Path, html: Path) -> None:
    """A self-contained HTML page; links to sibling notebooks (NN-name.ipynb) point to their pages (NN-name.html)."""
    import jinja2
    import nbformat
    from nbconvert import HTMLExporter

    nb = nbformat.read(str(executed), as_version=4)
    exporter = HTMLExporter(template_name="lab", template_file="mechsym-self-contained.html.j2",
                            extra_loaders=[jinja2.DictLoader({"mechsym-self-contained.html.j2": SELF_CONTAINED})])
    body, _ = exporter.from_notebook_node(nb)
    body = NOTEBOOK_LINK.sub(lambda m: f'href="{m.group(1)}.html{m.group(2) or ""}"', body)
    html.write_text(body)


def build(preset: str = "stored", output: str | None = None, machine: str | None = None,
          only: list[str] | None = None) -> list[Path]:
    """Render every notebook (00-overview last, so it sees what the others just ran), then reports/index.html.

    A notebook that fails is named in the index and in the error raised at the end; the others are still written."""
    out = Path(output) if output else repo_root() / "reports"
    out.mkdir(parents=True, exist_ok=True)
    written, failed = [], {}
    todo = [nb for nb in notebooks() if not only or nb.stem in only]
    todo.sort(key=lambda p: (p.stem.startswith("00-"), p.stem))
    with tempfile.TemporaryDirectory() as tmp:
        for nb in todo:
            executed = Path(tmp) / nb.name
            try:
                secs = execute(nb, executed, preset, machine)
            except MechsymError as e:
                failed[nb.stem] = str(e)
                print(f"{nb.name}: FAILED: {e}", file=sys.stderr)
                continue
            html = out / f"{nb.stem}.html"
            to_html(executed, html)
            print(f"{html} ({secs:.1f} s)", file=sys.stderr)
            written.append(html)
    if not todo:
        raise MechsymError("no notebooks found under notebooks/" + (f" named {', '.join(only)}" if only else ""))
    from .index import write_index

    index = write_index(out, written, machine=machine, preset=preset, failed=failed)
    print(f"{index}", file=sys.stderr)
    written.append(index)
    if failed:
        first = next(iter(failed.values()))
        raise MechsymError(f"{len(failed)} of {len(todo)} notebooks failed (the others are in {out}): first: {first}")
    return written
