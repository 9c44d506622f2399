"""What the command line may change in a preset's cells, checked before anything runs: the preset's name, thread
counts, CPU ids, extra JVM flags (VM options only) and `--only KEY=V1,V2` clauses. sweep.plan applies them.
"""

from __future__ import annotations

from .. import MechsymError
from ..machine.cpus import Topology
from .cells import Cell

PRESETS = ("smoke", "standard", "full")


def check_preset(preset: str) -> None:
    if preset not in PRESETS:
        raise MechsymError(f"preset '{preset}': allowed presets are {', '.join(PRESETS)} (and 'stored' in notebooks)")


def parse_threads(spec) -> list[int]:
    """'1,2,4' or [1, 2, 4] -> [1, 2, 4]; MechsymError unless every value is a whole number >= 1."""
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    out = []
    for item in items:
        text = str(item).strip()
        if not (text.isascii() and text.isdigit()) or int(text) < 1:
            raise MechsymError(f"threads '{text}': must be a whole number >= 1 (e.g. --threads 1,2,4)")
        out.append(int(text))
    if not out:
        raise MechsymError("threads: give at least one thread count (e.g. --threads 1,2,4)")
    return out


def parse_cpus(spec, topo: Topology) -> list[int]:
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    ids = []
    for item in items:
        text = str(item).strip()
        if not (text.isascii() and text.isdigit()):  # '¹' is a digit to str.isdigit, not to int()
            raise MechsymError(f"CPU id '{text}': must be a whole number; this machine has CPUs {','.join(map(str, topo.ids))}")
        ids.append(int(text))
    topo.check_ids(ids)
    return ids


# Words of a java command line that are not VM options: the bench gives the class path and main class itself.
_NOT_VM_OPTIONS = {"-cp", "-classpath", "--class-path", "-jar", "-m", "--module", "-p", "--module-path",
                   "--upgrade-module-path", "--source", "-version", "--version", "-showversion", "--show-version",
                   "-h", "-help", "-?", "--help", "-X", "--help-extra", "--list-modules", "-d", "--describe-module",
                   "--validate-modules", "--dry-run", "-fullversion", "--full-version"}


def check_jvm_flags(flags) -> tuple[str, ...]:
    """Extra JVM flags from the command line: VM options only (each a word starting with '-', none that replaces the
    class path or main class, prints something and exits, or reads more words from a file); else one line."""
    out = tuple(flags)
    for f in out:
        if not isinstance(f, str) or not f.startswith("-") or f.split("=", 1)[0] in _NOT_VM_OPTIONS:
            raise MechsymError(f"JVM flag '{f}': not a VM option for the kernels' JVM; give options such as "
                               "-XX:+UseParallelGC, -Xmx2g or -Dname=value (the bench sets the class path and "
                               "main class itself)")
    return out


def select_cells(cells: list[Cell], only: str) -> list[Cell]:
    """Cells whose columns match every KEY=V1,V2 clause (clauses separated by ';')."""
    known = sorted({k for c in cells for k in c.columns()})
    kept = cells
    for clause in str(only).split(";"):
        clause = clause.strip()
        if not clause:
            continue
        key, sep, values = clause.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not values.strip():
            raise MechsymError(f"only '{clause}': expected KEY=VALUE[,VALUE] (keys: {', '.join(known)})")
        if key not in known:
            raise MechsymError(f"only '{clause}': unknown key '{key}' (keys: {', '.join(known)})")
        wanted = {v.strip() for v in values.split(",")}
        kept = [c for c in kept if str(c.columns().get(key)) in wanted]
    if not kept:
        raise MechsymError(f"only '{only}': matches no cell of this sweep")
    return kept
