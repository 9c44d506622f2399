"""The calibration experiment's names and presets (nothing here imports pandas or numpy). It has no post: it
measures what this machine can time (machine/calibration.py: the record the claims' requirements read)."""

from __future__ import annotations

NAME = "calibration"
TITLE = "This machine: timer granularity, CAS, cache-line round trips, wake-ups and per-JVM regimes"
NOTEBOOKS = ["00-overview"]
POST_FILE = None     # no post: the overview's "This machine" section shows it
REFERENCE = None
# Per measure: Java (Floors) and C (calibration) arguments; forks per cell; aa_forks: fresh JVMs of the A/A.
# smoke: the short form that opens every standard run (< 15 s here); standard: ~2-3 minutes on 2 CPUs.
PRESETS = {
    "smoke": {"samples": 200, "millis_samples": 3, "ops": 2_000_000, "trips": 20_000, "same_trips": 2_000,
              "rounds": 50, "runs": 2, "warmup_runs": 1, "forks": 1, "aa_forks": 3, "aa_trips": 10_000,
              "timeout": 60},
    "standard": {"samples": 2_000, "millis_samples": 10, "ops": 20_000_000, "trips": 200_000, "same_trips": 20_000,
                 "rounds": 300, "runs": 5, "warmup_runs": 2, "forks": 5, "aa_forks": 20, "aa_trips": 100_000,
                 "timeout": 120},
    "full": {"samples": 10_000, "millis_samples": 20, "ops": 100_000_000, "trips": 1_000_000, "same_trips": 50_000,
             "rounds": 1_000, "runs": 10, "warmup_runs": 3, "forks": 10, "aa_forks": 40, "aa_trips": 200_000,
             "timeout": 300},
}
