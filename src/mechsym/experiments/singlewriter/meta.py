"""The singlewriter experiment's names and presets: what `mechsym list` reads without importing the rest
(nothing here imports pandas or numpy), and what every other part of the package starts from."""

from __future__ import annotations

NAME = "singlewriter"
TITLE = "The cost of contention: one 64-bit counter, plain, with a barrier, CAS or a lock, one or two threads; fences"
NOTEBOOKS = ["10-single-writer"]
POST_FILE = "2011-09-22-single-writer-principle.md"
POST_FILE_BARRIERS = "2011-07-24-memory-barriers-fences.md"
REFERENCE = "2011-09-22-single-writer-principle"
POST_ITERATIONS = 500_000_000
# post_iterations: the post-protocol cells' counts. A cold run pays the JIT's warm-up once: the post's 500 M hides it,
# a short run does not, so the standard preset runs the post's 500 M where that costs well under a second (plain).
PRESETS = {
    "smoke": {"iterations": {"fast": 2_000_000, "slow": 200_000, "contended": 100_000},
              "post_iterations": {"fast": 2_000_000, "slow": 200_000, "contended": 100_000},
              "runs": 2, "warmup_runs": 1, "forks": 1, "timeout": 60},
    "standard": {"iterations": {"fast": 100_000_000, "slow": 10_000_000, "contended": 2_000_000},
                 "post_iterations": {"fast": POST_ITERATIONS, "slow": 10_000_000, "contended": 10_000_000},
                 "runs": 3, "warmup_runs": 1, "forks": 5, "timeout": 300},
    "full": {"iterations": {"fast": POST_ITERATIONS, "slow": POST_ITERATIONS, "contended": POST_ITERATIONS},
             "post_iterations": {"fast": POST_ITERATIONS, "slow": POST_ITERATIONS, "contended": POST_ITERATIONS},
             "runs": 3, "warmup_runs": 1, "forks": 5, "timeout": 7_200},
}
