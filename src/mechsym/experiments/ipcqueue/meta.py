"""The ipcqueue experiment's names and presets: what `mechsym list` reads without importing the rest
(nothing here imports pandas or numpy), and what every other part of the package starts from."""

from __future__ import annotations

NAME = "ipcqueue"
TITLE = "Off-heap SPSC queue in a memory-mapped file: messages/s between processes, threads, and the in-heap queue"
NOTEBOOK = "14-ipc-queue"
NOTEBOOKS = [NOTEBOOK]
POST_FILE = "2013-07-01-java-ping-buffet-and-2013-04-07-135m-messages-ipc.md"
REFERENCE = "2013-07-01-java-ping-buffet-and-2013-04-07-135m-messages-ipc"
PRESETS = {
    # seconds: one fork of each cross-core cell
    "smoke": {"messages": 200_000, "runs": 2, "post_runs": 2, "warmup_runs": 1, "forks": 1, "unpinned_forks": 1,
              "timeout": 60},
    # ~2 minutes on 2 vCPUs (75 fresh JVMs of ~0.5-1 s): 10 forks of every judged cell (5 unpinned), 10M messages
    # a run (~20-100 ms)
    "standard": {"messages": 10_000_000, "runs": 5, "post_runs": 20, "warmup_runs": 2, "forks": 10,
                 "unpinned_forks": 5, "timeout": 120},
    # the post's size: QueueEvolution at the post's date (0ede180, 2013-03-26) sent 50M messages a run, capacity
    # 1 << 16 (an earlier commit, cc36e06 of 2013-03-12, had 500 x 2^20 and 32K), 20 runs
    "full": {"messages": 50_000_000, "runs": 5, "post_runs": 20, "warmup_runs": 2, "forks": 10,
             "unpinned_forks": 5, "timeout": 900},
}
