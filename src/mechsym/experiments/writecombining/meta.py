"""The writecombining experiment's names and presets: what `mechsym list` reads without importing the rest
(nothing here imports pandas or numpy), and what every other part of the package starts from."""

from __future__ import annotations

NAME = "writecombining"
TITLE = "Write combining: six byte arrays in one loop or two of 3, and one loop of N = 1..12 arrays, Java vs C"
NOTEBOOKS = ["07-write-combining"]
POST_FILE = "2011-07-15-write-combining.md"
REFERENCE = "2011-07-15-write-combining"
# Sizes. The post: ITEMS = 1 << 24 bytes per array, ITERATIONS = Integer.MAX_VALUE per loop, 3 repetitions per JVM.
# standard: the post's arrays; the listing's cells at 2^29 iterations per loop (1/4 of the post's: a SingleLoop of
# ~0.5 s on the lab's 2-vCPU EPYC), the sweep at 2^26 (every array written four times around, 0.01-0.3 s a run),
# every N, 5 forks a cell: one fork of each of its 31 cells took 26 s there, so ~2.5 minutes; one more fork of the
# listing per JDK logs its compilations (jit_forks; ~5 s each at standard size); full: the post's iteration count
# everywhere (hours).
PRESETS = {
    "smoke": {"items": 1 << 16, "post_iterations": 1 << 18, "sweep_iterations": 1 << 18, "arrays": [1, 3, 6],
              "runs": 2, "warmup_runs": 1, "forks": 1, "all_jdks": False, "jit_forks": 1,
              "timeout": 60},
    "standard": {"items": 1 << 24, "post_iterations": 1 << 29, "sweep_iterations": 1 << 26,
                 "arrays": list(range(1, 13)), "runs": 3, "warmup_runs": 1, "forks": 5, "all_jdks": True,
                 "jit_forks": 1, "timeout": 300},
    "full": {"items": 1 << 24, "post_iterations": 2**31 - 1, "sweep_iterations": 2**31 - 1,
             "arrays": list(range(1, 13)), "runs": 3, "warmup_runs": 1, "forks": 5, "all_jdks": True,
             "jit_forks": 1, "timeout": 3600},
}
