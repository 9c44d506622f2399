"""The experiments: one module per experiment, found automatically.

An experiment module defines:
    NAME       the experiment's name (the results folder, `mechsym run NAME`)
    TITLE      one line
    NOTEBOOKS  the notebooks that render it, e.g. ["01-lock-implementations"]
    PRESETS    {"smoke": {...}, "standard": {...}, "full": {...}}: sizes and forks
    cells(preset, topo, jdks) -> list[mechsym.sweep.Cell]
    CLAIMS     list[mechsym.verdicts.Claim]
    verdicts(results: DataFrame) -> list[mechsym.verdicts.Verdict]
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
