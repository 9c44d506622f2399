"""The verdict cache: each experiment's verdict rows kept outside the committed store, so `mechsym verdicts`, the
notebooks and the reports judge a set of stored runs once.

Judging every stored run takes seconds (a bootstrap per verdict, every older run again for "runs agreeing"); the
verdicts of a given set of runs change only when the runs or the code that judges them do. So each experiment's
rows are kept outside the committed store (build/cache/verdicts/, or $MECHSYM_CACHE/verdicts/), keyed by the
runs (each sidecar's csv_sha256, and the CSV's size and mtime, so an edited file is judged again), the code's
fingerprint (code_fingerprint: a change to a claim, a rule or the statistics recomputes), the checkout's kernel
fingerprint (which decides current vs stale) and the arguments. verdict_collect.collect never hands it rows that
name an error.

A cache file is never trusted: one that cannot be unpickled (a cut or corrupt file, a kill at its rename) or does
not hold a non-empty list of verdict rows (dicts naming a claim and a string outcome) is judged again and
rewritten, never a traceback and never rows of the wrong shape; a sidecar of the wrong shape makes its run's part
of the key unknown, not the key."""

from __future__ import annotations

import hashlib
import json
import os
import pickle
from pathlib import Path

from .. import MechsymError
from ..judge import stats
from ..store import files as fsio, runs as store

CACHE_ENV = "MECHSYM_CACHE"
def cache_dir() -> Path:
    from .. import repo_root

    base = os.environ.get(CACHE_ENV)
    return (Path(base) if base else repo_root() / "build" / "cache") / "verdicts"


def code_fingerprint(name: str) -> str:
    """sha256 over the code a verdict can depend on: every module of the lab (its path and bytes) but the command
    line's and the other experiments' packages. A new module is in it without being listed."""
    base = Path(__file__).resolve().parents[1]
    files = []
    for p in sorted(base.rglob("*.py")):
        parts = p.relative_to(base).parts
        if parts[0] == "cli" or (parts[0] == "experiments" and len(parts) > 2 and parts[1] != name):
            continue
        files.append(p)
    h = hashlib.sha256()
    for f in files:
        try:
            h.update(f.relative_to(base).as_posix().encode() + b"\0" + f.read_bytes() + b"\0")
        except OSError:
            h.update(f.name.encode() + b"\0missing\0")
    return h.hexdigest()


def cache_key(name: str, machine: str | None, preset: str | None, replicate: bool, module=None) -> str | None:
    """The key of one experiment's verdict rows, or None when it cannot be known (then nothing is cached). The
    module's verdicts function is named in it too, so one replaced in a running process (a test) is not read from
    a cache the real one wrote."""
    from ..store import provenance

    try:
        runs = []
        for m, d, e, j in store.index():
            if e != name:
                continue
            try:
                meta = store.read_meta(j)
            except MechsymError:
                meta = {}   # the reader skips that run with one line; its bytes' size and time still key it
            csv = j.with_suffix(".csv")
            st = csv.stat() if csv.exists() else None
            runs.append([m, d, j.name, meta.get("csv_sha256"), meta.get("status"), meta.get("rows"),
                         st.st_size if st else None, st.st_mtime_ns if st else None, j.stat().st_mtime_ns])
        parts = {"experiment": name, "machine": machine, "preset": preset, "replicate": replicate,
                 "seed": stats.current_seed(),
                 "here": store.machine_id(), "root": str(store.results_root()), "runs": runs,
                 "code": code_fingerprint(name), "kernels": provenance.checkout_fingerprint(name),
                 "jmh": _jmh_runs(name),
                 "judge": [getattr(getattr(module, "verdicts", None), a, None) for a in ("__module__", "__qualname__")]}
    except (OSError, ValueError, RecursionError):
        return None
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def _jmh_runs(name: str) -> list:
    """The JMH runs behind an experiment's JMH sub-rows, by checksum (jmh_views.run_checksums)."""
    from ..jmh import views as jmh_views

    return jmh_views.run_checksums(name) if name in jmh_views.SPECS else []


def _cache_path(slot: str, key: str) -> Path:
    return cache_dir() / f"{slot}.{key[:32]}.pickle"


def cache_read(slot: str, key: str | None) -> list[dict] | None:
    """The rows kept for this slot (experiment and arguments) under this key, or None."""
    if key is None:
        return None
    try:
        with open(_cache_path(slot, key), "rb") as f:
            kept = pickle.load(f)
    except Exception:   # a corrupt pickle can raise nearly anything (ValueError, KeyError, TypeError, ...)
        return None
    if not isinstance(kept, dict) or kept.get("key") != key:
        return None
    rows = kept.get("rows")
    return rows if rows_ok(rows) else None


ROW_KEYS = ("id", "outcome")


def rows_ok(rows) -> bool:
    """Whether a cache holds what collect writes: a non-empty list of dicts, each naming its claim and outcome."""
    return (isinstance(rows, list) and bool(rows)
            and all(isinstance(r, dict) and all(isinstance(r.get(k), str) for k in ROW_KEYS) for r in rows))


def cache_write(slot: str, key: str | None, rows: list[dict]) -> None:
    """Keep the rows (atomically: tmp + rename), replacing the experiment's older entries (the caller never
    hands it rows that name an error). A cache that cannot be written is no error: the verdicts are simply judged
    again next time."""
    if key is None:
        return
    path = _cache_path(slot, key)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fsio.atomic_write(path, pickle.dumps({"key": key, "rows": rows}, protocol=pickle.HIGHEST_PROTOCOL))
        for old in path.parent.glob(f"{slot}.*.pickle"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError:
        pass
