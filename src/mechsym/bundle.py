"""Results from many machines: `mechsym bundle` and `mechsym import`.

A bundle is a gzip'd tar archive:

    mechsym-bundle.json                               the manifest (format, version, machines,
                                                      runs, sha256 and size of every file)
    results/<machine-id>/<experiment>/<run-id>.csv    the stored rows, as stored
    results/<machine-id>/<experiment>/<run-id>.json   the run's metadata, as stored

Import checks the whole archive before it writes anything: the manifest, every
member's name, type, size and checksum, every run's pair of files, its JSON
and its CSV columns. A run already stored with the same bytes is skipped (a
bundle imports twice as once); a run id already stored with other contents
refuses the whole import: runs are never overwritten.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import tarfile
import zlib
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath

import pandas as pd

from . import MechsymError, __version__, store

FORMAT = "mechsym-results-bundle"
VERSION = 1
MANIFEST = "mechsym-bundle.json"
MACHINE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
EXPERIMENT = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
MEMBER = re.compile(r"^results/([^/]+)/([^/]+)/([^/]+)\.(csv|json)$")
MAX_BYTES = 2 * 2**30  # refuse archives that would unpack to more than this


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _runs_to_pack(machine: str | None) -> list[dict]:
    root = store.results_root()
    if machine == "all":
        machines = store.machines(root)
    else:
        machines = [machine or store.machine_id()]
        if machines[0] not in store.machines(root):
            have = ", ".join(store.machines(root)) or "none"
            raise MechsymError(f"machine '{machines[0]}': no stored results to bundle in {root} "
                               f"(stored machines: {have}); run `mechsym run EXPERIMENT` first")
    metas = []
    for m in machines:
        for exp_dir in sorted(p for p in (root / m).iterdir() if p.is_dir() and not p.name.startswith(".")):
            metas += [x for x in store.runs(exp_dir.name, m, root) if Path(x["_csv"]).exists()]
    if not metas:
        raise MechsymError(f"no complete stored runs to bundle for {machine or store.machine_id()} in {root}")
    return metas


def bundle(output: str | os.PathLike | None = None, machine: str | None = None) -> tuple[Path, str]:
    """Write the archive; returns its path and a one-line summary."""
    metas = _runs_to_pack(machine)
    files: dict[str, bytes] = {}
    for meta in metas:
        for src in (Path(meta["_csv"]), Path(meta["_json"])):
            files[f"results/{meta['_machine']}/{meta['experiment']}/{src.name}"] = src.read_bytes()
    machines = sorted({m["_machine"] for m in metas})
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    manifest = {
        "format": FORMAT, "version": VERSION, "mechsym_version": __version__, "created": stamp,
        "git_commit": store.git_commit(), "machines": machines,
        "runs": [{"machine": m["_machine"], "experiment": m["experiment"], "run_id": m["run_id"],
                  "preset": m.get("preset"), "rows": m.get("rows")} for m in metas],
        "files": {name: {"sha256": _sha256(data), "bytes": len(data)} for name, data in sorted(files.items())},
    }
    if output is None:
        who = machines[0] if len(machines) == 1 else "all"
        output = Path.cwd() / f"mechsym-results-{who}-{stamp}.tar.gz"
    out = Path(output)
    if out.exists():
        raise MechsymError(f"output {out}: already exists; choose another --output (bundles are never overwritten)")
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    try:
        with tarfile.open(tmp, "w:gz") as tar:
            _add(tar, MANIFEST, (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode())
            for name, data in sorted(files.items()):
                _add(tar, name, data)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return out, f"{len(metas)} runs of {', '.join(machines)} ({_per_experiment(manifest['runs'])})"


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mtime = int(datetime.now(timezone.utc).timestamp())
    info.mode = 0o644
    tar.addfile(info, io.BytesIO(data))


def _per_experiment(runs: list[dict]) -> str:
    counts = pd.Series([r["experiment"] for r in runs]).value_counts().sort_index()
    return ", ".join(f"{k} {v}" for k, v in counts.items())


# ---------------------------------------------------------------- import

def read(archive: str | os.PathLike) -> tuple[dict, dict[str, bytes]]:
    """The manifest and the checked files of an archive; MechsymError (one line) for anything else."""
    path = Path(archive)
    where = f"archive {path}"
    if not path.is_file():
        raise MechsymError(f"{where}: no such file")
    try:
        tar = tarfile.open(path, "r:*")
    except (tarfile.TarError, EOFError, OSError, zlib.error) as e:
        raise MechsymError(f"{where}: not a mechsym bundle (not a tar or tar.gz archive); make one with `mechsym bundle`") from e
    files: dict[str, bytes] = {}
    total = 0
    try:
        with tar:
            for info in tar:
                name = info.name
                p = PurePosixPath(name)
                if p.is_absolute() or ".." in p.parts or name.startswith("./"):
                    raise MechsymError(f"{where}: unsafe member name '{name}'; refused")
                if info.isdir():
                    continue
                if not info.isfile():
                    raise MechsymError(f"{where}: member '{name}' is not a regular file; refused")
                if name in files:
                    raise MechsymError(f"{where}: member '{name}' appears twice; refused")
                total += info.size
                if total > MAX_BYTES:
                    raise MechsymError(f"{where}: unpacks to more than {MAX_BYTES // 2**30} GiB; refused")
                f = tar.extractfile(info)
                files[name] = f.read() if f else b""
    except MechsymError:
        raise
    except (tarfile.TarError, EOFError, OSError, zlib.error) as e:
        raise MechsymError(f"{where}: corrupt archive ({_short(e)}); nothing imported") from e
    if MANIFEST not in files:
        raise MechsymError(f"{where}: not a mechsym bundle (no {MANIFEST}; make one with `mechsym bundle`)")
    try:
        manifest = json.loads(files.pop(MANIFEST))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise MechsymError(f"{where}: corrupt {MANIFEST} ({_short(e)}); nothing imported") from e
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise MechsymError(f"{where}: not a mechsym bundle ({MANIFEST} does not say format '{FORMAT}')")
    if manifest.get("version") != VERSION:
        raise MechsymError(f"{where}: bundle format version {manifest.get('version')!r}; this mechsym reads version {VERSION}")
    listed = manifest.get("files")
    if not isinstance(listed, dict):
        raise MechsymError(f"{where}: corrupt {MANIFEST} (no file list); nothing imported")
    for name in sorted(set(listed) | set(files)):
        if name not in files:
            raise MechsymError(f"{where}: corrupt: {name} is listed in {MANIFEST} but missing; nothing imported")
        if name not in listed:
            raise MechsymError(f"{where}: corrupt: {name} is not listed in {MANIFEST}; nothing imported")
        entry = listed[name] if isinstance(listed[name], dict) else {}
        if entry.get("sha256") != _sha256(files[name]) or entry.get("bytes") != len(files[name]):
            raise MechsymError(f"{where}: corrupt: {name} does not match its checksum; nothing imported")
    return manifest, files


def _short(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return (text[0] if text else type(e).__name__)[:200]


def _runs_in(where: str, files: dict[str, bytes]) -> dict[tuple[str, str, str], dict[str, bytes]]:
    """(machine, experiment, run id) -> {"csv": bytes, "json": bytes}, each run checked."""
    runs: dict[tuple[str, str, str], dict[str, bytes]] = {}
    for name, data in files.items():
        m = MEMBER.match(name)
        if not m:
            raise MechsymError(f"{where}: unexpected member '{name}' (a bundle holds results/<machine>/<experiment>/<run-id>.csv|json)")
        machine, experiment, run_id, ext = m.groups()
        if not MACHINE.match(machine) or not EXPERIMENT.match(experiment) or not store.RUN_ID.match(run_id):
            raise MechsymError(f"{where}: member '{name}': not a machine id / experiment / run id this bench writes")
        runs.setdefault((machine, experiment, run_id), {})[ext] = data
    if not runs:
        raise MechsymError(f"{where}: the bundle holds no runs")
    for (machine, experiment, run_id), pair in runs.items():
        label = f"{where}: run {machine}/{experiment}/{run_id}"
        if set(pair) != {"csv", "json"}:
            raise MechsymError(f"{label}: needs both its .csv and .json; nothing imported")
        try:
            meta = json.loads(pair["json"])
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise MechsymError(f"{label}: corrupt metadata ({_short(e)}); nothing imported") from e
        if not isinstance(meta, dict) or meta.get("run_id") != run_id or meta.get("experiment") != experiment:
            raise MechsymError(f"{label}: its metadata names another run or experiment; nothing imported")
        try:
            df = pd.read_csv(io.BytesIO(pair["csv"]))
        except Exception as e:
            raise MechsymError(f"{label}: corrupt results ({_short(e)}); nothing imported") from e
        need = {"run_id", "metric", "value"}
        if not need <= set(df.columns) or not pd.api.types.is_numeric_dtype(df["value"]):
            raise MechsymError(f"{label}: corrupt results (needs columns run_id, metric and a numeric value); nothing imported")
        if set(df["run_id"].astype(str)) - {run_id}:
            raise MechsymError(f"{label}: its rows name another run id; nothing imported")
    return runs


def import_bundle(archive: str | os.PathLike, root: Path | None = None) -> str:
    """Add the runs of a bundle to the store; returns a one-line summary. Nothing is written unless all is well."""
    where = f"archive {archive}"
    manifest, files = read(archive)
    runs = _runs_in(where, files)
    root = root or store.results_root()
    new, same = [], []
    for (machine, experiment, run_id), pair in sorted(runs.items()):
        folder = root / machine / experiment
        existing = {ext: folder / f"{run_id}.{ext}" for ext in ("csv", "json")}
        present = {ext: p.read_bytes() for ext, p in existing.items() if p.exists()}
        if not present:
            new.append((machine, experiment, run_id, pair))
        elif present == pair:
            same.append(run_id)
        else:
            raise MechsymError(f"{where}: run id {run_id} is already stored in {folder} with other contents; "
                               "runs are never overwritten (nothing imported)")
    for machine, experiment, run_id, pair in new:
        folder = root / machine / experiment
        folder.mkdir(parents=True, exist_ok=True)
        # the CSV first, the JSON last: a run exists once its JSON does
        for ext in ("csv", "json"):
            target = folder / f"{run_id}.{ext}"
            tmp = folder / f".{target.name}.tmp-{os.getpid()}"
            tmp.write_bytes(pair[ext])
            os.replace(tmp, target)
    machines = sorted({m for m, _, _, _ in new} | {k[0] for k in runs})
    text = f"imported {len(new)} runs of {', '.join(machines)}"
    if new:
        text += f" ({_per_experiment([{'experiment': e} for _, e, _, _ in new])}) into {root}"
    if same:
        text += f"; {len(same)} already stored (identical, skipped)"
    return text
