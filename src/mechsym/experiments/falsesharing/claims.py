"""The posts' claims as data, and the verdicts: per fork, with intervals, under the post's protocol and the lab's.

Neither post prints a number for its results (the first post's Figure 2 is an image; the second says only
"similar performance results"), so no claim has a statistic from the post's own numbers: `then` says what the
post shows, and data/reference holds what its text gives (500 M writes per thread, 4-core Nehalem, 1-4 threads).

Timing claims are judged at 2 threads (1 for the baseline): with more threads than CPUs the threads are
time-sliced, which is not the post's setting (4 threads on 4 cores); those scopes are "not measurable here" with
the reason, on a machine with fewer than 4 CPUs."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import analysis
from ...analysis import fmt_ns
from ...verdicts import Claim, Rule, Verdict, estimate, judge, unmeasurable
from .meta import POST_FILE, POST_FILE_JAVA7, REFERENCE, REFERENCE_JAVA7
from .rows import LAB, PLACEMENT_OF, PROTOCOLS, forks, layout_forks, layout_rows, rows

NB = "06-false-sharing"
POST_THREADS = 4   # the post's 4-core Nehalem ran 1..4 threads

CLAIMS = [
    Claim("falsesharing.unpadded-slower", POST_FILE, NB,
          "False sharing: threads writing their own counters in one cache line are much slower than with the "
          "counters padded apart.",
          "Figure 2 (an image, no numbers in the text): unpadded durations far above padded ones from 2 threads on; "
          "4-core Nehalem, 500 M writes per thread",
          "2 threads, the first post's VolatileLong without and with its padding: per fork duration; the ratio of "
          "their medians over forks",
          quote="The impact of false sharing can clearly be seen by the increased execution time required to "
                "complete the test.",
          rule=Rule(">=", 1.5, reading="'clearly be seen' read generously as the unpadded run taking at least 1.5x "
                    "as long as the padded one"),
          statistic="unpadded duration / padded-longs duration, 2 threads", unit="x", reference=REFERENCE),
    Claim("falsesharing.padded-near-linear", POST_FILE, NB,
          "Without cache line contention (padded counters) the test scales near-linearly with threads.",
          "Figure 2 (an image, no numbers in the text): the padded line stays near flat over 1-4 threads",
          "the first post's padded VolatileLong: per fork duration at N threads over the duration at 1 thread "
          "(each thread does the same writes, so linear scale-up keeps the duration)",
          quote="Without the cache line contention we achieve near linear scale up with threads.",
          rule=Rule("<=", 1.25, reading="'near linear scale up' with a fixed amount of work per thread: N threads "
                    "take at most 1.25x the time of one"),
          statistic="padded-longs duration at N threads / at 1 thread", unit="x", reference=REFERENCE),
    Claim("falsesharing.java7-drops-padding", POST_FILE_JAVA7, NB,
          "Java 7 (and later) eliminates or re-orders the first post's unused padding fields, so two threads' "
          "counters end up within one cache line again.",
          "no numbers: 'It seems Java 7 got clever' (JDK 1.7 in 2011)",
          "JOL (CounterLayout) in fresh JVMs: the smallest distance in bytes between two threads' padded-longs "
          "counters as allocated; the padding fields kept are shown beside",
          quote="It seems Java 7 got clever and eliminated or re-ordered the unused fields, thus re-introducing "
                "false sharing.",
          rule=Rule("<=", 63, reading="the fields are gone or moved when two counters sit less than a 64-byte line "
                    "apart"),
          statistic="smallest gap between two padded-longs counters", unit="bytes", reference=REFERENCE_JAVA7),
    Claim("falsesharing.first-padding-false-shares", POST_FILE_JAVA7, NB,
          "On later JVMs the first post's padding no longer prevents false sharing: it is slower than the padded "
          "AtomicLong.",
          "no numbers: 're-introducing false sharing'",
          "2 threads: per fork duration of the first post's padded VolatileLong over the second post's "
          "PaddedAtomicLong; the ratio of their medians over forks",
          quote="It seems Java 7 got clever and eliminated or re-ordered the unused fields, thus re-introducing "
                "false sharing.",
          rule=Rule(">=", 1.5, reading="'re-introducing false sharing' read as the first post's padding being at "
                    "least 1.5x slower than the padding that still works (the same bar as unpadded-slower)"),
          statistic="padded-longs duration / padded-atomic duration, 2 threads", unit="x", reference=REFERENCE_JAVA7),
    Claim("falsesharing.padded-atomic-reliable", POST_FILE_JAVA7, NB,
          "The second post's padded AtomicLong (padding summed so it cannot be removed) reliably avoids false "
          "sharing: it scales near-linearly.",
          "no numbers: 'similar performance results to those stated in the previous False Sharing article'",
          "PaddedAtomicLong: per fork duration at N threads over the duration at 1 thread",
          quote="I've experimented with a number of techniques on different platforms and found the following code "
                "to be the most reliable.",
          rule=Rule("<=", 1.25, reading="'reliable' read as scaling as the first post's padding did then: N threads "
                    "take at most 1.25x the time of one"),
          statistic="padded-atomic duration at N threads / at 1 thread", unit="x", reference=REFERENCE_JAVA7),
]
CLAIM = {c.id: c for c in CLAIMS}


def _values(vals: np.ndarray, unit: str) -> str:
    if len(vals) > 8:
        return f"{len(vals)} forks"
    return "forks: " + ", ".join(analysis.fmt_value(v, unit) for v in np.sort(vals))


def _ratio(claim, num, den, scope, protocol, names) -> Verdict:
    est = estimate(lambda a, b: a / b, num, den)
    detail = "" if est is None else (f"{names[0]} {fmt_ns(np.median(num))} / {names[1]} {fmt_ns(np.median(den))}; "
                                     f"{_values(num, 'ns')} / {_values(den, 'ns')}")
    return judge(claim, est, scope=scope, protocol=protocol, detail=detail,
                 missing=f"{' or '.join(names)} cell missing from these results")


def _cpus(df: pd.DataFrame) -> int | None:
    m = pd.to_numeric(rows(df)["machine_cpus"], errors="coerce").dropna() if "machine_cpus" in df else pd.Series()
    return int(m.iloc[0]) if len(m) else None


def _timing(df, jdk, protocol) -> list[Verdict]:
    cell = lambda layout, threads: forks(df, protocol, variant=layout, jdk=jdk, threads=threads)
    scope = {"jdk": jdk, "placement": PLACEMENT_OF[protocol.name], "threads": 2}
    out = [_ratio(CLAIM["falsesharing.unpadded-slower"], cell("unpadded", 2), cell("padded-longs", 2), scope,
                  protocol, ("unpadded", "padded-longs")),
           _ratio(CLAIM["falsesharing.first-padding-false-shares"], cell("padded-longs", 2), cell("padded-atomic", 2),
                  scope, protocol, ("padded-longs", "padded-atomic"))]
    cpus = _cpus(df)
    for cid, layout in (("falsesharing.padded-near-linear", "padded-longs"),
                        ("falsesharing.padded-atomic-reliable", "padded-atomic")):
        out.append(_ratio(CLAIM[cid], cell(layout, 2), cell(layout, 1), {**scope, "threads": "2 vs 1"}, protocol,
                          (f"{layout} x2", f"{layout} x1")))
        s4 = {**scope, "threads": f"{POST_THREADS} vs 1"}
        if cpus is not None and cpus < POST_THREADS:
            out.append(unmeasurable(CLAIM[cid], f"this machine has {cpus} CPUs: {POST_THREADS} threads are "
                                    f"time-sliced, {POST_THREADS // cpus} per CPU, unlike the post's "
                                    f"{POST_THREADS} threads on {POST_THREADS} cores", scope=s4, protocol=protocol))
        elif len(cell(layout, POST_THREADS)):
            out.append(_ratio(CLAIM[cid], cell(layout, POST_THREADS), cell(layout, 1), s4, protocol,
                              (f"{layout} x{POST_THREADS}", f"{layout} x1")))
    return out


def _layout(df, jdk) -> Verdict:
    claim = CLAIM["falsesharing.java7-drops-padding"]
    gaps = layout_forks(df, "padded-longs", jdk=jdk)
    kept = layout_forks(df, "padded-longs", "padding_fields_kept", jdk=jdk)
    est = estimate(lambda a: a, gaps)
    detail = "" if est is None else (f"{_values(gaps, 'bytes')}; padding fields kept: "
                                     f"{', '.join(f'{k:.0f} of 6' for k in sorted(set(kept)))}")
    return judge(claim, est, scope={"jdk": jdk}, protocol=LAB, detail=detail,
                 missing="no JOL layout rows for this JDK")


@analysis.by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """Every claim per JDK: the timing claims under the post's protocol and then the lab's; the layout claim from
    JOL (the same in both: a layout has no protocol)."""
    timed, lay = rows(df), layout_rows(df)
    if timed.empty and lay.empty:
        return [unmeasurable(c, "no measured results") for c in CLAIMS]
    out: list[Verdict] = []
    for jdk in analysis.jdks(pd.concat([timed, lay])):
        out.append(_layout(df, jdk))
        for protocol in PROTOCOLS:
            out += _timing(df, jdk, protocol)
    order = {c.id: i for i, c in enumerate(CLAIMS)}
    return sorted(out, key=lambda v: order[v.claim.id])
