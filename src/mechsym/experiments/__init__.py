"""The experiments: one package per experiment, found automatically.

An experiment package (src/mechsym/experiments/<name>/) keeps its parts in separate small files on the shared
layer (mechsym.analysis, mechsym.plots, mechsym.verdicts): sweep (presets, cells), tables, figures, claims.
Its __init__ exports:
    NAME       the experiment's name (the results folder, `mechsym run NAME`)
    TITLE      one line
    NOTEBOOKS  the notebooks that render it, e.g. ["01-lock-implementations"]
    PRESETS    {"smoke": {...}, "standard": {...}, "full": {...}}: sizes and forks
    cells(preset, topo, jdks) -> list[mechsym.sweep.Cell]   (a Cell may carry per-fork hooks: prepare, args,
               reply (a stdin/stderr handshake with the kernel), runner (a cell that is not a JVM, e.g. dd))
    session(cells, meta)   optional: a context manager around the whole run (e.g. seqio's scratch directory)
    CLAIMS     list[mechsym.verdicts.Claim]: quote, rule, statistic, reference numbers
    verdicts(results: DataFrame) -> list[mechsym.verdicts.Verdict]   (per fork, with intervals, per machine)

Registering is being here: tests/test_experiment_contract.py then checks its cells on fake topologies, its claims
(unique ids, the post's own numbers passing its own claim) and its verdicts on empty results; its kernels are
registered in mechsym.kernels for tests/test_kernel_contract.py.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

from .. import MechsymError


def names() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


def get(name: str) -> ModuleType:
    known = names()
    if name not in known:
        raise MechsymError(f"experiment '{name}': unknown (known experiments: {', '.join(known)})")
    return importlib.import_module(f"{__name__}.{name}")


def all_modules() -> list[ModuleType]:
    return [get(n) for n in names()]
