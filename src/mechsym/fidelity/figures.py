"""Reading a figure from a program's output (a regex, or the median of a metric of a mechsym kernel's CSV) and the
keep condition a run must meet to count; the vocabulary of a fidelity run (its programs, designs and directions).
mechsym.fidelity.run measures with them."""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field

import numpy as np

from .. import MechsymError

DIRECTIONS = ("speed", "duration")
REDUCE = ("median", "min", "max", "first", "last")
PROGRAMS = ("kernel", "listing", "listing-again")
DESIGNS = ("rotating", "bracketed")
#: a bracketed set's runs, in order; the kernel sits between listing runs 0 and 2, the A/A between 2 and 4
BRACKETED = ("listing", "kernel", "listing", "listing-again", "listing")
#: fewer sets and the interval is unbounded (stats.MIN_FORKS): no row is written from them
MIN_SETS = 5
MAX_SETS = 1000
NUMBER = re.compile(r"[-+]?\d[\d,_]*(?:\.\d+)?(?:[eE][-+]?\d+)?")


# ---------------------------------------------------------------- reading a figure from a program's output

@dataclass(frozen=True)
class Figure:
    """How a program's figure is read from its stdout: `csv:METRIC` (a mechsym kernel's CSV: the metric's values
    in measured, not warm-up, rows) or a regular expression (its first group, else the whole match, as a number;
    thousands separators allowed); every match counts, and `reduce` makes one figure of them."""
    spec: str
    reduce: str = "median"

    def __post_init__(self):
        if self.reduce not in REDUCE:
            raise MechsymError(f"--reduce '{self.reduce}': unknown (allowed: {', '.join(REDUCE)})")
        if not self.spec:
            raise MechsymError("figure: empty; give csv:METRIC or a regular expression with one group")
        if not self.spec.startswith("csv:"):
            try:
                re.compile(self.spec)
            except re.error as e:
                raise MechsymError(f"figure regex {self.spec!r}: {e}") from None
        elif not self.spec[4:]:
            raise MechsymError("figure 'csv:': give the metric, e.g. csv:rtt_p50")

    def values(self, out: str) -> list[float]:
        if self.spec.startswith("csv:"):
            return _csv_values(out, self.spec[4:])
        out_values = []
        for m in re.finditer(self.spec, out, re.M):
            text = m.group(1) if m.groups() else m.group(0)
            n = NUMBER.search(text or "")
            if n:
                out_values.append(_number(n.group(0)))
        return out_values

    def read(self, out: str, program: str) -> float:
        vals = self.values(out)
        if not vals:
            tail = out.strip().splitlines()[-1][:120] if out.strip() else "(no output)"
            raise MechsymError(f"{program}: no figure matches {self.spec!r} in its output (last line: {tail})")
        v = {"median": lambda: float(np.median(vals)), "min": lambda: min(vals), "max": lambda: max(vals),
             "first": lambda: vals[0], "last": lambda: vals[-1]}[self.reduce]()
        if not (v > 0 and np.isfinite(v)):
            raise MechsymError(f"{program}: its figure is {v}; a ratio needs a positive number")
        return float(v)


@dataclass(frozen=True)
class Keep:
    """Whether a program's run counts: `csv:METRIC=VALUE` (every measured row of that metric in a mechsym kernel's
    CSV equals VALUE, and there is at least one) or a regular expression that must match its output."""
    spec: str
    metric: str = field(init=False, default="")             # csv: the metric read; "" for a regex
    value: float = field(init=False, default=float("nan"))  # csv: the value every row must have

    def __post_init__(self):
        if self.spec.startswith("csv:"):
            metric, eq, value = self.spec[4:].partition("=")
            if not metric or not eq or NUMBER.fullmatch(value.strip()) is None:
                raise MechsymError(f"keep {self.spec!r}: give csv:METRIC=NUMBER, e.g. csv:counters_share_line=1")
            object.__setattr__(self, "metric", metric)
            object.__setattr__(self, "value", _number(value.strip()))
        else:
            if not self.spec:
                raise MechsymError("keep: empty; give csv:METRIC=NUMBER or a regular expression")
            try:
                re.compile(self.spec)
            except re.error as e:
                raise MechsymError(f"keep regex {self.spec!r}: {e}") from None

    def ok(self, out: str) -> bool:
        if self.metric:
            vals = _csv_values(out, self.metric)
            return bool(vals) and all(v == self.value for v in vals)
        return re.search(self.spec, out, re.M) is not None


def _number(text: str) -> float:
    """A number as a program prints it, thousands separators (`,` or `_`) allowed."""
    return float(text.replace(",", "").replace("_", ""))


def _csv_values(out: str, metric: str) -> list[float]:
    rows = list(csv.DictReader(io.StringIO(out)))
    if rows and not {"metric", "value"} <= set(rows[0]):
        return []
    return [float(r["value"]) for r in rows
            if r.get("metric") == metric and str(r.get("warmup", "false")).lower() != "true" and r.get("value")]
