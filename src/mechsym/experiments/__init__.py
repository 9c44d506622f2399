"""The experiments: one package per experiment, found automatically.

An experiment package (src/mechsym/experiments/<name>/) has one shape: these files and no others, each importing
only the ones before it (tests/test_experiment_contract.py checks both):

    meta      NAME, TITLE, NOTEBOOKS, PRESETS, POST_FILE, REFERENCE and the constants the presets name; imports no
              pandas or numpy (`mechsym list` reads it alone, through metas())
    sweep     cells(preset, topo, jdks) -> list[mechsym.sweep.Cell] (a Cell may carry per-fork hooks: prepare,
              args, reply, runner); session(cells, meta), optional: a context manager around the whole run;
              PROTOCOL_NAMES, the kernels' protocol names, where the kernels have them
    rows      the stored rows as the rest reads them; PROTOCOLS, the mechsym.analysis.Protocol tuple (POST, LAB)
    claims    CLAIMS: list[mechsym.verdicts.Claim] (quote, rule, statistic, the post's numbers): data only
    verdicts  verdicts(results: DataFrame) -> list[mechsym.verdicts.Verdict] (per fork, intervals, per machine)
    tables    what the notebook shows as tables (never claims or verdicts)
    figures   what it shows as figures (may read a claim's threshold)

Its __init__ exports NAME, TITLE, NOTEBOOKS, PRESETS, cells, CLAIMS, verdicts (and whatever its notebook calls).
Registering is being here: the contract test then checks its cells on fake topologies, its claims (unique ids,
the post's own numbers passing its own claim) and its verdicts on empty results; its kernels are registered in
mechsym.run.kernels for tests/test_kernel_contract.py.
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys
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


def meta(name: str) -> ModuleType:
    """An experiment's meta module (NAME, TITLE, NOTEBOOKS, PRESETS, ...) without importing the rest of its package
    (which imports pandas and matplotlib): the one already imported, else meta.py run on its own."""
    known = names()
    if name not in known:
        raise MechsymError(f"experiment '{name}': unknown (known experiments: {', '.join(known)})")
    full = f"{__name__}.{name}.meta"
    if full in sys.modules:
        return sys.modules[full]
    spec = importlib.util.spec_from_file_location(full, f"{__path__[0]}/{name}/meta.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def metas() -> dict[str, ModuleType]:
    """Every experiment's meta module by name, read without pandas, numpy or matplotlib (for `mechsym list`)."""
    return {n: meta(n) for n in names()}


def with_jmh_cells() -> list[str]:
    """The experiments whose sweep has JMH benchmark cells (`mechsym run NAME --protocol jmh`)."""
    out = []
    for name in names():
        m = get(name)
        if getattr(m, "jmh_cells", None) or getattr(getattr(m, "sweep", None), "jmh_cells", None):
            out.append(name)
    return out
