"""`mechsym run EXP --until-decided`: more forks for the claims the stored run left undecided, until each is decided.

It judges the experiment's newest current stored run of the preset (standard or full) with its earlier extensions,
finds the primary verdicts that are inconclusive and the cells each one read (stats.tracing: every per-fork value
analysis.per_fork hands out is noted with its cell), and adds forks only to those cells: one fork of every open cell
per round, interleaved as the sweep interleaves them, fork numbers continuing the run's. After each look (a block of
rounds: the cells reach 8, 12, 18, 27, 40 forks from 5) it judges again; a claim leaves when it is decided, when its
cells reach --max-forks, or when more forks cannot decide it (bimodal, a discrete statistic, a fact, an estimate on
the threshold); the loop stops when none is open or the budget (wall time) is spent.

Error spent across looks: the looks are planned before the first fork (`schedule`), and every look of an open claim,
the first included, reads an interval at stats.spent_level(looks) (Bonferroni: each look spends 0.05 / looks), so
the chance that any look decides a claim wrongly stays at most 5%. The verdict layer judges those claims at the same
level afterwards (verdict_collect.machine_verdicts). docs/statistics.md has the simulation.

The extra forks are stored as a run of their own (the same layout and provenance as any run), its metadata naming
the run it extends ("extends") and the loop's record ("until_decided": looks, level, the claims open at the start,
forks added, how each ended). store.chosen_runs never shows an extension alone: it comes with the run it extends.
"""

from __future__ import annotations

import contextlib
import math
import re
import sys
import time
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from . import MechsymError, provenance, stats, store
from .estimates import Estimate, more_forks, undecidable

PRESETS = ("standard", "full")
MAX_FORKS = 40
GROWTH = 1.5          # each look brings the open cells to 1.5x the forks of the one before
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


def schedule(base: int, max_forks: int) -> list[int]:
    """The forks per open cell at each planned look: the run's own, then GROWTH times more each look, up to
    max_forks (5 -> 5, 8, 12, 18, 27, 40). Fixed before the first fork, so the error can be split over its looks."""
    out = [base]
    while out[-1] < max_forks:
        out.append(min(max_forks, max(out[-1] + 1, math.ceil(out[-1] * GROWTH))))
    return out


def norm(v) -> str:
    """A cell's value as text, the same whether it came from a sweep's Cell or back from a stored CSV."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if isinstance(v, (bool, np.bool_)):
        return str(bool(v)).lower()
    if isinstance(v, str) and v.strip().lower() in ("", "nan", "none", "true", "false"):
        return {"nan": "", "none": ""}.get(v.strip().lower(), v.strip().lower())
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if not math.isfinite(f):
        return str(v)
    return str(int(f)) if f == int(f) else repr(f)


def cell_key(cell) -> tuple:
    return tuple(sorted((k, norm(v)) for k, v in cell.columns().items()))


# ---------------------------------------------------------------- which claims are open, and their cells

@dataclass
class Open:
    """One undecided primary verdict: its key (claim, scope, protocol), the plan's cells it reads, and why it is
    not extended when it is not."""
    key: tuple
    claim: object
    verdict: object
    cells: list = field(default_factory=list)
    why_not: str = ""
    ended: str = ""

    @property
    def label(self) -> str:
        return f"{self.key[0]} [{self.key[1] or 'all'}, {self.key[2]}]"


def judge(module, df: pd.DataFrame, columns: tuple[str, ...], level: float | None = None):
    """The primary verdicts of these rows (one machine), each with the estimate behind it (None when it is not
    traced): [(verdict, estimate)]."""
    from . import harness
    from . import verdicts as verdicts_mod

    sub, _ = harness.drop_flagged(df)
    with stats.tracing(columns) as trace, stats.at_level(level) if level else contextlib.nullcontext():
        judged = verdicts_mod.mark_primary(list(module.verdicts(sub)))
    out = []
    for v in judged:
        if not v.primary:
            continue
        hits = [e for e in trace.estimates if _same(e, v)]
        out.append((v, hits[-1] if hits else None))
    return out


def _same(e: Estimate, v) -> bool:
    def f(x):
        return None if x is None or not np.isfinite(x) else float(x)
    return (v.now_value is not None and float(e.value) == float(v.now_value) and f(e.low) == f(v.low)
            and f(e.high) == f(v.high) and e.forks == v.forks)


def open_claims(module, df: pd.DataFrame, cells: list, max_forks: int, level: float | None = None) -> list[Open]:
    """The inconclusive primary verdicts, each with the plan's cells it reads (or why it is not extended)."""
    from . import verdicts as verdicts_mod

    columns = tuple(sorted({k for c in cells for k in c.columns()}))
    keyed = {cell_key(c): c for c in cells if not c.unavailable}
    # a column the kernel writes itself (a protocol per row where the cell names one) does not tell cells apart
    planned = {k: {v for key in keyed for kk, v in key if kk == k} for k in columns}
    own = {k for k in columns if k in df and not set(df[k].map(norm).unique()) <= planned[k]}
    out = []
    for v, est in judge(module, df, columns, level):
        if v.outcome != verdicts_mod.INCONCLUSIVE:
            continue
        o = Open(v.key[:3], v.claim, v)
        if est is None or est.cells is None:
            o.why_not = "its statistic is not read from forks the bench can trace to their cells"
        elif undecidable(v.claim.rule, est):
            o.why_not = undecidable(v.claim.rule, est)
        else:
            o.cells = [c for k, c in keyed.items() if any(_matches(k, t, own) for t in est.cells)]
            n = more_forks(v.claim.rule, est)
            if not o.cells:
                o.why_not = "its cells are not in this sweep's plan (another JDK or placement than this machine's)"
            elif n is not None and est.forks + n > 2 * max_forks:
                o.why_not = (f"on a knife-edge: about {n} more forks would be needed, far beyond --max-forks "
                             f"{max_forks}")
        out.append(o)
    return out


def _matches(planned: tuple, traced: tuple, own: set = frozenset()) -> bool:
    """A plan cell is the traced one when every column the trace names (but those in `own`) has the same value."""
    have = dict(planned)
    named = [(k, v) for k, v in traced if k not in own]
    return bool(named) and all(have.get(k) == norm(v) for k, v in named)


# ---------------------------------------------------------------- the stored run to extend

def base_run(name: str, preset: str) -> tuple[dict, pd.DataFrame]:
    """The newest current stored run of this preset on this machine, and its rows with its extensions' (the rows
    every verdict reads). Refused (one line) when there is none."""
    here = store.machine_id()
    if here not in store.machines():
        raise MechsymError(f"--until-decided: no stored {preset} run of {name} on this machine; "
                           f"`mechsym run {name} --preset {preset}` first")
    metas = store.chosen_runs(name, here, preset=preset)
    base = next((m for m in metas if not m.get("extends")), None)
    if base is None or not provenance.is_current(base):
        why = "none is stored" if base is None else f"the newest, {base['run_id']}, is {provenance.status(base)[0]}"
        raise MechsymError(f"--until-decided: no current {preset} run of {name} on this machine ({why}); "
                           f"`mechsym run {name} --preset {preset}` first")
    df = store.load(name, here, preset=preset)
    return base, df


def forks_of(df: pd.DataFrame, cell) -> tuple[int, int]:
    """(forks that passed, the next fork number) of one plan cell in these rows."""
    key = dict(cell_key(cell))
    ok = df[df["status"].astype(str) == "ok"] if "status" in df else df
    mask = np.ones(len(ok), dtype=bool)
    for k, v in key.items():
        if k in ok:
            mask &= ok[k].map(norm).to_numpy() == v
    rows = ok[mask]
    if rows.empty:
        return 0, 0
    pairs = rows[["run_id", "fork"]].drop_duplicates() if "run_id" in rows else rows[["fork"]].drop_duplicates()
    return len(pairs), int(pd.to_numeric(rows["fork"]).max()) + 1


# ---------------------------------------------------------------- the loop

@dataclass
class Plan:
    base: dict
    looks: list[int]
    level: float
    claims: list[Open]
    cells: list                      # the plan cells to extend, in the sweep's order
    have: dict                       # cell key -> forks it has

    def lines(self, max_forks: int, budget: float | None) -> list[str]:
        open_ = [o for o in self.claims if o.cells]
        out = [f"{self.base['experiment']}: judged {self.base['run_id']} (with its extensions): "
               f"{len(self.claims)} undecided primary claim{'s' if len(self.claims) != 1 else ''}, "
               f"{len(open_)} to extend"]
        for o in self.claims:
            if o.cells:
                out.append(f"  open  {o.label}: {len(o.cells)} cell{'s' if len(o.cells) != 1 else ''}: "
                           + "; ".join(_cell_text(c, self.have) for c in o.cells))
            else:
                out.append(f"  not extended  {o.label}: {o.why_not}")
        if open_:
            more = sum(max(0, self.looks[-1] - self.have[cell_key(c)]) for c in self.cells)
            out.append(f"plan: looks at {' -> '.join(map(str, self.looks))} forks per open cell "
                       f"({len(self.looks)} looks, each interval at {100 * self.level:.4g}%: the 5% error split over "
                       f"them), at most {more} more forks, --max-forks {max_forks}"
                       + (f", budget {_secs(budget)}" if budget else ", no budget"))
        return out


def _cell_text(cell, have: dict) -> str:
    bits = [cell.variant] + [f"{k}={v}" for k, v in {**cell.params, **cell.labels}.items()
                             if k in ("threads", "placement", "size", "collector", "lock", "grid", "regime",
                                      "direction", "evict", "runtime")]
    if cell.jdk:
        bits.append(f"JDK {cell.jdk.feature}")
    n = have.get(cell_key(cell), 0)
    return " ".join(map(str, bits)) + f" ({n} fork{'s' if n != 1 else ''})"


def _secs(s: float | None) -> str:
    if s is None:
        return ""
    return f"{s / 3600:g}h" if s >= 3600 and s % 3600 == 0 else f"{s / 60:g}m" if s >= 60 and s % 60 == 0 else f"{s:g}s"


def make_plan(module, preset: str, jdks, max_forks: int, overrides: dict) -> Plan:
    from . import sweep

    base, df = base_run(module.NAME, preset)
    cells = [c for c in sweep.plan(module, preset, jdks, **overrides) if not c.unavailable]
    claims = open_claims(module, df, cells, max_forks)
    have = {cell_key(c): forks_of(df, c)[0] for c in cells}
    wanted = {cell_key(c) for o in claims for c in o.cells}
    chosen = [c for c in cells if cell_key(c) in wanted]
    start = min((c.forks for c in chosen), default=stats.MIN_FORKS)
    looks = schedule(max(start, 1), max_forks)
    return Plan(base, looks, stats.spent_level(len(looks)), claims, chosen, have)


def run(module, preset: str, jdks=None, budget: float | None = None, max_forks: int = MAX_FORKS,
        progress: bool = True, allow_dirty: bool = False, dry_run: bool = False, timeout=None,
        write=lambda line: print(line), lock: bool = True) -> dict | None:
    """The until-decided loop (see the module's doc). Returns the stored extension's metadata, or None when nothing
    ran (a dry run, or no claim more forks could decide). lock=False: without the bench lock (tests' fake cells)."""
    from tqdm.auto import tqdm

    from . import sweep
    from .interrupts import signals_interrupt
    from .launch import KernelError
    from .runloop import finish, noise_stop, record_failure, save_interrupted, tag_rows

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
              "forks_added": 0, "ended": {}, "stopped": ""}
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
                    due = [c for c in cells if have[cell_key(c)] < target]
                    if not due:
                        break
                    for cell in due:
                        mean = float(np.mean(spent_per_fork)) if spent_per_fork else 0.0
                        if budget is not None and time.monotonic() - started + mean > budget:
                            record["stopped"] = f"budget {_secs(budget)} spent"
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
                        have[k] += 1
                        record["forks_added"] += 1
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
                    elif all(have[cell_key(c)] >= max_forks for c in o.cells):
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
