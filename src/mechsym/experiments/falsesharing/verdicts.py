"""The falsesharing verdicts: every claim judged on the measured forks, per machine, with intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
from ...judge import analysis
from ...judge.analysis import fmt_ns
from ...judge.verdicts import Verdict, estimate, judge, unmeasurable
from .claims import CLAIM, CLAIMS, POST_THREADS
from .rows import LAB, PLACEMENT_OF, PROTOCOLS, forks, layout_forks, layout_rows, rows


def _values(vals: np.ndarray, unit: str) -> str:
    if len(vals) > 8:
        return f"{len(vals)} forks"
    return "forks: " + ", ".join(analysis.fmt_value(v, unit) for v in np.sort(vals))


def _ratio(claim, num, den, scope, protocol, names) -> Verdict:
    est = estimate(lambda a, b: a / b, num, den)
    detail = "" if est is None else (f"{names[0]} {fmt_ns(np.median(num))} / {names[1]} {fmt_ns(np.median(den))}; "
                                     f"{_values(num, 'ns')} / {_values(den, 'ns')}")
    return judge(claim, est, scope=scope, protocol=protocol, detail=detail,
                 missing=f"{' or '.join(names)} cell missing from these results")


def _cpus(df: pd.DataFrame) -> int | None:
    m = pd.to_numeric(rows(df)["machine_cpus"], errors="coerce").dropna() if "machine_cpus" in df else pd.Series()
    return int(m.iloc[0]) if len(m) else None


def _timing(df, jdk, protocol) -> list[Verdict]:
    cell = lambda layout, threads: forks(df, protocol, variant=layout, jdk=jdk, threads=threads)
    scope = {"jdk": jdk, "placement": PLACEMENT_OF[protocol.name], "threads": 2}
    out = [_ratio(CLAIM["falsesharing.unpadded-slower"], cell("unpadded", 2), cell("padded-longs", 2), scope,
                  protocol, ("unpadded", "padded-longs")),
           _ratio(CLAIM["falsesharing.first-padding-false-shares"], cell("padded-longs", 2), cell("padded-atomic", 2),
                  scope, protocol, ("padded-longs", "padded-atomic"))]
    cpus = _cpus(df)
    for cid, layout in (("falsesharing.padded-near-linear", "padded-longs"),
                        ("falsesharing.padded-atomic-reliable", "padded-atomic")):
        out.append(_ratio(CLAIM[cid], cell(layout, 2), cell(layout, 1), {**scope, "threads": "2 vs 1"}, protocol,
                          (f"{layout} x2", f"{layout} x1")))
        s4 = {**scope, "threads": f"{POST_THREADS} vs 1"}
        if cpus is not None and cpus < POST_THREADS:
            out.append(unmeasurable(CLAIM[cid], f"this machine has {cpus} CPUs: {POST_THREADS} threads are "
                                    f"time-sliced, {POST_THREADS // cpus} per CPU, unlike the post's "
                                    f"{POST_THREADS} threads on {POST_THREADS} cores", scope=s4, protocol=protocol))
        elif len(cell(layout, POST_THREADS)):
            out.append(_ratio(CLAIM[cid], cell(layout, POST_THREADS), cell(layout, 1), s4, protocol,
                              (f"{layout} x{POST_THREADS}", f"{layout} x1")))
    return out


def _layout(df, jdk, claim_id: str = "falsesharing.java7-drops-padding") -> Verdict:
    """The gap claims read JOL's smallest counter gap, against a 64-byte line or a 128-byte pair of lines."""
    claim = CLAIM[claim_id]
    gaps = layout_forks(df, "padded-longs", jdk=jdk)
    kept = layout_forks(df, "padded-longs", "padding_fields_kept", jdk=jdk)
    est = estimate(lambda a: a, gaps)
    detail = "" if est is None else (f"{_values(gaps, 'bytes')}; padding fields kept: "
                                     f"{', '.join(f'{k:.0f} of 6' for k in sorted(set(kept)))}")
    return judge(claim, est, scope={"jdk": jdk}, protocol=LAB, detail=detail,
                 missing="no JOL layout rows for this JDK")


@analysis.by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """Every claim per JDK: the timing claims under the post's protocol and then the lab's; the layout claim from
    JOL (the same in both: a layout has no protocol)."""
    timed, lay = rows(df), layout_rows(df)
    if timed.empty and lay.empty:
        return [unmeasurable(c, "no measured results") for c in CLAIMS]
    out: list[Verdict] = []
    for jdk in analysis.jdks(pd.concat([timed, lay])):
        out += [_layout(df, jdk), _layout(df, jdk, "falsesharing.java7-drops-padding-pair")]
        for protocol in PROTOCOLS:
            out += _timing(df, jdk, protocol)
    order = {c.id: i for i, c in enumerate(CLAIMS)}
    return sorted(out, key=lambda v: order[v.claim.id])
