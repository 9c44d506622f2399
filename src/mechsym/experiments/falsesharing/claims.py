"""The posts' claims as data, and the verdicts: per fork, with intervals, under the post's protocol and the lab's.

Neither post prints a number for its results (the first post's Figure 2 is an image; the second says only
"similar performance results"), so no claim has a statistic from the post's own numbers: `then` says what the
post shows, and data/reference holds what its text gives (500 M writes per thread, 4-core Nehalem, 1-4 threads).

Timing claims are judged at 2 threads (1 for the baseline): with more threads than CPUs the threads are
time-sliced, which is not the post's setting (4 threads on 4 cores); those scopes are "not measurable here" with
the reason, on a machine with fewer than 4 CPUs."""

from __future__ import annotations


from ...judge.requirements import REGIME, Requirement
from ...judge.verdicts import Claim, Rule
from .meta import POST_FILE, POST_FILE_JAVA7, REFERENCE, REFERENCE_JAVA7

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
    Claim("falsesharing.java7-drops-padding-pair", POST_FILE_JAVA7, NB,
          "The lab's reading, not the post's: Java 7 (and later) leaves two threads' padded counters within one "
          "128-byte pair of lines, which the adjacent-line prefetcher fetches together (a usual explanation of the "
          "second post's slowdown; the post names no prefetcher, and any 7-long padding satisfies it).",
          "no numbers: 'It seems Java 7 got clever' (JDK 1.7 in 2011)",
          "JOL (CounterLayout) in fresh JVMs: the smallest distance in bytes between two threads' padded-longs "
          "counters as allocated (the same statistic as java7-drops-padding, against a 128-byte pair)",
          quote="It seems Java 7 got clever and eliminated or re-ordered the unused fields, thus re-introducing "
                "false sharing.",
          rule=Rule("<=", 127, reading="the padding no longer separates the counters once two sit less than the "
                    "adjacent-line prefetcher's 128-byte pair apart"),
          statistic="smallest gap between two padded-longs counters", unit="bytes", reference=REFERENCE_JAVA7,
          source="lab"),
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
          statistic="padded-atomic duration at N threads / at 1 thread", unit="x", reference=REFERENCE_JAVA7,
          # two vCPUs on one host core (an A/A regime) share a cache: whether lines bounce depends on the placement
          requires=(Requirement(REGIME),)),
]
CLAIM = {c.id: c for c in CLAIMS}
