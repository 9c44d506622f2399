"""What JupyterLab writes when a reader saves a notebook: the lesson is that a save must not dirty the tree.

A notebook is paired (notebooks/jupytext.toml): saving writes its source, notebooks/src/NN.py, where edits belong,
and the paired notebooks/NN.ipynb, which is committed without outputs. `strip_outputs` is the lab's pre-save hook
(`make lab` sets it): before an .ipynb is written it empties every code cell's outputs and execution count and drops
what running a kernel adds to the metadata (language_info, widget state, execution times). The outputs stay in the
open tab; they reach no committed file. tests/test_lab.py saves an executed notebook through the running lab's REST
API and finds the tracked files as they were.
"""

from __future__ import annotations

#: Notebook metadata a kernel or the lab adds on running: never committed.
RUN_METADATA = ("language_info", "widgets", "toc", "varInspector")


def strip_outputs(model: dict, path: str = "", **_kwargs) -> None:
    """ContentsManager.pre_save_hook: an .ipynb model is saved with its inputs only (edited in place)."""
    if model.get("type") != "notebook" or not str(path).endswith(".ipynb"):
        return
    nb = model.get("content") or {}
    for key in RUN_METADATA:
        nb.get("metadata", {}).pop(key, None)
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cell.get("metadata", {}).pop("execution", None)
