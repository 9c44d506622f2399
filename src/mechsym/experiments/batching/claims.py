"""The post's claims as data, and the verdicts: per fork, with intervals, under the post's protocol and the lab's.

Every threshold cites the post's sentence and states how its words are read; the post's own table (data/reference)
passes its own claims."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import analysis
from ...verdicts import Claim, Rule, Verdict, estimate, judge, unmeasurable
from .meta import NOTEBOOKS, POST_FILE, REFERENCE
from .rows import LAB, PROTOCOLS, forks, rows
from .sweep import BURST, HIGH, LOW

NB = NOTEBOOKS[0]


def post_value(ref: pd.DataFrame, mode: str, metric: str) -> float:
    """One number of the post's table (µs or packets) for a mode."""
    t = ref[(ref["mode"] == mode) & (ref["metric"] == metric)]["value"]
    return float(t.iloc[0])


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
          "packets written per burst of 10, serial / batching; ratio of the medians over forks",
          quote="It also has a nice effect across the network on the receiving end in that the receiver has to "
                "process fewer packets and therefore makes the communication more efficient both ends.",
          rule=Rule(">=", 2, reading="'fewer packets' read as at most half as many (the table: 10 vs 1-2)"),
          statistic="serial / batching, packets per burst", unit="x", reference=REFERENCE,
          from_post=_ratio("packets", "packets_max")),
    Claim("batching.flat-until-saturation", POST_FILE, NB,
          "As load grows, smart batching's latency stays about constant until the device saturates (a bathtub).",
          "no numbers in the post (a sentence)",
          f"mean latency per message, batching, bursts of {BURST} at {HIGH:g} over at {LOW:g} of the serial "
          "device's capacity (both far below batching's saturation); ratio of the medians over forks",
          quote="With this algorithm, as load increases, latency stays constant until the underlying device is "
                "saturated with traffic resulting in a more \"bathtub\" profile than the J-Curve.",
          rule=Rule("<=", 1.5, reading="'stays constant' read generously as growing by at most 1.5x"),
          statistic=f"batching mean latency, load {HIGH:g} / load {LOW:g}", unit="x"),
    Claim("batching.serial-j-curve", POST_FILE, NB,
          "Serial writers contending for the device show a J-curve: their latency rises steeply as load nears the "
          "device's capacity.",
          "no numbers in the post (a sentence)",
          f"mean latency per message, serial, bursts of {BURST} at {HIGH:g} over at {LOW:g} of the device's "
          "capacity; ratio of the medians over forks",
          quote="By avoiding the contention we avoid the J-Curve latency profile normally associated with contention "
                "on resources, due to the queuing effect on locks.",
          rule=Rule(">=", 1.5, reading="'J-Curve' read as the latency at 90% load at least 1.5x that at 10%"),
          statistic=f"serial mean latency, load {HIGH:g} / load {LOW:g}", unit="x"),
]
CLAIM = {c.id: c for c in CLAIMS}
TABLE_CLAIMS = {"batching.mean-latency": "latency_mean", "batching.worst-latency": "latency_worst",
                "batching.fewer-packets": "packets_per_burst"}
LOAD_CLAIMS = {"batching.flat-until-saturation": "batching", "batching.serial-j-curve": "serial"}


def _fmt(metric: str, v: float) -> str:
    return f"{v:.2f} packets" if metric == "packets_per_burst" else analysis.fmt_ns(v)


def _table_verdict(df, claim, metric, protocol) -> Verdict:
    s = forks(df, protocol, metric, "serial", BURST)
    b = forks(df, protocol, metric, "batching", BURST)
    est = estimate(lambda a, c: a / c, s, b)
    detail = "" if est is None else (f"serial {_fmt(metric, np.median(s))}, batching {_fmt(metric, np.median(b))} "
                                     "(medians over forks)")
    return judge(claim, est, scope={"burst": BURST, "device": "spin"}, protocol=protocol, detail=detail,
                 missing=f"no bursts of {BURST} in these results")


def _load_verdict(df, claim, mode) -> Verdict:
    hi = forks(df, LAB, "latency_mean", mode, BURST, "load", HIGH)
    lo = forks(df, LAB, "latency_mean", mode, BURST, "load", LOW)
    est = estimate(lambda a, c: a / c, hi, lo)
    detail = "" if est is None else (f"load {HIGH:g}: {analysis.fmt_ns(np.median(hi))}, load {LOW:g}: "
                                     f"{analysis.fmt_ns(np.median(lo))} (medians over forks)")
    return judge(claim, est, scope={"burst": BURST, "variant": mode}, protocol=LAB, detail=detail,
                 missing=f"no load sweep at {LOW:g} and {HIGH:g} in these results (the smoke preset runs one load)")


@analysis.by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """The worked example's claims under the post's protocol and the lab's; the load claims with the lab's (the post
    describes the load profile in words only)."""
    if rows(df).empty:
        return [unmeasurable(c, "no measured results") for c in CLAIMS]
    out = [_table_verdict(df, CLAIM[cid], metric, proto) for cid, metric in TABLE_CLAIMS.items() for proto in PROTOCOLS]
    out += [_load_verdict(df, CLAIM[cid], mode) for cid, mode in LOAD_CLAIMS.items()]
    return out
