"""JMH as a second opinion: build a JMH command line, run it, read its JSON into the lab's long rows.

The benchmarks are jmh-src/mechsym/jmh/*.java, built by `make` into build/jmh.jar (JMH's annotation processor
generates the harness). One JMH invocation is one host JVM (`org.openjdk.jmh.Main`) that starts its own forks
(`-f`); its JSON result (`-rf json -rff FILE`) holds, per benchmark and parameter set, the measured iterations of
every fork (`rawData[fork][iteration]`) for the primary metric and for each secondary one (the members of a
`@Group`, and the profilers': `-prof gc` gives gc.alloc.rate.norm in B/op (bytes/op here: UNITS), `-prof comp` the JIT's time). JMH keeps
no warm-up iteration in its JSON, so every row here is a measured one (warmup False), numbered after the warm-ups
(iteration = warm-up iterations + k), as the kernels number theirs.

In a sweep (`mechsym run EXP --protocol jmh`), an experiment that has JMH benchmarks lists its cells with
`jmh_cells(preset, topo, jdks)` (on its package or its sweep module), each made by `cell()`. Every lab fork of such
a cell is one JMH invocation with `-f 1`: one fresh JMH fork, interleaved round-robin with the other cells' forks
like any kernel's, so rounds stay blocks for the verdicts' resampling (a JMH `-f 5` would run a cell's five forks
back to back). The cost is the host JVM's start (~0.5 s) per fork. Rows carry protocol "jmh"; the stored run
records it in its overrides, so that a JMH run never stands in for the lab's own (store.chosen_runs).
"""

from __future__ import annotations

import json
import math
import os
import shlex
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from .. import MechsymError
from .. import jar_path as kernel_jar
from ..machine.cpus import format_cpu_list, taskset_available
from ..machine.jdk import Jdk
from .cells import Cell
from .launch import KernelError, check_timeout

PROTOCOL = "jmh"
PROTOCOLS = ("lab", PROTOCOL)
MAIN = "org.openjdk.jmh.Main"
#: JMH's benchmark modes -> the lab's metric names (the primary metric of each row).
MODE_METRICS = {"thrpt": "throughput", "avgt": "time_per_op", "ss": "single_shot"}
#: Profilers every run has (`-prof gc`: allocation per operation) and the optional one (`-prof comp`: JIT time).
PROFILERS = ("gc",)
COMP = "comp"
#: JMH's units -> the lab's (rowcheck.UNITS): its primary scores here are ops/s; -prof gc writes MB/sec, B/op,
#: counts and ms, -prof comp ms. A unit not here is kept as JMH wrote it (and the store's row check names it).
UNITS = {"ops/s": "ops/s", "MB/sec": "MB/s", "B/op": "bytes/op", "counts": "count", "ms": "ms", "ns/op": "ns/op"}


@dataclass(frozen=True)
class Preset:
    """How long JMH measures: forks (-f), warm-up iterations and time (-wi, -w), measured ones (-i, -r)."""
    forks: int
    warmup_iterations: int
    warmup_time: str
    iterations: int
    time: str

    def options(self, forks: int | None = None) -> list[str]:
        return ["-f", str(self.forks if forks is None else forks), "-wi", str(self.warmup_iterations),
                "-w", self.warmup_time, "-i", str(self.iterations), "-r", self.time]


# smoke: every benchmark runs, briefly (tests); standard: 5 forks of 3 x 0.5 s warm-up and 5 x 0.5 s measured, about
# 5.5 s a fork with the two JVM starts; full: JMH's own defaults' scale (10 forks, 5 x 1 s + 10 x 1 s).
PRESETS = {
    "smoke": Preset(forks=1, warmup_iterations=1, warmup_time="100ms", iterations=1, time="100ms"),
    "standard": Preset(forks=5, warmup_iterations=3, warmup_time="500ms", iterations=5, time="500ms"),
    "full": Preset(forks=10, warmup_iterations=5, warmup_time="1s", iterations=10, time="1s"),
}
# Cell parameters that are JMH options, not @Param values (everything else in a cell's params is a -p k=v).
OPTIONS = ("benchmark", "threads", "jmh-warmup-iterations", "jmh-warmup-time", "jmh-iterations", "jmh-time",
           "jmh-profilers")


def preset(name: str) -> Preset:
    if name not in PRESETS:
        raise MechsymError(f"preset '{name}': allowed JMH presets are {', '.join(PRESETS)}")
    return PRESETS[name]


def jar_path() -> Path:
    """build/jmh.jar, beside the kernels' jar (mechsym.jar_path)."""
    return kernel_jar().parent / "jmh.jar"


def classpath() -> str:
    """build/jmh.jar (the benchmarks and JMH's generated harness), JMH's jars, the kernels' third-party jars and the
    kernels' jar (build/mechsym.jar: the SPSC queues a benchmark measures are the kernel's own classes)."""
    jar = jar_path()
    if not jar.exists():
        raise MechsymError(f"JMH benchmarks {jar} not built: run `make` first")
    build = jar.parent
    libs = sorted((build / "jmh-lib").glob("*.jar"))
    if not any(p.name.startswith("jmh-core-") for p in libs):
        raise MechsymError(f"JMH jars missing from {build / 'jmh-lib'}: run `make` first")
    kernels = kernel_jar()
    if not kernels.exists():
        raise MechsymError(f"kernels' jar {kernels} not built: run `make` first")
    return ":".join(str(p) for p in [jar, *libs, *sorted((build / "lib").glob("*.jar")), kernels])


def command(java: str, benchmark: str, result: str | Path, settings: Preset, *, params: dict | None = None,
            forks: int | None = None, threads: int | None = None, jvm_flags=(), profilers=PROFILERS,
            comp: bool = False, cpus: list[int] | None = None) -> list[str]:
    """The JMH command line: `java -cp ... org.openjdk.jmh.Main REGEX -f N -wi .. -w .. -i .. -r .. -rf json -rff
    RESULT -foe true [-prof gc] [-prof comp] [-t N] [-p k=v1,v2 ...] -jvm JAVA [-jvmArgsAppend FLAGS]`.

    benchmark: a regular expression over benchmark names (`mechsym.jmh.Locks.increment`, `mechsym\\.jmh\\..*`).
    params: @Param values, a value or a list of values per name. jvm_flags go to the forks only. cpus: the host
    JVM (and so every fork it starts) under `taskset -c`."""
    if not benchmark:
        raise MechsymError("benchmark: give a benchmark name or regular expression (e.g. mechsym.jmh.Locks)")
    cmd = [java, "-cp", classpath(), MAIN, benchmark, *settings.options(forks),
           "-rf", "json", "-rff", str(result), "-foe", "true"]
    for p in (*profilers, *((COMP,) if comp else ())):
        cmd += ["-prof", p]
    if threads is not None:
        if int(threads) < 1:
            raise MechsymError(f"threads '{threads}': must be a whole number >= 1")
        cmd += ["-t", str(int(threads))]
    for name, values in (params or {}).items():
        values = values if isinstance(values, (list, tuple)) else [values]
        if not values or any("," in str(v) for v in values):
            raise MechsymError(f"JMH parameter '{name}': give one or more values, none containing ','")
        cmd += ["-p", f"{name}={','.join(map(str, values))}"]
    cmd += ["-jvm", java]
    flags = [f for f in jvm_flags if f]
    if flags:
        if any(" " in f for f in flags):
            raise MechsymError(f"JVM flags {flags}: JMH splits -jvmArgsAppend at spaces; give flags without spaces")
        cmd += ["-jvmArgsAppend", " ".join(flags)]
    if cpus:
        if not taskset_available():
            raise MechsymError("cpus: taskset is not installed (Debian: apt-get install util-linux)")
        cmd = ["taskset", "-c", format_cpu_list(sorted(set(cpus))), *cmd]
    return cmd


def run(cmd: list[str], result: str | Path, timeout: float = 600.0) -> list[dict]:
    """Run one JMH invocation (one host JVM; JMH starts the forks) and return its JSON results.

    KernelError ("timeout", "crashed" or "bad-output", with JMH's output) when it does not finish, exits non-zero
    (`-foe true`: any benchmark's exception) or writes no results. Every way out kills the host's process group,
    forks included."""
    timeout = check_timeout(timeout)
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                                start_new_session=True)
    except OSError as e:
        raise KernelError(f"JMH: cannot start {cmd[0]}: {e}", "crashed", cmd) from e
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, _ = proc.communicate()
        raise KernelError(f"JMH: killed after its timeout of {timeout:g} s", "timeout", cmd, out) from None
    except BaseException:
        _kill_group(proc)
        proc.wait()
        raise
    if proc.returncode != 0:
        raise KernelError(f"JMH exited with code {proc.returncode}: {_reason(out)}", "crashed", cmd, out)
    try:
        results = json.loads(Path(result).read_text())
    except (OSError, ValueError) as e:
        raise KernelError(f"JMH wrote no readable result to {result}: {e}", "bad-output", cmd, out) from e
    if not isinstance(results, list) or not results:
        raise KernelError(f"JMH ran no benchmark (empty result in {result}): {_reason(out)}", "bad-output", cmd, out)
    return results


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _reason(out: str) -> str:
    """The line of JMH's output that says what went wrong (its first exception, else its last line)."""
    lines = [line.strip() for line in (out or "").splitlines() if line.strip()]
    for line in lines:
        if "Exception" in line or "Error" in line or line.startswith("<failure>"):
            return line[:300]
    return lines[-1][:300] if lines else "no output"


def measure(java: str, benchmark: str, preset_name: str = "smoke", timeout: float = 600.0, **options) -> pd.DataFrame:
    """Build the command, run it in a temporary directory and return its rows (`rows()`)."""
    with tempfile.TemporaryDirectory(prefix="mechsym-jmh-") as tmp:
        result = Path(tmp) / "result.json"
        cmd = command(java, benchmark, result, preset(preset_name), **options)
        return rows(run(cmd, result, timeout))


# ---------------------------------------------------------------- JMH's JSON -> the lab's long rows

def _is_group_member(name: str, metric: dict, primary: dict) -> bool:
    """A secondary metric that is one method of a @Group (its name an identifier, the primary's unit), not a
    profiler's figure (gc.alloc.rate.norm, compiler.time.total: dotted names)."""
    return name.isidentifier() and metric.get("scoreUnit") == primary.get("scoreUnit")


def rows(results: list[dict]) -> pd.DataFrame:
    """JMH's JSON results as long rows: one per benchmark, parameter set, fork, measured iteration and metric.

    Columns: benchmark (the full method name), jmh_method (the method or group, group:member for a group's
    members), each @Param by its own name (the kernels' names: lock, layout, method, variant...), threads, mode, fork, iteration, warmup (False: JMH's JSON has no warm-up), metric (the primary's from
    MODE_METRICS, a group member's the same with jmh_method group:member, a profiler's its JMH label), value, unit,
    jmh_version, jdk_version, vm_version, jvm_args, protocol ("jmh"). Values JMH could not compute (NaN) have no
    row. MechsymError (one line) when a result is not what JMH writes."""
    if not isinstance(results, list):
        raise MechsymError("JMH result: expected a JSON list of benchmark results")
    out = []
    for n, b in enumerate(results):
        try:
            name, mode, primary = b["benchmark"], b["mode"], b["primaryMetric"]
            params = b.get("params") or {}
            threads, warmups = int(b["threads"]), int(b.get("warmupIterations", 0))
        except (KeyError, TypeError, ValueError) as e:
            raise MechsymError(f"JMH result {n}: not a JMH benchmark result (missing or bad {e})") from e
        if mode not in MODE_METRICS:
            raise MechsymError(f"JMH result {name}: mode '{mode}' has no per-iteration raw data here "
                               f"(modes read: {', '.join(MODE_METRICS)})")
        group = name.rsplit(".", 1)[-1]
        base = {"benchmark": name, **{str(k): v for k, v in params.items()}, "threads": threads, "mode": mode,
                "jmh_version": b.get("jmhVersion", ""), "jdk_version": b.get("jdkVersion", ""),
                "vm_version": b.get("vmVersion", ""), "jvm_args": shlex.join(b.get("jvmArgs") or [])}
        metrics = [(group, MODE_METRICS[mode], primary)]
        for label, m in (b.get("secondaryMetrics") or {}).items():
            if _is_group_member(label, m, primary):
                metrics.append((f"{group}:{label}", MODE_METRICS[mode], m))
            else:
                metrics.append((group, label, m))
        for method, metric, m in metrics:
            raw = m.get("rawData") if isinstance(m, dict) else None
            if not isinstance(raw, list):
                raise MechsymError(f"JMH result {name}: metric '{metric}' has no rawData[fork][iteration]")
            for fork, values in enumerate(raw):
                for k, v in enumerate(values):
                    v = float(v) if v is not None else math.nan
                    if not math.isfinite(v):
                        continue
                    out.append({**base, "jmh_method": method, "fork": fork, "iteration": warmups + k, "warmup": False,
                                "metric": metric, "value": v, "unit": UNITS.get(m.get("scoreUnit", ""), m.get("scoreUnit", "")),
                                "protocol": PROTOCOL})
    if not out:
        raise MechsymError("JMH result: no measured value in it")
    df = pd.DataFrame(out)
    front = ["benchmark", "jmh_method"]
    back = ["threads", "mode", "fork", "iteration", "warmup", "metric", "value", "unit", "jmh_version",
            "jdk_version", "vm_version", "jvm_args", "protocol"]
    return df[front + [c for c in df.columns if c not in front + back] + back]


def tidy(results: list[dict], experiment: str) -> pd.DataFrame:
    """rows() as a stored run's rows outside a sweep: experiment, variant (the benchmark's class.method and its
    @Param values, which replaces a @Param named variant), ..., status "ok"."""
    df = rows(results)
    params = [c for c in df.columns if c not in ("benchmark", "jmh_method", "threads", "mode", "fork", "iteration",
                                                   "warmup", "metric", "value", "unit", "jmh_version", "jdk_version",
                                                   "vm_version", "jvm_args", "protocol")]

    def variant(r) -> str:
        cls = r["benchmark"].rsplit(".", 2)[-2]
        bits = [f"{p}={r[p]}" for p in params if isinstance(r[p], str) or pd.notna(r[p])]
        return " ".join([f"{cls}.{r['jmh_method']}", *bits])
    names = df.apply(variant, axis=1)
    df = df.drop(columns=["variant"], errors="ignore")
    df.insert(0, "variant", names)
    df.insert(0, "experiment", experiment)
    df["status"] = "ok"
    return df


# ---------------------------------------------------------------- the sweep's `jmh` protocol

def cell(variant: str, benchmark: str, params: dict, jdk: Jdk, preset_name: str, *, threads: int = 1,
         flags=(), labels: dict | None = None, comp: bool = False, timeout: float | None = None,
         cpus: list[int] | None = None):
    """A sweep cell whose forks are JMH invocations of `benchmark` (a full method name) with @Param values
    `params`, on `jdk`, with JVM flags `flags` for the forks. Its params (so its columns) record the benchmark,
    the threads and the preset's JMH iterations (jmh-*); forks come from the JMH preset; each lab fork is `-f 1`.
    cpus: the host JVM and its forks under `taskset -c` (JMH cannot pin each thread; the OS places them there)."""
    p = preset(preset_name)
    bad = [k for k in params if k in OPTIONS]
    if bad:
        raise MechsymError(f"JMH cell {variant}: parameter names {', '.join(bad)} are JMH options, not @Params")
    per_fork = fork_seconds(p)
    return Cell(variant=variant, kernel=f"jmh:{benchmark}", jdk=jdk, flags=tuple(flags), forks=p.forks,
                timeout=timeout or max(60.0, 4 * per_fork), cpus=list(cpus) if cpus else None,
                params={"benchmark": benchmark, **params, "threads": threads,
                        "jmh-warmup-iterations": p.warmup_iterations, "jmh-warmup-time": p.warmup_time,
                        "jmh-iterations": p.iterations, "jmh-time": p.time,
                        "jmh-profilers": ",".join((*PROFILERS, *((COMP,) if comp else ())))},
                labels={**(labels or {}), "protocol": PROTOCOL}, runner=_run_fork)


#: What one JMH fork costs beyond its iterations: the host JVM's and the fork's starts, JMH's set-up (seconds).
FORK_OVERHEAD = 2.0


def fork_seconds(p: Preset) -> float:
    """About how long one lab fork of a JMH cell (one `-f 1` invocation) takes: FORK_OVERHEAD + its iterations."""
    return FORK_OVERHEAD + p.warmup_iterations * _seconds(p.warmup_time) + p.iterations * _seconds(p.time)


def sweep_seconds(cells) -> float:
    """About how long a sweep of JMH cells takes, one fork after another (the run loop runs one at a time)."""
    total = 0.0
    for c in cells:
        p = Preset(forks=c.forks, warmup_iterations=int(c.params["jmh-warmup-iterations"]),
                   warmup_time=str(c.params["jmh-warmup-time"]), iterations=int(c.params["jmh-iterations"]),
                   time=str(c.params["jmh-time"]))
        total += c.forks * fork_seconds(p)
    return total


def first_jdk(preset_name: str, jdks) -> list:
    """The JDKs a JMH sweep runs on: the first (the lowest found) only. JMH is the second opinion on the headline
    cells, and one JDK keeps a standard JMH sweep near 5 minutes on 2 CPUs; `--jdk` picks another."""
    preset(preset_name)
    return list(jdks)[:1]


def _seconds(text: str) -> float:
    units = {"ms": 1e-3, "us": 1e-6, "ns": 1e-9, "s": 1.0, "m": 60.0}
    for u in ("ms", "us", "ns", "s", "m"):
        if text.endswith(u) and text[:-len(u)].replace(".", "", 1).isdigit():
            return float(text[:-len(u)]) * units[u]
    raise MechsymError(f"JMH time '{text}': give a number and a unit (ms, s, m), e.g. 500ms")


def _run_fork(fork) -> pd.DataFrame:
    """One lab fork of a JMH cell: one JMH invocation with -f 1. Reads the cell as the run loop has it (threads,
    flags, CPUs and timeout overridden from the command line)."""
    c = fork.cell
    if c.jdk is None:
        raise MechsymError(f"cell {c.variant}: a JMH cell needs a JDK")
    settings = Preset(forks=1, warmup_iterations=int(c.params["jmh-warmup-iterations"]),
                      warmup_time=str(c.params["jmh-warmup-time"]), iterations=int(c.params["jmh-iterations"]),
                      time=str(c.params["jmh-time"]))
    profilers = [p for p in str(c.params.get("jmh-profilers", "")).split(",") if p]
    params = {k: v for k, v in c.params.items() if k not in OPTIONS}
    with tempfile.TemporaryDirectory(prefix="mechsym-jmh-") as tmp:
        result = Path(tmp) / "result.json"
        cmd = command(c.jdk.java, _exact(c.params["benchmark"]), result, settings, params=params,
                      threads=int(c.params["threads"]), jvm_flags=c.flags, profilers=profilers, cpus=c.cpus)
        fork.commands.append(shlex.join(cmd))
        df = rows(run(cmd, result, c.timeout))
    # the cell's columns (tag_rows) name the JDK and flags; JMH's own names for them stay as jmh_* columns
    return df.drop(columns=["fork"]).rename(columns={"jdk_version": "jmh_jdk_version", "jvm_args": "jmh_jvm_args"})


def _exact(benchmark: str) -> str:
    """A benchmark's full name as a JMH regular expression matching it alone."""
    return "^" + benchmark.replace(".", r"\.") + "$"


def cells(module, protocol: str, preset_name: str, topo, jdks) -> list:
    """The cells of an experiment under a protocol other than the lab's own: `jmh` takes the experiment's
    `jmh_cells(preset, topo, jdks)` (on its package or its sweep module)."""
    if protocol not in PROTOCOLS:
        raise MechsymError(f"protocol '{protocol}': allowed protocols are {', '.join(PROTOCOLS)}")
    make = getattr(module, "jmh_cells", None) or getattr(getattr(module, "sweep", None), "jmh_cells", None)
    if make is None:
        raise MechsymError(f"protocol jmh: experiment {module.NAME} has no JMH benchmark cells yet "
                           "(`mechsym list` names the experiments with them)")
    return make(preset_name, topo, jdks)
