"""The append-only results store.

    data/results/<machine-id>/<experiment>/<run-id>.csv   long ("tidy") rows
    data/results/<machine-id>/<experiment>/<run-id>.json  the run's metadata

Both files are written to a temporary name in the same directory and renamed
into place, the CSV first and the JSON last: a run exists once its JSON does.
A run id is never reused, so saving never overwrites anything.
"""

from __future__ import annotations

import json
import os
import platform
import re
import secrets
import socket
import subprocess
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from . import MechsymError, data_root, repo_root
from .cpus import Topology, read_topology

RUN_ID = re.compile(r"^\d{8}T\d{6}Z-[a-z]+-[0-9a-f]{6}$")


def results_root() -> Path:
    """data/results, or MECHSYM_RESULTS (tests and scratch runs point it elsewhere)."""
    env = os.environ.get("MECHSYM_RESULTS")
    return Path(env) if env else data_root() / "results"


def machine_id(topo: Topology | None = None) -> str:
    """A stable, readable id for this machine: CPU model, logical CPUs, memory.

    MECHSYM_MACHINE overrides it."""
    if os.environ.get("MECHSYM_MACHINE"):
        return os.environ["MECHSYM_MACHINE"]
    topo = topo or read_topology()
    model = re.sub(r"\(.*?\)|cpu|processor|@.*$|\d+-core", " ", topo.model, flags=re.I)
    slug = re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-") or "cpu"
    mem_gib = round(_mem_bytes() / 2**30)
    return f"{slug}-{topo.logical}cpu-{mem_gib}g"


def _mem_bytes() -> int:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def git_commit() -> str:
    try:
        r = subprocess.run(["git", "-C", str(repo_root()), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        commit = r.stdout.strip() if r.returncode == 0 else "unknown"
        d = subprocess.run(["git", "-C", str(repo_root()), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, timeout=10)
        return commit + ("-dirty" if d.stdout.strip() else "")
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def machine_info(topo: Topology | None = None) -> dict:
    topo = topo or read_topology()
    return {
        "machine_id": machine_id(topo),
        "hostname": socket.gethostname(),
        "cpu_model": topo.model,
        "logical_cpus": topo.logical,
        "physical_cores": topo.physical,
        "sockets": topo.sockets,
        "smt": topo.smt,
        "memory_bytes": _mem_bytes(),
        "cpu_mhz": cpu_mhz(),
        "kernel": platform.release(),
        "os": platform.platform(),
        "python": platform.python_version(),
    }


def cpu_mhz() -> float | None:
    """This machine's CPU clock as /proc/cpuinfo gives it (the nominal clock under a hypervisor)."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("cpu MHz"):
                return float(line.split(":", 1)[1])
    except (OSError, ValueError):
        pass
    return None


def now_utc() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_run_id(preset: str) -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ") + f"-{preset}-{secrets.token_hex(3)}"


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "w") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def save(experiment: str, rows: pd.DataFrame, meta: dict, machine: str | None = None,
         root: Path | None = None) -> Path:
    """Store one run; returns the JSON path. Never overwrites an existing run."""
    if rows is None or rows.empty:
        raise MechsymError(f"{experiment}: nothing to store (no rows)")
    root = root or results_root()
    machine = machine or meta.get("machine", {}).get("machine_id") or machine_id()
    run_id = meta.get("run_id") or new_run_id(meta.get("preset", "run"))
    folder = root / machine / experiment
    folder.mkdir(parents=True, exist_ok=True)
    csv_path, json_path = folder / f"{run_id}.csv", folder / f"{run_id}.json"
    if csv_path.exists() or json_path.exists():
        raise MechsymError(f"run id {run_id}: already stored in {folder}; runs are never overwritten")
    rows = rows.copy()
    rows.insert(0, "run_id", run_id)
    _atomic_write(csv_path, rows.to_csv(index=False))
    meta = {**meta, "run_id": run_id, "experiment": experiment, "rows": int(len(rows)),
            "saved_at": datetime.now(timezone.utc).isoformat()}
    _atomic_write(json_path, json.dumps(meta, indent=2, sort_keys=True, default=str) + "\n")
    return json_path


def machines(root: Path | None = None) -> list[str]:
    root = root or results_root()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))


def default_machine(experiment: str | None = None, root: Path | None = None) -> str | None:
    """This machine if it has stored results (for the experiment), else the machine with the newest run."""
    root = root or results_root()
    here = machine_id()
    candidates = [m for m in machines(root) if experiment is None or (root / m / experiment).is_dir()]
    if here in candidates:
        return here
    best, newest = None, ""
    for m in candidates:
        for j in (root / m).glob("*/*.json") if experiment is None else (root / m / experiment).glob("*.json"):
            if j.name > newest:
                best, newest = m, j.name
    return best


def runs(experiment: str, machine: str | None = None, root: Path | None = None,
         include_incomplete: bool = False) -> list[dict]:
    """Metadata of stored runs (oldest first). machine: an id, None (default machine) or 'all'."""
    root = root or results_root()
    if machine in (None, ""):
        machine = default_machine(experiment, root)
        if machine is None:
            return []
    ms = machines(root) if machine == "all" else [machine]
    if machine != "all" and machine not in machines(root):
        have = ", ".join(machines(root)) or "none"
        raise MechsymError(f"machine '{machine}': no stored results (stored machines: {have})")
    out = []
    for m in ms:
        for j in sorted((root / m / experiment).glob("*.json")):
            try:
                meta = json.loads(j.read_text())
            except (OSError, json.JSONDecodeError) as e:
                raise MechsymError(f"corrupt metadata file {j}: {e}") from e
            if not include_incomplete and meta.get("status", "complete") != "complete":
                continue
            meta["_json"] = str(j)
            meta["_csv"] = str(j.with_suffix(".csv"))
            meta["_machine"] = m
            out.append(meta)
    return sorted(out, key=lambda x: (x.get("saved_at", ""), x["run_id"]))


def load(experiment: str, machine: str | None = None, root: Path | None = None,
         preset: str | None = None, latest: bool = True, include_incomplete: bool = False) -> pd.DataFrame:
    """Stored rows of an experiment as one DataFrame (empty when none).

    latest=True keeps, per machine, only the newest run of the chosen preset
    (or of the newest preset stored when none is given)."""
    metas = runs(experiment, machine, root, include_incomplete)
    if preset:
        metas = [m for m in metas if m.get("preset") == preset]
    if latest and metas:
        keep = []
        for m in sorted({x["_machine"] for x in metas}):
            mine = [x for x in metas if x["_machine"] == m]
            if not preset:
                # prefer the most thorough preset stored: full > standard > smoke
                rank = {"full": 3, "standard": 2, "smoke": 1}
                best = max(rank.get(x.get("preset"), 0) for x in mine)
                mine = [x for x in mine if rank.get(x.get("preset"), 0) == best]
            keep.append(mine[-1])
        metas = keep
    frames = []
    for meta in metas:
        path = Path(meta["_csv"])
        try:
            df = pd.read_csv(path, low_memory=False)
        except Exception as e:
            raise MechsymError(f"corrupt results file {path}: {str(e).splitlines()[0]}") from e
        need = {"run_id", "metric", "value"}
        if not need <= set(df.columns):
            raise MechsymError(f"corrupt results file {path}: missing columns {', '.join(sorted(need - set(df.columns)))}")
        if not pd.api.types.is_numeric_dtype(df["value"]):
            raise MechsymError(f"corrupt results file {path}: column 'value' is not numeric")
        df["machine"] = meta["_machine"]
        frames.append(df)
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True)


def latest_meta(experiment: str, machine: str | None = None, root: Path | None = None) -> dict | None:
    metas = runs(experiment, machine, root)
    return metas[-1] if metas else None
