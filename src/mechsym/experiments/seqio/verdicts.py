"""seqio's verdicts: each statistic computed per fork (one JVM doing five passes: its median of passes 2-5, the
post's passes after the first) with a 95% interval over forks, under each kernel protocol.

Protocols (the verdict's `protocol` column): "post" judges the kernel's post protocol, which reproduces the
structure of the post's TestSequentialIoPerf listing; "lab" judges the lab's own kernel (a changing data pattern
checked after every read, windows unmapped when done, ...). On this lab's machine they disagree on the mapped
read, and with it on "RandomAccessFile and NIO read fastest": the harness, not the device, decides that claim.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from ...judge.analysis import Protocol, by_machine
from ...judge.verdicts import Verdict, estimate, judge, least, unmeasurable
from .claims import BUFFERS, CLAIM, CLAIMS, COLD, OTHERS, mapped_write_lead, narrowing
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

    def least_of(members):
        """The least of several comparisons (fn, cell keys), decided member by member (verdicts.least): the same
        statistic as claims.py's read_lead / streams_margin / buffers_margin on the medians, without bootstrapping
        a minimum."""
        if not members or any(forks.get(k) is None or not len(forks[k]) for _, ks in members for k in ks):
            return None
        return least(*[(fn, *[forks[k] for k in ks]) for fn, ks in members])

    pc = "page-cache"
    read_members = [(_div, [(pc, "read", a), (pc, "read", b)]) for a in ("random-access-file", "channel-heap")
                    for b in ("buffered-stream", "mapped")] if pc in have else []
    streams_members = [(_div, [(pc, d, m), (pc, d, "buffered-stream")]) for d in ("write", "read")
                       for m in POST_METHODS if m != "buffered-stream"] if pc in have else []
    scope = {"jdk": jdk}
    out = [
        judge(CLAIM["seqio.raf-channel-read-fastest"], least_of(read_members),
              scope={**scope, "regime": "page-cache"}, protocol=proto, missing="page-cache runs of the four methods "
              "missing"),
        judge(CLAIM["seqio.mapped-wins-writes"], est(lambda c: mapped_write_lead(c, have), have), scope=scope,
              protocol=proto, detail=f"best of {', '.join(have)}", missing="writes of the four methods missing"),
        judge(CLAIM["seqio.streams-lag"], least_of(streams_members), scope={**scope, "regime": "page-cache"},
              protocol=proto, missing="page-cache runs of the four methods missing"),
    ]
    both = ["page-cache", colds[0]] if "page-cache" in have and colds else []
    buffer_members = [(_best_over, [(g, d, BUFFERS[0]), (g, d, BUFFERS[1]), (g, d, o)]) for g in both
                      for d in ("write", "read") for o in OTHERS]
    out.append(judge(CLAIM["seqio.channels-best-optimised"], least_of(buffer_members),
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


def _div(a, b):
    return a / b


def _best_over(b1, b2, other):
    """The better of the two buffer methods over another method (one member of buffers_margin)."""
    return np.maximum(b1, b2) / other


def _nest(keys: list[tuple], values) -> dict:
    """[(regime, direction, method)], [value] -> {(regime, direction): {method: value}}."""
    out: dict = {}
    for (g, d, m), v in zip(keys, values):
        out.setdefault((g, d), {})[m] = float(v)
    return out

