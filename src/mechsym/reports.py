"""Notebooks -> self-contained HTML under reports/ (figures embedded as base64 PNGs).

Each notebook is executed by papermill with its PRESET parameter (default
"stored": render from committed results, no new runs) into a temporary copy,
never in place, then exported by nbconvert."""

from __future__ import annotations

import os
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


def to_html(executed: Path, html: Path) -> None:
    import nbformat
    from nbconvert import HTMLExporter

    nb = nbformat.read(str(executed), as_version=4)
    body, _ = HTMLExporter(template_name="lab").from_notebook_node(nb)
    html.write_text(body)


def build(preset: str = "stored", output: str | None = None, machine: str | None = None,
          only: list[str] | None = None) -> list[Path]:
    out = Path(output) if output else repo_root() / "reports"
    out.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as tmp:
        for nb in notebooks():
            if only and nb.stem not in only:
                continue
            executed = Path(tmp) / nb.name
            secs = execute(nb, executed, preset, machine)
            html = out / f"{nb.stem}.html"
            to_html(executed, html)
            print(f"{html} ({secs:.1f} s)", file=sys.stderr)
            written.append(html)
    if not written:
        raise MechsymError("no notebooks found under notebooks/")
    try:
        from .index import write_index  # the overview index, when present

        written.append(write_index(out, written))
    except ImportError:
        pass
    return written
