"""What this machine can measure: the calibration record, one per stored `calibration` run.

A verdict on a contention, migration or latency claim means something only where the machine can show the
mechanism: a lock hand-off cannot be timed below one cache-line round trip, a wake-up claim of 2 µs cannot be
judged where waking a thread on another CPU costs 30 µs, and a migration claim needs a CPU to migrate to. The
record holds those floors, each with its spread, so claims can state what they need and be "not measurable here"
where the machine lacks it.

    timer_ns          System.nanoTime granularity (smallest non-zero step), median
    cas_ns            one uncontended CAS (AtomicLong.incrementAndGet on one thread)
    line_rt_same_ns   a cache line passed back and forth by two threads on one CPU (time-sliced)
    line_rt_cross_ns  the same across two CPUs (Java; the C kernel's figure is line_rt_cross_c_ns)
    wakeup_cross_ns   park/unpark of a thread on another CPU (Java; C futex: futex_cross_ns)
    steal_pct         hypervisor steal during the calibration
    regimes           levels an A/A of one small kernel shows across fresh JVMs (gap rule: see levels())

The rows are the `calibration` experiment's (experiments/calibration): one row per measured iteration, with
`variant` naming the measurement (VARIANTS) and `value` in ns. load() reads the newest stored run directly from
data/results (this layer is below store/); from_rows() builds the record from any run's rows and metadata.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

EXPERIMENT = "calibration"
# variant -> the record's field it fills; each row's value is ns (per operation, per round trip, per wake-up)
VARIANTS = {
    "nanotime": "timer_ns",
    "millis": "timer_millis_ns",
    "cas": "cas_ns",
    "line-same": "line_rt_same_ns",
    "line-cross": "line_rt_cross_ns",
    "wakeup-cross": "wakeup_cross_ns",
    "c-line-same": "line_rt_same_c_ns",
    "c-line-cross": "line_rt_cross_c_ns",
    "c-futex-cross": "futex_cross_ns",
}
METRICS = ("granularity", "ns_per_op", "round_trip", "wakeup")   # the timed value of each row set (not jit_ms...)
AA_VARIANT = "aa"          # the regime A/A: one value per fork, ns per operation of one small kernel
LEVEL_GAP = math.log(1.2)  # a new level starts where sorted per-fork log values jump by more than 20%


@dataclass(frozen=True)
class Calibration:
    machine: str                        # machine id
    logical_cpus: int
    cores: int                          # physical cores
    smt_siblings: bool                  # some core has two or more logical CPUs
    free_cpus: int                      # CPUs a thread may migrate to (the affinity mask of a fresh process)
    timer_ns: float | None              # System.nanoTime granularity, median
    cas_ns: float | None                # one uncontended CAS, ns per op
    line_rt_same_ns: float | None       # cache-line round trip, both threads on one CPU (time-sliced)
    line_rt_cross_ns: float | None      # cache-line round trip across two CPUs
    wakeup_cross_ns: float | None       # park/unpark wake-up of a thread on another CPU, median
    steal_pct: float | None             # steal time during the calibration, % of CPU time
    regimes: int | None                 # levels an A/A of one small kernel shows across fresh JVMs (1 = stable)
    regime_ratio: float | None          # the fastest level over the slowest (slowest ns / fastest ns, >= 1)
    spread: dict                        # per field: {"low": .., "high": ..} (interquartile range)
    source: str                         # "measured <run id>" or "synthetic"
    # beyond the shared fields (defaults, so a record built from the shared fields alone stays valid)
    sockets: int | None = None
    timer_millis_ns: float | None = None     # System.currentTimeMillis granularity
    line_rt_same_c_ns: float | None = None   # the C kernel's round trip on one CPU
    line_rt_cross_c_ns: float | None = None  # the C kernel's round trip across two CPUs
    futex_cross_ns: float | None = None      # futex wake-up of a thread on another CPU (C)
    regime_switches: float | None = None     # share of consecutive A/A forks whose level differs
    notes: tuple = field(default_factory=tuple)

    def as_dict(self) -> dict:
        """What a run's metadata stores under "calibration" (JSON-ready)."""
        d = asdict(self)
        d["notes"] = list(self.notes)
        return d


def from_dict(d: dict) -> Calibration:
    """A record stored as a dict (a run's metadata "calibration") back as a Calibration; unknown keys ignored."""
    known = {f for f in Calibration.__dataclass_fields__}
    kw = {k: v for k, v in d.items() if k in known}
    kw["notes"] = tuple(kw.get("notes") or ())
    kw.setdefault("spread", {})
    return Calibration(**kw)


def _quantile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    pos = q * (len(xs) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return xs[lo] + (xs[hi] - xs[lo]) * (pos - lo)


def levels(values: list[float], gap: float = LEVEL_GAP) -> list[int]:
    """The level of each value (0 = fastest): sorted log values split where neighbours differ by more than `gap`."""
    if not values:
        return []
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0] * len(values)
    level = 0
    for a, b in zip(order, order[1:]):
        if math.log(values[b]) - math.log(values[a]) > gap:
            level += 1
        out[b] = level
    return out


def regime_summary(per_fork: list[float]) -> tuple[int | None, float | None, float | None]:
    """(levels, slowest level's median over the fastest's, share of consecutive forks that switch level), from
    per-fork values in fork order; None where there are fewer than two forks."""
    vals = [v for v in per_fork if v is not None and v > 0 and math.isfinite(v)]
    if len(vals) < 2:
        return None, None, None
    lv = levels(vals)
    n = max(lv) + 1
    med = [_quantile([v for v, l in zip(vals, lv) if l == k], 0.5) for k in range(n)]
    switches = sum(1 for a, b in zip(lv, lv[1:]) if a != b) / (len(lv) - 1)
    return n, round(med[-1] / med[0], 3), round(switches, 3)


def from_rows(df, meta: dict) -> Calibration:
    """The record from a calibration run's rows (measured iterations only) and its metadata (machine facts,
    "calibration_facts": free CPUs, and "noise": steal)."""
    meta = meta or {}
    mi = meta.get("machine") or {}
    facts = meta.get("calibration_facts") or {}
    rows = df
    if "warmup" in rows.columns:
        rows = rows[~rows["warmup"].astype(str).str.lower().isin(("true", "1"))]
    if "status" in rows.columns:
        rows = rows[rows["status"].fillna("ok").astype(str) == "ok"]
    if "metric" in rows.columns:
        rows = rows[rows["metric"].isin(METRICS)]
    values: dict = {}
    spread: dict = {}
    for variant, name in VARIANTS.items():
        xs = [float(v) for v in rows.loc[rows["variant"] == variant, "value"] if math.isfinite(float(v))]
        if xs:
            values[name] = round(_quantile(xs, 0.5), 2)
            spread[name] = {"low": round(_quantile(xs, 0.25), 2), "high": round(_quantile(xs, 0.75), 2)}
    aa = rows[rows["variant"] == AA_VARIANT]
    per_fork = [float(g["value"].median()) for _, g in aa.groupby("fork", sort=True)] if len(aa) else []
    regimes, ratio, switches = regime_summary(per_fork)
    if per_fork:
        spread["regimes"] = {"low": round(min(per_fork), 3), "high": round(max(per_fork), 3)}
    noise = meta.get("noise") if isinstance(meta.get("noise"), dict) else {}
    steal = noise.get("steal_pct", facts.get("steal_pct"))
    logical = int(mi.get("logical_cpus") or facts.get("logical_cpus") or 0)
    cores = int(mi.get("physical_cores") or facts.get("cores") or logical)
    run = meta.get("run_id")
    return Calibration(
        machine=str(mi.get("machine_id") or meta.get("machine_id") or "unknown"),
        logical_cpus=logical, cores=cores,
        smt_siblings=bool(mi["smt"]) if "smt" in mi else logical > cores,
        free_cpus=int(facts.get("free_cpus") or logical),
        timer_ns=values.get("timer_ns"), cas_ns=values.get("cas_ns"),
        line_rt_same_ns=values.get("line_rt_same_ns"), line_rt_cross_ns=values.get("line_rt_cross_ns"),
        wakeup_cross_ns=values.get("wakeup_cross_ns"),
        steal_pct=float(steal) if isinstance(steal, (int, float)) else None,
        regimes=regimes, regime_ratio=ratio, spread=spread,
        source=f"measured {run}" if run else "measured",
        sockets=mi.get("sockets") or facts.get("sockets"),
        timer_millis_ns=values.get("timer_millis_ns"),
        line_rt_same_c_ns=values.get("line_rt_same_c_ns"), line_rt_cross_c_ns=values.get("line_rt_cross_c_ns"),
        futex_cross_ns=values.get("futex_cross_ns"), regime_switches=switches,
        notes=tuple(facts.get("notes") or ()),
    )


def free_cpus() -> int:
    """How many CPUs a fresh process may run on: the Cpus_allowed_list of a new `cat` (a thread migrates within it;
    this process's own mask may have been narrowed by taskset)."""
    import subprocess

    from .cpus import parse_cpu_list

    try:
        status = subprocess.run(["cat", "/proc/self/status"], capture_output=True, text=True, timeout=10).stdout
        for line in status.splitlines():
            if line.startswith("Cpus_allowed_list:"):
                return len(parse_cpu_list(line.split(":", 1)[1]))
    except (OSError, subprocess.SubprocessError, ValueError):
        pass
    return len(os.sched_getaffinity(0))


def _results_root(root) -> Path:
    if root is not None:
        return Path(root)
    env = os.environ.get("MECHSYM_RESULTS")
    if env:
        return Path(env)
    from .. import data_root

    return data_root() / "results"


def load(machine: str | None = None, root=None) -> Calibration | None:
    """The newest stored calibration run of `machine` (default: this machine) under `root` (default: the results
    root), or None when it has none. Runs are read straight from their files; a run whose CSV is missing or
    does not match its recorded row count is skipped."""
    import pandas as pd

    from .identity import machine_id

    machine = machine or machine_id()
    folder = _results_root(root) / machine / EXPERIMENT
    if not folder.is_dir():
        return None
    for j in sorted(folder.glob("*.json"), key=lambda p: p.name, reverse=True):
        if j.name.startswith("."):
            continue
        try:
            meta = json.loads(j.read_text())
            df = pd.read_csv(j.with_suffix(".csv"), compression="infer")
        except (OSError, ValueError):
            continue
        if isinstance(meta.get("rows"), int) and meta["rows"] != len(df):
            continue
        return from_rows(df, meta)
    return None


def from_record(machine: str, record: dict | None) -> Calibration | None:
    """What a run's machine record says without a calibration: the topology (CPUs, cores, sockets, SMT), every
    measured floor unknown (None: "not checked"). None when the record does not give the CPUs."""
    record = record or {}
    try:
        cpus = int(record["logical_cpus"])
        cores = int(record.get("physical_cores") or cpus)
    except (KeyError, TypeError, ValueError):
        return None
    return Calibration(machine=machine, logical_cpus=cpus, cores=cores, smt_siblings=bool(record.get("smt")),
                       free_cpus=cpus, timer_ns=None, cas_ns=None, line_rt_same_ns=None, line_rt_cross_ns=None,
                       wakeup_cross_ns=None, steal_pct=None, regimes=None, regime_ratio=None, spread={},
                       source="the runs' machine record (no calibration stored)", sockets=record.get("sockets"))


def synthetic(**kw) -> Calibration:
    """A record with the given fields (tests, and the other machines the claims are judged for); the rest None,
    one CPU per core, no SMT."""
    base = dict(machine="synthetic", logical_cpus=2, cores=2, smt_siblings=False, free_cpus=2, timer_ns=None,
                cas_ns=None, line_rt_same_ns=None, line_rt_cross_ns=None, wakeup_cross_ns=None, steal_pct=None,
                regimes=None, regime_ratio=None, spread={}, source="synthetic")
    base.update(kw)
    return Calibration(**base)
