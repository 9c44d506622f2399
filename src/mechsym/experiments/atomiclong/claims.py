"""The posts' claims as data, and the verdicts: per fork, with intervals, under the post's protocol and the lab's.

On a machine with fewer CPUs than threads, the extra threads are time-sliced, not contending: the claims about
"3+ concurrent threads" need at least 4 CPUs and are "not measurable here" (with that reason) below it; the
claims about contention are judged at every thread count from 2 up to the CPUs the machine has."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import analysis
from ...analysis import fmt_ns
from ...verdicts import Claim, Rule, Verdict, estimate, judge, unmeasurable
from .meta import POST_FILE, POST_FILE_DISRUPTOR, REFERENCE
from .rows import LAB, PROTOCOLS, cpus_online, forks, rows

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
    Claim("atomiclong.longadder-scales", POST_FILE, NB,
          "LongAdder (JDK 8) spreads a contended counter over cells: several times faster than one AtomicLong "
          "when every CPU increments.",
          "not in the post (LongAdder came in JDK 8, 2014)",
          "as many threads as CPUs (>= 2), lab harness: per fork ns/increment of atomic-increment over long-adder",
          quote="With the megamorphic calls out of the way, the contention on the atomic sequence generation "
                "increased exposing the issue.",
          rule=Rule(">=", 2, reading="the lab's reading of today's answer to the post's contention: at least 2x"),
          statistic="AtomicLong ns/increment over LongAdder ns/increment", unit="x", source="lab",
          no_ratio="the post has no LongAdder figure"),
]
CLAIM = {c.id: c for c in CLAIMS}
PAIRS = {"java": ("cas-loop", "atomic-increment"), "c": ("cas", "xadd")}


def _values(vals: np.ndarray) -> str:
    return f"{len(vals)} forks" if len(vals) > 8 else "forks: " + ", ".join(fmt_ns(v) for v in np.sort(vals))


def _ratio(claim, num, den, scope, protocol, names) -> Verdict:
    est = estimate(lambda a, b: a / b, num, den)
    detail = "" if est is None else (f"{names[0]} {fmt_ns(np.median(num))} / {names[1]} {fmt_ns(np.median(den))} "
                                     f"per increment; {_values(num)} / {_values(den)}")
    return judge(claim, est, scope=scope, protocol=protocol, detail=detail,
                 missing=f"{' or '.join(names)} cell missing from these results")


def _runtimes(m: pd.DataFrame) -> list[tuple[str, dict]]:
    """(language, the rows' filter) per runtime: each JDK, then C."""
    out = [("java", {"jdk": j}) for j in analysis.jdks(m[m["language"] == "java"])]
    return out + ([("c", {"jdk": "c"})] if (m["language"] == "c").any() else [])


def _scope(where: dict, threads) -> dict:
    jdk = where["jdk"]
    return ({"runtime": "C (gcc)"} if jdk == "c" else {"jdk": jdk}) | {"threads": threads}


@analysis.by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """Every claim per runtime and thread count, under the post's protocol and the lab's, one machine at a time."""
    m = rows(df)
    if m.empty:
        return [unmeasurable(c, "no measured results") for c in CLAIMS]
    cpus = cpus_online(m) or 1
    counts = sorted(m["threads"].unique())
    concurrent = [t for t in counts if 2 <= t <= cpus]
    out: list[Verdict] = []
    for lang, where in _runtimes(m):
        cas, xadd = PAIRS[lang]
        for protocol in PROTOCOLS:
            f = lambda variant, t: forks(df, protocol, variant=variant, threads=t, **where)
            for t in concurrent:
                out.append(_ratio(CLAIM["atomiclong.cas-2-10x-slower-than-xadd"], f(cas, t), f(xadd, t),
                                  _scope(where, t), protocol, (cas, xadd)))
            if lang == "c":
                for t in [t for t in counts if t <= cpus]:
                    out.append(_ratio(CLAIM["atomiclong.add-like-xadd"], f("add", t), f("xadd", t),
                                      _scope(where, t), protocol, ("add", "xadd")))
            else:
                cf = lambda t: forks(df, protocol, variant="cas", threads=t, jdk="c")
                for t in concurrent:
                    out.append(_ratio(CLAIM["atomiclong.java-cas-like-c-cas"], f("cas-loop", t), cf(t),
                                      _scope(where, t), protocol, ("Java cas-loop", "C cas")))
            for cid, variant in (("atomiclong.xadd-flat-past-3-threads", xadd),
                                 ("atomiclong.cas-keeps-degrading", cas)):
                if cpus >= 4 and {3, cpus} <= set(counts):
                    out.append(_ratio(CLAIM[cid], f(variant, cpus), f(variant, 3), _scope(where, f"{cpus} vs 3"),
                                      protocol, (f"{cpus} threads", "3 threads")))
        if lang == "java":
            c = CLAIM["atomiclong.longadder-scales"]
            if cpus < 2:
                out.append(unmeasurable(c, "needs at least 2 CPUs", scope=_scope(where, cpus), protocol=LAB))
            else:
                out.append(_ratio(c, forks(df, LAB, variant="atomic-increment", threads=cpus, **where),
                                  forks(df, LAB, variant="long-adder", threads=cpus, **where), _scope(where, cpus),
                                  LAB, ("atomic-increment", "long-adder")))
    if cpus < 4:
        why = (f"needs at least 4 CPUs so that 3 and more threads run at once; this machine has {cpus}: past {cpus} "
               "threads they are time-sliced, not contending (the figure shows them, marked)")
        out += [unmeasurable(CLAIM[c], why, scope={"threads": "3+"}) for c in
                ("atomiclong.xadd-flat-past-3-threads", "atomiclong.cas-keeps-degrading")]
    missing = [c for c in CLAIMS if c.id not in {v.claim.id for v in out}]
    out += [unmeasurable(c, "no cells for it in these results") for c in missing]
    order = {c.id: i for i, c in enumerate(CLAIMS)}
    return sorted(out, key=lambda v: order[v.claim.id])
