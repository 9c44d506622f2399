"""The spsc experiment's names and presets: what `mechsym list` reads without importing the rest
(nothing here imports pandas or numpy), and what every other part of the package starts from."""

from __future__ import annotations

NAME = "spsc"
TITLE = "SPSC queue run-to-run variance: original, inlined counters, padded class, padded data, JCTools"
NOTEBOOK = "05-spsc-variance"
NOTEBOOKS = [NOTEBOOK]
POST_FILE = "2013-07-15-spsc-queue-revisited-variance.md"
REFERENCE = "2013-07-15-spsc-queue-variance"
QUEUES = {
    "O1": "original: AtomicLong head/tail with lazySet, cached counters, one-side-padded holder objects",
    "O2": "O1 + padded data buffer (16 unused slots on each end)",
    "I1": "counters inlined in the queue object, 64 bytes apart (class-hierarchy padding)",
    "I2": "I1 + padded data buffer",
    "I3": "I1 + padding before the cold fields (capacity, mask, buffer)",
    "I4": "I3 + padded data buffer",
    "jctools": "JCTools 4.0.5 SpscArrayQueue (not in the post: today's reference)",
}
# name -> (JVM flags, what it stands for)
OPTION_SETS = {
    "none": ((), "no JVM options"),
    "condcard": (("-XX:+UseCondCardMark",), "-XX:+UseCondCardMark"),
    "condcard-ct": (("-XX:+UseCondCardMark", "-XX:CompileThreshold=100000"),
                    "+ -XX:CompileThreshold=100000 (ignored under tiered compilation, the default since JDK 8)"),
    "post": (("-XX:+UseNUMA", "-XX:+UseCondCardMark", "-XX:CompileThreshold=100000"),
             "the post's options as written: + -XX:+UseNUMA"),
    "post-notiered": (("-XX:+UseNUMA", "-XX:+UseCondCardMark", "-XX:CompileThreshold=100000", "-XX:-TieredCompilation"),
                      "the post's options as JDK 7 ran them: + -XX:-TieredCompilation (C2 only, so CompileThreshold acts)"),
}
MAIN_OPTIONS = "post-notiered"   # the option set of the post's first four figures, as JDK 7u17 ran it
PRESETS = {
    # seconds: every queue, both placements, the main option set on the lowest JDK, one JVM each
    "smoke": {"ops": 50_000, "iterations": 4, "measured": 2, "capacity": 32768, "queues": list(QUEUES),
              "sets": {"lowest": [MAIN_OPTIONS]}, "runs": {"main": 1, "other": 1}, "timeout": 60},
    # ~11 minutes on 2 vCPUs (648 fresh JVMs of ~1.05 s each): 2M values per iteration (the post does not state
    # its size; 2M keeps an iteration at 5-100 ms and a run near 1 s); the post's 30 runs in the main cells (lowest
    # JDK, the post's options as JDK 7 ran them), 4 in every other cell; JDK 25 gets only "none" and the main
    # set; I2 (the post's side variant) only in full.
    "standard": {"ops": 2_000_000, "iterations": 20, "measured": 10, "capacity": 32768,
                 "queues": ["O1", "O2", "I1", "I3", "I4", "jctools"],
                 "sets": {"lowest": list(OPTION_SETS), "other": ["none", MAIN_OPTIONS]},
                 "runs": {"main": 30, "other": 4}, "timeout": 120},
    # the post's protocol: 30 runs per cell, every queue, every option set, every JDK
    "full": {"ops": 50_000_000, "iterations": 20, "measured": 10, "capacity": 32768, "queues": list(QUEUES),
             "sets": {"lowest": list(OPTION_SETS), "other": list(OPTION_SETS)},
             "runs": {"main": 30, "other": 30}, "timeout": 900},
}
