"""The post's claims as data, and the verdicts: per fork, with intervals, under the post's protocol and the lab's.

Every threshold cites the post's sentence and states how its words are read; the post's own numbers
(data/reference) pass their own claim."""

from __future__ import annotations

import pandas as pd

from ...judge.verdicts import Claim, Rule
from ...judge.requirements import SMT, WAKEUP, Requirement
from .meta import NOTEBOOKS, POST_FILE, REFERENCE

NB = NOTEBOOKS[0]


def _p50(ref: pd.DataFrame, variant: str, stat: str = "rtt_p50") -> float:
    r = ref[(ref["variant"] == variant) & (ref["metric"] == stat)]
    return float(r["value"].iloc[0])


# claim id -> (statistic over the variants' per-fork medians, the variants it reads)
STATS = {
    "pingbuffet.spin-beats-selectnow": (lambda spin, now: now / spin, ["tcp-spin", "tcp-selectnow"]),
    "pingbuffet.selectnow-beats-blocking": (lambda now, block, sel: min(block, sel) / now,
                                            ["tcp-selectnow", "tcp-block", "tcp-select"]),
    "pingbuffet.block-beats-select": (lambda block, sel: sel / block, ["tcp-block", "tcp-select"]),
    "pingbuffet.udp-beats-tcp": (lambda udp, tcp: tcp / udp, ["udp-spin", "tcp-spin"]),
    "pingbuffet.ipc-50x-tcp": (lambda ipc, tcp: tcp / ipc, ["ipc-spin", "tcp-spin"]),
    "pingbuffet.timer-error-50ns": (lambda t: t, ["timer"]),
}


def _from_post(cid: str):
    fn, variants = STATS[cid]
    return lambda ref: fn(*[_p50(ref, v) for v in variants])


# A wake-up common to the blocking variants dilutes their ratio: at a fifth of the post's blocking RTT (13,103 ns)
# the post's own 1.18x still clears 1.05x; a 38 µs floor (a halted vCPU's interrupt) pulls it to ~1.04x.
BLOCKING_WAKEUP = Requirement(WAKEUP, effect_ns=13_103)

CLAIMS = [
    Claim("pingbuffet.spin-beats-selectnow", POST_FILE, NB,
          "Over TCP, busy spinning on a non-blocking socket answers faster than spinning on Selector.selectNow().",
          "median RTT 6,784 ns (busy spin) vs 9,617 ns (selectNow): 1.42x",
          "median RTT per fork of each, pinned cross-core; selectNow over busy spin, a ratio of medians over forks",
          quote="TCP busy-spin, 6244, 6784, ... TCP select-now, 8858, 9617, ... The numbers may differ, but the "
                "relative performance should be fairly similar.",
          rule=Rule(">=", 1.05, effect=0.05, reading="the order of the post's table: selectNow's median at least 5% "
                    "above busy spin's"),
          statistic="selectNow median RTT / busy-spin median RTT", unit="x", reference=REFERENCE,
          from_post=_from_post("pingbuffet.spin-beats-selectnow")),
    Claim("pingbuffet.selectnow-beats-blocking", POST_FILE, NB,
          "Spinning on selectNow beats blocking: both blocking sockets and a blocking select() are slower.",
          "9,617 ns (selectNow) vs 13,103 (blocking socket) and 15,426 (select): the faster of the two 1.36x",
          "median RTT per fork, pinned cross-core; the faster blocking variant over selectNow",
          quote="TCP select-now, 8858, 9617, ... TCP block, 10696, 13103, ... TCP select, 13425, 15426, ...",
          rule=Rule(">=", 1.05, effect=0.05, reading="the order of the post's table: both blocking variants' medians "
                    "at least 5% above selectNow's"),
          statistic="min(blocking, select) median RTT / selectNow median RTT", unit="x", reference=REFERENCE,
          from_post=_from_post("pingbuffet.selectnow-beats-blocking"),
          requires=(BLOCKING_WAKEUP,)),
    Claim("pingbuffet.block-beats-select", POST_FILE, NB,
          "Of the two blocking variants, blocking sockets answer faster than a blocking select().",
          "13,103 ns (blocking socket) vs 15,426 ns (select) at the median: 1.18x",
          "median RTT per fork of each, pinned cross-core; select over blocking socket (the order of the post's "
          "table, judged on its own rather than folded into a min())",
          quote="TCP block, 10696, 13103, ... TCP select, 13425, 15426, ...",
          rule=Rule(">=", 1.05, effect=0.05, reading="the order of the post's table: select's median at least 5% "
                    "above the blocking socket's (the smallest effect that matters; the post's own 1.18 clears it)"),
          statistic="select median RTT / blocking-socket median RTT", unit="x", reference=REFERENCE,
          from_post=_from_post("pingbuffet.block-beats-select"),
          requires=(BLOCKING_WAKEUP,)),
    Claim("pingbuffet.udp-beats-tcp", POST_FILE, NB,
          "UDP busy spin answers faster than TCP busy spin.",
          "5,224 ns vs 6,784 ns at the median: TCP / UDP = 1.30",
          "median RTT per fork of each, pinned cross-core; TCP over UDP",
          quote="UDP busy-spin, 4597, 5224, ... TCP busy-spin, 6244, 6784, ...",
          rule=Rule(">=", 1.05, effect=0.05, reading="the order of the post's table: TCP's median at least 5% above "
                    "UDP's"),
          statistic="TCP busy-spin median RTT / UDP busy-spin median RTT", unit="x", reference=REFERENCE,
          from_post=_from_post("pingbuffet.udp-beats-tcp")),
    Claim("pingbuffet.ipc-50x-tcp", POST_FILE, NB,
          "IPC through shared memory (a memory-mapped file) answers far faster than TCP at the median: 53x in the "
          "post's table ('about 50x' is the lab's reading of it; the post gives no factor).",
          "127 ns vs 6,784 ns: 53x",
          "median RTT per fork of each, pinned cross-core; TCP busy spin over IPC busy spin",
          quote="IPC busy-spin, 89, 127, ... TCP busy-spin, 6244, 6784, ...",
          rule=Rule("between", 25, 100, reading="the lab's reading of the table (53x, "
                    "the post states no factor) read generously as a factor of two either way: 25-100x"),
          statistic="TCP busy-spin median RTT / IPC busy-spin median RTT", unit="x", reference=REFERENCE,
          from_post=_from_post("pingbuffet.ipc-50x-tcp")),
    Claim("pingbuffet.timer-error-50ns", POST_FILE, NB,
          "Timing an empty loop (no ping) shows System.nanoTime()'s own error: 50 ns at the median in the post's row "
          "('about 50 ns' is the lab's reading; the post gives the row, not a figure).",
          "ErrPingClient: 38 / 50 / 55 / 56 / 59 / 80 / 8,919 ns (min .. max)",
          "median 'RTT' of an empty loop per fork, client pinned",
          quote="I added an ErrPingClient which runs the test loop with no actual ping logic, the result: "
                "Min, 50%, ... 38, 50, 55, ...",
          rule=Rule("between", 25, 100, reading="the post's 50 ns median (the lab's reading of its row) read as a factor "
                    "of two either way: 25-100 ns"),
          statistic="median of an empty timed loop", unit="ns", reference=REFERENCE,
          from_post=_from_post("pingbuffet.timer-error-50ns")),
    Claim("pingbuffet.average-is-not-latency", POST_FILE, NB,
          "Average latency is not latency: the mean round trip describes neither the typical ping nor the tail. "
          "The post makes a methodological point; the ratio and its 1.1 threshold are the lab's rule.",
          "the post reports no mean on purpose (its example: half at 0.0001 ms, half at 99.9999 ms, average 50 ms)",
          "TCP busy spin pinned cross-core, per fork: mean RTT over median RTT (the mean is shown beside p50 and "
          "p99.9)",
          quote="The keen observer will notice that average latency is not reported. Average latency is not "
                "latency. ... An average is a completely inappropriate tool for measuring latency.",
          rule=Rule(">=", 1.1, reading="the mean misdescribes the typical ping when the tail pulls it at least 10% "
                    "above the median (the p99.9 beside it says what it hides)"),
          statistic="mean RTT / median RTT (TCP busy spin)", unit="x",
          no_ratio="the post gives no mean to compare with", source="lab"),
    Claim("pingbuffet.ipc-same-core-faster", POST_FILE, NB,
          "For IPC, pinning both ends to the same core (different threads) gives better results than across cores.",
          "the post gives no same-core row; its sentence is the claim",
          "median RTT per fork, IPC busy spin on two SMT siblings of one core against two cores; where the machine "
          "has no SMT siblings, the yielding IPC ping on one CPU stands in (labelled so)",
          quote="For IPC you'll get better results when pinning to the same core (different threads) but worse tail.",
          rule=Rule(">=", 1.05, effect=0.05, reading="by at least 5% (the smallest effect that matters); "
                    "'better results' read as a lower median: cross-core's median above same-core's"),
          statistic="cross-core median RTT / same-core median RTT (IPC)", unit="x",
          no_ratio="the post gives no same-core figure",
          requires=(Requirement(SMT),)),
    Claim("pingbuffet.ipc-same-core-worse-tail", POST_FILE, NB,
          "For IPC, the same core (different threads) has the worse tail.",
          "the post gives no same-core row; its sentence is the claim",
          "99th percentile RTT per fork, same placements as the claim above (p99: the tail every preset's runs "
          "support with at least 100 samples beyond it)",
          quote="For IPC you'll get better results when pinning to the same core (different threads) but worse tail.",
          rule=Rule(">=", 1.05, effect=0.05, reading="by at least 5% (the smallest effect that matters); "
                    "'worse tail' read as a higher p99: same-core's above cross-core's"),
          statistic="same-core p99 RTT / cross-core p99 RTT (IPC)", unit="x",
          no_ratio="the post gives no same-core figure",
          requires=(Requirement(SMT),)),
    Claim("pingbuffet.sockets-best-cross-core", POST_FILE, NB,
          "For TCP and UDP the best results are across different cores (on one socket), not on one core.",
          "the post gives no same-core socket row; its sentence is the claim",
          "median RTT per fork, TCP and UDP busy spin on SMT siblings against two cores (both must hold); where the "
          "machine has no SMT siblings, the blocking TCP ping on one CPU stands in (labelled so)",
          quote="For TCP/UDP the best results I observed were across different cores on same socket.",
          rule=Rule(">=", 1.05, effect=0.05, reading="by at least 5% (the smallest effect that matters); "
                    "'best results' read as the lowest median: same-core's median above "
                    "cross-core's, for every socket transport measured"),
          statistic="same-core median RTT / cross-core median RTT (least over TCP, UDP)", unit="x",
          no_ratio="the post gives no same-core figure",
          requires=(Requirement(SMT),)),
]
CLAIM = {c.id: c for c in CLAIMS}
