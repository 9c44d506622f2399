"""The falsesharing experiment's names and presets: what `mechsym list` reads without importing the rest
(nothing here imports pandas or numpy), and what every other part of the package starts from."""

from __future__ import annotations

NAME = "falsesharing"
TITLE = "False sharing: N threads writing their own volatile counter, per counter layout, JDK and CPU placement"
NOTEBOOKS = ["06-false-sharing"]
POST_FILE = "2011-07-30-false-sharing.md"
POST_FILE_JAVA7 = "2011-08-13-false-sharing-java-7.md"
REFERENCE = "2011-07-30-false-sharing"
REFERENCE_JAVA7 = "2011-08-13-false-sharing-java-7"
# post_iterations sizes the post protocol's one cold run so that compiling the loop is a small part of it: standard
# 200 M writes per thread, ~1.2 s at one thread (~6 ns a volatile write on the lab's 2-vCPU EPYC), ~5 s unpadded at
# two; the lab's harness warms up first and keeps 10 M. Thread 3 is left out of standard (time-sliced on 2 CPUs, as
# 4 is) to keep the whole sweep near 5 minutes there.
PRESETS = {
    "smoke": {"iterations": 200_000, "post_iterations": 200_000, "runs": 2, "warmup_runs": 1, "forks": 1, "extra_forks": 1, "layout_forks": 1,
              "threads": [1, 2], "post_threads": [1, 2], "timeout": 60},
    "standard": {"iterations": 10_000_000, "post_iterations": 200_000_000, "runs": 3, "warmup_runs": 1, "forks": 5,
                 "extra_forks": 3, "layout_forks": 5, "threads": [1, 2, 4], "post_threads": [1, 2], "timeout": 300},
    "full": {"iterations": 500_000_000, "post_iterations": 500_000_000, "runs": 5, "warmup_runs": 1, "forks": 5, "extra_forks": 5, "layout_forks": 5,
             "threads": "1..max(4, 2 x CPUs)", "post_threads": [1, 2, 3, 4], "timeout": 7_200},
}
