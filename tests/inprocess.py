"""Execute a notebook's code cells in this process, in an IPython shell, keeping what a Jupyter kernel would send
for each cell: its value (published as a kernel publishes an execute_result) and every display(). Both are stored
as display_data outputs, each with its MIME bundle (text/html, text/plain, image/png...), which is what the tests
read.

For tests that read what a notebook's tables say and draw nothing: no Jupyter kernel is started (about 2.5 s a
notebook before its first cell), and the modules are imported once per test process. The notebook runs as
mechsym.view.reports.execute runs it: the report's setup first, PRESET and MACHINE injected after the parameters cell,
the notebook's folder as the working directory. Figures are built under whatever backend the process has (Agg in
the tests) and closed after the notebook."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
from IPython.core.displayhook import DisplayHook
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from mechsym import MechsymError
from mechsym.view.reports import SETUP


class _Published(DisplayHook):
    """A cell's value goes to the display publisher, as a kernel sends it (an execute_result), not to stdout."""

    def start_displayhook(self):
        pass

    def write_output_prompt(self):
        pass

    def write_format_data(self, format_dict, md_dict=None):
        self.shell.display_pub.publish(format_dict, md_dict or {})

    def finish_displayhook(self):
        pass


def _shell() -> InteractiveShell:
    return InteractiveShell.instance(displayhook_class=_Published)


def execute(notebook: Path, preset: str = "stored", machine: str | None = None) -> nbformat.NotebookNode:
    """The notebook with its outputs; MechsymError naming the notebook and the cell when a cell fails."""
    nb = nbformat.read(str(notebook), as_version=4)
    shell = _shell()
    shell.reset(new_session=False)
    here = os.getcwd()
    os.chdir(notebook.parent)
    try:
        shell.run_cell(SETUP, store_history=False).raise_error()
        for i, cell in enumerate(c for c in nb.cells if c.cell_type == "code"):
            with capture_output() as cap:
                result = shell.run_cell(cell.source, store_history=False)
            if not result.success:
                error = result.error_before_exec or result.error_in_exec
                raise MechsymError(f"notebook {notebook.name}: cell {i} failed: {type(error).__name__}: {error}")
            cell.outputs = [nbformat.v4.new_output("display_data", data=o.data, metadata=o.metadata or {})
                            for o in cap.outputs]
            if "parameters" in cell.metadata.get("tags", []):
                shell.user_ns.update(PRESET=preset, MACHINE=machine)
    finally:
        os.chdir(here)
        import matplotlib.pyplot as plt

        plt.close("all")
    return nb
