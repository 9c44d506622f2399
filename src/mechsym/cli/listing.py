"""`mechsym list`, fast: no pandas, matplotlib or JPype.

pandas is bound to a stand-in that imports it on first use (the store imports it at its top and needs it only to
read rows), and an experiment's TITLE, NOTEBOOKS and PRESETS come from its meta.py alone (experiments.meta)."""

from __future__ import annotations

import os

import sys

from .. import MechsymError
from .text import columns, duration_text, rel_path, text_table, wrap_lines


def defer_import(name: str) -> None:
    """Bind `name` in sys.modules to a stand-in that imports the real module the first time one of its attributes
    is used. `list` reads the store's index through mechsym.store.runs, which imports pandas at its top but needs it
    only to read rows; with the stand-in, `list` never pays pandas' ~0.4 s import. (importlib's LazyLoader does
    not do here: the next `import pandas` reads `__spec__`, and that loads it.)"""
    import importlib
    import importlib.util
    import types

    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None:
        return

    class Deferred(types.ModuleType):
        def __getattr__(self, attr):
            if sys.modules.get(name) is self:
                del sys.modules[name]
            real = importlib.import_module(name)
            self.__dict__.update(real.__dict__)
            return getattr(real, attr)

    stand_in = Deferred(name)
    stand_in.__spec__ = spec
    sys.modules[name] = stand_in


def _describe(name: str) -> dict:
    """An experiment's TITLE, NOTEBOOKS and preset names, from its meta.py alone (importing the whole experiment
    imports pandas and matplotlib)."""
    from .. import experiments

    m = experiments.meta(name)
    return {"TITLE": m.TITLE, "NOTEBOOKS": list(m.NOTEBOOKS), "PRESETS": list(m.PRESETS)}


def command() -> int:
    """`mechsym list`: this machine, the JDKs found, the experiments and the stored runs."""
    for heavy in ("pandas", "numpy"):
        defer_import(heavy)
    from .. import experiments
    from ..machine import jdk, identity as machine
    from ..store import layout, runs as store

    width = columns()
    out = []
    here = machine.machine_id()
    out.append(f"machine  {layout.machine_label(here)}")
    root = store.results_root()
    out += wrap_lines(f"{rel_path(root)}" + (" (MECHSYM_RESULTS)" if "MECHSYM_RESULTS" in os.environ else ""),
                      width, indent=" " * 9, first="results  ")
    out.append("")
    jdks, problems = jdk.installed()
    out += wrap_lines("JDKs found (MECHSYM_JDKS, JAVA_HOME, PATH, /usr/lib/jvm; a sweep uses the first of each version)",
                      width)
    rows = [[str(f), v, vendor, home + ("" if first else "  (not used: another JDK %d comes first)" % f)]
            for f, v, vendor, home, first in jdks]
    out += text_table(rows, ["JDK", "version", "vendor", "home"], wrap=(3,), indent=2, width=width) if rows else \
        ["  none: install JDK 17, or set JAVA_HOME / MECHSYM_JDKS to a JDK home"]
    out += [f"  ! {p}" for p in problems]
    out.append("")
    out.append("Experiments (mechsym run NAME --preset smoke|standard|full)")
    names = experiments.names()
    rows = []
    for name in names:
        try:
            d = _describe(name)
            rows.append([name, f"{d['TITLE']} (notebooks {', '.join(d['NOTEBOOKS'])})"])
        except Exception as e:  # a module being written: say so, list the others
            rows.append([name, f"(its module does not load: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})"])
    out += text_table(rows, ["name", "what it measures"], wrap=(1,), indent=2, width=width)
    out.append("")
    index = [x for x in store.index(root) if x[2] in names]
    if not index:
        out.append(f"Stored runs: none in {rel_path(root)} yet")
    else:
        out += wrap_lines("Stored runs (`mechsym show NAME --run ID`; notebooks show each machine's newest run of the "
                          "most thorough preset), by machine; a run id starts with its start time (UTC)", width)
        machines = sorted({m for m, _, _, _ in index}, key=lambda m: (m != here, m))
        for machine_id in machines:
            out.append("")
            out.append(f"  {machine_id}" + (" (this machine)" if machine_id == here else ""))
            rows = []
            for m, _, e, j in sorted(index, key=lambda x: (x[2], x[3].name)):
                if m != machine_id:
                    continue
                try:
                    meta = store.read_meta(j)
                except MechsymError as err:
                    rows.append([e, j.stem, "?", "?", "?", str(err)])
                    continue
                status = meta.get("status", "complete")
                meta.setdefault("experiment", e)
                rows.append([e, meta["run_id"], meta.get("preset", "?"), _made_by(meta),
                             duration_text(meta.get("seconds")) + ("" if status == "complete" else f" {status}"),
                             _code(meta)])
            header = ["experiment", "run id", "preset", "protocol", "took", "code"]
            out += text_table(rows, header, wrap=(3, 4, 5), indent=2, width=width)
        out += wrap_lines("protocol: 'lab' (the kernels) or 'jmh' (JMH, a second opinion); '+ID': forks added by "
                          "--until-decided to run ID, judged with it.", width)
        out += wrap_lines("code: 'current' when the run's kernel fingerprint is the checkout's; a stale run was "
                          "measured with other kernels; 'unknown': made from a dirty tree "
                          "or a commit not in this history. Neither votes; `make refresh` re-runs them", width)
    print("\n".join(out))
    return 0


def _made_by(meta: dict) -> str:
    """'lab' or 'jmh', with '+ace4b2' for an --until-decided run extending run ...-ace4b2."""
    protocol = str((meta.get("overrides") or {}).get("protocol") or "lab")
    extends = meta.get("extends")
    return protocol + (f" +{str(extends).rsplit('-', 1)[-1]}" if extends else "")


def _code(meta: dict) -> str:
    """'current' (with ' (allow-dirty)' when so recorded, ' (dirty tree)' for a smoke run on one), 'stale 4bea8ad'
    or 'unknown' for the list of stored runs."""
    from ..store import provenance

    state, _ = provenance.status(meta)
    if state == provenance.CURRENT:
        if (meta.get("provenance") or {}).get("allow_dirty"):
            return "current (allow-dirty)"
        return "current (dirty tree)" if provenance.dirty(meta) else "current"
    if state == provenance.STALE:
        return f"stale {provenance.commit_of(meta)}"
    return "unknown"
