"""The JMH twins of the signalling, spsc and disruptor kernels: their @Param values are the kernels' names, and each
experiment's `--protocol jmh` cells name them. (They run briefly in tests/test_jmh.py's smoke test.)"""

from __future__ import annotations

import re
from pathlib import Path

from mechsym import experiments
from mechsym.run import jmh
from mechsym.jmh import claims as jmh_claims
from mechsym.machine.jdk import Jdk

ROOT = Path(__file__).resolve().parents[1]
JDK = Jdk(home=Path("/opt/jdk-17"), feature=17, version="17.0.15", vendor="test")


def params(cls: str) -> list[str]:
    text = (ROOT / "jmh-src" / "mechsym" / "jmh" / f"{cls}.java").read_text()
    [values] = re.findall(r"@Param\(\{([^}]*)\}\)", text)
    return re.findall(r'"([^"]+)"', values)


def kernel_list(path: str, name: str) -> list[str]:
    text = (ROOT / "java-src" / "mechsym" / path).read_text()
    m = re.search(name + r"\s*=\s*List\.of\(([^)]*)\)", text)
    return re.findall(r'"([^"]+)"', m.group(1))


def test_spsc_queues_are_the_kernels_queues_and_the_blocking_adapter():
    assert params("SpscQueues") == kernel_list("spsc/SpscQueue.java", "NAMES") + ["abq"]
    cells = jmh.cells(experiments.get("spsc"), "jmh", "standard", None, [JDK])
    spsc = experiments.get("spsc").sweep
    assert [c.variant for c in cells] == spsc.PRESETS["standard"]["queues"]
    assert all(c.flags == spsc.OPTION_SETS[spsc.MAIN_OPTIONS][0] and c.labels["options"] == spsc.MAIN_OPTIONS
               and c.params["threads"] == 2 for c in cells)


def test_disruptor_channels_are_the_kernels_channel_names():
    channels = params("RingBufferVsQueue")
    assert set(channels) <= set(kernel_list("disruptor/DisruptorThroughput.java", "CHANNELS"))
    cells = jmh.cells(experiments.get("disruptor"), "jmh", "standard", None, [JDK])
    assert {c.variant for c in cells} <= set(channels) and {"disruptor-yielding", "abq"} <= {c.variant for c in cells}
    assert all(c.params["channel"] == c.variant and c.params["threads"] == 1 for c in cells)


def test_signalling_has_the_lock_and_condition_twin_beside_the_volatile_one():
    cells = {c.variant: c for c in jmh.cells(experiments.get("signalling"), "jmh", "standard", None, [JDK])}
    assert set(cells) == {"locked", "volatile-spin", "volatile-yield"}
    assert cells["locked"].kernel == "jmh:mechsym.jmh.LockedPingPong.pingpong"
    assert cells["locked"].labels["mechanism"] == "lock+condition" and cells["locked"].params["threads"] == 2
    assert params("PingPong") == ["volatile-spin", "volatile-yield"]


def test_every_new_claim_sub_row_names_cells_of_its_experiments_jmh_sweep():
    for claim_id in ("signalling.lock-1000x-volatile", "spsc.i4-10pct-faster", "disruptor.order-of-magnitude-over-queue",
                     "disruptor.beats-lock-free-queue"):
        how = jmh_claims.CLAIM_CELLS[claim_id]
        variants = {c.variant for c in jmh.cells(experiments.get(how.experiment), "jmh", "standard", None, [JDK])}
        assert {c["variant"] for c in how.cells} <= variants, claim_id
