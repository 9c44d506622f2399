"""The pingbuffet experiment's names and presets: what `mechsym list` reads without importing the rest
(nothing here imports pandas or numpy), and what every other part of the package starts from."""

from __future__ import annotations

NAME = "pingbuffet"
TITLE = "The Java ping buffet: round trips per transport (TCP, UDP over loopback; IPC through shared memory), two JVMs, percentiles"
NOTEBOOKS = ["13-ping-buffet"]
POST_FILE = "2013-07-01-java-ping-buffet-and-2013-04-07-135m-messages-ipc.md"
REFERENCE = "2013-07-01-java-ping-buffet-and-2013-04-07-135m-messages-ipc"
# variant -> (kernel mode, yield while spinning, wait between pings in ns, what it stands for)
VARIANTS = {
    "ipc-spin": ("ipc-spin", False, 0, "IPC through a memory-mapped file, busy spin"),
    "udp-spin": ("udp-spin", False, 0, "UDP, busy spin on non-blocking sockets"),
    "tcp-spin": ("tcp-spin", False, 0, "TCP, busy spin on non-blocking sockets"),
    "tcp-selectnow": ("tcp-selectnow", False, 0, "TCP, Selector busy spin on selectNow"),
    "tcp-block": ("tcp-block", False, 0, "TCP, blocking sockets"),
    "tcp-select": ("tcp-select", False, 0, "TCP, Selector blocking on select"),
    "timer": ("timer", False, 0, "no ping: the timer's own error (the post's ErrPingClient)"),
    "tcp-spin-yield": ("tcp-spin", True, 0, "TCP busy spin with Thread.yield() on every empty read (-Dyield=true)"),
    "ipc-spin-yield": ("ipc-spin", True, 0, "IPC busy spin with Thread.yield() on every empty read"),
    "tcp-spin-wait": ("tcp-spin", False, 1_000, "TCP busy spin, 1 µs between pings (-DwaitNanos=1000)"),
}
# The post's own summary rows, judged: run with the kernel's post protocol too (raw array, sorted, (int)(N*p)).
JUDGED = ["ipc-spin", "udp-spin", "tcp-spin", "tcp-selectnow", "tcp-block", "tcp-select", "timer"]
# Beyond cross-core: the post's "same core (different threads)", i.e. two SMT siblings of one core (skipped with the
# reason on a machine without SMT); one CPU for both JVMs (a spin there waits for the scheduler's time slice, so
# only the yielding and blocking variants; it stands in for "same core" where there are no siblings) and unpinned.
PLACEMENTS = {
    "cross-core": list(VARIANTS),
    "smt": ["ipc-spin", "udp-spin", "tcp-spin"],
    "same-cpu": ["tcp-block", "tcp-spin-yield", "ipc-spin-yield"],
    "unpinned": ["ipc-spin", "tcp-spin", "tcp-block"],
}
# A percentile is reported only where at least MIN_BEYOND samples of a run lie beyond it: p99 needs 10,000 pings,
# p99.9 100,000, p99.99 1,000,000. Fewer, and the "percentile" is one of the few largest samples.
MIN_BEYOND = 100
QUANTILE = {"p50": 0.5, "p90": 0.9, "p99": 0.99, "p99.9": 0.999, "p99.99": 0.9999}


def supported(stat: str, pings: float) -> bool:
    """Whether a run of `pings` round trips supports the percentile `stat` (min, max and mean always do)."""
    q = QUANTILE.get(stat)
    return q is None or pings * (1 - q) >= MIN_BEYOND - 1e-9


# pings: per run for the sockets; pings_fast: for the spinning IPC ping and the timer pinned cross-core, which take
# well under a microsecond each (the original's IPC client times 1,000,000 pings a row). Standard: 20,000 socket
# pings support up to p99, 1,000,000 fast ones up to p99.99.
PRESETS = {
    "smoke": {"pings": 2_000, "pings_fast": 2_000, "runs": 1, "warmup_runs": 1, "forks": 1, "other_forks": 1, "timeout": 60,
              "variants": ["ipc-spin", "tcp-spin", "timer"], "placements": ["cross-core"], "post": ["tcp-spin"]},
    "standard": {"pings": 20_000, "pings_fast": 1_000_000, "runs": 3, "warmup_runs": 1, "forks": 5, "other_forks": 3, "timeout": 120,
                 "variants": list(VARIANTS), "placements": list(PLACEMENTS), "post": JUDGED},
    # the post's tool (java-ping at the post's date): 100,000 pings a row for the sockets, 30 rows per JVM by
    # default, 1,000,000 a row for IPC (its sample shows the first, cold, row's tail)
    "full": {"pings": 100_000, "pings_fast": 1_000_000, "runs": 9, "warmup_runs": 1, "forks": 5, "other_forks": 5, "timeout": 1_800,
             "variants": list(VARIANTS), "placements": list(PLACEMENTS), "post": JUDGED},
}
