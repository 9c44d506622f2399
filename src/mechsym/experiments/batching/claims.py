"""The post's claims as data, and the verdicts: per fork, with intervals, under the post's protocol and the lab's.

Every threshold cites the post's sentence and states how its words are read; the post's own table (data/reference)
passes its own claims."""

from __future__ import annotations


from ...judge.verdicts import Claim, Rule
from .meta import NOTEBOOKS, POST_FILE, REFERENCE
from .rows import post_value
from .sweep import BURST, HIGH, LOW

NB = NOTEBOOKS[0]


def _ratio(metric_serial: str, metric_batching: str):
    return lambda ref: post_value(ref, "serial", metric_serial) / post_value(ref, "batching", metric_batching)


CLAIMS = [
    Claim("batching.mean-latency", POST_FILE, NB,
          "Under a burst of 10 messages, smart batching gives a lower average latency than writers taking a lock "
          "and writing one by one.",
          "average 500 µs serial vs 150 µs batching (190 µs in the post's worst case): 3.3x",
          "mean latency per message of a burst of 10 (from its arrival to the end of the write that carried it), "
          "serial / batching; ratio of the medians over forks",
          quote="Therefore in the worst case scenario one message has a latency of 100µs and the following 9 have a "
                "latency of 200µs thus giving a worst case average of 190µs which is significantly better than the "
                "serial approach.",
          rule=Rule(">=", 1.5, reading="'significantly better' read generously as at least 1.5x lower (the post's "
                    "own worst case: 500 / 190 = 2.6x)"),
          statistic="serial / batching, mean latency", unit="x", reference=REFERENCE,
          from_post=_ratio("latency_mean", "latency_mean")),
    Claim("batching.worst-latency", POST_FILE, NB,
          "Under a burst of 10 messages, smart batching gives a lower worst-case latency than serial writers.",
          "worst 1,000 µs serial vs 200 µs batching: 5x",
          "the slowest message's latency in a burst of 10, serial / batching; ratio of the medians over forks",
          quote="The batching solution helps achieve consistent low-latency under burst conditions and is best for "
                "throughput.",
          rule=Rule(">=", 1.5, reading="'consistent low-latency' read as the worst message at least 1.5x faster "
                    "(the post's table: 5x)"),
          statistic="serial / batching, worst latency", unit="x", reference=REFERENCE,
          from_post=_ratio("latency_worst", "latency_worst")),
    Claim("batching.fewer-packets", POST_FILE, NB,
          "Smart batching sends a burst of 10 messages in far fewer packets than serial writers (10).",
          "10 packets serial vs 1-2 batching: at least 5x",
          "packets written per burst of 10 over every measured burst of a fork (300 in standard), serial / batching; "
          "ratio of the medians over forks",
          quote="It also has a nice effect across the network on the receiving end in that the receiver has to "
                "process fewer packets and therefore makes the communication more efficient both ends.",
          rule=Rule(">=", 2, reading="'fewer packets' read as at most half as many (the table: 10 vs 1-2)"),
          statistic="serial / batching, packets per burst", unit="x", reference=REFERENCE,
          from_post=_ratio("packets", "packets_max")),
    Claim("batching.flat-until-saturation", POST_FILE, NB,
          "As load grows, smart batching's latency stays about constant until the device saturates (a bathtub).",
          "no numbers in the post (a sentence)",
          f"mean latency per message, batching, bursts of {BURST} at random (Poisson) times, {HIGH:g} over {LOW:g} "
          "of the serial device's capacity (both far below batching's saturation); ratio of the medians over forks",
          quote="With this algorithm, as load increases, latency stays constant until the underlying device is "
                "saturated with traffic resulting in a more \"bathtub\" profile than the J-Curve.",
          rule=Rule("<=", 1.5, reading="'stays constant' read generously as growing by at most 1.5x"),
          statistic=f"batching mean latency, load {HIGH:g} / load {LOW:g}", unit="x"),
    Claim("batching.serial-j-curve", POST_FILE, NB,
          "Serial writers contending for the device show a J-curve: their latency rises steeply as load nears the "
          "device's capacity.",
          "no numbers in the post (a sentence)",
          f"mean latency per message, serial, bursts of {BURST} at random (Poisson) times, {HIGH:g} over {LOW:g} of "
          "the device's capacity; ratio of the medians over forks",
          quote="By avoiding the contention we avoid the J-Curve latency profile normally associated with contention "
                "on resources, due to the queuing effect on locks.",
          rule=Rule(">=", 1.5, reading="'J-Curve' read as the latency at 90% load at least 1.5x that at 10%"),
          statistic=f"serial mean latency, load {HIGH:g} / load {LOW:g}", unit="x"),
]
CLAIM = {c.id: c for c in CLAIMS}
