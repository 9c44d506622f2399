"""The callerchoose experiment's names and presets: what `mechsym list` reads without importing the rest
(nothing here imports pandas or numpy), and what every other part of the package starts from."""

from __future__ import annotations

NAME = "callerchoose"
TITLE = "Let the caller choose: String.split against a split into a caller-supplied, reused ArrayList or HashSet"
NOTEBOOKS = ["16-let-the-caller-choose"]
POST_FILE = "2011-07-16-let-the-caller-choose.md"
REFERENCE = "2011-07-16-let-the-caller-choose"
# words per input: the post's example sentence ("Some string that I may want to split": 8 words), a paragraph, and
# an input whose result array
# (16 + 4 x 4M bytes = 16 MB) is larger than the whole young generation the cells give the JVM (YOUNG).
SIZES = {"small": 8, "medium": 1_000, "large": 4_000_000}
COLLECTORS = {"G1": "-XX:+UseG1GC", "Parallel": "-XX:+UseParallelGC"}
# ops: calls per run per size, so that a run lasts ~0.1-0.5 s here (a large call takes ~0.2-1 s).
PRESETS = {
    "smoke": {"ops": {"small": 20_000, "medium": 200, "large": 1}, "sizes": {"small": 8, "medium": 1_000,
              "large": 200_000}, "runs": 1, "warmup_runs": 1, "forks": 1, "collectors": ["G1"], "timeout": 60},
    "standard": {"ops": {"small": 300_000, "medium": 4_000, "large": 1}, "sizes": SIZES, "runs": 2,
                 "warmup_runs": 1, "forks": 5, "collectors": list(COLLECTORS), "timeout": 120},
    "full": {"ops": {"small": 3_000_000, "medium": 40_000, "large": 5}, "sizes": SIZES, "runs": 5,
             "warmup_runs": 2, "forks": 10, "collectors": list(COLLECTORS), "timeout": 600},
}
