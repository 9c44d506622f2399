"""A machine is its hardware: two hosts whose CPUs differ in family, model or stepping (or caches, SMT, the flags
that change a measurement) get two ids, even when the VM image, the model name, the memory and /etc/machine-id are
the same; the kernel release and microcode are recorded beside the id, never hashed into it."""

from __future__ import annotations

from pathlib import Path

import pytest

from mechsym.machine import identity
from mechsym.machine.cpus import Cpu, Topology

CPUINFO = """processor\t: {n}
vendor_id\t: AuthenticAMD
cpu family\t: {family}
model\t\t: {model}
model name\t: AMD EPYC
stepping\t: {stepping}
microcode\t: {microcode}
cpu MHz\t\t: 2596.124
flags\t\t: fpu constant_tsc nonstop_tsc hypervisor{extra}

"""


def host(tmp_path: Path, name: str, family="25", model="1", stepping="1", microcode="0x1000065", extra="",
         l2="512K") -> dict:
    """The facts of a fake host: /proc/cpuinfo, the caches in sysfs and /etc/machine-id under tmp_path/name."""
    root = tmp_path / name
    (root / "proc").mkdir(parents=True)
    (root / "proc" / "cpuinfo").write_text("".join(CPUINFO.format(n=n, family=family, model=model, stepping=stepping,
                                                                  microcode=microcode, extra=extra) for n in (0, 1)))
    (root / "proc" / "meminfo").write_text("MemTotal:       24683600 kB\n")
    for i, (level, kind, size) in enumerate((("1", "Data", "32K"), ("1", "Instruction", "32K"), ("2", "Unified", l2),
                                             ("3", "Unified", "32768K"))):
        d = root / "sys" / "cpu0" / "cache" / f"index{i}"
        d.mkdir(parents=True)
        (d / "level").write_text(level)
        (d / "type").write_text(kind)
        (d / "size").write_text(size)
    (root / "etc").mkdir()
    (root / "etc" / "machine-id").write_text("0123456789abcdef0123456789abcdef\n")   # one image, cloned
    topo = Topology(cpus=(Cpu(0, 0, 0), Cpu(1, 1, 0)), model="AMD EPYC")
    return identity.machine_facts(topo, proc=root / "proc", sys_cpu=root / "sys", etc=root / "etc")


def test_the_cpu_is_read_from_cpuid_and_sysfs(tmp_path):
    f = host(tmp_path, "a", extra=" avx512f")
    assert (f["cpu_vendor"], f["cpu_family"], f["cpu_model_number"], f["cpu_stepping"]) == ("AuthenticAMD", "25",
                                                                                             "1", "1")
    assert f["microcode"] == "0x1000065" and f["caches"] == {"L1d": "32K", "L1i": "32K", "L2": "512K", "L3": "32768K"}
    assert f["cpu_flags"] == ["avx512f", "constant_tsc", "hypervisor", "nonstop_tsc"]


@pytest.mark.parametrize("change", [dict(family="23"), dict(model="17"), dict(stepping="2"), dict(l2="1024K"),
                                    dict(extra=" avx512f")],
                         ids=["family", "model", "stepping", "caches", "flags"])
def test_different_hardware_is_another_machine(tmp_path, change):
    a, b = host(tmp_path, "a"), host(tmp_path, "b", **change)
    assert identity.id_from_facts(a) != identity.id_from_facts(b)


def test_a_microcode_or_kernel_change_keeps_the_machine_and_is_recorded(tmp_path):
    a = host(tmp_path, "a")
    b = host(tmp_path, "b", microcode="0x1000066")
    b["kernel"] = "7.0.0-other"
    assert identity.id_from_facts(a) == identity.id_from_facts(b)
    assert a["microcode"] != b["microcode"]


def test_an_id_of_identity_v1_is_still_recomputed_from_its_facts(tmp_path):
    """Runs stored before identity v2 recorded v1 facts: their id is what those facts gave then."""
    f = host(tmp_path, "a")
    v1 = {k: f[k] for k in identity.HASHED_FACTS_V1}
    assert identity.id_from_facts(v1) != identity.id_from_facts(f)
    assert identity.id_from_facts(v1) == identity.id_from_facts({**v1, "cpu_family": "99"})   # v1 never hashed it
