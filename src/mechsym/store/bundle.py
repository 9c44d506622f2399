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
import re
import secrets
import shutil
import sys
import tarfile
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from .. import MechsymError, __version__
from . import files as fsio, runs as store
from .archive import FORMAT, MANIFEST, VERSION, check_run, read, refusal, runs_in, sha256, whose_problem
from ..machine.identity import git_commit, machine_id


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
                why = "a bundle would give it a fresh checksum" if "corrupt results file" in skipped[0] \
                    else "a bundle carries only runs every read of the store accepts"
                raise MechsymError(f"{refusal(skipped[0])}; bundle refused: {why} (nothing written)")
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
    if str(output) == "-":
        raise MechsymError("output '-': a bundle is written to a file, not to stdout; give --output FILE.tar.gz "
                           "(nothing written)")
    out = Path(output)
    if out.is_dir():
        raise MechsymError(f"output {out}: is a directory; give a file name inside it (nothing written)")
    _clean_stale_temps(out)
    if out.exists():
        raise MechsymError(f"output {out}: already exists; choose another --output (bundles are never overwritten)")
    tmp = out.with_name(f".{out.name}{TMP}{os.getpid()}")
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


TMP = ".mechsym-tmp-"   # .<output>.mechsym-tmp-<pid>: a bundle being written


def _clean_stale_temps(out: Path) -> None:
    """Temporary files of bundles killed while writing (their process is gone) beside `out`: removed, one line each.
    Only names this bench gives its own temporary files (and the older .<this output>.tmp-<pid>)."""
    try:
        entries = list(out.parent.iterdir()) if out.parent.is_dir() else []
    except OSError:
        return
    for p in entries:
        m = re.match(r"^\.(.+)" + re.escape(TMP) + r"([0-9]+)$", p.name) or \
            re.match(r"^\." + re.escape(out.name) + r"\.tmp-([0-9]+)$", p.name)
        if not m or p.is_symlink() or not p.is_file():
            continue
        pid = int(m.group(m.lastindex))
        try:
            os.kill(pid, 0)
            continue  # still being written
        except ProcessLookupError:
            pass
        except (PermissionError, OverflowError, OSError):
            continue
        try:
            p.unlink()
        except OSError:
            continue
        print(f"mechsym: removed {p}: part of a bundle whose writing was killed (process {pid} is gone)",
              file=sys.stderr)


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
    and a failure while writing (a full disk) leaves the store as it was. An import killed outright (kill -9, a
    power cut) is cleaned up at the start of the next one (one line); importing the same bundle again completes it."""
    where = f"archive {archive}"
    root = Path(root or store.results_root())
    manifest, files = read(archive)
    runs = runs_in(where, files)
    if root.exists() and not root.is_dir():
        raise MechsymError(f"results directory {root}: is not a directory; nothing imported")
    created = _make_root(root)
    new, same, done = [], [], False
    try:
        # which runs are new and placing them is one step, one import at a time: two imports deciding at once
        # each took the other's half-placed run for their own, and one's rollback deleted the other's runs
        with fsio.store_lock(root, where, waiting=lambda line: print(f"mechsym: {line}", file=sys.stderr, flush=True)):
            clean_interrupted(root)
            stored = {j.stem: j.parent.parent.name for j in root.glob("*/*/*.json") if not j.parent.parent.name.startswith(".")}
            problem = whose_problem(manifest, runs, machine_id(), stored)
            if problem:
                raise MechsymError(f"{where}: {problem}; nothing imported")
            new, same = _new_and_same(where, root, runs)
            if new:
                _install(where, root, new)
            done = bool(new)
    finally:
        if not done:   # nothing stored: the folders made for the lock go again
            _remove_empty(created)
    machines = sorted({m for m, _, _, _ in new} | {k[0] for k in runs})
    text = f"imported {len(new)} runs of {', '.join(machines)}"
    if new:
        text += f" ({_per_experiment([{'experiment': e} for _, e, _, _ in new])}) into {root}"
    if same:
        text += f"; {len(same)} already stored (identical, skipped)"
    return text


def _new_and_same(where: str, root: Path, runs: dict) -> tuple[list, list]:
    """The bundle's runs not yet stored (with the machine folder each goes to) and the run ids stored identically."""
    new, same = [], []
    for (machine, experiment, run_id), pair in sorted(runs.items()):
        # a run id is stored once, wherever: under this id, or under an older id the alias table re-labels
        stored = sorted(root.glob(f"*/{experiment}/{run_id}.json")) if root.is_dir() else []
        stored = [j for j in stored if not j.parent.parent.name.startswith(".")] or [root / machine / experiment / f"{run_id}.json"]
        folder = stored[0].parent
        state = _stored_as(folder, run_id, pair)
        if state == "absent":
            new.append((machine, experiment, run_id, pair))
        elif state == "same":
            same.append(run_id)
        elif state == "csv-only":   # the CSV of an import killed before its JSON: the same bytes, completed now
            new.append((folder.parent.name, experiment, run_id, pair))
        else:
            raise MechsymError(f"{where}: run id {run_id} is already stored in {folder} with other contents; "
                               "runs are never overwritten (nothing imported)")
    return new, same


def _make_root(root: Path) -> list[Path]:
    """Make the results root (it holds the import lock); returns the folders made, outermost first."""
    created: list[Path] = []
    d = root
    while not d.exists():
        created.insert(0, d)
        d = d.parent
    try:
        root.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise MechsymError(f"results directory {root}: cannot be made ({e.strerror or e}); nothing imported") from e
    return created


def _remove_empty(folders: list[Path]) -> None:
    for folder in reversed(folders):
        try:
            folder.rmdir()
        except OSError:
            pass


def _stored_as(folder: Path, run_id: str, pair: dict[str, bytes]) -> str:
    """absent, same (both files, these bytes), csv-only (this CSV, no JSON: what a killed import leaves), or other."""
    present = {}
    for ext in ("csv", "json"):
        try:
            present[ext] = (folder / f"{run_id}.{ext}").read_bytes()
        except FileNotFoundError:
            pass
        except OSError as e:
            raise MechsymError(f"stored run {folder / f'{run_id}.{ext}'}: unreadable ({e.strerror or e}); "
                               "nothing imported") from e
    if not present:
        return "absent"
    if present == pair:
        return "same"
    if set(present) == {"csv"} and present["csv"] == pair["csv"]:
        return "csv-only"
    return "other"


STAGE = ".import-"
STAGED = "results"   # <stage>/results/<machine>/<experiment>/<run-id>.csv|json: where each staged file goes


def _write(path: Path, data: bytes) -> None:
    fsio.write_synced(path, data)


def _place(src: Path, dst: Path) -> None:
    """Give the staged file its name in the store without ever replacing one: a hard link fails when dst exists
    (FileExistsError), where a rename would overwrite it. The staged name stays until the run is complete, so
    a killed import's half-placed run is known by its inode (clean_interrupted)."""
    os.link(src, dst)


def _install(where: str, root: Path, new: list[tuple[str, str, str, dict[str, bytes]]]) -> None:
    """Write every new run's files under <root>/.import-PID-xxxx and check them, then place them run by run: its
    CSV, then its JSON (a run exists once its JSON does), each by a link that cannot overwrite. On any failure,
    what this import placed is removed; a kill leaves the stage, which the next import cleans (clean_interrupted)."""
    created: list[Path] = []
    need = sum(len(p["csv"]) + len(p["json"]) for _, _, _, p in new)
    stage = root / f"{STAGE}{os.getpid()}-{secrets.token_hex(3)}"
    placed: list[tuple[Path, Path]] = []
    try:
        fsio.check_space(root, need + 2**20, f"results directory {root}")
        stage.mkdir()
        staged = []
        for machine, experiment, run_id, pair in new:
            sub = stage / STAGED / machine / experiment
            sub.mkdir(parents=True, exist_ok=True)
            files = {}
            for ext in ("csv", "json"):
                _write(sub / f"{run_id}.{ext}", pair[ext])
                files[ext] = (sub / f"{run_id}.{ext}", root / machine / experiment / f"{run_id}.{ext}")
            if {ext: src.read_bytes() for ext, (src, _) in files.items()} != pair:  # what was written is what was checked
                raise MechsymError(f"{where}: run {run_id} reads back other bytes from {stage}; nothing imported")
            staged.append(files)
        for files in staged:
            folder = files["csv"][1].parent
            for f in (folder.parent, folder):
                try:
                    f.mkdir()          # several imports at once may make the same folder: that is no failure
                    created.append(f)
                except FileExistsError:
                    if not f.is_dir():
                        raise
            for ext in ("csv", "json"):
                src, dst = files[ext]
                if ext == "csv" and dst.exists() and dst.read_bytes() == src.read_bytes() \
                        and not dst.with_suffix(".json").exists():
                    continue  # the same CSV left by a killed import: the JSON completes the run
                try:
                    _place(src, dst)
                except FileExistsError as e:
                    raise MechsymError(f"{where}: {dst} appeared while importing; runs are never overwritten "
                                       "(nothing imported)") from e
                placed.append((src, dst))
    except BaseException as e:
        for src, dst in reversed(placed):
            if _same_file(src, dst):   # only what this import put there
                dst.unlink(missing_ok=True)
        shutil.rmtree(stage, ignore_errors=True)
        _remove_empty(created)
        if isinstance(e, OSError):
            raise MechsymError(f"{where}: writing into {root} failed ({e.strerror or e}); the store is as it was "
                               "(nothing imported)") from e
        if isinstance(e, MechsymError) and "nothing imported" not in str(e):
            raise MechsymError(f"{e}; nothing imported") from e
        raise
    shutil.rmtree(stage, ignore_errors=True)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def clean_interrupted(root: Path) -> list[str]:
    """Clean up after imports that were killed (their process is gone): a CSV placed without its JSON (a half run,
    known as this import's by being the same file as its staged copy) is removed, then the staging folder. One
    line on stderr for each; returns those lines. Runs that were placed whole stay: they are complete."""
    lines = []
    if not root.is_dir():
        return lines
    for d in sorted(root.glob(f"{STAGE}*")):
        try:
            pid = int(d.name[len(STAGE):].split("-")[0])
            os.kill(pid, 0)
            continue  # that import is still going
        except ProcessLookupError:
            pass
        except (ValueError, PermissionError, OverflowError, OSError):
            continue  # not ours, or another user's live process: left alone
        if d.is_symlink() or not d.is_dir():
            continue
        half = 0
        for staged in (d / STAGED).glob("*/*/*.csv"):
            target = root / staged.relative_to(d / STAGED)
            if not target.with_suffix(".json").exists() and _same_file(staged, target):
                target.unlink(missing_ok=True)
                half += 1
        shutil.rmtree(d, ignore_errors=True)
        line = (f"mechsym: cleaned up an import that was killed (process {pid}): removed its staging folder {d.name}"
                + (f" and {half} runs it had half placed (a CSV without its JSON)" if half else "")
                + "; import the bundle again to complete it")
        print(line, file=sys.stderr)
        lines.append(line)
    return lines
