"""Which stored runs a verdict rests on: the complete runs of an experiment on a machine, the sibling runs judged
beside the run shown (current, same kernels, same preset, quiet: the run level), each run's provenance code
(current, stale, unknown), and the basis in words ("3 standard runs, forks nested in runs"). verdict_collect judges
them; "runs agreeing" (verdict_collect.replication) counts the runs that repeat one."""

from __future__ import annotations

import pandas as pd

from .. import MechsymError
from . import analysis
from ..store import runs as store

#: A run votes in "runs agreeing", or is judged beside the run shown, only with at least this many forks in its cells.
MIN_FORKS = 5


def stored_runs(name: str, machine: str) -> list[dict]:
    """The complete stored runs of an experiment on a machine (none when the machine has none)."""
    try:
        return store.runs(name, machine)
    except MechsymError:
        return []


def run_codes(name: str, df: pd.DataFrame) -> dict[str, str]:
    """{run id: "current" | "stale: ..." | "unknown: ..."} for the runs behind these rows (mechsym.store.provenance)."""
    from ..store import provenance

    if df.empty or "run_id" not in df:
        return {}
    ids = set(df["run_id"].astype(str))
    out = {}
    for m in stored_runs(name, "all"):
        if m["run_id"] in ids:
            state, why = provenance.status(m)
            out[m["run_id"]] = state if state == provenance.CURRENT else f"{state}: {why}"
    return out


def sibling_runs(name: str, machine: str, shown: set[str]) -> list[dict]:
    """The other complete runs that repeat the run shown on this machine: current, made by the same kernels
    (fingerprint), of the same preset, quiet, not an extension of another run, with at least MIN_FORKS forks
    (their extensions come with them). None unless the run shown is current itself."""
    from ..store import provenance

    metas = stored_runs(name, machine)
    judged = [m for m in metas if m["run_id"] in shown and not m.get("extends")]
    if len(judged) != 1 or not provenance.is_current(judged[0]):
        return []
    base = judged[0]
    mine = provenance.run_fingerprint(base)[0]
    out = []
    for m in metas:
        if m["run_id"] in shown or m.get("extends") or m.get("preset") != base.get("preset") or not quiet(m):
            continue
        if store.is_jmh_run(m):
            continue
        if provenance.is_current(m) and provenance.run_fingerprint(m)[0] == mine:
            out += [m] + store.extensions(m, metas)
    return out


def with_siblings(name: str, df: pd.DataFrame) -> pd.DataFrame:
    """The rows shown with those of their sibling runs (see sibling_runs), machine by machine."""
    if df.empty or "run_id" not in df:
        return df
    frames = [df]
    for machine, sub in analysis.split(df):
        extra = sibling_runs(name, machine, set(sub["run_id"].astype(str)))
        for meta in extra:
            one = pd.read_csv(meta["_csv"], low_memory=False)
            if "fork" in one and one["fork"].nunique() < MIN_FORKS and not meta.get("extends"):
                continue
            frames.append(one.assign(machine=meta["_machine"]))
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else df


def extended(metas: dict[str, dict], ids: list[str]) -> tuple[dict[str, str], list[dict]]:
    """{extension run id: the run it extends} and the extension runs' until-decided records, among these runs."""
    base = {i: str(metas[i]["extends"]) for i in ids if i in metas and metas[i].get("extends")}
    return base, [metas[i].get("until_decided") or {} for i in base]


def basis(name: str, machine: str, run_ids: str) -> str:
    """What a verdict rests on, in words: "1 standard run", "standard + 12 forks added until decided", "3 standard
    runs, forks nested in runs"."""
    ids = [r for r in str(run_ids).split(",") if r]
    if not ids:
        return ""
    metas = {m["run_id"]: m for m in stored_runs(name, machine)} if machine else {}
    bases = [i for i in ids if not (metas.get(i) or {}).get("extends")]
    added = sum(int(((metas.get(i) or {}).get("until_decided") or {}).get("forks_added", 0)) for i in ids
                if i not in bases)
    presets = list(dict.fromkeys(str((metas.get(i) or {}).get("preset") or i.split("-")[1]) for i in bases))
    kind = "/".join(p for p in presets if p) or "stored"
    text = f"1 {kind} run" if len(bases) == 1 else f"{len(bases)} {kind} runs, forks nested in runs"
    if added:
        text = (kind if len(bases) == 1 else text) + f" + {added} forks added until decided"
    return text


def quiet(meta: dict) -> bool:
    """A run taken on a quiet machine (or one stored before noise was recorded: unknown counts as quiet)."""
    try:
        from ..machine import noise
        return noise.is_quiet(meta) is not False
    except Exception:
        return True
