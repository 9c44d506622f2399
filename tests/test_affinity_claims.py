"""Processor affinity's claims: one protocol and one verdict per claim, the first second left out, 'greatest
throughput' decided against a smallest effect of 5%, and one fork's seconds shown sender beside receiver.
Synthetic rows only; no test asserts a timing."""

import pandas as pd

from mechsym.experiments import affinity as exp
from mechsym.judge.verdicts import FAILS, HOLDS


def rows(levels, forks=5, seconds=8, first=1.0):
    """levels: placement -> rate; each fork's seconds level but the first (x first), receiver and sender alike."""
    out = []
    for placement, rate in levels.items():
        for fork in range(forks):
            for s in range(seconds):
                v = rate * (1 + 0.002 * fork) * (first if s == 0 else 1 + 0.001 * (s % 3))
                for role in ("sender", "receiver"):
                    out.append(dict(run_id="r", experiment="affinity", variant="multicast", role=role,
                                    placement=placement, fork=fork, iteration=s, warmup=False, metric="rate",
                                    value=v * (1.01 if role == "sender" else 1), unit="msg/s", status="ok", note="",
                                    machine="m"))
    return pd.DataFrame(out)


def verdict(df, claim):
    vs = [v for v in exp.verdicts(df) if v.claim.id == f"affinity.{claim}"]
    assert len(vs) == 1 and vs[0].protocol == "post"   # one data set, one verdict
    return vs[0]


def test_one_protocol_one_verdict_per_claim():
    assert [p.name for p in exp.PROTOCOLS] == ["post"]
    assert len(exp.verdicts(rows({"cross-core": 2e5, "unpinned": 2e5}))) == len(exp.CLAIMS)


def test_greatest_throughput_needs_the_smallest_effect():
    assert verdict(rows({"cross-core": 2.2e5, "unpinned": 2e5}), "pinned-greatest-throughput").outcome == HOLDS
    assert verdict(rows({"cross-core": 2.04e5, "unpinned": 2e5}), "pinned-greatest-throughput").outcome == FAILS


def test_the_first_second_does_not_vote():
    slow_start = rows({"cross-core": 2.2e5, "unpinned": 2e5}, first=0.1)
    v = verdict(slow_start, "pinned-greatest-throughput")
    assert v.outcome == HOLDS and v.now.startswith("1.1")
    assert verdict(slow_start, "pinned-steadier").now == verdict(rows({"cross-core": 2.2e5, "unpinned": 2e5}),
                                                                 "pinned-steadier").now


def test_a_forks_trace_puts_the_sender_beside_the_receiver():
    t = exp.trace(rows({"cross-core": 2e5}), "cross-core", 1)
    assert list(t.columns) == ["sender", "receiver"] and len(t) == 8
    assert (t["sender"] / t["receiver"]).round(6).eq(1.01).all()
