"""seqio's verdicts: each statistic computed per fork (one JVM doing five passes: its median of passes 2-5, the
post's passes after the first) with a 95% interval over forks, under each kernel protocol.

Protocols (the verdict's `protocol` column): "post" judges the kernel's post protocol, which reproduces the
structure of the post's TestSequentialIoPerf listing; "lab" judges the lab's own kernel (a changing data pattern
checked after every read, windows unmapped when done, ...). On this lab's machine they disagree on the mapped
read, and with it on "RandomAccessFile and NIO read fastest": the harness, not the device, decides that claim.
"""

from __future__ import annotations

import pandas as pd

from ... import analysis
from ...analysis import Protocol, by_machine
from ...verdicts import Verdict, estimate, judge, unmeasurable
from .claims import (CLAIM, CLAIMS, COLD, buffers_margin, mapped_write_lead, narrowing, read_lead,
                     streams_margin)
from .meta import POST_METHODS
from .rows import POST, PROTOCOLS, throughput


@by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """Every claim under each kernel protocol and JDK found in the rows (one machine's rows: by_machine splits)."""
    t = throughput(df, measured_only=True) if len(df) and "metric" in df else pd.DataFrame()
    t = t[t["variant"].isin(POST_METHODS)] if len(t) else t
    out: list[Verdict] = []
    for proto in PROTOCOLS:
        rows = t[t["protocol"] == proto.name] if len(t) else t
        if rows.empty:
            why = ("no measured results" if t.empty else
                   f"no {proto.name}-protocol runs in these results"
                   + (" (stored before the kernel had its post protocol)" if proto is POST else ""))
            out += [unmeasurable(c, why, protocol=proto) for c in CLAIMS]
            continue
        for jdk in analysis.jdks(rows):
            out += _judge_all(rows[rows["jdk"] == jdk], proto, jdk)
    return out


def _judge_all(rows: pd.DataFrame, proto: Protocol, jdk: str) -> list[Verdict]:
    have = analysis.ordered(rows["regime"], ["page-cache", *COLD])
    colds = [g for g in have if g in COLD]
    cells = [(g, d) for g in have for d in ("write", "read")]
    forks = {(g, d, m): analysis.fork_values(rows, proto, regime=g, direction=d, variant=m)
             for g, d in cells for m in POST_METHODS}

    def est(stat, regimes):
        keys = [(g, d, m) for g in regimes for d in ("write", "read") for m in POST_METHODS]
        if not regimes or any(forks.get(k) is None or not len(forks[k]) for k in keys):
            return None
        return estimate(lambda *v: stat(_nest(keys, v)), *[forks[k] for k in keys])

    scope = {"jdk": jdk}
    out = [
        judge(CLAIM["seqio.raf-channel-read-fastest"], est(read_lead, ["page-cache"]),
              scope={**scope, "regime": "page-cache"}, protocol=proto, missing="page-cache runs of the four methods "
              "missing"),
        judge(CLAIM["seqio.mapped-wins-writes"], est(lambda c: mapped_write_lead(c, have), have), scope=scope,
              protocol=proto, detail=f"best of {', '.join(have)}", missing="writes of the four methods missing"),
        judge(CLAIM["seqio.streams-lag"], est(streams_margin, ["page-cache"]), scope={**scope, "regime": "page-cache"},
              protocol=proto, missing="page-cache runs of the four methods missing"),
    ]
    both = ["page-cache", colds[0]] if "page-cache" in have and colds else []
    out.append(judge(CLAIM["seqio.channels-best-optimised"], est(lambda c: buffers_margin(c, both), both),
                     scope=scope, protocol=proto, detail=f"worst of {' and '.join(both)}, writes and reads",
                     missing="needs the page-cache regime and a cold one"))
    for d in ("write", "read"):
        claim = CLAIM[f"seqio.cold-narrows-{d}"]
        if not colds or "page-cache" not in have:
            out.append(unmeasurable(claim, "needs the page-cache regime and a cold one", scope=scope, protocol=proto))
        for cold in colds if "page-cache" in have else []:
            out.append(judge(claim, est(lambda c, cold=cold: narrowing(c, cold, d), ["page-cache", cold]),
                             scope={**scope, "regime": cold}, protocol=proto,
                             missing=f"{cold}: the four methods' {d}s missing"))
    return out


def _nest(keys: list[tuple], values) -> dict:
    """[(regime, direction, method)], [value] -> {(regime, direction): {method: value}}."""
    out: dict = {}
    for (g, d, m), v in zip(keys, values):
        out.setdefault((g, d), {})[m] = float(v)
    return out

