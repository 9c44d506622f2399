"""The posts' claims as data, and the verdicts: per fork, with intervals, per runtime, under both protocols.

Every threshold cites the post's sentence and states how its words are read; the post's own table
(data/reference) passes its own claims (`claim.rule.holds_at(claim.then_value())`)."""

from __future__ import annotations


from ...judge.verdicts import Claim, Rule
from .meta import POST_FILE_BARRIERS, POST_FILE, REFERENCE
from .rows import post_cycles, post_ms
from .sweep import TABLE

NB = "10-single-writer"
KEYS = list(TABLE)
# The table's order as the post shows it, step by step (slower / faster, each above 1): one thread plain <
# barrier < CAS < lock; two threads slower than one, for CAS and for the lock; the contended lock the slowest.
STEPS = [("barrier", "one-thread"), ("cas", "barrier"), ("lock", "cas"), ("cas-2", "cas"), ("lock-2", "lock"),
         ("lock-2", "cas-2")]


def _smallest_step(*meds: float) -> float:
    v = dict(zip(KEYS, meds))
    return min(v[a] / v[b] for a, b in STEPS)


def _contended_over_uncontended(*meds: float) -> float:
    v = dict(zip(KEYS, meds))
    return min(v["cas-2"] / v["cas"], v["lock-2"] / v["lock"])


def _row_ratio(a: str, b: str):
    return lambda *meds: dict(zip(KEYS, meds))[a] / dict(zip(KEYS, meds))[b]


CLAIMS = [
    Claim("singlewriter.table-order", POST_FILE, NB,
          "The costs rank as the table does: plain < memory barrier < CAS < lock for one thread; two threads cost "
          "more than one, for CAS and for the lock; the contended lock costs most.",
          "smallest step in that order: CAS / barrier = 5,700 / 4,700 = 1.21x (Westmere 2.4 GHz)",
          "ns per increment per fork of the six cells; the smallest ratio (slower / faster) over the table's six "
          "steps, from the cells' medians over forks, with a bootstrap interval",
          quote="The table below gives an idea of basic costs for managing contention when the program state is "
                "very small and easy to reload from the L2/L3 cache, never mind main memory.",
          rule=Rule(">=", 1.05, effect=0.05, reading="every step of the table's order holds when each slower / faster "
                    "ratio is at least 1.05 (5%), the smallest effect that matters (the post's smallest step is "
                    "1.21x)"),
          statistic="smallest slower / faster ratio over the table's steps", unit="x", reference=REFERENCE,
          from_post=lambda ref: _smallest_step(*post_ms(ref))),
    Claim("singlewriter.lock-contention-orders", POST_FILE, NB,
          "Two threads contending for a lock cost more than an order of magnitude more per increment than one "
          "thread's increment that other threads can see (a volatile increment).",
          "118,000 / 4,700 ms = 25x (over a plain increment, 118,000 / 300 = 393x)",
          "ns per increment: two threads with a lock (pinned to two cores) over one thread's volatile increment "
          "(the barrier row: a load, an add, a store and a locked instruction, whose cost does not hang on how the "
          "JIT compiles an empty loop, as the plain row's 0.2-0.3 ns does); the ratio of the medians over forks",
          quote="For highly contended data it is very easy to get into a situation whereby the system spends "
                "significantly more time managing contention than doing real work.",
          rule=Rule(">=", 10, reading="'significantly more time managing contention than doing real work' read as "
                    "at least one order of magnitude over the real work done so that others see it, a volatile "
                    "increment (the post's own: 25x)"),
          statistic="two threads with lock / one thread volatile increment, ns per increment", unit="x",
          reference=REFERENCE, from_post=lambda ref: _row_ratio("lock-2", "barrier")(*post_ms(ref))),
    Claim("singlewriter.contention-not-instruction", POST_FILE, NB,
          "Contention, not the instruction, is the big cost: the same CAS or lock costs several times more with two "
          "writers than with one.",
          "two threads / one thread: CAS 18,000 / 5,700 = 3.2x, lock 118,000 / 10,000 = 11.8x",
          "ns per increment, two threads (pinned to two cores) over one, for CAS and for the lock; the smaller of "
          "the two ratios of medians over forks",
          quote="When trying to build a highly scalable system the single biggest limitation on scalability is "
                "having multiple writers contend for any item of data or resource.",
          rule=Rule(">=", 2, reading="'the single biggest limitation' read as: a second writer at least doubles "
                    "the cost of the same instruction (the post's: 3.2x and 11.8x)"),
          statistic="min(two threads / one thread) over CAS and lock", unit="x", reference=REFERENCE,
          from_post=lambda ref: _contended_over_uncontended(*post_ms(ref))),
    Claim("singlewriter.barrier-significant", POST_FILE_BARRIERS, NB,
          "A memory barrier has a significant cost: one thread incrementing with a barrier is many times slower "
          "than without.",
          "One Thread with Memory Barrier / One Thread = 4,700 / 300 = 15.7x (the 2011-09-22 table)",
          "ns per increment: barrier (Java: volatile long; C: seq_cst store) over plain, one thread; ratio of the "
          "medians over forks",
          quote="Memory barriers prevent a CPU from performing a lot of techniques to hide memory latency "
                "therefore they have a significant performance cost which must be considered.",
          rule=Rule(">=", 5, reading="'a significant performance cost' read generously as at least 5x a plain "
                    "increment (the single-writer table's own: 15.7x)"),
          statistic="barrier / plain, ns per increment", unit="x", reference=REFERENCE,
          from_post=lambda ref: _row_ratio("barrier", "one-thread")(*post_ms(ref))),
    Claim("singlewriter.release-store-cheap", POST_FILE_BARRIERS, NB,
          "An ordered (release) store needs no fence on x86: it costs far less than a volatile store, which is "
          "followed by one.",
          "the post gives no numbers (Figure 1 is a diagram)",
          "ns per store: volatile store (barrier) over release store (Java setRelease / lazySet, C release store), "
          "one thread, lab harness; ratio of the medians over forks",
          quote="In the Java Memory Model a volatile field has a store barrier inserted after a write to it and a "
                "load barrier inserted before a read of it.",
          rule=Rule(">=", 3, reading="the lab's reading: the barrier after a volatile store is what a release "
                    "store leaves out, so it should cost at least 3x as much"),
          statistic="volatile store / release store, ns", unit="x", source="lab"),
    Claim("singlewriter.contended-cas-cycles", POST_FILE, NB,
          "A CAS on data that two threads contend for costs about 100 cycles or more.",
          "Two Threads with CAS: 18,000 ms / 500 M increments x 2 threads x 2.4 GHz = 173 cycles per increment a "
          "thread makes",
          "cycles per increment a thread makes, two threads CAS-ing one counter (pinned to two cores): ns per "
          "increment (the run's duration over both threads' increments) x 2 threads x the CPU clock recorded in the "
          "run's metadata; failed attempts included",
          quote="These lock/CAS instructions cost ~100+ cycles each plus they cause out-of-order execution for the "
                "CPU to be suspended and load/store buffers to be flushed.",
          rule=Rule(">=", 80, reading="'~100+ cycles each' read generously as at least 80 cycles per contended "
                    "CAS increment of a thread (the post's own table: 173)"),
          statistic="cycles per contended CAS increment, per thread", unit="cycles", reference=REFERENCE,
          from_post=lambda ref: post_cycles(ref, "cas-2")),
]
CLAIM = {c.id: c for c in CLAIMS}
