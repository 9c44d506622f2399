"""The post's claims as data, and the verdicts: per fork, with intervals, under the post's protocol and the lab's.

Every threshold cites the post's sentence and states how its words are read; the post's own numbers
(data/reference) pass the claims they bear on (`claim.rule.holds_at(claim.then_value())`)."""

from __future__ import annotations

import pandas as pd

from ...judge.verdicts import Claim, Rule
from .meta import POST_FILE, REFERENCE
from .sweep import SPLIT

NB = "07-write-combining"
FASTER = 1.2          # what "the effect appears" means for the knee: a sixth more time per store


def _durations(ref: pd.DataFrame, case: str) -> pd.Series:
    return ref[(ref["table"] == "Output") & (ref["case"] == case)].set_index("repetition")["value"]


def _post_ratio(ref: pd.DataFrame) -> float:
    """The mean of the post's three SingleLoop durations over the mean of its three SplitLoop ones: 1.67."""
    return float(_durations(ref, "SingleLoop").mean() / _durations(ref, "SplitLoop").mean())


KNEE_SHARE = 0.8      # four-buffers: the share of rounds of forks that must agree on where the knee is


CLAIMS = [
    Claim("writecombining.split-faster", POST_FILE, NB,
          "Writing six arrays in two loops of three takes much less time than in one loop of six, although it does "
          "more work: filling the write-combining buffers properly makes the code about twice as fast.",
          "SingleLoop 13.80-14.16 s, SplitLoop 7.27-8.97 s (2^31 iterations, Core i7 860): 14.02 / 8.97 = 1.56x, "
          "14.16 / 8.89 = 1.59x, 13.80 / 7.27 = 1.90x; 1.67x on the means",
          "per fork (fresh JVM or C process) SingleLoop time over SplitLoop time: post, the listing's main (its "
          "first repetition); lab, one loop of 6 and loops of 3 in separate forks, median of warmed-up runs",
          quote="By using our knowledge of the CPU architecture to fill those buffers properly we can use the "
                "underlying hardware to accelerate our code by a factor of two.",
          rule=Rule(">=", 1.5, reading="'a factor of two' (and 'much less time') read generously as the single loop "
                    "taking at least 1.5x the split loops' time: the post's own three pairs gave 1.56x, 1.59x and "
                    "1.90x"),
          statistic="SingleLoop time over SplitLoop time", unit="x", reference=REFERENCE, from_post=_post_ratio),
    Claim("writecombining.four-buffers", POST_FILE, NB,
          "A loop loses the write-combining effect once it writes more than about four distinct locations per "
          "iteration: up to four arrays one loop costs per store what a loop of three does, past that it costs more.",
          "no sweep in the post: 4 buffers are 'guaranteed' on Intel, and one test, 6 arrays in one loop vs 3 + 3",
          f"the sweep, one loop of N = 1..12 arrays, per round of forks (fork i of every cell): the fewest N past "
          f"{SPLIT} at which one loop costs at least {FASTER}x per store what a loop of {SPLIT} (the split loops' own "
          f"loop) costs; 13: none up to 12; the modal knee and its share of rounds; post: first, cold run of each "
          f"fork; lab: median of warmed-up runs",
          quote="For example on an Intel CPU you are only guaranteed to get 4 of them at one time. What this means is "
                "that within a loop you should not write to more than 4 distinct memory locations at one time or "
                "you will not benefit from the write combining effect.",
          rule=Rule("between", 4, 6, reading=f"'not more than 4 distinct memory locations' read as: one loop first "
                    f"costs {FASTER}x a loop of {SPLIT} per store at 5 arrays, generously at 4 to 6. The knee is a "
                    f"whole number of arrays, read per round of forks: the claim holds when at least "
                    f"{KNEE_SHARE:.0%} of the rounds put it at 4 to 6, does not hold when at least {KNEE_SHARE:.0%} "
                    f"put it elsewhere, and is inconclusive when the rounds disagree"),
          statistic=f"fewest arrays per loop costing {FASTER}x a loop of {SPLIT} per store", unit="arrays",
          reference=REFERENCE),
]
CLAIM = {c.id: c for c in CLAIMS}
