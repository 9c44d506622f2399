"""The atomiclong experiment's names and presets: what `mechsym list` reads without importing the rest
(nothing here imports pandas or numpy), and what every other part of the package starts from."""

from __future__ import annotations

NAME = "atomiclong"
TITLE = "One shared counter, 1..N threads: AtomicLong (XADD), a CAS loop, VarHandle, LongAdder, synchronized; C beside"
NOTEBOOKS = ["09-atomic-long"]
POST_FILE = "2011-09-11-adventures-with-atomiclong.md"
POST_FILE_DISRUPTOR = "2011-08-27-disruptor-2-0-released.md"
REFERENCE = "2011-09-11-adventures-with-atomiclong"
# standard on a 2-vCPU machine: the lab's harness at 10 M increments a run, threads 1..4 (past the CPUs: 2 forks, not
# judged); the post protocol at 150 M increments (one cold run per process: ~1 s at one thread, ~3 s contended, so
# compiling the loop is a small part of it), at 1..CPUs threads only (more are time-sliced, judged nowhere): about
# 5-6 minutes. full: the post's 500 M increments a run, every thread count.
PRESETS = {
    "smoke": {"count": 200_000, "post_count": 200_000, "runs": 2, "warmup_runs": 1, "forks": 1, "sliced_forks": 1,
              "max_threads": 2, "post_past_cpus": True, "jdks": 1, "timeout": 60},
    "standard": {"count": 10_000_000, "post_count": 150_000_000, "runs": 3, "warmup_runs": 1, "forks": 5,
                 "sliced_forks": 2, "max_threads": None, "post_past_cpus": False, "jdks": None, "timeout": 180},
    "full": {"count": 500_000_000, "post_count": 500_000_000, "runs": 5, "warmup_runs": 1, "forks": 5,
             "sliced_forks": 5, "max_threads": None, "post_past_cpus": True, "jdks": None, "timeout": 3_600},
}
