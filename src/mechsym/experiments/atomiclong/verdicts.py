"""The atomiclong verdicts: every claim judged on the measured forks, per machine, with intervals."""

from __future__ import annotations

import numpy as np
import pandas as pd
from ...judge import analysis
from ...judge.analysis import fmt_ns
from ...judge.verdicts import Verdict, estimate, judge, unmeasurable
from .claims import CLAIM, CLAIMS
from .rows import LAB, PROTOCOLS, contended_forks, cpus_online, forks, rows


PAIRS = {"java": ("cas-loop", "atomic-increment"), "c": ("cas", "xadd")}


def _values(vals: np.ndarray) -> str:
    return f"{len(vals)} forks" if len(vals) > 8 else "forks: " + ", ".join(fmt_ns(v) for v in np.sort(vals))


def _ratio(claim, num, den, scope, protocol, names, left_out: int = 0) -> Verdict:
    est = estimate(lambda a, b: a / b, num, den)
    detail = "" if est is None else (f"{names[0]} {fmt_ns(np.median(num))} / {names[1]} {fmt_ns(np.median(den))} "
                                     f"per increment; {_values(num)} / {_values(den)}")
    if left_out and est is not None:
        detail += (f"; {left_out} cas-loop fork{'s' if left_out > 1 else ''} left out: no CAS ever failed there "
                   "(the threads did not overlap)")
    return judge(claim, est, scope=scope, protocol=protocol, detail=detail,
                 missing=f"{' or '.join(names)} cell missing from these results")


def _runtimes(m: pd.DataFrame) -> list[tuple[str, dict]]:
    """(language, the rows' filter) per runtime: each JDK, then C."""
    out = [("java", {"jdk": j}) for j in analysis.jdks(m[m["language"] == "java"])]
    return out + ([("c", {"jdk": "c"})] if (m["language"] == "c").any() else [])


def _scope(where: dict, threads) -> dict:
    jdk = where["jdk"]
    return ({"runtime": "C (gcc)"} if jdk == "c" else {"jdk": jdk}) | {"threads": threads}


@analysis.by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """Every claim per runtime and thread count, under the post's protocol and the lab's, one machine at a time."""
    m = rows(df)
    if m.empty:
        return [unmeasurable(c, "no measured results") for c in CLAIMS]
    cpus = cpus_online(m) or 1
    counts = sorted(m["threads"].unique())
    concurrent = [t for t in counts if 2 <= t <= cpus]
    out: list[Verdict] = []
    for lang, where in _runtimes(m):
        cas, xadd = PAIRS[lang]
        for protocol in PROTOCOLS:
            f = lambda variant, t: forks(df, protocol, variant=variant, threads=t, **where)
            # the contention claims read the Java CAS loop's contended forks only (the kernel counts failed CASes)
            jc = lambda t: contended_forks(df, protocol, threads=t, **where)
            for t in concurrent:
                num, out_n = jc(t) if lang == "java" else (f(cas, t), 0)
                out.append(_ratio(CLAIM["atomiclong.cas-2-10x-slower-than-xadd"], num, f(xadd, t),
                                  _scope(where, t), protocol, (cas, xadd), out_n))
            if lang == "c":
                for t in [t for t in counts if t <= cpus]:
                    out.append(_ratio(CLAIM["atomiclong.add-like-xadd"], f("add", t), f("xadd", t),
                                      _scope(where, t), protocol, ("add", "xadd")))
            else:
                cf = lambda t: forks(df, protocol, variant="cas", threads=t, jdk="c")
                for t in concurrent:
                    num, out_n = jc(t)
                    out.append(_ratio(CLAIM["atomiclong.java-cas-like-c-cas"], num, cf(t),
                                      _scope(where, t), protocol, ("Java cas-loop", "C cas"), out_n))
            for cid, variant in (("atomiclong.xadd-flat-past-3-threads", xadd),
                                 ("atomiclong.cas-keeps-degrading", cas)):
                if cpus >= 4 and {3, cpus} <= set(counts):
                    out.append(_ratio(CLAIM[cid], f(variant, cpus), f(variant, 3), _scope(where, f"{cpus} vs 3"),
                                      protocol, (f"{cpus} threads", "3 threads")))
        if lang == "java":
            c = CLAIM["atomiclong.longadder-scales"]
            if cpus < 2:
                out.append(unmeasurable(c, "needs at least 2 CPUs", scope=_scope(where, cpus), protocol=LAB))
            else:
                out.append(_ratio(c, forks(df, LAB, variant="atomic-increment", threads=cpus, **where),
                                  forks(df, LAB, variant="long-adder", threads=cpus, **where), _scope(where, cpus),
                                  LAB, ("atomic-increment", "long-adder")))
    out.append(unmeasurable(CLAIM["atomiclong.sandy-bridge-order-worse"],
                            "needs both of the post's CPUs (a Nehalem and a Sandy Bridge): the claim compares two "
                            "2011 processors, and this lab measures the one machine it runs on", scope={}))
    if cpus < 4:
        why = (f"needs at least 4 CPUs so that 3 and more threads run at once; this machine has {cpus}: past {cpus} "
               "threads they are time-sliced, not contending (the figure shows them, marked)")
        out += [unmeasurable(CLAIM[c], why, scope={"threads": "3+"}) for c in
                ("atomiclong.xadd-flat-past-3-threads", "atomiclong.cas-keeps-degrading")]
    missing = [c for c in CLAIMS if c.id not in {v.claim.id for v in out}]
    out += [unmeasurable(c, "no cells for it in these results") for c in missing]
    order = {c.id: i for i, c in enumerate(CLAIMS)}
    return sorted(out, key=lambda v: order[v.claim.id])
