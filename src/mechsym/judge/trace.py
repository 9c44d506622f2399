"""Which forks a statistic read: every per-fork value analysis.per_fork hands out is noted with its fork's identity
(cell, run, fork), so a statistic's forks can be named after the fact (mechsym.judge.decide finds the cells behind
an undecided claim) and the run of each fork is known (the run level: stats.nested_runs, modes tested within runs).

The lesson: a fork is traced by what it is, never by its value. Integer timers repeat values, and a value seen in two
runs says nothing about which run a group's fork came from. A group's values are matched to forks as a whole: the
cells its unambiguous values name narrow the others, equal values share out the forks that gave them, and only a
group that still fits two different runs is untraced (None), never guessed."""

from __future__ import annotations

import contextlib

import numpy as np


class Trace:
    """While active (`tracing`), the per-fork values handed out, each with the set of forks (cell, run, fork) that
    gave it, and every estimate made."""

    def __init__(self, cell_columns: tuple[str, ...] = ()):
        self.cell_columns = tuple(cell_columns)   # the columns that name a cell (a sweep's Cell.columns())
        self.forks: dict[float, set] = {}         # value -> {(cell, run, fork)}
        self.estimates: list = []

    def note(self, values, cells, runs, forks=None) -> None:
        """Each value with the fork that gave it: its cell (a tuple of (column, value) pairs), run and fork key."""
        forks = range(len(values)) if forks is None else forks
        for v, c, r, f in zip(values, cells, runs, forks):
            if v == v:   # NaN never matches
                self.forks.setdefault(float(v), set()).add((tuple(sorted(c)), r, f))

    def resolve(self, values) -> list[tuple] | None:
        """Each value's fork (cell, run, fork) in one group, or None when a value was not handed out by per_fork or
        the group fits forks of two different runs (see the module's doc)."""
        vals = np.asarray(values, dtype=float).ravel()
        cands = [self.forks.get(float(v)) for v in vals]
        if any(not c for c in cands):
            return None
        known = {e[0] for c in cands if len({e[0] for e in c}) == 1 for e in c}
        out: list = [None] * len(vals)
        positions: dict[float, list[int]] = {}
        for i, v in enumerate(vals):
            positions.setdefault(float(v), []).append(i)
        for v, at in positions.items():
            found = sorted(self.forks[v], key=repr)
            mine = [e for e in found if e[0] in known] or found
            if len(mine) != len(at) and len({e[1] for e in mine}) > 1:
                return None    # more (or fewer) forks gave it than the group holds, in different runs
            for k, i in enumerate(at):
                out[i] = mine[k % len(mine)]
        return out

    def lookup(self, values) -> list[set] | None:
        """Each value's (cell, run) pairs (one pair each once resolved), or None when untraced."""
        found = self.resolve(values)
        return None if found is None else [{(c, r)} for c, r, _ in found]

    def runs_of(self, values) -> np.ndarray | None:
        """Each value's run as a code (0, 1, ... in order of first appearance), or None when untraced."""
        found = self.resolve(values)
        if found is None:
            return None
        names: dict = {}
        return np.array([names.setdefault(r, len(names)) for _, r, _ in found], dtype=int)


_trace: list[Trace | None] = [None]


@contextlib.contextmanager
def tracing(cell_columns: tuple[str, ...] = ()):
    """Note which forks (cells named by `cell_columns`, runs) every statistic inside the block reads (see Trace)."""
    old, _trace[0] = _trace[0], Trace(cell_columns)
    try:
        yield _trace[0]
    finally:
        _trace[0] = old


def current_trace() -> Trace | None:
    return _trace[0]
