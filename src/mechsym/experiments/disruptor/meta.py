"""The disruptor experiment's names and presets: what `mechsym list` reads without importing the rest
(nothing here imports pandas or numpy), and what every other part of the package starts from."""

from __future__ import annotations

NAME = "disruptor"
TITLE = "One publisher, one event processor: the Disruptor's RingBuffer vs ArrayBlockingQueue and SPSC queues"
NOTEBOOK = "17-disruptor"
NOTEBOOKS = [NOTEBOOK]
POST_FILE = "2011-08-27-disruptor-2-0-released.md"
REFERENCE = "2011-08-27-disruptor-2-0-released"
PLACEMENTS = ["cross-core", "unpinned"]
PRESETS = {
    "smoke": {"events": 20_000, "runs": 2, "warmup_runs": 1, "post_events": 1_000_000, "forks": 1, "timeout": 60,
              "size": 1024, "placements": ["cross-core"], "first_jdk_only": True},
    # ~3 min on 2 vCPUs (ArrayBlockingQueue and the blocking RingBuffer, at ~7 M events/s, take most of it)
    "standard": {"events": 5_000_000, "runs": 3, "warmup_runs": 1, "post_events": 5_000_000, "forks": 5,
                 "timeout": 120, "size": 32 * 1024, "placements": PLACEMENTS, "first_jdk_only": False},
    "full": {"events": 300_000_000, "runs": 5, "warmup_runs": 1, "post_events": 300_000_000, "forks": 5,
             "timeout": 3_600, "size": 32 * 1024, "placements": PLACEMENTS, "first_jdk_only": False},
}
