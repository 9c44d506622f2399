"""The bundle archive's format and its checks: the manifest, reading an archive member by member (names, types,
sizes and checksums checked before anything is unpacked), and the check of a run's pair of files that both
`mechsym bundle` and `mechsym import` apply (bundle.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tarfile
import zlib
from pathlib import Path, PurePosixPath

from .. import MechsymError
from . import layout, rows as rowcheck, integrity as runcheck

FORMAT = "mechsym-results-bundle"
VERSION = 1
MANIFEST = "mechsym-bundle.json"
MEMBER = re.compile(r"^results/([^/]+)/([^/]+)/([^/]+)\.(csv|json)$")
MAX_BYTES = 2 * 2**30  # refuse archives that would unpack to more than this


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def refusal(problem: str) -> str:
    return problem[: -len("; run skipped")] if problem.endswith("; run skipped") else problem


def read(archive: str | os.PathLike) -> tuple[dict, dict[str, bytes]]:
    """The manifest and the checked files of an archive; MechsymError (one line) for anything else."""
    path = Path(archive)
    where = f"archive {path}"
    if path.is_dir():
        raise MechsymError(f"{where}: is a directory, not a bundle; give the .tar.gz file `mechsym bundle` wrote")
    if path.exists() and not path.is_file():
        raise MechsymError(f"{where}: is not a regular file (a device, pipe or socket), not a bundle; give the .tar.gz "
                           "file `mechsym bundle` wrote")
    if not path.is_file():
        raise MechsymError(f"{where}: no such file")
    try:
        tar = tarfile.open(path, "r:*")
    except (tarfile.TarError, EOFError, OSError, zlib.error) as e:
        raise MechsymError(f"{where}: not a mechsym bundle (not a tar or tar.gz archive); make one with `mechsym bundle`") from e
    files: dict[str, bytes] = {}
    manifest, listed = None, None
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
                if name in files or (name == MANIFEST and manifest is not None):
                    raise MechsymError(f"{where}: member '{name}' appears twice; refused")
                if manifest is None:
                    # the manifest comes first: every later member is checked against it before it is unpacked
                    if name != MANIFEST:
                        raise MechsymError(f"{where}: not a mechsym bundle (no {MANIFEST} as its first member; "
                                           "make one with `mechsym bundle`)")
                    if info.size > 64 * 2**20:
                        raise MechsymError(f"{where}: {MANIFEST} of {info.size} bytes; refused")
                    f = tar.extractfile(info)
                    manifest, listed = read_manifest(where, f.read() if f else b"")
                    continue
                if name not in listed:
                    raise MechsymError(f"{where}: corrupt: {name} is not listed in {MANIFEST}; nothing imported")
                entry = listed[name] if isinstance(listed[name], dict) else {}
                if entry.get("bytes") != info.size:
                    raise MechsymError(f"{where}: corrupt: {name} does not match its checksum; nothing imported")
                total += info.size
                if total > MAX_BYTES:
                    raise MechsymError(f"{where}: unpacks to more than {MAX_BYTES // 2**30} GiB; refused")
                f = tar.extractfile(info)
                files[name] = f.read() if f else b""
    except MechsymError:
        raise
    except (tarfile.TarError, EOFError, OSError, zlib.error) as e:
        raise MechsymError(f"{where}: corrupt archive ({short(e)}); nothing imported") from e
    if manifest is None:
        raise MechsymError(f"{where}: not a mechsym bundle (no {MANIFEST}; make one with `mechsym bundle`)")
    for name in sorted(set(listed) | set(files)):
        if name not in files:
            raise MechsymError(f"{where}: corrupt: {name} is listed in {MANIFEST} but missing; nothing imported")
        if name not in listed:
            raise MechsymError(f"{where}: corrupt: {name} is not listed in {MANIFEST}; nothing imported")
        entry = listed[name] if isinstance(listed[name], dict) else {}
        if entry.get("sha256") != sha256(files[name]) or entry.get("bytes") != len(files[name]):
            raise MechsymError(f"{where}: corrupt: {name} does not match its checksum; nothing imported")
    return manifest, files


def read_manifest(where: str, data: bytes) -> tuple[dict, dict]:
    try:
        manifest = json.loads(data)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
        raise MechsymError(f"{where}: corrupt {MANIFEST} ({json_error(e)}); nothing imported") from e
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        raise MechsymError(f"{where}: not a mechsym bundle ({MANIFEST} does not say format '{FORMAT}')")
    if manifest.get("version") != VERSION:
        raise MechsymError(f"{where}: bundle format version {manifest.get('version')!r}; this mechsym reads version {VERSION}")
    listed = manifest.get("files")
    if not isinstance(listed, dict):
        raise MechsymError(f"{where}: corrupt {MANIFEST} (no file list); nothing imported")
    return manifest, listed


def json_error(e: Exception) -> str:
    return "nested too deeply to be a manifest or a run's metadata" if isinstance(e, RecursionError) else short(e)


def short(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return (text[0] if text else type(e).__name__)[:200]


def names_ok(machine: str, experiment: str, run_id: str) -> bool:
    return bool(layout.MACHINE_ID.match(machine) and ".." not in machine and layout.EXPERIMENT.match(experiment)
                and layout.RUN_ID.match(run_id))


def check_run(machine: str, experiment: str, run_id: str, pair: dict[str, bytes]) -> str | None:
    """Why a run's pair of files is not one this bench stores (None when it is): ids, JSON, columns, rows."""
    if not names_ok(machine, experiment, run_id):
        return "not a machine id / experiment / run id this bench writes"
    if set(pair) != {"csv", "json"}:
        return "needs both its .csv and .json"
    try:
        meta = json.loads(pair["json"])
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as e:
        return f"corrupt metadata ({json_error(e)})"
    if not isinstance(meta, dict) or meta.get("run_id") != run_id or meta.get("experiment") != experiment:
        return "its metadata names another run or experiment"
    problem = runcheck.meta_problem(meta, Path(experiment) / f"{run_id}.json")  # what every read of the store checks
    if problem:
        return f"not a run's metadata ({problem})"
    problem = runcheck.csv_problem(pair["csv"], meta.get("rows"), meta.get("csv_bytes"), meta.get("csv_sha256"),
                                   "corrupt results")
    if problem:
        return refusal(problem)
    problem = rowcheck.problem(pair["csv"], run_id, experiment)  # the rules every read of the store applies
    return f"results {problem}" if problem else None


def runs_in(where: str, files: dict[str, bytes]) -> dict[tuple[str, str, str], dict[str, bytes]]:
    """(machine, experiment, run id) -> {"csv": bytes, "json": bytes}, each run checked."""
    runs: dict[tuple[str, str, str], dict[str, bytes]] = {}
    for name, data in files.items():
        m = MEMBER.match(name)
        if not m:
            raise MechsymError(f"{where}: unexpected member '{name}' (a bundle holds results/<machine>/<experiment>/<run-id>.csv|json)")
        machine, experiment, run_id, ext = m.groups()
        if not names_ok(machine, experiment, run_id):
            raise MechsymError(f"{where}: member '{name}': not a machine id / experiment / run id this bench writes")
        runs.setdefault((machine, experiment, run_id), {})[ext] = data
    if not runs:
        raise MechsymError(f"{where}: the bundle holds no runs")
    for (machine, experiment, run_id), pair in runs.items():
        problem = check_run(machine, experiment, run_id, pair)
        if problem:
            raise MechsymError(f"{where}: run {machine}/{experiment}/{run_id}: {problem}; nothing imported")
    return runs


def whose_problem(manifest: dict, runs: dict, here: str, stored: dict[str, str]) -> str | None:
    """Why a bundle's runs cannot be taken as the machines they are filed under (None when they can). A run's machine
    is what its own metadata says (machine.machine_id), and must agree with its folder in the archive and with the
    manifest's machines and run list; a run re-labelled by an alias table may name its older id, as the manifest
    records. A bundle filed under `here` (this machine's id) would be judged "this machine": runs of this machine
    are made here, never imported. A run that extends another must bring it or extend a run stored under its own
    machine; extending a run of another machine (this one's) would pool two machines. `stored`: run id -> machine
    folder of the runs already in the store."""
    listed = manifest.get("machines")
    entries = manifest.get("runs")
    if not isinstance(listed, list) or not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
        return f"corrupt {MANIFEST} (no list of machines and runs)"
    by_run = {(e.get("machine"), e.get("experiment"), e.get("run_id")) for e in entries}
    relabelled = manifest.get("relabelled") if isinstance(manifest.get("relabelled"), list) else []
    older = {(r.get("run_id"), r.get("machine")): r.get("stored_as") for r in relabelled if isinstance(r, dict)}
    ids = {(m, run_id) for m, _, run_id in runs}
    for (machine, experiment, run_id), pair in sorted(runs.items()):
        where = f"run {machine}/{experiment}/{run_id}"
        meta = json.loads(pair["json"])   # checked by check_run
        said = meta.get("machine", {}).get("machine_id") if isinstance(meta.get("machine"), dict) else None
        if said not in (machine, older.get((run_id, machine))):
            return f"{where}: its metadata names machine {str(said)[:80]!r}, not the folder's {machine}"
        if machine not in listed or (machine, experiment, run_id) not in by_run:
            return f"{where}: not listed under machine {machine} in {MANIFEST}"
        if machine == here and run_id not in stored:
            return (f"{where}: claims this machine's id {here}; runs of this machine are made here, never "
                    "imported")
        base = meta.get("extends")
        if base is not None and (machine, str(base)) not in ids and stored.get(str(base)) != machine:
            return (f"{where}: extends run {str(base)[:80]!r}, which is neither in the bundle nor stored under "
                    f"{machine}")
    return None
