"""The append-only results store: saving a run, reading the stored runs and choosing the ones to show.

    data/results/<machine-id>/<experiment>/<run-id>.csv   long ("tidy") rows
    data/results/<machine-id>/<experiment>/<run-id>.json  the run's metadata
    data/results/machines.csv                             aliases: runs stored under an older machine id

Both files are written to a temporary name in the same directory and renamed into place, the CSV first and the JSON
last: a run exists once its JSON does. A run id is never reused, so saving never overwrites anything; a save that
fails leaves neither a temporary file nor half a run behind.

Every read checks a run's CSV against its JSON: the size and sha256 recorded since they are (`csv_bytes`,
`csv_sha256`), else the row count (`rows`) and a final newline (runcheck.py). A run whose CSV does not match is
skipped with a one-line warning naming the file, never shown.

Where runs are, their names and the alias table are in layout.py; machine ids (which machine is this one) in
machine.py; writing a file whole or not at all, and the free-space check, in fsio.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import sys
from datetime import datetime, timezone
from pathlib import Path

import pandas as pd

from .. import MechsymError
from . import files as fsio, integrity as runcheck
from .layout import RUN_ID, check_experiment, check_machine_id, index, machines, results_root
from ..machine.identity import _mem_bytes, machine_id  # noqa: F401  (_mem_bytes: seqio's scratch reads it here)

MIN_FREE_BYTES = 64 * 2**20   # a stored run is at most a few MB; refuse to start a sweep with less than this free


# ---------------------------------------------------------------- writing

def now_utc() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_run_id(preset: str) -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ") + f"-{preset}-{secrets.token_hex(3)}"


def _env_note(root: Path) -> str:
    return " (MECHSYM_RESULTS)" if os.environ.get("MECHSYM_RESULTS") and Path(os.environ["MECHSYM_RESULTS"]) == root else ""


def check_writable(experiment: str, machine: str | None = None, root: Path | None = None,
                   need_bytes: int = MIN_FREE_BYTES) -> Path:
    """Before measuring: the run's folder can be created and written, with room to spare.

    Refuses, with one line, a results directory that is a file, read-only, or on a full filesystem, and a bad
    MECHSYM_MACHINE. Creates nothing (save() makes the folders of the run it stores); returns the run's folder."""
    check_experiment(experiment)
    machine = check_machine_id(machine) if machine else machine_id()
    root = Path(root or results_root())
    where = f"results directory {root}{_env_note(root)}"
    if root.exists() and not root.is_dir():
        raise MechsymError(f"{where}: is not a directory; point MECHSYM_RESULTS at a directory")
    folder = root / machine / experiment
    probe_dir = folder  # the nearest folder that exists: nothing is created before a run has something to store
    while not probe_dir.exists():
        probe_dir = probe_dir.parent
    if not probe_dir.is_dir():
        raise MechsymError(f"{where}: {probe_dir} is a file where a folder of runs belongs; nothing measured")
    probe = probe_dir / f".mechsym-probe-{os.getpid()}"
    try:
        fsio.write_synced(probe, b"mechsym write probe\n")
    except OSError as e:
        raise MechsymError(f"{where}: cannot write in {probe_dir} ({e.strerror or e}); nothing measured") from e
    finally:
        fsio.remove(probe)
    fsio.check_space(probe_dir, need_bytes, where)
    return folder


def save(experiment: str, rows: pd.DataFrame, meta: dict, machine: str | None = None,
         root: Path | None = None) -> Path:
    """Store one run; returns the JSON path. Never overwrites an existing run.

    The JSON records the CSV's rows, bytes and sha256, which every read checks. Keys of `meta` that start
    with "_" are the caller's own (a noise recorder, a loader's paths) and are not stored."""
    check_experiment(experiment)
    if rows is None or rows.empty:
        raise MechsymError(f"{experiment}: nothing to store (no rows)")
    root = Path(root or results_root())
    machine = check_machine_id(machine or meta.get("machine", {}).get("machine_id") or machine_id())
    if "_noise" in meta and "noise" not in meta:
        from ..machine import noise

        meta = {**meta, "noise": noise.stop(meta)}
    from .. import portable

    # paths as the repository or $MECHSYM_SCRATCH name them, never a person's own directories
    meta = portable({k: v for k, v in meta.items() if not str(k).startswith("_")})
    run_id = meta.get("run_id") or new_run_id(meta.get("preset", "run"))
    if not RUN_ID.match(run_id):
        raise MechsymError(f"run id {run_id!r}: not a run id this bench writes (YYYYMMDDTHHMMSSZ-preset-hex6)")
    folder = root / machine / experiment
    csv_path, json_path = folder / f"{run_id}.csv", folder / f"{run_id}.json"
    if csv_path.exists() or json_path.exists():
        raise MechsymError(f"run id {run_id}: already stored in {folder}; runs are never overwritten")
    rows = rows.copy()
    rows.insert(0, "run_id", run_id)
    data = rows.to_csv(index=False).encode("utf-8")
    meta = {**meta, "run_id": run_id, "experiment": experiment, "rows": int(len(rows)),
            "csv_bytes": len(data), "csv_sha256": hashlib.sha256(data).hexdigest(),
            "saved_at": datetime.now(timezone.utc).isoformat()}
    text = json.dumps(meta, indent=2, sort_keys=True, default=str) + "\n"
    csv_placed = False
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fsio.atomic_write(csv_path, data)
        csv_placed = True
        fsio.atomic_write(json_path, text)
    except OSError as e:
        if csv_placed and not json_path.exists():
            csv_path.unlink(missing_ok=True)   # half a run is no run: the CSV goes too
        raise MechsymError(f"run {run_id}: could not be stored in {folder} ({e.strerror or e}); "
                           "nothing stored, earlier runs untouched") from e
    return json_path


# ---------------------------------------------------------------- reading

_warned: set[str] = set()


def warn(message: str) -> None:
    """A one-line warning on stderr, once per message and process."""
    if message not in _warned:
        _warned.add(message)
        print(f"mechsym: warning: {message}", file=sys.stderr)


MAX_META_BYTES = 4 * 2**20   # a sidecar is a few KiB; a larger file is not one this bench wrote
MAX_META_DEPTH = 16          # the deepest sidecar this bench writes nests 5 levels


def depth(value, limit: int = MAX_META_DEPTH) -> int:
    """How deep a parsed JSON value nests (lists and objects), counted up to limit + 1, without recursion."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        v, d = todo.pop()
        if isinstance(v, (dict, list)):
            deepest = max(deepest, d)
            if deepest > limit:
                return deepest
            todo += [(x, d + 1) for x in (v.values() if isinstance(v, dict) else v)]
    return deepest


def read_meta(j: Path) -> dict:
    """A stored run's metadata (its JSON sidecar), or a one-line MechsymError naming the file: bounded in size and
    nesting before any reader walks it, a JSON object with the types every reader relies on."""
    try:
        if j.stat().st_size > MAX_META_BYTES:
            raise MechsymError(f"corrupt metadata file {j}: {j.stat().st_size} bytes, more than a run's metadata "
                               f"({MAX_META_BYTES // 2**20} MiB at most)")
        meta = json.loads(j.read_text())
    except RecursionError as e:
        raise MechsymError(f"corrupt metadata file {j}: nested too deeply to be a run's metadata") from e
    except (OSError, ValueError) as e:
        raise MechsymError(f"corrupt metadata file {j}: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from e
    if not isinstance(meta, dict) or not isinstance(meta.get("run_id"), str):
        raise MechsymError(f"corrupt metadata file {j}: not a run's metadata (a JSON object with a run_id)")
    if depth(meta) > MAX_META_DEPTH:
        raise MechsymError(f"corrupt metadata file {j}: nested deeper than a run's metadata ({MAX_META_DEPTH} levels)")
    problem = runcheck.meta_problem(meta, j)
    if problem:
        raise MechsymError(f"corrupt metadata file {j}: not a run's metadata ({problem})")
    return meta


def default_machine(experiment: str | None = None, root: Path | None = None) -> str | None:
    """This machine if it has stored results (for the experiment), else the machine with the newest run
    (machine_label() says whose runs those are)."""
    root = Path(root or results_root())
    here = machine_id()
    stored = [x for x in index(root) if experiment is None or x[2] == experiment]
    if any(m == here for m, _, _, _ in stored):
        return here
    if experiment is not None and (root / here / experiment).is_dir():
        return here
    best, newest = None, ""
    for m, _, _, j in stored:
        if j.name > newest:
            best, newest = m, j.name
    return best


def scan(experiment: str, machine: str | None = None, root: Path | None = None,
         include_incomplete: bool = False) -> tuple[list[dict], list[str]]:
    """The stored runs of `experiment` (metadata, oldest first; machine: an id, None for the default machine, or
    'all') and, without warning, why each run left out was left out (its CSV does not match its JSON)."""
    root = Path(root or results_root())
    if machine in (None, ""):
        machine = default_machine(experiment, root)
        if machine is None:
            return [], []
    if machine != "all" and machine not in machines(root):
        have = ", ".join(machines(root)) or "none"
        raise MechsymError(f"machine '{machine}': no stored results (stored machines: {have})")
    out, skipped = [], []
    for m, d, e, j in index(root):
        if e != experiment or (machine != "all" and m != machine):
            continue
        try:
            meta = read_meta(j)
        except MechsymError as err:  # one bad sidecar skips its own run, never the others
            skipped.append(f"{err}; run skipped")
            continue
        if not include_incomplete and meta.get("status", "complete") != "complete":
            continue
        meta["_json"] = str(j)
        meta["_csv"] = str(j.with_suffix(".csv"))
        meta["_machine"] = m
        meta["_dir"] = d
        problem = runcheck.check_csv(meta)
        if problem:
            skipped.append(problem)
            continue
        out.append(meta)
    return sorted(out, key=lambda x: (str(x.get("saved_at", "")), x["run_id"])), skipped


def runs(experiment: str, machine: str | None = None, root: Path | None = None,
         include_incomplete: bool = False) -> list[dict]:
    """Metadata of stored runs (oldest first). machine: an id, None (default machine) or 'all'.

    Each carries _json, _csv, _dir (where it is stored) and _machine (its id after aliases). A run whose CSV
    does not match its JSON is left out with a one-line warning."""
    metas, skipped = scan(experiment, machine, root, include_incomplete)
    for s in skipped:
        warn(s)
    return metas


def run_clocks(experiment: str, df: pd.DataFrame) -> dict[str, float]:
    """run id -> the CPU clock in MHz recorded in that stored run's metadata (machine.cpu_mhz, else its nominal
    clock), for the runs these rows come from: cycles are counted at the clock of the run that measured them, never
    at this host's. Runs without a recorded clock (or not stored) are left out."""
    ids = set(df["run_id"].astype(str)) if "run_id" in df else set()
    try:
        metas = runs(experiment, "all", include_incomplete=True) if ids else []
    except MechsymError:
        metas = []
    out = {}
    for meta in metas:
        mi = meta.get("machine") or {}
        mhz = mi.get("cpu_mhz") or (mi.get("facts") or {}).get("nominal_mhz")
        if meta.get("run_id") in ids and mhz:
            out[meta["run_id"]] = float(mhz)
    return out


def skipped_runs(experiment: str, machine: str | None = None, root: Path | None = None,
                 include_incomplete: bool = False) -> list[str]:
    """Why each run that runs() leaves out was left out (a CSV that does not match its JSON)."""
    return scan(experiment, machine, root, include_incomplete)[1]


RANK = {"full": 3, "standard": 2, "smoke": 1}


def _pick(mine: list[dict], preset: str | None) -> dict:
    """One machine's run to show: the newest current run of the most thorough preset that has one (a smoke run only
    when no full or standard run is current); when none is current, the newest of the most thorough preset stored,
    which the pages then mark as stale (mechsym.store.provenance)."""
    from . import provenance

    current = [x for x in mine if provenance.is_current(x)]
    if not preset:
        real = [x for x in current if RANK.get(x.get("preset"), 0) >= RANK["standard"]]
        if real or not any(RANK.get(x.get("preset"), 0) >= RANK["standard"] for x in mine):
            current = real or current
        else:
            current = []
    pool = current or mine
    if not preset:
        best = max(RANK.get(x.get("preset"), 0) for x in pool)
        pool = [x for x in pool if RANK.get(x.get("preset"), 0) == best]
    return pool[-1]


def chosen_runs(experiment: str, machine: str | None = None, root: Path | None = None, preset: str | None = None,
                latest: bool = True, include_incomplete: bool = False, protocol: str = "lab") -> list[dict]:
    """The runs load() shows: per machine the newest current run of `preset`, or of the most thorough preset stored
    (full > standard > smoke), else the newest stale one (_pick); every run when latest=False. A run whose CSV does
    not match its JSON is never chosen: a warning names it, and when nothing else is left it is the error
    (MechsymError, one line). protocol "jmh": the runs of `mechsym run --protocol jmh` instead, which never stand in
    for the lab's own."""
    metas, skipped = scan(experiment, machine, root, include_incomplete)
    metas = [m for m in metas if is_jmh_run(m) == (protocol == "jmh")]
    if preset:
        metas = [m for m in metas if m.get("preset") == preset]
    if latest and metas:
        # a run's extensions (`mechsym run --until-decided`: "extends" names it) are never picked on their own; they
        # come with the run they extend, after it, so their forks pool with its forks
        bases = [x for x in metas if not x.get("extends")]
        picked = [_pick([x for x in bases if x["_machine"] == m], preset)
                  for m in sorted({x["_machine"] for x in bases})]
        metas = [y for x in picked for y in [x] + extensions(x, metas)]
    if skipped and not metas:
        raise MechsymError(skipped[0])
    for s in skipped:
        warn(s)
    return metas


def is_jmh_run(meta: dict) -> bool:
    """Whether a stored run is one of `mechsym run --protocol jmh`: a second opinion beside the lab's runs, never
    one of them (not chosen for a notebook, not a sibling, no vote)."""
    return (meta.get("overrides") or {}).get("protocol") == "jmh"


def extensions(base: dict, metas: list[dict]) -> list[dict]:
    """The runs among `metas` that extend `base` (more forks of its cells, `mechsym run --until-decided`), oldest
    first."""
    return [x for x in metas if x.get("extends") == base["run_id"] and x.get("_machine") == base.get("_machine")]


def load(experiment: str, machine: str | None = None, root: Path | None = None,
         preset: str | None = None, latest: bool = True, include_incomplete: bool = False,
         protocol: str = "lab") -> pd.DataFrame:
    """Stored rows of an experiment as one DataFrame (empty when none): the rows of chosen_runs().

    latest=True keeps, per machine, only the newest run of the chosen preset
    (or of the newest preset stored when none is given). Runs whose CSV does not match their JSON are never
    shown: a warning names each; when nothing else is left, the first is the error."""
    metas = chosen_runs(experiment, machine, root, preset, latest, include_incomplete, protocol)
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
        if df.empty:
            raise MechsymError(f"corrupt results file {path}: a header and no rows")
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


def run_metadata(df: pd.DataFrame, experiment: str) -> list[dict]:
    """The stored JSON metadata of the runs behind these rows."""
    ids = set(df["run_id"].unique()) if "run_id" in df else set()
    return [m for m in runs(experiment, "all", include_incomplete=True) if m["run_id"] in ids]
