"""The locks experiment's names and presets: what `mechsym list` reads without importing the rest
(nothing here imports pandas or numpy), and what every other part of the package starts from."""

from __future__ import annotations

NAME = "locks"
TITLE = "Counter increments under JVM monitors (biased or not), ReentrantLock, AtomicLong, StampedLock"
NOTEBOOKS = ["01-lock-implementations", "02-biased-locking"]
POST_FILE = "2011-11-19-java-lock-implementations.md"
POST_FILE_BIASED = "2011-11-22-biased-locking-osr-and-benchmarking-fun.md"
REFERENCE = "2011-11-19-java-lock-implementations"
REFERENCE_BIASED = "2011-11-22-biased-locking"
# variant -> (the kernel's --lock, JVM flags, what it stands for)
VARIANTS = {
    "monitor-thin": ("monitor", ("-XX:-UseBiasedLocking",), "synchronized, biased locking off: CAS ('atomic') locking"),
    "monitor-biased-delayed": ("monitor", ("-XX:+UseBiasedLocking", "-XX:BiasedLockingStartupDelay=4000"),
                               "synchronized, biased locking on with JDK 6's 4 s start-up delay: the first post's "
                               "+UseBiasedLocking"),
    "monitor-biased": ("monitor", ("-XX:+UseBiasedLocking", "-XX:BiasedLockingStartupDelay=0"),
                       "synchronized, biased locking on from the start: the second post's +UseBiasedLocking"),
    "monitor-default": ("monitor", (), "synchronized with this JDK's defaults (no biased locking since JDK 15)"),
    "reentrant": ("reentrant", (), "java.util.concurrent.locks.ReentrantLock (non-fair)"),
    "atomic": ("atomic", (), "AtomicLong.incrementAndGet, no lock (not in the posts)"),
    "stamped": ("stamped", (), "StampedLock write lock (not in the posts)"),
}
PRESETS = {
    "smoke": {"iterations": 200_000, "warmup_iterations": 10_000, "runs": 2, "forks": 1, "max_threads": 2,
              "variants": list(VARIANTS), "timeout": 60},
    "standard": {"iterations": 20_000_000, "warmup_iterations": 100_000, "runs": 5, "forks": 4, "max_threads": None,
                 "variants": list(VARIANTS), "timeout": 300},
    "full": {"iterations": 500_000_000, "warmup_iterations": 100_000, "runs": 10, "forks": 10, "max_threads": None,
             "variants": list(VARIANTS), "timeout": 3600},
}
