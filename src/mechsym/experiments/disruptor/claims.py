"""The post's claims as data, and the verdicts: per fork, with intervals, under the post's protocol and the lab's.

Every threshold cites the post's sentence and states how its words are read; the post's own numbers
(data/reference) pass their own claim."""

from __future__ import annotations

import pandas as pd

from ...judge.verdicts import Claim, Rule
from ...judge.requirements import MIGRATION, REGIME, Requirement
from .meta import NOTEBOOK
from .meta import POST_FILE
from .meta import REFERENCE

QUOTE_PERF = ("For most use cases it is now an order of magnitude better than queue based approaches. On Sandybridge "
              "processors I've seen over 50 million events processed per second.")
QUOTE_AFFINITY = ("When an EventProcessor gets rescheduled on a different core, after its time-slice is exhausted or "
                  "it yields, the resulting cache pollution really hits performance.")


def _ref(ref: pd.DataFrame, metric: str) -> float:
    return float(ref.loc[ref["metric"] == metric, "value"].iloc[0])


CLAIMS = [
    Claim("disruptor.over-50m-events", POST_FILE, NOTEBOOK,
          "One publisher and one event processor move over 50 million events per second through the RingBuffer.",
          "over 50 M events/s (Sandy Bridge, text)",
          "yielding RingBuffer (the perf test's wait strategy), per placement: events/s per fork",
          quote=QUOTE_PERF,
          rule=Rule(">=", 45000000.0, reading="'over 50 million' read generously as at least 45 M events/s, a tenth "
                    "below the post's round figure (which then passes with margin); it is the best the post had "
                    "'seen', so the post protocol reads each JVM's best pass"),
          statistic="events/s, yielding RingBuffer", unit="ops/s", reference=REFERENCE,
          from_post=lambda ref: _ref(ref, "events_per_second")),
    Claim("disruptor.order-of-magnitude-over-queue", POST_FILE, NOTEBOOK,
          "The Disruptor is an order of magnitude faster than a queue (ArrayBlockingQueue) between two threads.",
          "an order of magnitude (text; no measured ratio)",
          "yielding RingBuffer over ArrayBlockingQueue (put/take), same harness and placement: ratio of the forks' "
          "medians",
          quote=QUOTE_PERF,
          rule=Rule(">=", 10 ** 0.5, reading="'an order of magnitude' read on a log scale: a ratio that rounds to "
                    "10^1, i.e. at least 10^0.5 = 3.16x"),
          statistic="RingBuffer events/s over ArrayBlockingQueue events/s", unit="x", reference=REFERENCE,
          from_post=lambda ref: _ref(ref, "disruptor_over_queue"),
          requires=(Requirement(REGIME),)),
    Claim("disruptor.2-3x-over-1x", POST_FILE, NOTEBOOK,
          "Disruptor 2.0 has ~2-3x the throughput of the release before it.",
          "~2-3x (text)", "not run: the lab pins one release of the Disruptor",
          quote="This effort has resulted in a ~2-3X improvement in throughput depending on CPU architecture.",
          rule=Rule("between", 1.5, 4, reading="'~2-3X' read generously as 1.5x to 4x"),
          statistic="Disruptor 2.0 events/s over 1.x", unit="x", reference=REFERENCE,
          from_post=lambda ref: _ref(ref, "improvement_low")),
    Claim("disruptor.pinning-matters", POST_FILE, NOTEBOOK,
          "An event processor that the scheduler moves between cores loses throughput: pinning helps.",
          "no number (text)",
          "yielding RingBuffer, publisher and processor pinned to two cores over unpinned: ratio of the forks' "
          "medians",
          quote=QUOTE_AFFINITY,
          rule=Rule(">=", 1.2, reading="'really hits performance' read generously as pinned at least 20% faster "
                    "than unpinned"),
          statistic="events/s pinned (cross-core) over unpinned", unit="x",
          requires=(Requirement(MIGRATION, threads=2),)),
    Claim("disruptor.beats-lock-free-queue", POST_FILE, NOTEBOOK,
          "The lab's question: does the RingBuffer still beat a queue when the queue is today's lock-free SPSC "
          "queue (JCTools' SpscArrayQueue)?",
          "not in the post (2011: queues meant locks)",
          "busy-spin RingBuffer over JCTools SpscArrayQueue (busy spin), same harness and placement: ratio of the "
          "forks' medians (lab protocol)",
          quote=QUOTE_PERF,
          rule=Rule(">=", 1.05, effect=0.05, reading="'better than queue based approaches' asked of today's best SPSC "
                    "queue: at least 5% faster, the smallest effect that matters"),
          statistic="RingBuffer events/s over SpscArrayQueue events/s", unit="x", source="lab"),
]
CLAIM = {c.id: c for c in CLAIMS}
