"""The bidding experiment's names and presets: what `mechsym list` reads without importing the rest
(nothing here imports pandas or numpy), and what every other part of the package starts from."""

from __future__ import annotations

NAME = "bidding"
TITLE = "Lock vs no-lock bid containers in a small bidding system: throughput and thread jitter, clients x items"
NOTEBOOKS = ["15-bidding"]
POST_FILE = "2014-03-lock-vs-no-lock-bidding-simulation.md"
REFERENCE = "2014-03-lock-vs-no-lock-bidding-simulation"
# post_items: the post protocol's sweep of item counts, one simulation each in one JVM (the post: 1..100);
# items: the lab cells' item count (the post's peak, ~45 items), also in post_items; forks >= 5 on judged cells.
PRESETS = {
    "smoke": {"post_items": [1, 4], "items": 4, "bids_per_item": 100, "runs": 2, "warmup_runs": 1, "forks": 1,
              "timeout": 60},
    "standard": {"post_items": [1, 2, 4, 8, 16, 32, 45, 64], "items": 45, "bids_per_item": 1000, "runs": 5,
                 "warmup_runs": 2, "forks": 5, "timeout": 300},
    "full": {"post_items": list(range(1, 101)), "items": 45, "bids_per_item": 1000, "runs": 5, "warmup_runs": 2,
             "forks": 5, "timeout": 3600},
}
