"""The post's claims as data, and the verdicts: per fork, with intervals, per collector, under both protocols.

The post gives no numbers: its claims are sentences, read generously; none has a statistic from the post."""

from __future__ import annotations


from ...judge.verdicts import Claim, Rule
from .meta import NOTEBOOKS, POST_FILE, SIZES

NB = NOTEBOOKS[0]
NO_NUMBERS = "no numbers in the post (its one figure is an illustration)"

CLAIMS = [
    Claim("callerchoose.reuse-faster", POST_FILE, NB,
          "Splitting into a collection the caller supplies and reuses is faster than String.split, which allocates "
          "its result on every call.",
          NO_NUMBERS,
          "ns per call, String.split over a split into a reused ArrayList, the post's small input (8 words); ratio "
          "of the medians over forks",
          quote="This feels like the CPU is doing a lot of work to make this idiom work.",
          rule=Rule(">=", 1.05, effect=0.05, reading="'a lot of work' read generously as: the allocating split at "
                    "least 5% slower (the smallest effect that matters)"),
          statistic="String.split / reused ArrayList, ns per call (8 words)", unit="x"),
    Claim("callerchoose.reuse-allocates-less", POST_FILE, NB,
          "Splitting into a reused collection allocates less per call than String.split.",
          NO_NUMBERS,
          "bytes allocated per call by the calling thread (ThreadMXBean), String.split over the reused ArrayList, "
          "8 words; ratio of the medians over forks",
          quote="For this a new array has to be allocated within the method.",
          rule=Rule(">=", 1.1, reading="a new array (and the temporary list behind it) per call read as at least "
                    "10% more bytes per call"),
          statistic="String.split / reused ArrayList, bytes per call (8 words)", unit="x"),
    Claim("callerchoose.large-arrays-worse", POST_FILE, NB,
          "For results too large for the young generation, allocating per call is much worse than reusing the "
          "caller's collection.",
          NO_NUMBERS,
          f"ns per call, String.split over the reused ArrayList, {SIZES['large']:,} words (a {16 + 4 * SIZES['large']:,}"
          "-byte result array; young generation 8 MB, -Xmn8m); ratio of the medians over forks. Both idioms also "
          "create the 4M word Strings (about 192 MB a call of the ~257 MB String.split allocates), which outlive "
          "the young generation too: the ratio measures their promotion as much as the result array's",
          quote="In the Java world this idiom becomes critical to performance when large arrays are involved.",
          rule=Rule(">=", 1.5, reading="'critical to performance' read as at least 1.5x slower"),
          statistic="String.split / reused ArrayList, ns per call (large input)", unit="x"),
]
CLAIM = {c.id: c for c in CLAIMS}
