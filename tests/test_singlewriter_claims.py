"""The single-writer claims that read more than the table's medians: the contended lock over a volatile increment,
a contended CAS in cycles at the run's recorded clock, and the CAS forks with their failed-CAS counts (kernel and
table). Synthetic rows; one short kernel run. No test asserts a timing."""

import pandas as pd
import pytest

from conftest import run_kernel
from mechsym.store import runs as store
from mechsym.experiments import singlewriter as exp
from mechsym.experiments.singlewriter.rows import post_mhz
from mechsym.judge.verdicts import FAILS, HOLDS, UNMEASURABLE
from test_singlewriter_experiment import post_like, synthetic


ONE = ("17",)


def _by(vs, cid):
    return {(v.protocol, v.scope["jdk"]): v for v in vs if v.claim.id == cid}


def test_lock_contention_is_read_against_a_volatile_increment_not_the_plain_loop():
    """The plain row (how C2 compiles an empty loop) no longer moves the verdict; the volatile increment does."""
    ns = post_like()
    folded = {**ns, ("plain", 1): ns[("plain", 1)] / 50}
    a = _by(exp.verdicts(synthetic(ns, jdks=ONE, post_too=False)), "singlewriter.lock-contention-orders")
    b = _by(exp.verdicts(synthetic(folded, jdks=ONE, post_too=False)), "singlewriter.lock-contention-orders")
    assert a[("lab", "17")].outcome == b[("lab", "17")].outcome == HOLDS
    assert a[("lab", "17")].now_value == pytest.approx(b[("lab", "17")].now_value, rel=0.05)
    cheap = {**ns, ("lock", 2): ns[("barrier", 1)] * 5}
    assert _by(exp.verdicts(synthetic(cheap, jdks=ONE, post_too=False)), "singlewriter.lock-contention-orders")[("lab", "17")].outcome == FAILS


def test_contended_cas_cycles_at_the_runs_clock(monkeypatch):
    monkeypatch.setattr(store, "run_clocks", lambda name, df: {"r1": 2400.0})
    v = _by(exp.verdicts(synthetic(post_like(), jdks=ONE)), "singlewriter.contended-cas-cycles")
    assert v[("post", "17")].outcome == HOLDS and v[("post", "17")].now_value == pytest.approx(172.8, rel=0.05)
    assert "2,400 MHz" in v[("lab", "17")].now
    fast = {**post_like(), ("cas", 2): 10.0}   # 10 ns x 2 threads x 2.4 GHz = 48 cycles
    vs = exp.verdicts(synthetic(fast, jdks=ONE, post_too=False))
    assert _by(vs, "singlewriter.contended-cas-cycles")[("lab", "17")].outcome == FAILS
    monkeypatch.setattr(store, "run_clocks", lambda name, df: {})
    v = _by(exp.verdicts(synthetic(post_like(), jdks=ONE, post_too=False)), "singlewriter.contended-cas-cycles")
    assert v[("lab", "17")].outcome == UNMEASURABLE and "clock" in v[("lab", "17")].why


def test_the_post_clock_is_read_from_its_reference():
    from mechsym.store import reference
    ref = reference.load(exp.REFERENCE)
    assert post_mhz(ref) == 2400
    with pytest.raises(ValueError, match="clock"):
        post_mhz(ref.assign(cpu="Westmere"))


def test_cas_forks_table_pairs_each_forks_time_with_its_failures():
    df = synthetic(post_like(), jdks=("17",))
    cas2 = df[(df["variant"] == "cas") & (df["threads"] == 2) & (df["metric"] == "ns_per_op")]
    fails = cas2.assign(metric="cas_failures_per_op", unit="ratio", value=cas2["fork"] * 0.05 + 0.01)
    ns = cas2.assign(value=10 + cas2["fork"] * 2.0)
    other = df.drop(cas2.index)
    t = exp.cas_forks_table(pd.concat([other, ns, fails], ignore_index=True))
    assert set(t["protocol"]) == {"post", "lab"} and set(t["rank correlation"]) == {"+1.00"}
    assert "(0.010)" in t["every fork: ns per increment (failed CAS per increment), by ns"].iloc[0]
    assert exp.cas_forks_table(df).empty   # no failure counts (runs before the kernel counted them): no table


@pytest.mark.kernel
def test_the_cas_kernel_counts_failed_attempts_zero_for_one_thread():
    rows = run_kernel(exp.sweep.KERNEL, "--method=cas", "--threads=1", "--iterations=20000", "--runs=2",
                      "--warmup-runs=0")
    f = rows[rows["metric"] == "cas_failures_per_op"]
    assert len(f) == 2 and (f["value"] == 0).all() and set(f["unit"]) == {"ratio"}
    plain = run_kernel(exp.sweep.KERNEL, "--method=barrier", "--iterations=20000", "--runs=1", "--warmup-runs=0")
    assert "cas_failures_per_op" not in set(plain["metric"])
