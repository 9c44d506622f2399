"""The post's claims as data: judged per fork, with intervals, under the one protocol (rows.py).

The post's figure has no numbers in its text: neither claim has a post statistic to pass its own rule, which the
claims table says ('then')."""

from __future__ import annotations


from ...judge.verdicts import Claim, Rule
from ...judge.requirements import MIGRATION, Requirement
from .meta import NOTEBOOK, POST_FILE, REFERENCE

QUOTE = ("The interesting thing I've observed is that the unpinned test will follow a step function of "
         "unpredictable performance. [...] For the pinned tests I get consistent throughput with no step pattern and "
         "always the greatest throughput.")

CLAIMS = [
    Claim("affinity.pinned-greatest-throughput", POST_FILE, NOTEBOOK,
          "Pinning the sender and the receiver each to its own CPU gives the greatest throughput.",
          "figure only, no numbers in the text",
          "receiver messages/s per second, median per fork (one pair of JVMs); pinned over unpinned, ratio of the "
          "forks' medians",
          quote=QUOTE, rule=Rule(">=", 1.05, effect=0.05, reading="'always the greatest throughput': pinned ahead of "
                                 "unpinned by the smallest effect that matters, 5%"),
          statistic="receiver messages/s pinned over unpinned", unit="x", reference=REFERENCE,
          requires=(Requirement(MIGRATION, threads=2),)),
    Claim("affinity.pinned-steadier", POST_FILE, NOTEBOOK,
          "Unpinned, the rate moves in unpredictable steps from second to second; pinned, it is consistent.",
          "figure only, no numbers in the text",
          "spread of the receiver's per-second rates within a run (coefficient of variation) per fork; unpinned "
          "over pinned, ratio of the forks' medians",
          quote=QUOTE, rule=Rule(">=", 1.5, reading="'a step function of unpredictable performance' against "
                                 "'consistent throughput' read as unpinned seconds spread at least 1.5x as much"),
          statistic="per-second spread (CV) unpinned over pinned", unit="x", reference=REFERENCE,
          requires=(Requirement(MIGRATION, threads=2),)),
]
CLAIM = {c.id: c for c in CLAIMS}
