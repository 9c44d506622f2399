"""`mechsym run EXP --until-decided`: more forks for the claims the stored run left undecided, until each is decided.

It judges the experiment's newest current stored run of the preset (standard or full) with its earlier extensions,
finds the primary verdicts that are inconclusive and the cells each one read (stats.tracing: every per-fork value
analysis.per_fork hands out is noted with its cell), and adds forks only to those cells: one fork of every open cell
per round, interleaved as the sweep interleaves them, fork numbers continuing the run's. After each look (a block of
rounds: the cells reach 8, 12, 18, 27, 40 judged forks from 5, counting the forks that pass the JIT/GC gate, not
the forks run) it judges again; a claim leaves when it is decided, when its
cells reach --max-forks, or when more forks cannot decide it (bimodal, a discrete statistic, a fact, an estimate on
the threshold); the loop stops when none is open or the budget (wall time) is spent.

Error spent across looks: the looks are planned before the first fork (`schedule`), and every look of an open claim,
the first included, reads an interval at stats.spent_level(looks) (Bonferroni: each look spends 0.05 / looks), so
the chance that any look decides a claim wrongly stays at most 5%. The verdict layer judges those claims at the same
level afterwards (verdict_collect.machine_verdicts). docs/statistics.md has the simulation.

The extra forks are stored as a run of their own (the same layout and provenance as any run), its metadata naming
the run it extends ("extends") and the loop's record ("until_decided": looks, level, the claims open at the start,
forks added, how each ended). store.chosen_runs never shows an extension alone: it comes with the run it extends.

The plan (the run to extend, the open claims and their cells, the looks) is decide_plan.py's; this module runs it.
"""

from __future__ import annotations

import contextlib
import re
import sys
import time

import numpy as np
import pandas as pd

from .. import MechsymError
from . import stats
from ..store import runs as store
from .plan import base_run, cell_key, duration_text, forks_of, judge, judged_forks, make_plan
from .estimates import undecidable

PRESETS = ("standard", "full")
MAX_FORKS = 40
RUN_CAP = 2     # forks run per cell, at most this many times --max-forks (the rest failed the JIT/GC gate)
_BUDGET = re.compile(r"(\d+)(s|m|h)")
_UNIT = {"s": 1, "m": 60, "h": 3600}


def parse_budget(text: str | None) -> float | None:
    """'90s', '30m', '1h' -> seconds (None: no budget); anything else is refused in one line."""
    if text is None:
        return None
    m = _BUDGET.fullmatch(str(text).strip())
    if not m or int(m.group(1)) == 0:
        raise MechsymError(f"--budget {text!r}: allowed a whole number of seconds, minutes or hours, e.g. 90s, 30m, 1h")
    return float(int(m.group(1)) * _UNIT[m.group(2)])


def check_max_forks(text) -> int:
    try:
        n = int(str(text))
    except ValueError:
        n = 0
    if not 2 <= n <= 1000:
        raise MechsymError(f"--max-forks {text!r}: allowed a whole number of forks per cell from 2 to 1000")
    return n


# ---------------------------------------------------------------- the loop

def run(module, preset: str, jdks=None, budget: float | None = None, max_forks: int = MAX_FORKS,
        progress: bool = True, allow_dirty: bool = False, dry_run: bool = False, timeout=None,
        write=lambda line: print(line), lock: bool = True) -> dict | None:
    """The until-decided loop (see the module's doc). Returns the stored extension's metadata, or None when nothing
    ran (a dry run, or no claim more forks could decide). lock=False: without the bench lock (tests' fake cells)."""
    from tqdm.auto import tqdm

    from ..run import sweep
    from ..run.interrupts import signals_interrupt
    from ..run.launch import KernelError
    from ..run.loop import finish, noise_stop, record_failure, save_interrupted, tag_rows

    if preset not in PRESETS:
        raise MechsymError(f"--until-decided with preset '{preset}': allowed {', '.join(PRESETS)} (a smoke run's "
                           "numbers decide nothing)")
    overrides = {"timeout": timeout} if timeout is not None else {}
    plan = make_plan(module, preset, jdks, max_forks, overrides)
    for line in plan.lines(max_forks, budget):
        write(line)
    if dry_run or not plan.cells:
        if not plan.cells and not dry_run:
            write("nothing to run: no undecided claim that more forks could decide")
        return None
    name = module.NAME
    state = sweep.check_clean(preset, allow_dirty)
    store.check_writable(name)
    topo = sweep.read_topology()
    meta = sweep.run_metadata(name, preset, topo, plan.cells, {"until_decided": True, **overrides}, state, allow_dirty)
    record = {"extends": plan.base["run_id"], "looks": len(plan.looks), "schedule": plan.looks,
              "level": plan.level, "alpha": round(1 - stats.LEVEL, 6), "max_forks": max_forks, "budget_s": budget,
              "open": [list(o.key) for o in plan.claims if o.cells],
              "not_extended": {o.label: o.why_not for o in plan.claims if not o.cells},
              "forks_added": 0, "forks_gated": 0, "ended": {}, "stopped": ""}
    meta["extends"] = plan.base["run_id"]
    meta["until_decided"] = record
    _, df = base_run(name, preset)
    frames: list[pd.DataFrame] = []
    have = dict(plan.have)
    nxt = {cell_key(c): forks_of(df, c)[1] for c in plan.cells}
    claims = [o for o in plan.claims if o.cells]
    columns = tuple(sorted({k for c in plan.cells for k in c.columns()}))
    spent_per_fork: list[float] = []
    lock = sweep.bench_lock(meta["_noise"].waited_for_lock) if lock else contextlib.nullcontext()
    total = sum(max(0, plan.looks[-1] - have[cell_key(c)]) for c in plan.cells)
    open_session = getattr(module, "session", None)   # the experiment's run-wide hook (seqio's scratch files)
    session = open_session(plan.cells, meta) if open_session else contextlib.nullcontext()
    try:
        with signals_interrupt(), lock, session as work, tqdm(total=total, desc=f"{name} until decided", unit="fork",
                                             disable=not progress, file=sys.stderr, dynamic_ncols=True) as bar:
            started = time.monotonic()
            meta["_noise"].begin()
            for look, target in enumerate(plan.looks[1:], start=2):
                open_now = [o for o in claims if not o.ended]
                if not open_now:
                    break
                bar.set_description_str(f"{name} until decided: {len(open_now)} open: "
                                        + ", ".join(o.key[0].split(".", 1)[-1] for o in open_now[:3])
                                        + (" ..." if len(open_now) > 3 else ""), refresh=False)
                cells = [c for c in plan.cells if any(c in o.cells for o in open_now)]
                while True:   # rounds: one fork of every open cell below the look's target, in the sweep's order
                    # judged forks count (those the JIT/GC gate keeps); a cell whose forks keep failing the gate
                    # stops at RUN_CAP x --max-forks forks run
                    due = [c for c in cells if have[cell_key(c)] < target and nxt[cell_key(c)] < RUN_CAP * max_forks]
                    if not due:
                        break
                    for cell in due:
                        mean = float(np.mean(spent_per_fork)) if spent_per_fork else 0.0
                        if budget is not None and time.monotonic() - started + mean > budget:
                            record["stopped"] = f"budget {duration_text(budget)} spent"
                            raise _Stop
                        k = cell_key(cell)
                        fork = nxt[k]
                        t0 = time.monotonic()
                        meta["_noise"].tick(cell.variant, fork)
                        bar.set_postfix_str(f"{cell.variant} fork {fork + 1}", refresh=False)
                        try:
                            rows, pinned = sweep.run_fork(sweep.Fork(cell, fork, work, commands=meta["commands"]))
                        except KernelError as e:
                            record_failure(meta, cell.columns(), fork, e, bar, cell.variant)
                            nxt[k] = fork + 1
                            have[k] += 1   # a failed fork still uses up its place: the loop never spins on it
                            continue
                        frames.append(tag_rows(rows, name, cell.columns(), fork, pinned))
                        spent_per_fork.append(time.monotonic() - t0)
                        nxt[k] = fork + 1
                        judged = judged_forks(frames[-1], [cell])[k]
                        have[k] += judged
                        record["forks_added"] += 1
                        record["forks_gated"] += 1 - judged
                        bar.update(1)
                # the look: judge the run with every fork so far, at the spent level
                pooled = _pooled(df, frames, plan.base)
                now = {v.key[:3]: (v, est) for v, est in judge(module, pooled, columns, plan.level)}
                for o in open_now:
                    v, est = now.get(o.key, (None, None))
                    if v is None:
                        o.ended = "no longer judged"
                    elif v.outcome != "inconclusive":
                        o.ended = f"decided at look {look} ({v.forks} forks): {v.outcome}"
                    elif est is not None and undecidable(o.claim.rule, est):
                        o.ended = f"left at look {look}: {undecidable(o.claim.rule, est)}"
                    elif all(have[cell_key(c)] >= max_forks or nxt[cell_key(c)] >= RUN_CAP * max_forks
                             for c in o.cells):
                        o.ended = f"still inconclusive at --max-forks {max_forks}"
                    if o.ended and progress:   # as it happens; the summary at the end says it again
                        bar.write(f"  {o.label}: {o.ended}", file=sys.stderr)
            record["stopped"] = record["stopped"] or ("every open claim ended" if all(o.ended for o in claims)
                                                      else "the last planned look was reached")
    except _Stop:
        pass
    except KeyboardInterrupt:
        meta["noise"] = noise_stop(meta)
        record["ended"] = {o.label: o.ended or "interrupted" for o in claims}
        save_interrupted(name, frames, meta, True, None)
        raise
    except Exception as e:   # the loop cannot go on: keep what finished, as the sweep does
        meta["noise"] = noise_stop(meta)
        meta["stopped"] = f"until decided: {e}"
        if frames:
            save_interrupted(name, frames, meta, True, None, why="stopped")
        raise
    for o in claims:
        record["ended"][o.label] = o.ended or f"still inconclusive: {record['stopped']}"
    if not frames:
        write(f"no fork ran ({record['stopped']}); nothing stored")
        meta["noise"] = noise_stop(meta)
        return None
    meta["status"] = "complete"
    meta = finish(name, frames, meta, started, True, None)
    for o in claims:
        write(f"  {o.label}: {record['ended'][o.label]}")
    write(f"stored {meta['run_id']} ({record['forks_added']} forks) extending {plan.base['run_id']}: "
          f"`mechsym verdicts {name}` judges them together ({record['stopped']})")
    return meta


class _Stop(Exception):
    """The budget is spent: store what ran."""


def _pooled(df: pd.DataFrame, frames: list[pd.DataFrame], base: dict) -> pd.DataFrame:
    """The stored rows with the forks run so far, every fork counted as the base run's own (its extension)."""
    if not frames:
        return df
    new = pd.concat(frames, ignore_index=True).assign(run_id=base["run_id"], machine=df["machine"].iloc[0]
                                                      if "machine" in df and len(df) else store.machine_id())
    out = pd.concat([df, new], ignore_index=True, sort=False)
    out["run_id"] = base["run_id"]
    return out
