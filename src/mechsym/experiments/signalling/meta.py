"""The signalling experiment's names and presets: what `mechsym list` reads without importing the rest
(nothing here imports pandas or numpy), and what every other part of the package starts from."""

from __future__ import annotations

NAME = "signalling"
TITLE = "Thread-to-thread signalling: lock + conditions vs volatile ping-pong, Java vs C, per CPU placement"
NOTEBOOKS = ["03-condition-variables", "08-inter-thread-latency"]
POST_FILE = "2011-11-05-locks-condition-variables-latency-impact.md"
POST_FILE_ITL = "2011-08-09-inter-thread-latency.md"
REFERENCE = "2011-11-05-locks-condition-variables"
REFERENCE_ITL = "2011-08-09-inter-thread-latency"
PRESETS = {
    "smoke": {"locked_iterations": 2_000, "volatile_iterations": 100_000, "yield_iterations": 20_000,
              "post_locked_iterations": 2_000, "post_volatile_iterations": 100_000,
              "runs": 2, "warmup_runs": 1, "forks": 1, "max_ms": 5_000, "same_cpu_max_ms": 150,
              "same_cpu_runs": 1, "locked_sample_every": 10, "volatile_sample_every": 100,
              "yield_sample_every": 100, "timeout": 60},
    "standard": {"locked_iterations": 10_000, "volatile_iterations": 2_000_000, "yield_iterations": 200_000,
                 # a post run is one cold run: long enough that the JIT's 10-45 ms is under 5% of it (issue 32)
                 "post_locked_iterations": 300_000, "post_volatile_iterations": 20_000_000,
                 "runs": 5, "warmup_runs": 1, "forks": 3, "max_ms": 5_000, "same_cpu_max_ms": 1_000,
                 "same_cpu_runs": 3, "locked_sample_every": 10, "volatile_sample_every": 1_000,
                 "yield_sample_every": 100, "timeout": 240},
    "full": {"locked_iterations": 10_000_000, "volatile_iterations": 500_000_000, "yield_iterations": 10_000_000,
             "post_locked_iterations": 10_000_000, "post_volatile_iterations": 500_000_000,
             "runs": 5, "warmup_runs": 1, "forks": 5, "max_ms": 3_600_000, "same_cpu_max_ms": 10_000,
             "same_cpu_runs": 3, "locked_sample_every": 100, "volatile_sample_every": 10_000,
             "yield_sample_every": 1_000, "timeout": 7_200},
}
