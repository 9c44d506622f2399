"""This machine's identity: the stable facts its id is made of, the id, what a run records about the host, and the
one-line label saying whose stored runs are shown.

Machine ids tell hosts apart: a readable part (CPU model, logical CPUs, memory) and a short hash of stable facts:
the nominal clock, /etc/machine-id and (since identity v2) the CPU itself as cpuid reports it: vendor, family, model,
stepping, cache sizes per level, SMT and the flags that change what a kernel measures (AVX-512, constant TSC,
hypervisor). VMs cloned from one image on hosts of different CPUs are different machines. The kernel release,
microcode and hypervisor are recorded with every run but not hashed: they change under one machine, and a page
shows them beside the runs they concern. Runs stored before that, under the readable part alone, are re-labelled by
the alias table (layout.py).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import platform
import re
import socket
import subprocess
from functools import lru_cache
from pathlib import Path

from .. import MechsymError, repo_root
from .cpus import Topology, read_topology

PROC = Path("/proc")
SYS_CPU = Path("/sys/devices/system/cpu")
ETC = Path("/etc")


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


#: The cpuid flags recorded with a machine (and hashed into its id): each changes what some kernel measures.
FLAGS = ("avx512f", "constant_tsc", "nonstop_tsc", "hypervisor", "ht")


def cpu_identity(proc: Path = PROC, sys_cpu: Path = SYS_CPU) -> dict:
    """The CPU as cpuid reports it (the first processor of /proc/cpuinfo) and its caches (sysfs): vendor, family,
    model, stepping, microcode, the flags of FLAGS present, and the size of each cache level ("L1d": "32K", ...)."""
    info: dict[str, str] = {}
    try:
        for line in (proc / "cpuinfo").read_text(errors="replace").splitlines():
            if not line.strip():
                if info:
                    break
                continue
            key, _, value = line.partition(":")
            info.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    flags = set(info.get("flags", "").split())
    caches = {}
    for index in sorted((sys_cpu / "cpu0" / "cache").glob("index*")):
        try:
            level = (index / "level").read_text().strip()
            kind = (index / "type").read_text().strip()
            size = (index / "size").read_text().strip()
        except OSError:
            continue
        name = f"L{level}" + {"Data": "d", "Instruction": "i"}.get(kind, "")
        caches[name] = size
    return {
        "cpu_vendor": info.get("vendor_id"),
        "cpu_family": info.get("cpu family"),
        "cpu_model_number": info.get("model"),
        "cpu_stepping": info.get("stepping"),
        "microcode": info.get("microcode"),
        "cpu_flags": sorted(f for f in FLAGS if f in flags),
        "caches": caches,
    }


def hypervisor(sys: Path = Path("/sys")) -> str | None:
    """The hypervisor, as the guest sees it: /sys/hypervisor/type, else the DMI product (e.g. "KVM", "Firecracker"),
    else None (bare metal, or a hypervisor that does not say)."""
    for f in (sys / "hypervisor" / "type", sys / "class" / "dmi" / "id" / "product_name",
              sys / "class" / "dmi" / "id" / "sys_vendor"):
        try:
            value = f.read_text(errors="replace").strip()
        except OSError:
            continue
        if value:
            return value[:80]
    return None


def machine_facts(topo: Topology | None = None, proc: Path = PROC, sys_cpu: Path = SYS_CPU, etc: Path = ETC) -> dict:
    """The facts a machine id is made of (HASHED_FACTS), and those recorded beside them (microcode, kernel,
    hypervisor), stored with every run."""
    topo = topo or read_topology()
    mhz, source = nominal_mhz(topo.model, proc, sys_cpu)
    mem = _mem_bytes(proc)
    return {
        "identity_version": IDENTITY_VERSION,
        "cpu_model": topo.model,
        "nominal_mhz": mhz,
        "nominal_mhz_source": source,
        "logical_cpus": topo.logical,
        "smt": bool(topo.smt),
        "sockets": topo.sockets,
        "memory_gib": math.ceil(mem / 2**30) if mem else 0,   # MemTotal is a little under the installed size
        "machine_id_sha": _machine_id_digest(etc),
        **cpu_identity(proc, sys_cpu),
        "kernel": platform.release(),
        "hypervisor": hypervisor(),
    }


#: Bump when the facts hashed into an id change: this machine's id changes with it (runs stored under the old id
#: keep it; they are shown as from before hosts were told apart by their CPU).
IDENTITY_VERSION = 2
HASHED_FACTS = ("cpu_model", "nominal_mhz", "logical_cpus", "memory_gib", "machine_id_sha",
                "cpu_vendor", "cpu_family", "cpu_model_number", "cpu_stepping", "caches", "cpu_flags", "smt", "sockets")
#: What the id of identity v1 hashed (kept to tell a v1 id from the facts a run recorded).
HASHED_FACTS_V1 = ("cpu_model", "nominal_mhz", "logical_cpus", "memory_gib", "machine_id_sha")


def id_from_facts(facts: dict) -> str:
    """<cpu-slug>-<logical>cpu-<mem>g-<hash6>: readable, and different for hosts whose stable facts differ."""
    model = re.sub(r"\(.*?\)|cpu|processor|@.*$|\d+-core", " ", str(facts.get("cpu_model") or ""), flags=re.I)
    slug = re.sub(r"[^a-z0-9]+", "-", model.lower()).strip("-")[:32].strip("-") or "cpu"
    hashed = HASHED_FACTS if facts.get("identity_version", 1) >= 2 else HASHED_FACTS_V1
    digest = hashlib.sha256(json.dumps({k: facts.get(k) for k in hashed}, sort_keys=True).encode()).hexdigest()
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
        "microcode": facts.get("microcode"),
        "hypervisor": facts.get("hypervisor"),
        "kernel": platform.release(),
        "os": platform.platform(),
        "python": platform.python_version(),
    }


def cpu_mhz() -> float | None:
    """This machine's CPU clock as /proc/cpuinfo gives it (the nominal clock under a hypervisor)."""
    values = _cpuinfo_mhz()
    return values[0] if values else None



def _float(v) -> float | None:
    try:
        f = float(v)
        return f if f == f else None
    except (TypeError, ValueError):
        return None


# ---------------------------------------------------------------- names

MACHINE_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


def check_machine_id(value, what: str = "machine id") -> str:
    """The id itself, or a one-line MechsymError: ids are directory names in the store, never paths."""
    if not isinstance(value, str) or not MACHINE_ID.match(value) or ".." in value:
        raise MechsymError(f"{what} {value!r}: not a machine id; allowed: 1-64 characters a-z 0-9 . _ -, "
                           "starting with a letter or digit, no '..'")
    return value
