"""Tables: the post's table, this machine's beside it, the fences, the folding check, forks and cells.

Every function of this file that reads results is split per machine (analysis.by_machine)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from ...judge.analysis import fmt_ns, fmt_ratio
from ...judge.verdicts import estimate
from .meta import POST_ITERATIONS
from .rows import ORDERS, PROTOCOLS, failures, forks, median, post_ms, rows, runtimes
from .sweep import FENCES, FOLDING, TABLE


def _ms(ns_per_op: float) -> str:
    """ns per increment as the post's unit: ms for its 500 M increments."""
    return "" if ns_per_op is None or not np.isfinite(ns_per_op) else f"{ns_per_op * POST_ITERATIONS / 1e6:,.0f}"


def reference_table(ref: pd.DataFrame) -> pd.DataFrame:
    """The 2011-09-22 table: ms for 500 M increments, ns per increment and the ratio to one thread."""
    ms = post_ms(ref)
    return pd.DataFrame({"method": [label for _, _, label in TABLE.values()],
                         "time (ms, 500 M increments)": [f"{v:,.0f}" for v in ms],
                         "ns per increment": [fmt_ns(v * 1e6 / POST_ITERATIONS) for v in ms],
                         "x one thread": [fmt_ratio(v / ms["one-thread"]) for v in ms]})


@analysis.by_machine
def comparison(df: pd.DataFrame, ref: pd.DataFrame, protocol: str = "lab") -> pd.DataFrame:
    """The post's table beside this machine's, per runtime: ms for 500 M (extrapolated from ns per increment, the
    median over forks under the protocol) and the ratio to one thread."""
    ms = post_ms(ref)
    proto = next(p for p in PROTOCOLS if p.name == protocol)
    out = pd.DataFrame({"method": [label for _, _, label in TABLE.values()],
                        "post: ms": [f"{v:,.0f}" for v in ms],
                        "post: x one thread": [fmt_ratio(v / ms["one-thread"]) for v in ms]})
    for jdk in runtimes(df):
        rt = analysis.runtime_label(jdk)
        med = [analysis.median_of(forks(df, proto, jdk, m, t)) for m, t, _ in TABLE.values()]
        out[f"{rt}: ms"] = [_ms(v) for v in med]
        out[f"{rt}: x one thread"] = [fmt_ratio(v / med[0]) for v in med]
    return out


@analysis.by_machine
def forks_table(df: pd.DataFrame) -> pd.DataFrame:
    """Each of the table's cells under both protocols: ns per increment, the median over forks with its 95%
    interval, and every fork's own number, sorted."""
    out = []
    for jdk in runtimes(df):
        for key, (method, threads, label) in TABLE.items():
            for proto in PROTOCOLS:
                vals = forks(df, proto, jdk, method, threads)
                if not len(vals):
                    continue
                est = estimate(lambda a: a, vals)
                out.append({"runtime": analysis.runtime_label(jdk), "method": label, "protocol": proto.name,
                            "ns per increment: median [95% interval], forks": est.text("ns"),
                            "every fork, sorted": ", ".join(fmt_ns(v) for v in np.sort(vals))})
    return pd.DataFrame(out)


@analysis.by_machine
def cas_forks_table(df: pd.DataFrame) -> pd.DataFrame:
    """Two threads CAS-ing, fork by fork (Java: the kernel counts failed CASes): ns per increment and failed CAS
    attempts per increment, sorted by ns, with the rank correlation of the two over the forks. A failure is the
    other thread taking the line between a read and its CAS: where the line moves on (nearly) every increment the
    fork is slow; where one thread keeps it for runs of increments, fast."""
    from scipy import stats as st

    out = []
    for jdk in runtimes(df):
        if jdk == "c":
            continue
        for proto in PROTOCOLS:
            f = failures(df, proto, jdk)
            if f.empty:
                continue
            f = f.sort_values("ns_per_op")
            rho = st.spearmanr(f["ns_per_op"], f["cas_failures_per_op"]).statistic if len(f) >= 3 else np.nan
            out.append({"runtime": analysis.runtime_label(jdk), "protocol": proto.name,
                        "every fork: ns per increment (failed CAS per increment), by ns": ", ".join(
                            f"{fmt_ns(n)} ({x:.3f})" for n, x in zip(f["ns_per_op"], f["cas_failures_per_op"])),
                        "rank correlation": "" if not np.isfinite(rho) else f"{rho:+.2f}"})
    return pd.DataFrame(out)


@analysis.by_machine
def fences_table(df: pd.DataFrame) -> pd.DataFrame:
    """The 2011-07-24 post's stores and fences: median ns per store (lab's runs) per runtime, and x a plain store."""
    out = pd.DataFrame({"store, then": list(FENCES)})
    for jdk in runtimes(df):
        rt = analysis.runtime_label(jdk)
        med = [median(df, jdk=jdk, variant=java if jdk != "c" else c, threads=1, scale="1x")
               for java, c in FENCES.values()]
        base = med[0]
        out[f"{rt}: ns"] = [fmt_ns(v) for v in med]
        out[f"{rt}: x plain"] = [fmt_ratio(v / base) if v is not None and base else "" for v in med]
    return out


@analysis.by_machine
def folding_table(df: pd.DataFrame) -> pd.DataFrame:
    """plain and plain-foldable at 1x and 10x the iterations (lab's runs): a loop that really increments takes 10x
    as long; one the compiler replaced by its result does not."""
    m = rows(df, "duration")
    out = []
    for jdk in runtimes(df):
        for method in FOLDING:
            d1, d10 = (median(df, "duration", jdk=jdk, variant=method, scale=s) for s in ("1x", "10x"))
            n1 = analysis.where(m, jdk=jdk, variant=method, scale="1x", protocol="lab")["iterations"]
            if d1 is None or d10 is None or n1.empty:
                continue
            out.append({"runtime": analysis.runtime_label(jdk), "method": method,
                        "increments": f"{int(n1.iloc[0]):,}", "duration": fmt_ns(d1),
                        "duration at 10x": fmt_ns(d10), "10x / 1x": fmt_ratio(d10 / d1),
                        "ns per increment": fmt_ns(d1 / float(n1.iloc[0]))})
    return pd.DataFrame(out)


@analysis.by_machine
def summary(df: pd.DataFrame) -> pd.DataFrame:
    """Every cell: median ns per increment over the measured runs, range, spread, runs and forks."""
    m = rows(df)
    if m.empty:
        return pd.DataFrame()
    keys = ["runtime", "variant", "threads", "scale", "protocol"]
    return analysis.cell_table(m, keys, ORDERS, fmt_ns)[0]
