"""The posts' claims as data, and the verdicts: per fork, with intervals, under the post's protocol and the lab's.

On a machine with fewer CPUs than threads, the extra threads are time-sliced, not contending: the claims about
"3+ concurrent threads" need at least 4 CPUs and are "not measurable here" (with that reason) below it; the
claims about contention are judged at every thread count from 2 up to the CPUs the machine has."""

from __future__ import annotations


from ...judge.verdicts import Claim, Rule
from .meta import POST_FILE, POST_FILE_DISRUPTOR, REFERENCE

NB = "09-atomic-long"
FIGURE = "the post's Figure 2 is an image with no numbers"

CLAIMS = [
    Claim("atomiclong.cas-2-10x-slower-than-xadd", POST_FILE_DISRUPTOR, NB,
          "Under contention a CAS loop (LOCK CMPXCHG) is several times slower than LOCK XADD (~2-10x).",
          "~2-10x (Disruptor 2.0 post, text); 'XADD greatly outperforms CAS' (Adventures post; " + FIGURE + ")",
          "N threads on N CPUs (2..CPUs): per fork ns/increment of the CAS loop and of XADD (Java: cas-loop vs "
          "atomic-increment, today an XADD intrinsic; C: cas vs xadd); the ratio of their medians over forks",
          quote="Java on x86/x64 is using LOCK CMPXCHG for CAS operations to implement the AtomicLong incrementAndGet() "
                "method which, based on my measurements, is ~2-10X slower than using LOCK XADD as contention "
                "increases.",
          rule=Rule(">=", 1.5, reading="'~2-10X slower' read generously at its low end: ~2x as at least 1.5x"),
          statistic="CAS-loop ns/increment over XADD ns/increment", unit="x", reference=REFERENCE,
          from_post=lambda ref: ref.loc[ref["metric"] == "cas_over_xadd_min", "value"].iloc[0]),
    Claim("atomiclong.xadd-flat-past-3-threads", POST_FILE, NB,
          "For 3 concurrent threads and above, LOCK XADD does not degrade further.",
          "Nehalem ~100 M, Sandy Bridge ~20 M XADD ops/s at 3+ threads (text; " + FIGURE + ")",
          "XADD (C xadd, Java atomic-increment): per fork ns/increment with as many threads as CPUs (>= 4) over "
          "3 threads",
          quote="For 3 threads and above, XADD does not degrade further and simply performs at the rate at which the "
                "processor can keep the caches coherent.",
          rule=Rule("<=", 1.25, reading="'does not degrade further' read as at most 25% slower per increment"),
          statistic="XADD ns/increment at CPUs threads over 3 threads", unit="x", reference=REFERENCE),
    Claim("atomiclong.cas-keeps-degrading", POST_FILE, NB,
          "A CAS loop keeps degrading as concurrent threads increase beyond 3.",
          "no number (" + FIGURE + ")",
          "CAS loop (C cas, Java cas-loop): per fork ns/increment with as many threads as CPUs (>= 4) over 3 threads",
          quote="whereas CAS continues to degrade with increasing thread count because of contention.",
          rule=Rule(">=", 1.1, reading="'continues to degrade' read as at least 10% slower per increment"),
          statistic="CAS ns/increment at CPUs threads over 3 threads", unit="x", reference=REFERENCE),
    Claim("atomiclong.add-like-xadd", POST_FILE, NB,
          "LOCK ADD and LOCK XADD cost about the same.",
          "'similar' (text; not charted)",
          "C add vs xadd at 1..CPUs threads: per fork ns/increment; the ratio of their medians over forks",
          quote="I found LOCK ADD and LOCK XADD to be similar so I've only charted XADD for clarity.",
          rule=Rule("between", 2 / 3, 1.5, reading="'similar' read as within a factor 1.5 either way"),
          statistic="ADD ns/increment over XADD ns/increment", unit="x", reference=REFERENCE),
    Claim("atomiclong.java-cas-like-c-cas", POST_FILE, NB,
          "Java's CAS loop and C's cost about the same under contention.",
          "'comparable' (text; " + FIGURE + ")",
          "N threads on N CPUs (2..CPUs): per fork ns/increment of Java's cas-loop and C's cas; the ratio of their "
          "medians over forks, per JDK",
          quote="The CAS operations for C++ and Java are comparable.",
          rule=Rule("between", 0.5, 2, reading="'comparable' read generously as within a factor 2 either way"),
          statistic="Java CAS ns/increment over C CAS ns/increment", unit="x", reference=REFERENCE),
    Claim("atomiclong.sandy-bridge-order-worse", POST_FILE, NB,
          "Under contention the Sandy Bridge laptop CPU is nearly an order of magnitude slower at atomic operations "
          "than the Nehalem desktop CPU.",
          "~100 M (Nehalem) against ~20 M (Sandy Bridge) XADD ops/s at 3+ threads; 'nearly an order of magnitude'",
          "a claim about two 2011 processors: it needs both, under the same contention; one machine cannot test it",
          quote="Nehalem performs nearly an order of magnitude better for atomic operations as contention "
                "increases.",
          rule=Rule(">=", 4, reading="'nearly an order of magnitude' read generously as at least 4x; the post's own "
                    "figures give ~100 M / ~20 M = 5x at 3+ threads"),
          statistic="Nehalem XADD ops/s over Sandy Bridge XADD ops/s, 3+ threads", unit="x", reference=REFERENCE,
          from_post=lambda ref: ref.loc[ref["metric"] == "nehalem_advantage", "value"].iloc[0]),
    Claim("atomiclong.longadder-scales", POST_FILE, NB,
          "LongAdder (JDK 8) spreads a contended counter over cells: several times faster than one AtomicLong "
          "when every CPU increments.",
          "not in the post (LongAdder came in JDK 8, 2014)",
          "as many threads as CPUs (>= 2), lab harness: per fork ns/increment of atomic-increment over long-adder",
          quote="whereas CAS continues to degrade with increasing thread count because of contention.",
          rule=Rule(">=", 2, reading="the lab's reading of today's answer to the post's contention: at least 2x"),
          statistic="AtomicLong ns/increment over LongAdder ns/increment", unit="x", source="lab",
          no_ratio="the post has no LongAdder figure"),
]
CLAIM = {c.id: c for c in CLAIMS}
