"""The disruptor verdicts: every claim judged on the measured forks, per machine, with intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
from ...judge import analysis
from ...judge.verdicts import Verdict, estimate, judge, unmeasurable
from .claims import CLAIM, CLAIMS
from .meta import PLACEMENTS
from .rows import LAB, PROTOCOLS, forks, rows


def _detail(*groups: tuple[str, np.ndarray]) -> str:
    return "; ".join(f"{name}: median {analysis.fmt_rate(np.median(v))}, {len(v)} forks" for name, v in groups
                     if len(v))


def _single(claim, vals, scope, protocol):
    return judge(claim, estimate(lambda a: a, vals), scope=scope, protocol=protocol,
                 detail=_detail(("forks", vals)) if len(vals) else "", missing=_missing(scope))


def _ratio(claim, num, den, names, scope, protocol):
    return judge(claim, estimate(lambda a, b: a / b, num, den), scope=scope, protocol=protocol,
                 detail=_detail((names[0], num), (names[1], den)), missing=_missing(scope))


def _missing(scope) -> str:
    return f"no {scope.get('placement', '')} cells with this protocol in these results".replace("  ", " ")


@analysis.by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """Every claim per JDK and placement, under the post's protocol and then the lab's, one machine at a time."""
    m = rows(df)
    if m.empty:
        return [unmeasurable(c, "no measured results") for c in CLAIMS]
    gone = analysis.unavailable_reasons(df, "placement")
    out = []
    for jdk in analysis.jdks(m):
        cell = lambda protocol, variant, placement: forks(df, protocol, variant=variant, jdk=jdk, placement=placement)
        for placement in [p for p in PLACEMENTS if p in set(m["placement"]) or p in gone]:
            scope = {"jdk": jdk, "placement": placement}
            if placement in gone:
                out += [unmeasurable(CLAIM[c], f"{placement}: {gone[placement]}", scope=scope)
                        for c in ("disruptor.over-50m-events", "disruptor.order-of-magnitude-over-queue")]
                continue
            for p in PROTOCOLS:
                ring = cell(p, "disruptor-yielding", placement)
                out.append(_single(CLAIM["disruptor.over-50m-events"], ring, scope, p))
                out.append(_ratio(CLAIM["disruptor.order-of-magnitude-over-queue"], ring, cell(p, "abq", placement),
                                  ("RingBuffer", "ArrayBlockingQueue"), scope, p))
            out.append(_ratio(CLAIM["disruptor.beats-lock-free-queue"], cell(LAB, "disruptor-busy-spin", placement),
                              cell(LAB, "jctools", placement), ("RingBuffer", "SpscArrayQueue"), scope, LAB))
        for p in PROTOCOLS:
            scope = {"jdk": jdk, "placement": "cross-core vs unpinned"}
            out.append(_ratio(CLAIM["disruptor.pinning-matters"], cell(p, "disruptor-yielding", "cross-core"),
                              cell(p, "disruptor-yielding", "unpinned"), ("pinned", "unpinned"), scope, p))
    out.append(unmeasurable(CLAIM["disruptor.2-3x-over-1x"], "the lab pins one Disruptor release (4.0.0, "
                            "see pom.xml); 2.0 against 1.x is a comparison of releases of 2011"))
    return out
