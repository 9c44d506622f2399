"""The affinity experiment's names and presets: what `mechsym list` reads without importing the rest
(nothing here imports pandas or numpy), and what every other part of the package starts from."""

from __future__ import annotations

NAME = "affinity"
TITLE = "Multicast sender and receiver in two JVMs: messages/s each second, pinned vs unpinned"
NOTEBOOK = "12-processor-affinity"
NOTEBOOKS = [NOTEBOOK]
POST_FILE = "2011-07-19-processor-affinity-part-1.md"
REFERENCE = "2011-07-19-processor-affinity-part-1"
PLACEMENTS = ["cross-core", "unpinned"]
PRESETS = {
    "smoke": {"messages": 50_000, "forks": 1, "timeout": 60, "placements": ["cross-core"]},
    # ~3 min on 2 vCPUs: ~180 k messages/s on loopback, ~17 s a fork
    "standard": {"messages": 3_000_000, "forks": 5, "timeout": 120, "placements": PLACEMENTS},
    "full": {"messages": 20_000_000, "forks": 5, "timeout": 900, "placements": PLACEMENTS},
}
