"""The post's claims as data, and the verdicts per fork, with intervals, under the post's protocol and the lab's.

The post's figure has no numbers in its text: neither claim has a post statistic to pass its own rule, which the
claims table says ('then')."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ... import analysis
from ...verdicts import Claim, Rule, Verdict, estimate, judge, unmeasurable
from .meta import NOTEBOOK, POST_FILE, REFERENCE
from .rows import PROTOCOLS, fork_values, rates

QUOTE = ("The interesting thing I've observed is that the unpinned test will follow a step function of "
         "unpredictable performance. [...] For the pinned tests I get consistent throughput with no step pattern and "
         "always the greatest throughput.")

CLAIMS = [
    Claim("affinity.pinned-greatest-throughput", POST_FILE, NOTEBOOK,
          "Pinning the sender and the receiver each to its own CPU gives the greatest throughput.",
          "figure only, no numbers in the text",
          "receiver messages/s per second, median per fork (one pair of JVMs); pinned over unpinned, ratio of the "
          "forks' medians",
          quote=QUOTE, rule=Rule(">=", 1.0, reading="'always the greatest throughput': pinned at least as fast as "
                                 "unpinned (>= 1x)"),
          statistic="receiver messages/s pinned over unpinned", unit="x", reference=REFERENCE),
    Claim("affinity.pinned-steadier", POST_FILE, NOTEBOOK,
          "Unpinned, the rate moves in unpredictable steps from second to second; pinned, it is consistent.",
          "figure only, no numbers in the text",
          "spread of the receiver's per-second rates within a run (coefficient of variation) per fork; unpinned "
          "over pinned, ratio of the forks' medians",
          quote=QUOTE, rule=Rule(">=", 1.5, reading="'a step function of unpredictable performance' against "
                                 "'consistent throughput' read as unpinned seconds spread at least 1.5x as much"),
          statistic="per-second spread (CV) unpinned over pinned", unit="x", reference=REFERENCE),
]
CLAIM = {c.id: c for c in CLAIMS}


def _ratio(claim, num, den, names, protocol, why):
    est = estimate(lambda a, b: a / b, num, den)
    detail = "" if est is None else "; ".join(f"{n}: {', '.join(analysis.si(v) for v in np.sort(x))}"
                                              for n, x in zip(names, (num, den)))
    return judge(claim, est, scope={"placement": "cross-core vs unpinned"}, protocol=protocol, detail=detail,
                 missing=why)


@analysis.by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """Both claims under the post's protocol and the lab's, one machine at a time."""
    if rates(df).empty:
        gone = analysis.unavailable_reasons(df, "placement") if df is not None and len(df) else {}
        short = len(analysis.measured(df, "total")) > 0
        why = "; ".join(f"{p}: {r}" for p, r in gone.items()) or (
            "no full second in these runs (each shorter than a second, as at the smoke preset)" if short
            else "no measured results")
        return [unmeasurable(c, why) for c in CLAIMS]
    gone = analysis.unavailable_reasons(df, "placement")
    why = "; ".join(f"{p}: {r}" for p, r in gone.items()) or "pinned or unpinned cells missing from these results"
    out = []
    for p in PROTOCOLS:
        pin, unp = (fork_values(df, p, placement=pl) for pl in ("cross-core", "unpinned"))
        out.append(_ratio(CLAIM["affinity.pinned-greatest-throughput"], pin, unp, ("pinned", "unpinned"), p, why))
        pin, unp = (fork_values(df, p, "cv", placement=pl) for pl in ("cross-core", "unpinned"))
        out.append(_ratio(CLAIM["affinity.pinned-steadier"], unp, pin, ("unpinned CV", "pinned CV"), p, why))
    return out
