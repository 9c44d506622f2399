"""Where stored runs are and whose they are: the results root, the names of runs, machines and experiments, the
alias table, and the index of every stored run.

    data/results/<machine-id>/<experiment>/<run-id>.csv   long ("tidy") rows
    data/results/<machine-id>/<experiment>/<run-id>.json  the run's metadata
    data/results/machines.csv                             aliases: runs stored under an older machine id

Runs stored before machine ids told hosts apart, under the readable part of the id alone, are re-labelled by the
alias table machines.csv, one row per run with the facts that justify it; their files stay byte-identical. A run of
an old id that the table does not list keeps its old id, which is never "this machine" (see machine.py).
"""

from __future__ import annotations

import csv
import json
import math
import os
import re
from functools import lru_cache
from pathlib import Path

from .. import MechsymError, data_root
from ..machine import identity
from ..machine.identity import MACHINE_ID, check_machine_id  # noqa: F401 (the store checks names with them)

RUN_ID = re.compile(r"^\d{8}T\d{6}Z-[a-z]{1,32}-[0-9a-f]{6}$")  # bounded: a name never too long for a path
EXPERIMENT = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
ALIASES = "machines.csv"
ALIAS_COLUMNS = ("directory", "run_id", "machine_id", "cpu_model", "cpu_mhz", "logical_cpus", "memory_bytes",
                 "kernel", "evidence")


def results_root() -> Path:
    """data/results, or MECHSYM_RESULTS (tests and scratch runs point it elsewhere)."""
    env = os.environ.get("MECHSYM_RESULTS")
    return Path(env) if env else data_root() / "results"




# ---------------------------------------------------------------- names

def check_experiment(name) -> str:
    if not isinstance(name, str) or not EXPERIMENT.match(name):
        raise MechsymError(f"experiment {name!r}: not an experiment name; allowed: a-z 0-9 _, starting with a letter")
    return name



# ---------------------------------------------------------------- aliases (runs stored under an older id)

def aliases(root: Path | None = None) -> dict[tuple[str, str], dict]:
    """(directory, run id) -> the alias row (machine_id and the facts that justify it), from <root>/machines.csv."""
    path = Path(root or results_root()) / ALIASES
    try:
        st = path.stat()
    except OSError:
        return {}
    return _read_aliases(str(path), st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=8)
def _read_aliases(path: str, _size: int, _mtime: int) -> dict[tuple[str, str], dict]:
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            missing = [c for c in ALIAS_COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise MechsymError(f"alias table {path}: missing columns {', '.join(missing)} "
                                   f"(expected {','.join(ALIAS_COLUMNS)})")
            out = {}
            for n, row in enumerate(reader, start=2):
                d, r, m = row["directory"], row["run_id"], row["machine_id"]
                if not (d and MACHINE_ID.match(d) and RUN_ID.match(r or "") and m and MACHINE_ID.match(m)
                        and ".." not in d + m):
                    raise MechsymError(f"alias table {path}: line {n}: needs a directory, a run id and a machine id")
                out[(d, r)] = dict(row)
            return out
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise MechsymError(f"alias table {path}: unreadable ({e})") from e



def index(root: Path | None = None) -> list[tuple[str, str, str, Path]]:
    """(machine, directory, experiment, json path) of every stored run, the machine after aliases."""
    root = Path(root or results_root())
    if not root.is_dir():
        return []
    alias = aliases(root)
    out = []
    for d in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for e in sorted(p for p in d.iterdir() if p.is_dir() and not p.name.startswith(".")):
            for j in sorted(e.glob("*.json")):
                if j.name.startswith("."):
                    continue
                row = alias.get((d.name, j.stem))
                out.append((row["machine_id"] if row else d.name, d.name, e.name, j))
    return out


def machines(root: Path | None = None) -> list[str]:
    """Every machine with stored runs (ids after aliases); a directory whose runs are all re-labelled is not one."""
    root = Path(root or results_root())
    if not root.is_dir():
        return []
    stored = index(root)
    found = {m for m, _, _, _ in stored}
    with_runs = {d for _, d, _, _ in stored}
    found |= {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name not in with_runs}
    return sorted(found)


def machine_label(machine: str, root: Path | None = None) -> str:
    """One line saying whose runs these are: the id, its CPU, clock, CPUs and memory, and whether it is this machine."""
    root = Path(root or results_root())
    if machine == "all":
        return "all stored machines: " + ", ".join(machines(root))
    here = identity.machine_id()
    facts, legacy = None, False
    if machine == here and not os.environ.get("MECHSYM_MACHINE"):
        f = identity.machine_facts()
        facts = (f["cpu_model"], f["nominal_mhz"], f["logical_cpus"], f["memory_gib"])
    else:
        rows = [r for r in aliases(root).values() if r["machine_id"] == machine]
        if rows:
            r = rows[-1]
            mhz = identity._float(r.get("cpu_mhz"))
            mem = identity._float(r.get("memory_bytes"))
            facts = (r.get("cpu_model"), identity._round10(mhz) if mhz else None, r.get("logical_cpus"),
                     math.ceil(mem / 2**30) if mem else None)
        else:
            newest = [j for m, _, _, j in index(root) if m == machine]
            if newest:
                try:
                    mi = json.loads(max(newest, key=lambda p: p.name).read_text()).get("machine", {})
                except (OSError, ValueError, AttributeError):
                    mi = {}
                f = mi.get("facts") if isinstance(mi.get("facts"), dict) else None
                legacy = f is None
                mhz = f.get("nominal_mhz") if f else (identity._round10(mi["cpu_mhz"]) if identity._float(mi.get("cpu_mhz")) else None)
                mem = mi.get("memory_bytes")
                facts = (mi.get("cpu_model"), mhz, mi.get("logical_cpus"),
                         f.get("memory_gib") if f else (math.ceil(mem / 2**30) if isinstance(mem, (int, float)) and mem else None))
    parts = []
    if facts:
        model, mhz, cpus, gib = facts
        parts = [str(model or "unknown CPU")] + ([f"{mhz} MHz"] if mhz else []) + \
                ([f"{cpus} logical CPUs"] if cpus else []) + ([f"{gib} GiB"] if gib else [])
    what = ", ".join(parts) if parts else "no machine facts stored"
    if machine == here:
        whose = "this machine"
    elif legacy:
        whose = "stored under an id from before hosts were told apart; not verified as this machine"
    else:
        whose = "another machine"
    return f"{machine} ({what}): {whose}"
