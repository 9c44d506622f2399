"""The pieces of the run loop, each written once, so that every stored run has the same rows, failure records and
endings: a cell that cannot run here, a fork's rows tagged with its cell, a fork that failed, a run stopped
part-way and a run that completed (stored with signals deferred), and the lines saying that another measurement
ran at the same time. sweep.execute and the experiments' own loops use them.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Callable

import pandas as pd

from .. import MechsymError
from ..store import runs as store
from .interrupts import signals_deferred
from .launch import KernelError


def reason_of(e: BaseException) -> str:
    """An exception in one line: an OSError as its message and file, anything else as its type and message."""
    if isinstance(e, OSError):
        return f"{e.strerror or e}" + (f": {e.filename}" if e.filename else "")
    if isinstance(e, MechsymError):
        return str(e)
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:300]


def noise_stop(meta: dict) -> dict:
    from ..machine import noise
    return noise.stop(meta)


def say_overlaps(recorder, said: set, write: Callable[[str], None]) -> None:
    """One line per other measurement this run overlaps (the recorder notes each in the run's "noise")."""
    for token, o in list(getattr(recorder, "overlaps", {}).items()):
        if token in said:
            continue
        said.add(token)
        since = f", started {o['start'].replace('T', ' ').rstrip('Z')} UTC" if o.get("start") else ""
        write(f"mechsym: another measurement (pid {o.get('pid', '?')}{since}) ran at the same time as this one: "
              "both runs' numbers may be disturbed (noted in this run's metadata)")


def unavailable_rows(name: str, cols: dict, reason: str, meta: dict) -> pd.DataFrame:
    """The one row that stands for a cell this machine or JDK cannot run (and its entry in the metadata)."""
    meta["unavailable"].append({**cols, "reason": reason})
    return pd.DataFrame([{"experiment": name, **cols, "fork": -1, "iteration": -1, "warmup": False,
                          "metric": "", "value": float("nan"), "unit": "", "status": "unavailable", "note": reason}])


def tag_rows(df: pd.DataFrame, name: str, cols: dict, fork: int, taskset: str) -> pd.DataFrame:
    """A fork's kernel rows with the cell's columns (those the kernel did not print itself) and the run's tags."""
    for k, v in reversed(list(cols.items())):
        if k not in df.columns:
            df.insert(0, k, v)
    df.insert(0, "experiment", name)
    df["fork"] = fork
    df["taskset"] = taskset
    df["status"] = "ok"
    df["note"] = ""
    return df


def record_failure(meta: dict, cols: dict, fork: int, error: KernelError, bar, label: str) -> None:
    """A fork that produced no number: kept in the metadata, never in the rows. A bad argument is the bench's
    own mistake, not the machine's, and stops the run."""
    if error.kind == "bad-argument":
        raise error
    meta["failures"].append({**cols, "fork": fork, "kind": error.kind, "message": str(error),
                             "stderr_tail": error.stderr[-2000:]})
    bar.write(f"  {label} fork {fork}: {error}", file=sys.stderr)
    bar.update(1)


def save_interrupted(name: str, frames: list[pd.DataFrame], meta: dict, store_results: bool,
                     results_root: Path | None, note: str = "", why: str = "interrupted") -> None:
    """On Ctrl-C (or a failure that stops the run): what finished is stored as an 'interrupted' run (hidden by
    default); earlier runs untouched."""
    meta["status"] = "interrupted"
    meta["end"] = store.now_utc()
    if store_results and any((f["status"] == "ok").any() for f in frames):
        with signals_deferred():
            path = store.save(name, tidy(frames), meta, root=results_root)
        print(f"{why}: kept what finished as {path.name} (status interrupted, not shown by default); "
              f"earlier runs untouched{note}", file=sys.stderr)
    else:
        print(f"{why}: nothing stored; earlier runs untouched{note}", file=sys.stderr)


def finish(name: str, frames: list[pd.DataFrame], meta: dict, started: float, store_results: bool,
           results_root: Path | None, said: set | None = None) -> dict:
    """End a completed run: refuse to store when every fork failed, else tidy the rows and store them."""
    from ..machine import noise
    recorder = meta.get("_noise")
    meta["noise"] = noise.stop(meta)
    if said is not None and recorder is not None:  # measurements that ended while this one ran
        say_overlaps(recorder, said, lambda line: print(line, file=sys.stderr))
    meta["end"] = store.now_utc()
    meta["seconds"] = round(time.monotonic() - started, 1)
    if not any((f["status"] == "ok").any() for f in frames):
        first = meta["failures"][0]["message"] if meta["failures"] else "no cell could run here"
        raise MechsymError(f"{name}: every fork failed; nothing stored (first failure: {first})")
    rows = tidy(frames)
    meta["rows"] = len(rows)
    if store_results:
        with signals_deferred():
            meta["json"] = str(store.save(name, rows, meta, root=results_root))
    meta["frame"] = rows
    return meta


def tidy(frames: list[pd.DataFrame]) -> pd.DataFrame:
    df = pd.concat(frames, ignore_index=True, sort=False)
    front = ["experiment", "variant"]
    back = ["fork", "iteration", "warmup", "metric", "value", "unit", "status", "note"]
    middle = [c for c in df.columns if c not in front + back]
    return df[[c for c in front + middle + back if c in df.columns]]
