"""The signalling verdicts: every claim judged on the measured forks, per machine, with intervals."""

from __future__ import annotations

from dataclasses import replace
import numpy as np
import pandas as pd
from ...judge import analysis
from ...judge.analysis import fmt_ns
from ...judge.verdicts import HOLDS, UNMEASURABLE, Verdict, estimate, judge, unmeasurable
from .claims import CLAIM, CLAIMS, PINNED
from .rows import PROTOCOLS, forks, median, post_rows, rows


# ---------------------------------------------------------------- verdicts

def _values(vals: np.ndarray, unit: str) -> str:
    """The forks' own values, sorted (a bimodal cell shows here; a median hides it)."""
    if len(vals) > 8:
        return f"{len(vals)} forks"
    return "forks: " + ", ".join(analysis.fmt_value(v, unit) for v in np.sort(vals))


def _ratio(claim, num, den, scope, protocol, names, why=""):
    est = estimate(lambda a, b: a / b, num, den)
    detail = "" if est is None else (f"{names[0]} {fmt_ns(np.median(num))} / {names[1]} {fmt_ns(np.median(den))}; "
                                     f"{_values(num, 'ns')} / {_values(den, 'ns')}")
    return judge(claim, est, scope=scope, protocol=protocol, detail=detail, why=why,
                 missing=f"{' or '.join(names)} cell missing from these results")


def _single(claim, vals, scope, protocol, unit, why=""):
    est = estimate(lambda a: a, vals)
    return judge(claim, est, scope=scope, protocol=protocol, detail="" if est is None else _values(vals, unit),
                 why=why, missing="cell missing from these results")


def _typical(df, **cell) -> str:
    """What the lab's sampled round trips show beside the mean (the post's ns/op): their median and their max."""
    p50, top = median(df, "round_trip_p50", **cell), median(df, "round_trip_max", **cell)
    return (f"the lab's sampled round trips (one timer call each): median {fmt_ns(p50)}, max {fmt_ns(top)}"
            if p50 else "")


def _source(df, protocol, **cell) -> str:
    """Where the post's protocol was read from, when not from the kernels' post-protocol cells."""
    if protocol.name != "post":
        return ""
    _, source = post_rows(df, **cell)
    return "" if source.startswith("the kernels'") else f"post protocol read from {source} (no post-protocol cells)"


def _join(*texts: str) -> str:
    return "; ".join(t for t in texts if t)


def _lock_verdicts(df, jdk, protocol) -> list[Verdict]:
    cell = lambda variant, placement: forks(df, protocol, variant=variant, jdk=jdk, placement=placement)
    lock, vol, unp = cell("locked", PINNED), cell("volatile-spin", PINNED), cell("locked", "unpinned")
    scope = {"jdk": jdk, "placement": PINNED}
    src = _source(df, protocol, variant="locked", jdk=jdk, placement=PINNED)
    return [
        _ratio(CLAIM["signalling.lock-1000x-volatile"], lock, vol, scope, protocol, ("locked", "volatile-spin"), src),
        _ratio(CLAIM["signalling.unpinned-several-times-slower"], unp, lock,
               {"jdk": jdk, "placement": "unpinned vs cross-core"}, protocol, ("unpinned", "cross-core"), src),
        _single(CLAIM["signalling.lock-latency-microseconds"], lock, scope, protocol, "ns", src),
    ]


def _spin_verdicts(df, runtime, where, c_vals, protocol) -> list[Verdict]:
    variant = "c-spin" if runtime == "c" else "volatile-spin"
    scope = ({"runtime": "C (gcc)"} if runtime == "c" else {"jdk": runtime}) | {"placement": PINNED}
    ns = forks(df, protocol, variant=variant, placement=PINNED, **where)
    ops = forks(df, protocol, "throughput", variant=variant, placement=PINNED, **where)
    src = _source(df, protocol, variant=variant, placement=PINNED, **where)
    typical = _typical(df, variant=variant, placement=PINNED, **where)
    out = [_single(CLAIM["signalling.volatile-under-50ns"], ns, scope, protocol, "ns", src),
           _single(CLAIM["signalling.20-30m-exchanges"], ops, scope, protocol, "ops/s", src)]
    out = [v if v.outcome in (HOLDS, UNMEASURABLE) else replace(v, why=_join(v.why, typical)) for v in out]
    if runtime != "c":
        c = CLAIM["signalling.java-c-equal"]
        out.append(_ratio(c, ns, c_vals, scope, protocol, ("Java", "C"), src) if len(c_vals) else
                   unmeasurable(c, "no C results (build it with `make`)", scope=scope, protocol=protocol))
    return out


@analysis.by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """Every claim per JDK (and C), under the post's protocol and then the lab's, one machine at a time."""
    m = rows(df)
    if m.empty:
        return [unmeasurable(c, "no measured results") for c in CLAIMS]
    if analysis.where(m, placement=PINNED).empty:
        why = analysis.unavailable_reasons(df, "placement").get(PINNED, "no cross-core results")
        return [unmeasurable(c, f"needs two CPUs on different cores: {why}") for c in CLAIMS]
    java = analysis.jdks(m[m["language"] == "java"])
    out: list[Verdict] = []
    for jdk in java:
        for protocol in PROTOCOLS:
            out += _lock_verdicts(df, jdk, protocol)
    for runtime in java + ["c"]:
        for protocol in PROTOCOLS:
            c_vals = forks(df, protocol, variant="c-spin", placement=PINNED)
            out += _spin_verdicts(df, runtime, {"jdk": runtime}, c_vals, protocol)
    order = {c.id: i for i, c in enumerate(CLAIMS)}
    return sorted(out, key=lambda v: order[v.claim.id])


@analysis.by_machine
def protocols_table(df: pd.DataFrame, notebook: str) -> pd.DataFrame:
    """The verdicts whose outcome changes with the protocol: post (first, cold run of each JVM) beside lab (median
    of the warmed-up runs), same machine, same forks. A one-row note when the two agree everywhere."""
    from ...judge.tables import for_notebook

    pairs: dict[tuple, dict] = {}
    for v in for_notebook(verdicts(df), notebook):
        pairs.setdefault((v.claim.id, v.scope_text), {})[v.protocol] = v
    out = []
    for (cid, scope), p in pairs.items():
        post, lab = p.get("post"), p.get("lab")
        if post and lab and post.outcome != lab.outcome:
            out.append({"claim": cid.removeprefix("signalling."), "scope": scope,
                        "post: first, cold run": f"{post.outcome}: {post.now.split(';')[0]}",
                        "lab: median of warmed-up runs": f"{lab.outcome}: {lab.now.split(';')[0]}"})
    if not out:
        return pd.DataFrame({"note": ["the post's protocol and the lab's give the same outcome for every claim here"]})
    return pd.DataFrame(out)
