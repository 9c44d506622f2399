"""What tests build instead of measuring: synthetic locks results, shaped as the locks sweep stores them, for tests
that need stored rows without running a kernel (verdicts, overview, bundle/import, reports), and fake CPU
topologies for planning cells (`topology`, or a sysfs tree read back by mechsym.machine.cpus: `fake_topology`)."""

from __future__ import annotations

import itertools
import zlib
from pathlib import Path

import pandas as pd

from mechsym.store import runs as store
from mechsym.machine.cpus import Cpu, Topology, read_topology
from mechsym.experiments import locks

THREADS = (1, 2, 3, 4)


def topology(n: int = 2, smt: bool = False, model: str = "fake") -> Topology:
    """n cores on one socket, one CPU each; with smt two each, numbered as Linux does: CPUs 0..n-1 the first thread
    of each core, n..2n-1 their siblings."""
    cpus = [Cpu(i, i, 0) for i in range(n)] + ([Cpu(n + i, i, 0) for i in range(n)] if smt else [])
    return Topology(tuple(cpus), model)


def fake_topology(root: Path, cpus: list[tuple[int, int, int]]) -> Topology:
    """A sysfs CPU tree under `root` ((cpu, core, socket) each), read back by mechsym.machine.cpus.read_topology."""
    for cpu, core, socket in cpus:
        t = root / f"cpu{cpu}" / "topology"
        t.mkdir(parents=True)
        (t / "core_id").write_text(f"{core}\n")
        (t / "physical_package_id").write_text(f"{socket}\n")
    (root / "online").write_text(f"0-{len(cpus) - 1}\n" if len(cpus) > 1 else "0\n")
    return read_topology(root)


#: The sysfs trees every experiment's cells are planned on (tests/test_experiment_contract.py).
TOPOLOGIES = {
    "2cpu-no-smt": [(0, 0, 0), (1, 1, 0)],
    "8cpu-smt-2-sockets": [(c, c % 2, (c % 4) // 2) for c in range(8)],
    "1cpu": [(0, 0, 0)],
}


def synthetic_locks(ops: dict | None = None, machine: str = "test-machine-a", jdks=("17", "25"), runs: int = 3,
                    forks: int = 5, first: dict | None = None, threads=THREADS, scale: float = 1.0) -> pd.DataFrame:
    """Tidy rows of every cell of both grids: `forks` fresh JVMs per cell, each one warm-up row and `runs`
    measured rows. Cells of biased-locking variants are "unavailable" on JDKs after 17.

    ops: ops/s per cell (default 50M) by key, most specific first: (variant, threads, policy), (variant, threads)
    for the main grid; (variant, "why", workers, coarsening) for the one-thread grid. A value may be a list: one
    ops/s per fork (to make forks disagree). first: the same keys, the ops/s of the first measured run after the
    warm-up (the run the posts timed), when it differs from the later runs. scale multiplies every value (a slower
    machine). Forks differ by +-1% so that medians and intervals exist."""
    ops, first = ops or {}, first or {}
    rows = []

    def pick(d, keys, default):
        return next((d[k] for k in keys if k in d), default)

    def add(jdk, variant, t, policy, grid, workers, coarsening, keys):
        base = dict(variant=variant, threads=t, warmup_policy=policy, grid=grid, workers=workers,
                    coarsening=coarsening, jdk=jdk, metric="throughput", unit="ops/s")
        if jdk != "17" and variant in locks.sweep.BIASED:
            rows.append(dict(base, fork=-1, iteration=-1, warmup=False, value=float("nan"), status="unavailable",
                             note=f"not available on JDK {jdk}: Unrecognized VM option 'UseBiasedLocking'"))
            return
        later, at_first = pick(ops, keys, 50e6), pick(first, keys, None)
        for f in range(forks):
            per_fork = later[f % len(later)] if isinstance(later, (list, tuple)) else later
            for i in range(runs + 1):
                v = at_first[f % len(at_first)] if isinstance(at_first, (list, tuple)) else at_first
                v = per_fork if i != 1 or v is None else v
                v *= scale * (1 + 0.01 * (((f + i) % 3) - 1))
                rows.append(dict(base, fork=f, iteration=i, warmup=i == 0, value=v, status="ok", note=""))

    for jdk in jdks:
        for policy, variant, t in itertools.product(locks.POLICIES, locks.VARIANTS, threads):
            add(jdk, variant, t, policy, "main", "fresh", "on", [(variant, t, policy), (variant, t)])
        for variant in locks.MONITORS + ["reentrant"]:
            for workers, coarsening, _ in locks.sweep.HARNESS[1:]:
                add(jdk, variant, 1, "short", "why", workers, coarsening, [(variant, "why", workers, coarsening)])
    df = pd.DataFrame(rows)
    df.insert(0, "run_id", f"20260101T000000Z-smoke-{zlib.crc32(machine.encode()) % 16**6:06x}")
    df["experiment"] = "locks"
    df["machine"] = machine
    return df


def save_synthetic(df: pd.DataFrame, machine: str, cpu_mhz: float | None = None) -> str:
    """Store the rows as one complete smoke run of `machine` (a new run id); returns the run id."""
    info = {"machine_id": machine, "cpu_model": "Synthetic CPU", "logical_cpus": 4, "physical_cores": 2, "sockets": 1,
            "smt": True, "kernel": "6.0"}
    if cpu_mhz:
        info["cpu_mhz"] = cpu_mhz
    meta = {"preset": "smoke", "status": "complete", "machine": info,
            "jdks": [{"feature": 17, "vendor": "Test", "version": "17.0.0"}]}
    path = store.save("locks", df.drop(columns=["run_id", "machine"]), meta, machine=machine)
    return path.stem


def calibration(kind: str = "this", machine: str = "test-machine-a"):
    """A synthetic calibration (mechsym.machine.calibration.Calibration). "this": the lab's 2-vCPU VM as measured
    (no SMT, two cores, a 27.7 µs cross-vCPU wake-up, an uncontended CAS of ~4.8 ns, fresh JVMs in 3 regimes ~4.2x
    apart); "big": a 16-CPU SMT machine (8 cores) with a 1 µs wake-up and one regime."""
    from mechsym.machine.calibration import synthetic

    if kind == "this":
        return synthetic(machine=machine, logical_cpus=2, cores=2, smt_siblings=False, free_cpus=2, timer_ns=25.0,
                         cas_ns=4.8, line_rt_same_ns=2850.0, line_rt_cross_ns=180.0, wakeup_cross_ns=27_700.0,
                         steal_pct=0.5, regimes=3, regime_ratio=4.2)
    if kind == "big":
        return synthetic(machine=machine, logical_cpus=16, cores=8, smt_siblings=True, free_cpus=16, timer_ns=20.0,
                         cas_ns=5.5, line_rt_same_ns=40.0, line_rt_cross_ns=120.0, wakeup_cross_ns=1_000.0,
                         steal_pct=0.0, regimes=1, regime_ratio=1.0)
    raise ValueError(f"calibration kind '{kind}': allowed this, big")
