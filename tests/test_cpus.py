from pathlib import Path

import pytest

from mechsym import MechsymError
from mechsym.machine.cpus import parse_cpu_list, read_topology


def fake_sys(root: Path, cpus: list[tuple[int, int, int]], online: str | None = None) -> Path:
    """cpus: (id, core_id, physical_package_id)."""
    for cpu, core, socket in cpus:
        t = root / f"cpu{cpu}" / "topology"
        t.mkdir(parents=True)
        (t / "core_id").write_text(f"{core}\n")
        (t / "physical_package_id").write_text(f"{socket}\n")
    if online is not None:
        (root / "online").write_text(online + "\n")
    return root


def test_parse_cpu_list():
    assert parse_cpu_list("0-3,8,10-11\n") == [0, 1, 2, 3, 8, 10, 11]
    assert parse_cpu_list("0") == [0]
    assert parse_cpu_list("") == []


def test_two_cores_no_smt(tmp_path):
    topo = read_topology(fake_sys(tmp_path, [(0, 0, 0), (1, 1, 0)], "0-1"))
    assert (topo.logical, topo.physical, topo.sockets, topo.smt) == (2, 2, 1, False)
    assert topo.placement("same-cpu") == [0, 0]
    assert topo.placement("cross-core") == [0, 1]
    assert topo.placement("smt") is None
    assert topo.placement("cross-socket") is None
    assert topo.placement("unpinned") == []
    assert "SMT" in topo.missing_reason("smt")


def test_smt_two_sockets(tmp_path):
    # 2 sockets x 2 cores x 2 threads; Linux numbers siblings far apart (cpu0 & cpu4 share core 0)
    cpus = []
    for cpu in range(8):
        socket = (cpu % 4) // 2
        core = cpu % 2
        cpus.append((cpu, core, socket))
    topo = read_topology(fake_sys(tmp_path, cpus, "0-7"))
    assert (topo.logical, topo.physical, topo.sockets, topo.smt) == (8, 4, 2, True)
    assert topo.placement("smt") == [0, 4]
    assert topo.placement("cross-core") == [0, 1]
    assert topo.placement("cross-socket") == [0, 2]


def test_offline_cpus_are_left_out(tmp_path):
    topo = read_topology(fake_sys(tmp_path, [(0, 0, 0), (1, 1, 0), (2, 2, 0)], "0,2"))
    assert topo.ids == [0, 2]


def test_missing_topology_files_fall_back(tmp_path):
    (tmp_path / "cpu0").mkdir()
    (tmp_path / "cpu1").mkdir()
    topo = read_topology(tmp_path)
    assert topo.logical == 2 and topo.sockets == 1


def test_unknown_placement_and_cpu_ids(tmp_path):
    topo = read_topology(fake_sys(tmp_path, [(0, 0, 0), (1, 1, 0)], "0-1"))
    with pytest.raises(MechsymError, match="placement 'far-away': allowed placements are"):
        topo.placement("far-away")
    with pytest.raises(MechsymError, match="CPU ids 5: this machine has CPUs 0,1"):
        topo.check_ids([0, 5])


def test_empty_tree(tmp_path):
    with pytest.raises(MechsymError, match="no CPUs found"):
        read_topology(tmp_path)


def test_this_machine():
    topo = read_topology()
    assert topo.logical >= 1 and topo.physical >= 1
