"""The batching experiment's names and presets: what `mechsym list` reads without importing the rest
(nothing here imports pandas or numpy), and what every other part of the package starts from."""

from __future__ import annotations

NAME = "batching"
TITLE = "Smart batching: bursts of messages to a 100 µs device, serial writers under a lock vs one batching thread"
NOTEBOOKS = ["11-smart-batching"]
POST_FILE = "2011-10-19-smart-batching.md"
REFERENCE = "2011-10-19-smart-batching"
BURSTS = [1, 5, 10]          # the post's worked example is the burst of 10
# Offered load as the serial device's utilisation: burst x 100 µs / interval. Serial saturates at 1; batching
# carries up to 15 messages (1,500 / 100 bytes) per 100 µs write, so it saturates at 15 messages
# per 100 µs (load 15): its loads go on to 20 (a burst every 50 µs), where 10 producer threads on a small
# machine may fall behind first (their wake-up lateness is reported).
LOADS = {"serial": [0.1, 0.3, 0.5, 0.7, 0.9, 1.1], "batching": [0.1, 0.3, 0.5, 0.7, 0.9, 1.1, 2, 5, 10, 20]}
# post_warmup_runs: single bursts before the timed one (the post's burst meets a running system, not a cold JVM).
# run_ms: how long one measured run of the load sweep lasts (bursts = run_ms / interval, at least min_bursts).
PRESETS = {
    "smoke": {"bursts": 10, "runs": 1, "warmup_runs": 1, "post_warmup_runs": 2, "forks": 1, "run_ms": 20,
              "min_bursts": 5, "bursts_list": [10], "loads": {"serial": [0.5], "batching": [0.5]}, "timeout": 60},
    "standard": {"bursts": 100, "runs": 3, "warmup_runs": 1, "post_warmup_runs": 20, "forks": 5, "run_ms": 200,
                 "min_bursts": 20, "bursts_list": BURSTS, "loads": LOADS, "timeout": 120},
    "full": {"bursts": 1_000, "runs": 5, "warmup_runs": 2, "post_warmup_runs": 100, "forks": 10, "run_ms": 1_000,
             "min_bursts": 100, "bursts_list": BURSTS, "loads": LOADS, "timeout": 600},
}
