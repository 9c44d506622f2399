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
refuses the whole import: runs are never overwritten. A run whose CSV does not
match its JSON (rows, and bytes and sha256 where recorded) is refused on both
sides: `bundle` never gives a cut file a fresh checksum, `import` never takes it.

Smoke runs are left out unless asked (`--include-smoke`): they check that
the bench runs, and their numbers are not measurements.

Runs stored under an older machine id and re-labelled by the store's alias
table are packed under their new id (their bytes unchanged). Import is all or
nothing: every file is written under a staging folder of the store first,
then renamed into place; any failure removes what it wrote. The format and the
checks of an archive and of a run's files are in bundle_format.py.
"""

from __future__ import annotations

import io
import json
import os
import secrets
import shutil
import tarfile
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from . import MechsymError, __version__, fsio, store
from .bundle_format import FORMAT, MANIFEST, VERSION, check_run, read, refusal, runs_in, sha256
from .machine import git_commit, machine_id


def _runs_to_pack(machine: str | None, include_smoke: bool) -> tuple[list[dict], int]:
    """The complete runs to pack, and how many smoke runs were left out (a smoke run checks that things run; its
    numbers are not measurements, so a bundle carries them only when asked)."""
    root = store.results_root()
    if machine == "all":
        machines = store.machines(root)
    else:
        machines = [machine or machine_id()]
        if machines[0] not in store.machines(root):
            have = ", ".join(store.machines(root)) or "none"
            raise MechsymError(f"machine '{machines[0]}': no stored results to bundle in {root} "
                               f"(stored machines: {have}); run `mechsym run EXPERIMENT` first")
    experiments = sorted({e for m, _, e, _ in store.index(root) if m in machines})
    metas = []
    for m in machines:
        for experiment in experiments:
            found, skipped = store.scan(experiment, m, root, include_incomplete=False)
            if skipped:
                raise MechsymError(f"{refusal(skipped[0])}; bundle refused: a bundle would give it a fresh checksum "
                                   "(nothing written)")
            metas += found
    smoke = 0 if include_smoke else sum(m.get("preset") == "smoke" for m in metas)
    metas = [m for m in metas if include_smoke or m.get("preset") != "smoke"]
    if not metas:
        left_out = f" ({smoke} smoke runs left out: add --include-smoke to pack them)" if smoke else ""
        raise MechsymError(f"no complete stored runs to bundle for {machine or machine_id()} in {root}{left_out}")
    return metas, smoke


def bundle(output: str | os.PathLike | None = None, machine: str | None = None,
           include_smoke: bool = False) -> tuple[Path, str]:
    """Write the archive; returns its path and a one-line summary. Smoke runs stay out unless include_smoke."""
    metas, smoke = _runs_to_pack(machine, include_smoke)
    files: dict[str, bytes] = {}
    for meta in metas:
        pair = {}
        for ext in ("csv", "json"):
            src = Path(meta[f"_{ext}"])
            try:
                pair[ext] = src.read_bytes()
            except OSError as e:
                raise MechsymError(f"stored run {src}: unreadable ({e.strerror or e}); bundle refused (nothing written)") from e
        problem = check_run(meta["_machine"], meta["experiment"], meta["run_id"], pair)
        if problem:
            raise MechsymError(f"stored run {meta['_json']}: {problem}; bundle refused (nothing written)")
        for ext, data in pair.items():
            files[f"results/{meta['_machine']}/{meta['experiment']}/{meta['run_id']}.{ext}"] = data
    machines = sorted({m["_machine"] for m in metas})
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    manifest = {
        "format": FORMAT, "version": VERSION, "mechsym_version": __version__, "created": stamp,
        "git_commit": git_commit(), "machines": machines,
        "runs": [{"machine": m["_machine"], "experiment": m["experiment"], "run_id": m["run_id"],
                  "preset": m.get("preset"), "rows": m.get("rows")} for m in metas],
        "files": {name: {"sha256": sha256(data), "bytes": len(data)} for name, data in sorted(files.items())},
    }
    relabelled = [{"run_id": m["run_id"], "experiment": m["experiment"], "stored_as": m["_dir"], "machine": m["_machine"]}
                  for m in metas if m.get("_dir") and m["_dir"] != m["_machine"]]
    if relabelled:
        manifest["relabelled"] = relabelled  # runs of an older machine id, packed under the id the alias table gives
    if output is None:
        who = machines[0] if len(machines) == 1 else "all"
        output = Path.cwd() / f"mechsym-results-{who}-{stamp}.tar.gz"
    out = Path(output)
    if out.exists():
        raise MechsymError(f"output {out}: already exists; choose another --output (bundles are never overwritten)")
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    blocker = next((p for p in [out.parent, *out.parent.parents] if p.exists()), None)
    if blocker is not None and not blocker.is_dir():
        raise MechsymError(f"output {out}: cannot be written ({blocker} is a file, not a folder); nothing written")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        with tarfile.open(tmp, "w:gz") as tar:
            _add(tar, MANIFEST, (json.dumps(manifest, indent=2, sort_keys=True) + "\n").encode())
            for name, data in sorted(files.items()):
                _add(tar, name, data)
        os.replace(tmp, out)
    except OSError as e:
        raise MechsymError(f"output {out}: cannot be written ({e.strerror or e}); nothing written") from e
    finally:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
    left_out = f"; {smoke} smoke runs left out (--include-smoke packs them)" if smoke else ""
    return out, f"{len(metas)} runs of {', '.join(machines)} ({_per_experiment(manifest['runs'])}){left_out}"


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

def import_bundle(archive: str | os.PathLike, root: Path | None = None) -> str:
    """Add the runs of a bundle to the store; returns a one-line summary. Nothing is written unless all is well,
    and a failure while writing (a full disk) leaves the store as it was."""
    where = f"archive {archive}"
    manifest, files = read(archive)
    runs = runs_in(where, files)
    root = Path(root or store.results_root())
    if root.exists() and not root.is_dir():
        raise MechsymError(f"results directory {root}: is not a directory; nothing imported")
    new, same = [], []
    for (machine, experiment, run_id), pair in sorted(runs.items()):
        # a run id is stored once, wherever: under this id, or under an older id the alias table re-labels
        stored = sorted(root.glob(f"*/{experiment}/{run_id}.json")) if root.is_dir() else []
        stored = [j for j in stored if not j.parent.parent.name.startswith(".")] or [root / machine / experiment / f"{run_id}.json"]
        folder = stored[0].parent
        existing = {ext: folder / f"{run_id}.{ext}" for ext in ("csv", "json")}
        present = {ext: p.read_bytes() for ext, p in existing.items() if p.exists()}
        if not present:
            new.append((machine, experiment, run_id, pair))
        elif present == pair:
            same.append(run_id)
        else:
            raise MechsymError(f"{where}: run id {run_id} is already stored in {folder} with other contents; "
                               "runs are never overwritten (nothing imported)")
    if new:
        _install(where, root, new)
    machines = sorted({m for m, _, _, _ in new} | {k[0] for k in runs})
    text = f"imported {len(new)} runs of {', '.join(machines)}"
    if new:
        text += f" ({_per_experiment([{'experiment': e} for _, e, _, _ in new])}) into {root}"
    if same:
        text += f"; {len(same)} already stored (identical, skipped)"
    return text


STAGE = ".import-"


def _write(path: Path, data: bytes) -> None:
    fsio.write_synced(path, data)


def _install(where: str, root: Path, new: list[tuple[str, str, str, dict[str, bytes]]]) -> None:
    """Write every new run's files under <root>/.import-PID-xxxx, then rename them into place (every CSV, then
    every JSON: a run exists once its JSON does). On any failure, what was written or renamed is removed."""
    created: list[Path] = []
    d = root
    while not d.exists():
        created.insert(0, d)
        d = d.parent
    _clean_stale_stages(root)
    need = sum(len(p["csv"]) + len(p["json"]) for _, _, _, p in new)
    stage = root / f"{STAGE}{os.getpid()}-{secrets.token_hex(3)}"
    placed: list[Path] = []
    try:
        root.mkdir(parents=True, exist_ok=True)
        fsio.check_space(root, need + 2**20, f"results directory {root}")
        stage.mkdir()
        staged = []
        for i, (machine, experiment, run_id, pair) in enumerate(new):
            for ext in ("csv", "json"):
                tmp = stage / f"{i}.{run_id}.{ext}"
                _write(tmp, pair[ext])
                staged.append((ext, tmp, root / machine / experiment / f"{run_id}.{ext}"))
        for machine, experiment, _, _ in new:
            for folder in (root / machine, root / machine / experiment):
                if not folder.exists():
                    folder.mkdir()
                    created.append(folder)
        for phase in ("csv", "json"):
            for ext, tmp, target in staged:
                if ext != phase:
                    continue
                if target.exists():
                    raise MechsymError(f"{where}: {target} appeared while importing; runs are never overwritten "
                                       "(nothing imported)")
                os.replace(tmp, target)
                placed.append(target)
    except BaseException as e:
        for target in reversed(placed):
            target.unlink(missing_ok=True)
        shutil.rmtree(stage, ignore_errors=True)
        for folder in reversed(created):
            try:
                folder.rmdir()
            except OSError:
                pass
        if isinstance(e, OSError):
            raise MechsymError(f"{where}: writing into {root} failed ({e.strerror or e}); the store is as it was "
                               "(nothing imported)") from e
        if isinstance(e, MechsymError) and "nothing imported" not in str(e):
            raise MechsymError(f"{e}; nothing imported") from e
        raise
    shutil.rmtree(stage, ignore_errors=True)


def _clean_stale_stages(root: Path) -> None:
    """Staging folders of imports that were killed (their process is gone)."""
    if not root.is_dir():
        return
    for d in root.glob(f"{STAGE}*"):
        try:
            pid = int(d.name[len(STAGE):].split("-")[0])
            os.kill(pid, 0)
        except ProcessLookupError:
            shutil.rmtree(d, ignore_errors=True)
        except (ValueError, PermissionError, OSError):
            pass
