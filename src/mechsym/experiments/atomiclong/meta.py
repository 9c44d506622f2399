"""The atomiclong experiment's names and presets: what `mechsym list` reads without importing the rest
(nothing here imports pandas or numpy), and what every other part of the package starts from."""

from __future__ import annotations

NAME = "atomiclong"
TITLE = "One shared counter, 1..N threads: AtomicLong (XADD), a CAS loop, VarHandle, LongAdder, synchronized; C beside"
NOTEBOOKS = ["09-atomic-long"]
POST_FILE = "2011-09-11-adventures-with-atomiclong.md"
POST_FILE_DISRUPTOR = "2011-08-27-disruptor-2-0-released.md"
REFERENCE = "2011-09-11-adventures-with-atomiclong"
# standard on a 2-vCPU machine: 80 cells x 5 forks (threads 1..4, JDK 17 and 25, C), 10 M increments a run: about
# 3-4 minutes (a sample of its forks, timed one by one). full: the post's 500 M increments a run.
PRESETS = {
    "smoke": {"count": 200_000, "runs": 2, "warmup_runs": 1, "forks": 1, "max_threads": 2, "jdks": 1,
              "timeout": 60},
    "standard": {"count": 10_000_000, "runs": 3, "warmup_runs": 1, "forks": 5, "max_threads": None, "jdks": None,
                 "timeout": 120},
    "full": {"count": 500_000_000, "runs": 5, "warmup_runs": 1, "forks": 5, "max_threads": None, "jdks": None,
             "timeout": 3_600},
}
