"""Is a stored run the one its sidecar describes: the CSV checked against its JSON (the size and sha256 recorded
since they are, else the row count and a final newline; then the rows themselves, rowcheck.py) and the JSON checked
as a run's metadata (its run id and folder, the types of the keys every reader relies on). store.py skips a run that
fails with a one-line warning; a bundle (bundle_format.py) is checked the same way before it is imported."""

from __future__ import annotations

import csv
import hashlib
import io
from datetime import datetime, timedelta, timezone
from functools import lru_cache
from pathlib import Path

from .layout import RUN_ID


def check_csv(meta: dict, csv_path: Path | str | None = None) -> str | None:
    """None when the run's CSV is the one its JSON describes, else a one-line reason naming the file."""
    path = Path(csv_path or meta["_csv"])
    name = Path(meta.get("_json", path.with_suffix(".json"))).name
    try:
        st = path.stat()
    except OSError:
        return f"results file {path} is missing (its metadata {name} is stored); run skipped"
    key = (str(path), st.st_size, st.st_mtime_ns, str(meta.get("rows")), meta.get("csv_bytes"), meta.get("csv_sha256"))
    return _check_csv(key)


@lru_cache(maxsize=256)
def _check_csv(key: tuple) -> str | None:
    path, size, _mtime, rows, nbytes, sha = key
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        return f"results file {path} is unreadable ({e.strerror or e}); run skipped"
    problem = csv_problem(data, rows, nbytes, sha, f"corrupt results file {path}")
    if problem is None:
        from . import rows as rowcheck  # the rows themselves: agreed columns, complete rows, possible values

        bad = rowcheck.problem(data, Path(path).stem, Path(path).parent.name)
        if bad:
            problem = f"results file {path}: {bad}; run skipped"
    return problem


def csv_problem(data: bytes, rows, nbytes=None, sha=None, label: str = "results") -> str | None:
    """Why these CSV bytes are not the ones a sidecar describes (rows, bytes, sha256), or None."""
    if sha is not None:
        if nbytes is not None and len(data) != nbytes:
            return f"{label}: {len(data)} bytes where its metadata records {nbytes} (truncated or changed); run skipped"
        if hashlib.sha256(data).hexdigest() != sha:
            return f"{label}: sha256 differs from the one its metadata records (changed after it was stored); run skipped"
        return None
    if rows in (None, "None"):
        return None  # stored before rows were recorded: nothing to check against
    try:
        want = int(rows)
    except (TypeError, ValueError):
        return f"{label}: its metadata records rows={rows!r}, not a count; run skipped"
    if data and not data.endswith(b"\n"):
        return f"{label}: does not end with a newline (cut mid-line); run skipped"
    try:
        got = sum(1 for _ in csv.reader(io.StringIO(data.decode("utf-8"), newline=""))) - 1
    except (UnicodeDecodeError, csv.Error) as e:
        return f"{label}: not CSV text ({str(e)[:80]}); run skipped"
    if got != want:
        return f"{label}: {max(got, 0)} rows where its metadata records {want} (truncated or changed); run skipped"
    return None


# the keys every reader relies on, and their JSON types, where present
_META_TYPES = {"experiment": str, "preset": str, "status": str, "machine": dict, "rows": int, "csv_bytes": int,
               "csv_sha256": str, "seconds": (int, float), "start": str, "end": str, "saved_at": str,
               "commands": list, "failures": list, "unavailable": list, "jdks": list, "noise": dict}
_JSON_TYPE = {str: "a string", dict: "an object", int: "a whole number", list: "a list", (int, float): "a number"}


def meta_problem(meta: dict, j: Path) -> str | None:
    """Why a JSON object is not the sidecar of the run stored as `j` (its name and folder), or None."""
    if not RUN_ID.match(meta["run_id"]) or meta["run_id"] != j.stem:
        return f"run_id {meta['run_id'][:80]!r} is not the file's own run id {j.stem!r}"
    if "experiment" not in meta:
        return f"no experiment (its folder says {j.parent.name!r})"
    if meta["experiment"] != j.parent.name:
        return f"experiment {str(meta['experiment'])[:80]!r} is not its folder's {j.parent.name!r}"
    for key, kind in _META_TYPES.items():
        v = meta.get(key)
        if v is not None and (not isinstance(v, kind) or isinstance(v, bool)):
            return f"{key} is {type(v).__name__} {str(v)[:40]!r}, not {_JSON_TYPE[kind]}"
    return clock_problem(meta)


FUTURE_SLACK = timedelta(hours=1)


def clock_problem(meta: dict, now: datetime | None = None) -> str | None:
    """A run made under a wrong clock: a start, end or save time ahead of this clock (a clock set ahead would keep
    its run "newest" for ever), or a negative length (a run's length comes from a monotonic clock)."""
    now = now or datetime.now(timezone.utc)
    for key in ("start", "end", "saved_at"):
        v = meta.get(key)
        try:
            t = datetime.fromisoformat(v.replace("Z", "+00:00")) if isinstance(v, str) else None
        except ValueError:
            continue
        if t is not None and t.tzinfo is not None and t > now + FUTURE_SLACK:
            return f"{key} {v[:40]} is in the future (this clock says {now:%Y-%m-%dT%H:%M:%SZ}): a clock set ahead"
    seconds = meta.get("seconds")
    if isinstance(seconds, (int, float)) and not isinstance(seconds, bool) and not (0 <= seconds < 10**8):
        return f"seconds {seconds!r}: a run's length is a finite number of seconds, at least 0"
    return None
