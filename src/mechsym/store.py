"""The append-only results store.

    data/results/<machine-id>/<experiment>/<run-id>.csv   long ("tidy") rows
    data/results/<machine-id>/<experiment>/<run-id>.json  the run's metadata
    data/results/machines.csv                             aliases: runs stored under an older machine id

Both files are written to a temporary name in the same directory and renamed
into place, the CSV first and the JSON last: a run exists once its JSON does.
A run id is never reused, so saving never overwrites anything; a save that
fails leaves neither a temporary file nor half a run behind.

Every read checks a run's CSV against its JSON: the size and sha256 recorded
since they are (`csv_bytes`, `csv_sha256`), else the row count (`rows`) and a
final newline. A run whose CSV does not match is skipped with a one-line
warning naming the file, never shown.

Machine ids tell hosts apart: a readable part (CPU model, logical CPUs,
memory) and a short hash of stable facts (also the nominal clock and
/etc/machine-id). Runs stored before that, under the readable part alone, are
re-labelled by the alias table machines.csv, one row per run with the facts
that justify it; their files stay byte-identical. A run of an old id that the
table does not list keeps its old id, which is never "this machine".
"""

from __future__ import annotations

import csv
import errno
import hashlib
import io
import json
import math
import os
import platform
import re
import secrets
import socket
import subprocess
import sys
from datetime import datetime, timezone
from functools import lru_cache
from pathlib import Path

import pandas as pd

from . import MechsymError, data_root, repo_root
from .cpus import Topology, read_topology

RUN_ID = re.compile(r"^\d{8}T\d{6}Z-[a-z]+-[0-9a-f]{6}$")
MACHINE_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
EXPERIMENT = re.compile(r"^[a-z][a-z0-9_]{0,63}$")
ALIASES = "machines.csv"
ALIAS_COLUMNS = ("directory", "run_id", "machine_id", "cpu_model", "cpu_mhz", "logical_cpus", "memory_bytes",
                 "kernel", "evidence")
MIN_FREE_BYTES = 64 * 2**20   # a stored run is at most a few MB; refuse to start a sweep with less than this free
MIN_FREE_INODES = 16
PROC = Path("/proc")
SYS_CPU = Path("/sys/devices/system/cpu")
ETC = Path("/etc")


def results_root() -> Path:
    """data/results, or MECHSYM_RESULTS (tests and scratch runs point it elsewhere)."""
    env = os.environ.get("MECHSYM_RESULTS")
    return Path(env) if env else data_root() / "results"


# ---------------------------------------------------------------- machine ids

def check_machine_id(value, what: str = "machine id") -> str:
    """The id itself, or a one-line MechsymError: ids are directory names in the store, never paths."""
    if not isinstance(value, str) or not MACHINE_ID.match(value) or ".." in value:
        raise MechsymError(f"{what} {value!r}: not a machine id; allowed: 1-64 characters a-z 0-9 . _ -, "
                           "starting with a letter or digit, no '..'")
    return value


def check_experiment(name) -> str:
    if not isinstance(name, str) or not EXPERIMENT.match(name):
        raise MechsymError(f"experiment {name!r}: not an experiment name; allowed: a-z 0-9 _, starting with a letter")
    return name


def nominal_mhz(model: str | None = None, proc: Path = PROC, sys_cpu: Path = SYS_CPU) -> tuple[int | None, str]:
    """The CPU's nominal clock in MHz, rounded to 10 MHz so it reads the same on every boot, and where it came from.

    In order: the model name ("... @ 2.60GHz"), cpufreq's cpuinfo_max_freq, the largest "cpu MHz" of
    /proc/cpuinfo (under a hypervisor without cpufreq that is the TSC clock, fixed at boot: 2596.122 and
    2596.124 MHz on two boots of the lab's machine)."""
    if model:
        m = re.search(r"@\s*([0-9]+(?:\.[0-9]+)?)\s*([GM])Hz", model, flags=re.I)
        if m:
            mhz = float(m.group(1)) * (1000 if m.group(2).upper() == "G" else 1)
            return _round10(mhz), "model name"
    for f in (sys_cpu / "cpu0" / "cpufreq" / "cpuinfo_max_freq", sys_cpu / "cpufreq" / "policy0" / "cpuinfo_max_freq"):
        try:
            khz = float(f.read_text().strip())
            if khz > 0:
                return _round10(khz / 1000), "cpufreq max"
        except (OSError, ValueError):
            pass
    values = _cpuinfo_mhz(proc)
    if values:
        return _round10(max(values)), "cpuinfo"
    return None, "unknown"


def _round10(mhz: float) -> int:
    return int(round(mhz / 10.0)) * 10


def _cpuinfo_mhz(proc: Path = PROC) -> list[float]:
    out = []
    try:
        for line in (proc / "cpuinfo").read_text().splitlines():
            if line.startswith("cpu MHz"):
                try:
                    out.append(float(line.split(":", 1)[1]))
                except ValueError:
                    pass
    except OSError:
        pass
    return out


def _machine_id_digest(etc: Path = ETC) -> str | None:
    """/etc/machine-id is confidential (systemd says: hash it per application); only this digest is kept."""
    try:
        raw = (etc / "machine-id").read_text().strip()
    except OSError:
        return None
    return hashlib.sha256(b"mechsym-lab machine:" + raw.encode()).hexdigest()[:16] if raw else None


def machine_facts(topo: Topology | None = None, proc: Path = PROC, sys_cpu: Path = SYS_CPU, etc: Path = ETC) -> dict:
    """The stable facts a machine id is made of (and stored with every run)."""
    topo = topo or read_topology()
    mhz, source = nominal_mhz(topo.model, proc, sys_cpu)
    mem = _mem_bytes(proc)
    return {
        "cpu_model": topo.model,
        "nominal_mhz": mhz,
        "nominal_mhz_source": source,
        "logical_cpus": topo.logical,
        "memory_gib": math.ceil(mem / 2**30) if mem else 0,   # MemTotal is a little under the installed size
        "machine_id_sha": _machine_id_digest(etc),
    }


HASHED_FACTS = ("cpu_model", "nominal_mhz", "logical_cpus", "memory_gib", "machine_id_sha")


def id_from_facts(facts: dict) -> str:
    """<cpu-slug>-<logical>cpu-<mem>g-<hash6>: readable, and different for hosts whose stable facts differ."""
    model = re.sub(r"\(.*?\)|cpu|processor|@.*$|\d+-core", " ", str(facts.get("cpu_model") or ""), flags=re.I)
    slug = re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-")[:32].strip("-") or "cpu"
    digest = hashlib.sha256(json.dumps({k: facts.get(k) for k in HASHED_FACTS}, sort_keys=True).encode()).hexdigest()
    return f"{slug}-{facts.get('logical_cpus')}cpu-{facts.get('memory_gib')}g-{digest[:6]}"


@lru_cache(maxsize=1)
def _own_id() -> str:
    return id_from_facts(machine_facts())


def machine_id(topo: Topology | None = None) -> str:
    """This machine's id (see id_from_facts). MECHSYM_MACHINE overrides it, and is checked like any id."""
    env = os.environ.get("MECHSYM_MACHINE")
    if env is not None and env != "":
        return check_machine_id(env, "MECHSYM_MACHINE")
    return id_from_facts(machine_facts(topo)) if topo is not None else _own_id()


def is_this_machine(machine: str | None) -> bool:
    return bool(machine) and machine == machine_id()


def _mem_bytes(proc: Path = PROC) -> int:
    try:
        for line in (proc / "meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def git_commit() -> str:
    try:
        r = subprocess.run(["git", "-C", str(repo_root()), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
        commit = r.stdout.strip() if r.returncode == 0 else "unknown"
        d = subprocess.run(["git", "-C", str(repo_root()), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True, timeout=10)
        return commit + ("-dirty" if d.stdout.strip() else "")
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"


def machine_info(topo: Topology | None = None) -> dict:
    topo = topo or read_topology()
    facts = machine_facts(topo)
    return {
        "machine_id": check_machine_id(os.environ["MECHSYM_MACHINE"], "MECHSYM_MACHINE")
                      if os.environ.get("MECHSYM_MACHINE") else id_from_facts(facts),
        "facts": facts,
        "hostname": socket.gethostname(),
        "cpu_model": topo.model,
        "logical_cpus": topo.logical,
        "physical_cores": topo.physical,
        "sockets": topo.sockets,
        "smt": topo.smt,
        "memory_bytes": _mem_bytes(),
        "cpu_mhz": cpu_mhz(),
        "kernel": platform.release(),
        "os": platform.platform(),
        "python": platform.python_version(),
    }


def cpu_mhz() -> float | None:
    """This machine's CPU clock as /proc/cpuinfo gives it (the nominal clock under a hypervisor)."""
    values = _cpuinfo_mhz()
    return values[0] if values else None


# ---------------------------------------------------------------- aliases (runs stored under an older id)

def aliases(root: Path | None = None) -> dict[tuple[str, str], dict]:
    """(directory, run id) -> the alias row (machine_id and the facts that justify it), from <root>/machines.csv."""
    path = Path(root or results_root()) / ALIASES
    try:
        st = path.stat()
    except OSError:
        return {}
    return _read_aliases(str(path), st.st_size, st.st_mtime_ns)


@lru_cache(maxsize=8)
def _read_aliases(path: str, _size: int, _mtime: int) -> dict[tuple[str, str], dict]:
    try:
        with open(path, newline="", encoding="utf-8") as f:
            reader = csv.DictReader(f)
            missing = [c for c in ALIAS_COLUMNS if c not in (reader.fieldnames or [])]
            if missing:
                raise MechsymError(f"alias table {path}: missing columns {', '.join(missing)} "
                                   f"(expected {','.join(ALIAS_COLUMNS)})")
            out = {}
            for n, row in enumerate(reader, start=2):
                d, r, m = row["directory"], row["run_id"], row["machine_id"]
                if not (d and MACHINE_ID.match(d) and RUN_ID.match(r or "") and m and MACHINE_ID.match(m)
                        and ".." not in d + m):
                    raise MechsymError(f"alias table {path}: line {n}: needs a directory, a run id and a machine id")
                out[(d, r)] = dict(row)
            return out
    except (OSError, UnicodeDecodeError, csv.Error) as e:
        raise MechsymError(f"alias table {path}: unreadable ({e})") from e


def _index(root: Path) -> list[tuple[str, str, str, Path]]:
    """(machine, directory, experiment, json path) of every stored run, the machine after aliases."""
    if not root.is_dir():
        return []
    alias = aliases(root)
    out = []
    for d in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        for e in sorted(p for p in d.iterdir() if p.is_dir() and not p.name.startswith(".")):
            for j in sorted(e.glob("*.json")):
                if j.name.startswith("."):
                    continue
                row = alias.get((d.name, j.stem))
                out.append((row["machine_id"] if row else d.name, d.name, e.name, j))
    return out


def machines(root: Path | None = None) -> list[str]:
    """Every machine with stored runs (ids after aliases); a directory whose runs are all re-labelled is not one."""
    root = Path(root or results_root())
    if not root.is_dir():
        return []
    index = _index(root)
    found = {m for m, _, _, _ in index}
    with_runs = {d for _, d, _, _ in index}
    found |= {p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".") and p.name not in with_runs}
    return sorted(found)


def machine_label(machine: str, root: Path | None = None) -> str:
    """One line saying whose runs these are: the id, its CPU, clock, CPUs and memory, and whether it is this machine."""
    root = Path(root or results_root())
    if machine == "all":
        return "all stored machines: " + ", ".join(machines(root))
    here = machine_id()
    facts, legacy = None, False
    if machine == here and not os.environ.get("MECHSYM_MACHINE"):
        f = machine_facts()
        facts = (f["cpu_model"], f["nominal_mhz"], f["logical_cpus"], f["memory_gib"])
    else:
        rows = [r for r in aliases(root).values() if r["machine_id"] == machine]
        if rows:
            r = rows[-1]
            mhz = _float(r.get("cpu_mhz"))
            mem = _float(r.get("memory_bytes"))
            facts = (r.get("cpu_model"), _round10(mhz) if mhz else None, r.get("logical_cpus"),
                     math.ceil(mem / 2**30) if mem else None)
        else:
            newest = [j for m, _, _, j in _index(root) if m == machine]
            if newest:
                try:
                    mi = json.loads(max(newest, key=lambda p: p.name).read_text()).get("machine", {})
                except (OSError, ValueError, AttributeError):
                    mi = {}
                f = mi.get("facts") if isinstance(mi.get("facts"), dict) else None
                legacy = f is None
                mhz = f.get("nominal_mhz") if f else (_round10(mi["cpu_mhz"]) if _float(mi.get("cpu_mhz")) else None)
                mem = mi.get("memory_bytes")
                facts = (mi.get("cpu_model"), mhz, mi.get("logical_cpus"),
                         f.get("memory_gib") if f else (math.ceil(mem / 2**30) if isinstance(mem, (int, float)) and mem else None))
    parts = []
    if facts:
        model, mhz, cpus, gib = facts
        parts = [str(model or "unknown CPU")] + ([f"{mhz} MHz"] if mhz else []) + \
                ([f"{cpus} logical CPUs"] if cpus else []) + ([f"{gib} GiB"] if gib else [])
    what = ", ".join(parts) if parts else "no machine facts stored"
    if machine == here:
        whose = "this machine"
    elif legacy:
        whose = "stored under an id from before hosts were told apart; not verified as this machine"
    else:
        whose = "another machine"
    return f"{machine} ({what}): {whose}"


def _float(v) -> float | None:
    try:
        f = float(v)
        return f if f == f else None
    except (TypeError, ValueError):
        return None


# ---------------------------------------------------------------- writing

def now_utc() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def new_run_id(preset: str) -> str:
    return datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ") + f"-{preset}-{secrets.token_hex(3)}"


def _remove(path: Path) -> None:
    """Remove a file if it is there; quietly not when it cannot be (on a read-only file system even unlinking a file
    that is not there fails with EROFS, which must not hide the error being reported)."""
    try:
        path.unlink(missing_ok=True)
    except OSError:
        pass


def _write_synced(path: Path, data: bytes) -> None:
    """Write and fsync a new file; on any failure the file is removed again."""
    try:
        with open(path, "xb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    except BaseException:
        _remove(path)
        raise


def _atomic_write(path: Path, data: bytes | str) -> None:
    if isinstance(data, str):
        data = data.encode("utf-8")
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    _remove(tmp)  # left by a killed process that had this pid
    try:
        _write_synced(tmp, data)
        os.replace(tmp, path)
    finally:
        _remove(tmp)


def _env_note(root: Path) -> str:
    return " (MECHSYM_RESULTS)" if os.environ.get("MECHSYM_RESULTS") and Path(os.environ["MECHSYM_RESULTS"]) == root else ""


def check_space(path: Path, need_bytes: int, what: str) -> None:
    """A one-line MechsymError when the filesystem of `path` has less than need_bytes (or almost no inodes) free."""
    try:
        st = os.statvfs(path)
    except OSError as e:
        raise MechsymError(f"{what}: cannot read its free space ({e.strerror or e})") from e
    if getattr(st, "f_flag", 0) & os.ST_RDONLY:  # said so, not "no room"
        raise MechsymError(f"{what}: is on a read-only file system")
    free = st.f_bavail * st.f_frsize
    if free < need_bytes:
        raise MechsymError(f"{what}: {free / 2**20:.0f} MiB free on its filesystem, needs at least "
                           f"{math.ceil(need_bytes / 2**20)} MiB; free some space first")
    if st.f_files and st.f_favail < MIN_FREE_INODES:
        raise MechsymError(f"{what}: its filesystem has no free inodes ({st.f_favail}); free some first")


def check_writable(experiment: str, machine: str | None = None, root: Path | None = None,
                   need_bytes: int = MIN_FREE_BYTES) -> Path:
    """Before measuring: the run's folder can be created and written, with room to spare.

    Refuses, with one line, a results directory that is a file, read-only, or on a full filesystem, and a bad
    MECHSYM_MACHINE. Creates nothing (save() makes the folders of the run it stores); returns the run's folder."""
    check_experiment(experiment)
    machine = check_machine_id(machine) if machine else machine_id()
    root = Path(root or results_root())
    where = f"results directory {root}{_env_note(root)}"
    if root.exists() and not root.is_dir():
        raise MechsymError(f"{where}: is not a directory; point MECHSYM_RESULTS at a directory")
    folder = root / machine / experiment
    probe_dir = folder  # the nearest folder that exists: nothing is created before a run has something to store
    while not probe_dir.exists():
        probe_dir = probe_dir.parent
    if not probe_dir.is_dir():
        raise MechsymError(f"{where}: {probe_dir} is a file where a folder of runs belongs; nothing measured")
    probe = probe_dir / f".mechsym-probe-{os.getpid()}"
    try:
        _write_synced(probe, b"mechsym write probe\n")
    except OSError as e:
        raise MechsymError(f"{where}: cannot write in {probe_dir} ({e.strerror or e}); nothing measured") from e
    finally:
        _remove(probe)
    check_space(probe_dir, need_bytes, where)
    return folder


def save(experiment: str, rows: pd.DataFrame, meta: dict, machine: str | None = None,
         root: Path | None = None) -> Path:
    """Store one run; returns the JSON path. Never overwrites an existing run.

    The JSON records the CSV's rows, bytes and sha256, which every read checks. Keys of `meta` that start
    with "_" are the caller's own (a noise recorder, a loader's paths) and are not stored."""
    check_experiment(experiment)
    if rows is None or rows.empty:
        raise MechsymError(f"{experiment}: nothing to store (no rows)")
    root = Path(root or results_root())
    machine = check_machine_id(machine or meta.get("machine", {}).get("machine_id") or machine_id())
    if "_noise" in meta and "noise" not in meta:
        from . import noise

        meta = {**meta, "noise": noise.stop(meta)}
    from . import portable

    # paths as the repository or $MECHSYM_SCRATCH name them, never a person's own directories
    meta = portable({k: v for k, v in meta.items() if not str(k).startswith("_")})
    run_id = meta.get("run_id") or new_run_id(meta.get("preset", "run"))
    if not RUN_ID.match(run_id):
        raise MechsymError(f"run id {run_id!r}: not a run id this bench writes (YYYYMMDDTHHMMSSZ-preset-hex6)")
    folder = root / machine / experiment
    csv_path, json_path = folder / f"{run_id}.csv", folder / f"{run_id}.json"
    if csv_path.exists() or json_path.exists():
        raise MechsymError(f"run id {run_id}: already stored in {folder}; runs are never overwritten")
    rows = rows.copy()
    rows.insert(0, "run_id", run_id)
    data = rows.to_csv(index=False).encode("utf-8")
    meta = {**meta, "run_id": run_id, "experiment": experiment, "rows": int(len(rows)),
            "csv_bytes": len(data), "csv_sha256": hashlib.sha256(data).hexdigest(),
            "saved_at": datetime.now(timezone.utc).isoformat()}
    text = json.dumps(meta, indent=2, sort_keys=True, default=str) + "\n"
    csv_placed = False
    try:
        folder.mkdir(parents=True, exist_ok=True)
        _atomic_write(csv_path, data)
        csv_placed = True
        _atomic_write(json_path, text)
    except OSError as e:
        if csv_placed and not json_path.exists():
            csv_path.unlink(missing_ok=True)   # half a run is no run: the CSV goes too
        raise MechsymError(f"run {run_id}: could not be stored in {folder} ({e.strerror or e}); "
                           "nothing stored, earlier runs untouched") from e
    return json_path


# ---------------------------------------------------------------- reading

_warned: set[str] = set()


def _warn(message: str) -> None:
    """A one-line warning on stderr, once per message and process."""
    if message not in _warned:
        _warned.add(message)
        print(f"mechsym: warning: {message}", file=sys.stderr)


def check_csv(meta: dict, csv_path: Path | str | None = None) -> str | None:
    """None when the run's CSV is the one its JSON describes, else a one-line reason naming the file."""
    path = Path(csv_path or meta["_csv"])
    name = Path(meta.get("_json", path.with_suffix(".json"))).name
    try:
        st = path.stat()
    except OSError:
        return f"results file {path} is missing (its metadata {name} is stored); run skipped"
    key = (str(path), st.st_size, st.st_mtime_ns, str(meta.get("rows")), meta.get("csv_bytes"), meta.get("csv_sha256"))
    return _check_csv(key)


@lru_cache(maxsize=256)
def _check_csv(key: tuple) -> str | None:
    path, size, _mtime, rows, nbytes, sha = key
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        return f"results file {path} is unreadable ({e.strerror or e}); run skipped"
    problem = csv_problem(data, rows, nbytes, sha, f"corrupt results file {path}")
    if problem is None:
        from . import rowcheck  # the rows themselves: agreed columns, complete rows, possible values

        bad = rowcheck.problem(data, Path(path).stem, Path(path).parent.name)
        if bad:
            problem = f"results file {path}: {bad}; run skipped"
    return problem


def csv_problem(data: bytes, rows, nbytes=None, sha=None, label: str = "results") -> str | None:
    """Why these CSV bytes are not the ones a sidecar describes (rows, bytes, sha256), or None."""
    if sha is not None:
        if nbytes is not None and len(data) != nbytes:
            return f"{label}: {len(data)} bytes where its metadata records {nbytes} (truncated or changed); run skipped"
        if hashlib.sha256(data).hexdigest() != sha:
            return f"{label}: sha256 differs from the one its metadata records (changed after it was stored); run skipped"
        return None
    if rows in (None, "None"):
        return None  # stored before rows were recorded: nothing to check against
    try:
        want = int(rows)
    except (TypeError, ValueError):
        return f"{label}: its metadata records rows={rows!r}, not a count; run skipped"
    if data and not data.endswith(b"\n"):
        return f"{label}: does not end with a newline (cut mid-line); run skipped"
    try:
        got = sum(1 for _ in csv.reader(io.StringIO(data.decode("utf-8"), newline=""))) - 1
    except (UnicodeDecodeError, csv.Error) as e:
        return f"{label}: not CSV text ({str(e)[:80]}); run skipped"
    if got != want:
        return f"{label}: {max(got, 0)} rows where its metadata records {want} (truncated or changed); run skipped"
    return None


def _read_meta(j: Path) -> dict:
    try:
        meta = json.loads(j.read_text())
    except RecursionError as e:
        raise MechsymError(f"corrupt metadata file {j}: nested too deeply to be a run's metadata") from e
    except (OSError, ValueError) as e:
        raise MechsymError(f"corrupt metadata file {j}: {str(e).splitlines()[0] if str(e) else type(e).__name__}") from e
    if not isinstance(meta, dict) or not isinstance(meta.get("run_id"), str):
        raise MechsymError(f"corrupt metadata file {j}: not a run's metadata (a JSON object with a run_id)")
    problem = _meta_problem(meta, j)
    if problem:
        raise MechsymError(f"corrupt metadata file {j}: not a run's metadata ({problem})")
    return meta


# the keys every reader relies on, and their JSON types, where present
_META_TYPES = {"experiment": str, "preset": str, "status": str, "machine": dict, "rows": int, "csv_bytes": int,
               "csv_sha256": str, "seconds": (int, float), "start": str, "end": str, "saved_at": str,
               "commands": list, "failures": list, "unavailable": list, "jdks": list, "noise": dict}
_JSON_TYPE = {str: "a string", dict: "an object", int: "a whole number", list: "a list", (int, float): "a number"}


def _meta_problem(meta: dict, j: Path) -> str | None:
    """Why a JSON object is not the sidecar of the run stored as `j` (its name and folder), or None."""
    if not RUN_ID.match(meta["run_id"]) or meta["run_id"] != j.stem:
        return f"run_id {meta['run_id'][:80]!r} is not the file's own run id {j.stem!r}"
    if "experiment" not in meta:
        return f"no experiment (its folder says {j.parent.name!r})"
    if meta["experiment"] != j.parent.name:
        return f"experiment {str(meta['experiment'])[:80]!r} is not its folder's {j.parent.name!r}"
    for key, kind in _META_TYPES.items():
        v = meta.get(key)
        if v is not None and (not isinstance(v, kind) or isinstance(v, bool)):
            return f"{key} is {type(v).__name__} {str(v)[:40]!r}, not {_JSON_TYPE[kind]}"
    return None


def default_machine(experiment: str | None = None, root: Path | None = None) -> str | None:
    """This machine if it has stored results (for the experiment), else the machine with the newest run
    (machine_label() says whose runs those are)."""
    root = Path(root or results_root())
    here = machine_id()
    index = [x for x in _index(root) if experiment is None or x[2] == experiment]
    if any(m == here for m, _, _, _ in index):
        return here
    if experiment is not None and (root / here / experiment).is_dir():
        return here
    best, newest = None, ""
    for m, _, _, j in index:
        if j.name > newest:
            best, newest = m, j.name
    return best


def _scan(experiment: str, machine: str | None, root: Path | None, include_incomplete: bool) -> tuple[list[dict], list[str]]:
    root = Path(root or results_root())
    if machine in (None, ""):
        machine = default_machine(experiment, root)
        if machine is None:
            return [], []
    if machine != "all" and machine not in machines(root):
        have = ", ".join(machines(root)) or "none"
        raise MechsymError(f"machine '{machine}': no stored results (stored machines: {have})")
    out, skipped = [], []
    for m, d, e, j in _index(root):
        if e != experiment or (machine != "all" and m != machine):
            continue
        try:
            meta = _read_meta(j)
        except MechsymError as err:  # one bad sidecar skips its own run, never the others
            skipped.append(f"{err}; run skipped")
            continue
        if not include_incomplete and meta.get("status", "complete") != "complete":
            continue
        meta["_json"] = str(j)
        meta["_csv"] = str(j.with_suffix(".csv"))
        meta["_machine"] = m
        meta["_dir"] = d
        problem = check_csv(meta)
        if problem:
            skipped.append(problem)
            continue
        out.append(meta)
    return sorted(out, key=lambda x: (str(x.get("saved_at", "")), x["run_id"])), skipped


def runs(experiment: str, machine: str | None = None, root: Path | None = None,
         include_incomplete: bool = False) -> list[dict]:
    """Metadata of stored runs (oldest first). machine: an id, None (default machine) or 'all'.

    Each carries _json, _csv, _dir (where it is stored) and _machine (its id after aliases). A run whose CSV
    does not match its JSON is left out with a one-line warning."""
    metas, skipped = _scan(experiment, machine, root, include_incomplete)
    for s in skipped:
        _warn(s)
    return metas


def skipped_runs(experiment: str, machine: str | None = None, root: Path | None = None,
                 include_incomplete: bool = False) -> list[str]:
    """Why each run that runs() leaves out was left out (a CSV that does not match its JSON)."""
    return _scan(experiment, machine, root, include_incomplete)[1]


def chosen_runs(experiment: str, machine: str | None = None, root: Path | None = None, preset: str | None = None,
                latest: bool = True, include_incomplete: bool = False) -> list[dict]:
    """The runs load() shows: per machine the newest run of `preset`, or of the most thorough preset stored
    (full > standard > smoke); every run when latest=False. A run whose CSV does not match its JSON is never
    chosen: a warning names it, and when nothing else is left it is the error (MechsymError, one line)."""
    metas, skipped = _scan(experiment, machine, root, include_incomplete)
    if preset:
        metas = [m for m in metas if m.get("preset") == preset]
    if latest and metas:
        keep = []
        for m in sorted({x["_machine"] for x in metas}):
            mine = [x for x in metas if x["_machine"] == m]
            if not preset:
                rank = {"full": 3, "standard": 2, "smoke": 1}
                best = max(rank.get(x.get("preset"), 0) for x in mine)
                mine = [x for x in mine if rank.get(x.get("preset"), 0) == best]
            keep.append(mine[-1])
        metas = keep
    if skipped and not metas:
        raise MechsymError(skipped[0])
    for s in skipped:
        _warn(s)
    return metas


def load(experiment: str, machine: str | None = None, root: Path | None = None,
         preset: str | None = None, latest: bool = True, include_incomplete: bool = False) -> pd.DataFrame:
    """Stored rows of an experiment as one DataFrame (empty when none): the rows of chosen_runs().

    latest=True keeps, per machine, only the newest run of the chosen preset
    (or of the newest preset stored when none is given). Runs whose CSV does not match their JSON are never
    shown: a warning names each; when nothing else is left, the first is the error."""
    metas = chosen_runs(experiment, machine, root, preset, latest, include_incomplete)
    frames = []
    for meta in metas:
        path = Path(meta["_csv"])
        try:
            df = pd.read_csv(path, low_memory=False)
        except Exception as e:
            raise MechsymError(f"corrupt results file {path}: {str(e).splitlines()[0]}") from e
        need = {"run_id", "metric", "value"}
        if not need <= set(df.columns):
            raise MechsymError(f"corrupt results file {path}: missing columns {', '.join(sorted(need - set(df.columns)))}")
        if df.empty:
            raise MechsymError(f"corrupt results file {path}: a header and no rows")
        if not pd.api.types.is_numeric_dtype(df["value"]):
            raise MechsymError(f"corrupt results file {path}: column 'value' is not numeric")
        df["machine"] = meta["_machine"]
        frames.append(df)
    if not frames:
        return pd.DataFrame()
    return pd.concat(frames, ignore_index=True)


def latest_meta(experiment: str, machine: str | None = None, root: Path | None = None) -> dict | None:
    metas = runs(experiment, machine, root)
    return metas[-1] if metas else None
