"""The plan of `mechsym run EXP --until-decided` (the loop is decide.py's): the stored run to extend, the primary
verdicts it leaves inconclusive and the cells each one read (stats.tracing), whether more forks could decide each,
and the looks planned before the first fork (`schedule`: 5 -> 8, 12, 18, 27, 40 forks per open cell), whose number
splits the error (stats.spent_level)."""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .. import MechsymError
from ..store import provenance, runs as store
from . import analysis, requirements, stats
from .estimates import Estimate, more_forks, undecidable

GROWTH = 1.5          # each look brings the open cells to 1.5x the forks of the one before


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
    from ..run import harness
    from . import verdicts as verdicts_mod

    sub, _, _ = harness.voting(df)
    with stats.tracing(columns) as trace, stats.at_level(level) if level else contextlib.nullcontext():
        # a claim this machine cannot measure (its requirements against the calibration) is never extended
        judged = verdicts_mod.mark_primary(requirements.apply(list(module.verdicts(sub)), _calibration(df)))
    out = []
    for v in judged:
        if not v.primary:
            continue
        hits = [e for e in trace.estimates if _same(e, v)]
        out.append((v, hits[-1] if hits else None))
    return out


def _calibration(df: pd.DataFrame):
    """The newest stored calibration of the machine these rows are from (None: none stored, or no one machine)."""
    from ..machine import calibration

    ms = df["machine"].dropna().astype(str).unique() if "machine" in df else []
    return calibration.load(ms[0]) if len(ms) == 1 else None


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


def normed(col: pd.Series) -> np.ndarray:
    """norm() of every value of a column, computed once per distinct value (a stored run has ~10^5 rows and a few
    distinct values a column: mapping every row made a dry run of --until-decided take minutes)."""
    if col.dtype != object:   # one type: pandas finds the distinct values
        codes, uniques = pd.factorize(col, use_na_sentinel=False)
        return np.array([norm(u) for u in uniques], dtype=object)[codes]
    seen: dict = {}   # mixed types (True and 1.0 are equal keys, not equal cells): keyed by type and value
    out = np.empty(len(col), dtype=object)
    for i, v in enumerate(col.to_numpy()):
        key = (type(v), "nan" if v != v else v)
        if key not in seen:
            seen[key] = norm(v)
        out[i] = seen[key]
    return out


def forks_of(df: pd.DataFrame, cell) -> tuple[int, int]:
    """(forks that passed, the next fork number) of one plan cell in these rows."""
    key = dict(cell_key(cell))
    ok = df[df["status"].astype(str) == "ok"] if "status" in df else df
    mask = np.ones(len(ok), dtype=bool)
    for k, v in key.items():
        if k in ok:
            mask &= normed(ok[k]) == v
    rows = ok[mask]
    if rows.empty:
        return 0, 0
    pairs = rows[["run_id", "fork"]].drop_duplicates() if "run_id" in rows else rows[["fork"]].drop_duplicates()
    return len(pairs), int(pd.to_numeric(rows["fork"]).max()) + 1


def judged_forks(df: pd.DataFrame, cells: list) -> dict:
    """{cell key: forks that a verdict judges}: forks with a measured row left after the JIT/GC gate and the
    straddled-line check (harness.voting), not forks run (a gated fork decides nothing)."""
    from ..run import harness

    kept = harness.voting(df)[0] if len(df) else df
    if "warmup" in kept and len(kept):
        kept = kept[~analysis.as_bool(kept["warmup"])]
    return {cell_key(c): forks_of(kept, c)[0] for c in cells}


# ---------------------------------------------------------------- the plan

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
                       + (f", budget {duration_text(budget)}" if budget else ", no budget"))
        return out


def _cell_text(cell, have: dict) -> str:
    bits = [cell.variant] + [f"{k}={v}" for k, v in {**cell.params, **cell.labels}.items()
                             if k in ("threads", "placement", "size", "collector", "lock", "grid", "regime",
                                      "direction", "evict", "runtime")]
    if cell.jdk:
        bits.append(f"JDK {cell.jdk.feature}")
    n = have.get(cell_key(cell), 0)
    return " ".join(map(str, bits)) + f" ({n} fork{'s' if n != 1 else ''})"


def duration_text(s: float | None) -> str:
    if s is None:
        return ""
    return f"{s / 3600:g}h" if s >= 3600 and s % 3600 == 0 else f"{s / 60:g}m" if s >= 60 and s % 60 == 0 else f"{s:g}s"


def make_plan(module, preset: str, jdks, max_forks: int, overrides: dict) -> Plan:
    from ..run import sweep

    base, df = base_run(module.NAME, preset)
    cells = [c for c in sweep.plan(module, preset, jdks, **overrides) if not c.unavailable]
    claims = open_claims(module, df, cells, max_forks)
    have = judged_forks(df, cells)
    wanted = {cell_key(c) for o in claims for c in o.cells}
    chosen = [c for c in cells if cell_key(c) in wanted]
    start = min((c.forks for c in chosen), default=stats.MIN_FORKS)
    looks = schedule(max(start, 1), max_forks)
    return Plan(base, looks, stats.spent_level(len(looks)), claims, chosen, have)
