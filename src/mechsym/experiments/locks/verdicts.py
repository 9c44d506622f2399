"""The verdicts of the lock claims on one machine's forks.

Every statistic is computed per fork (a fresh JVM) and carries a bootstrap interval over forks. The post's
protocol comes first (the first timed run after the warm-up in each JVM, as both posts timed it); the lab's
(the median of the measured runs in each JVM) is the second row of every claim. Cycles are counted at the CPU
clock recorded in the metadata of the run being judged, never at this host's clock."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from ...judge import analysis
from ...judge.analysis import fmt_rate, fmt_ratio
from ...judge.verdicts import Verdict, estimate, judge, least, most, unmeasurable
from .claims import CLAIM, CLAIMS
from .rows import KEYS, PROTOCOLS, run_clocks, throughput
from .sweep import BIASED

NO_BIAS = ("no JDK here has biased locking (removed in JDK 18): add a JDK <= 17 "
           "(MECHSYM_JDKS) to judge it")


class Judge:
    """The rows of one machine and the claims' shared pieces: cells, forks, JDKs, the monitor to compare."""

    def __init__(self, df: pd.DataFrame):
        self.df = df
        self.m = throughput(df)
        self.jdks = analysis.jdks(self.m)
        self.biased = [j for j in self.jdks if not analysis.where(self.m, jdk=j, variant=BIASED).empty]
        self._clocks = None
        self._forks = {}

    def forks(self, protocol, **cell) -> np.ndarray:
        """The per-fork values of one cell (every cell's forks are read once per protocol)."""
        if protocol.name not in self._forks:
            self._forks[protocol.name] = analysis.per_fork(self.m, protocol, by=KEYS)
        return analysis.where(self._forks[protocol.name], **cell)["value"].dropna().to_numpy(dtype=float)

    def monitor(self, jdk: str) -> str:
        """The unbiased monitor of this JDK: -UseBiasedLocking where the JDK has the flag, else its default."""
        return "monitor-thin" if not analysis.where(self.m, jdk=jdk, variant="monitor-thin").empty else "monitor-default"

    def threads(self, jdk: str, low: int, **cell) -> list[int]:
        sub = analysis.where(self.m, jdk=jdk, grid="main", **cell)
        return sorted(int(t) for t in sub["threads"].unique() if int(t) >= low)

    def both(self, cid: str, scope: dict, cells: list[dict], fn, detail=None, missing="", how: str = "",
             members: list[tuple[int, ...]] = (), per_op: int | None = None) -> list[Verdict]:
        """The claim judged under the post's protocol and the lab's: fn(medians of the cells' per-fork values).

        how="min" / "max" with members (index tuples into cells): the least / most of fn over each member's cells,
        decided member by member (verdicts.least / most), never by bootstrapping a min or max. per_op: the cell
        whose median ns per operation (1e9 / ops/s) the verdict carries, for the claim's mechanism floor."""
        out = []
        for protocol in PROTOCOLS:
            groups = [self.forks(protocol, **c) for c in cells]
            if not (groups and all(len(g) for g in groups)):
                est = None
            elif how:
                est = (least if how == "min" else most)(*[(fn, *[groups[i] for i in m]) for m in members])
            else:
                est = estimate(fn, *groups)
            text = detail([float(np.median(g)) for g in groups]) if (est and detail) else ""
            v = judge(CLAIM[cid], est, scope=scope, protocol=protocol, detail=text,
                      missing=missing or "cells missing from these results")
            if est is not None and per_op is not None and np.median(groups[per_op]) > 0:
                v = replace(v, per_op_ns=1e9 / float(np.median(groups[per_op])))
            out.append(v)
        return out

    def cycles(self, cid: str, scope: dict, cell: dict, what: str) -> list[Verdict]:
        """Cycles per iteration at the clock of the run each fork belongs to."""
        if self._clocks is None:
            self._clocks = run_clocks(self.df)
        out = []
        sub = analysis.where(self.m, **cell)
        for protocol in PROTOCOLS:
            pf = analysis.per_fork(sub, protocol, by=["run_id"])
            if pf.empty:
                out.append(unmeasurable(CLAIM[cid], "cells missing from these results", scope=scope,
                                        protocol=protocol))
                continue
            mhz = pf["run_id"].astype(str).map(self._clocks)
            cyc = (mhz * 1e6 / pf["value"]).dropna().to_numpy(dtype=float)
            if not len(cyc):
                runs = ", ".join(sorted(pf["run_id"].astype(str).unique()))
                out.append(unmeasurable(CLAIM[cid], f"the CPU clock of run {runs} is not in its metadata (stored "
                                        "before cpu_mhz was recorded); cycles are never counted at another host's "
                                        "clock, nor at this host's", scope=scope, protocol=protocol))
                continue
            clock = ", ".join(f"{x:,.0f}" for x in sorted(set(mhz.dropna())))
            out.append(judge(CLAIM[cid], estimate(lambda c: c, cyc), scope=scope, protocol=protocol,
                             detail=f"{what} at {clock} MHz (the run's recorded clock)"))
        return out


def _div(a: float, b: float) -> float:
    return a / b


def _pairs(cells: list) -> list[tuple[int, int]]:
    """(0, 1), (2, 3), ...: the members of a least-of-ratios over alternating numerator / denominator cells."""
    return [(i, i + 1) for i in range(0, len(cells) - 1, 2)]


def _ratio(a_label: str, b_label: str):
    return lambda meds: f"{a_label} {fmt_rate(meds[0])} / {b_label} {fmt_rate(meds[1])}"


def _per_thread(ts: list[int], pairs_from: int = 0):
    """'3t 0.34x, 4t 0.45x' from alternating numerator/denominator medians."""
    return lambda meds: ", ".join(f"{t}t {meds[2 * i + pairs_from] / meds[2 * i + 1 + pairs_from]:.2f}x"
                                  for i, t in enumerate(ts))


def _span(ts: list[int]) -> str:
    return f"{ts[0]}" if len(ts) == 1 else f"{ts[0]}-{ts[-1]}"


# ---------------------------------------------------------------- the first post (2011-11-19)

def first_post(j: Judge) -> list[Verdict]:
    out = []
    one = dict(grid="main", threads=1, warmup_policy="single")
    if not j.biased:
        out.append(unmeasurable(CLAIM["locks.biased-costs-10pct"], NO_BIAS))
    for jdk in j.biased:
        out += j.both("locks.biased-costs-10pct", {"jdk": jdk, "threads": 1, "warm-up": "single"},
                      [dict(one, jdk=jdk, variant="monitor-thin"), dict(one, jdk=jdk, variant="monitor-biased-delayed")],
                      lambda thin, biased: (thin / biased - 1) * 100, _ratio("thin", "biased (4 s delay)"))
    for jdk in j.jdks:
        out += j.cycles("locks.atomic-10-20-cycles", {"jdk": jdk, "threads": 1, "warm-up": "single"},
                        dict(one, jdk=jdk, variant="atomic"), "AtomicLong.incrementAndGet")
    for jdk in j.jdks:
        mon = j.monitor(jdk)
        pol = dict(grid="main", jdk=jdk, warmup_policy="single")
        ts = j.threads(jdk, 2, variant=mon)
        if len(ts) < 2:
            out.append(unmeasurable(CLAIM["locks.monitor-throughput-limit"], "needs 2 and more contending threads",
                                    scope={"jdk": jdk}))
        else:
            out += j.both("locks.monitor-throughput-limit", {"jdk": jdk, "variant": mon, "threads": _span(ts),
                                                             "warm-up": "single"},
                          [dict(pol, variant=mon, threads=t) for t in ts], lambda more, two: more / two,
                          lambda meds: ", ".join(f"{t}t {fmt_rate(v)}" for t, v in zip(ts, meds)),
                          how="max", members=[(k, 0) for k in range(1, len(ts))])
        mons = ["monitor-thin", "monitor-biased-delayed"] if mon == "monitor-thin" else [mon]
        out += j.both("locks.reentrant-best-uncontended", {"jdk": jdk, "threads": 1, "warm-up": "single"},
                      [dict(pol, variant="reentrant", threads=1)] + [dict(pol, variant=v, threads=1) for v in mons],
                      lambda rl, m: rl / m,
                      lambda meds: f"ReentrantLock {fmt_rate(meds[0])}, best monitor {fmt_rate(max(meds[1:]))}",
                      how="min", members=[(0, k) for k in range(1, len(mons) + 1)])
        ts3 = j.threads(jdk, 3, variant=mon)
        cells = [dict(pol, variant=v, threads=t) for t in ts3 for v in ("reentrant", mon)]
        out += j.both("locks.reentrant-scales-better", {"jdk": jdk, "variant": mon, "threads": _span(ts3) if ts3 else "3+",
                                                        "warm-up": "single"},
                      cells, _div, _per_thread(ts3), missing="needs 3 or more threads",
                      how="min", members=_pairs(cells))
        out += j.both("locks.reentrant-dip-at-2", {"jdk": jdk, "threads": "2 vs 3", "warm-up": "single"},
                      [dict(pol, variant="reentrant", threads=2), dict(pol, variant="reentrant", threads=3)],
                      lambda two, three: two / three, _ratio("2 threads", "3 threads"),
                      missing="needs 2 and 3 threads")
    out.append(unmeasurable(CLAIM["locks.sandybridge-vs-nehalem"],
                            "one CPU generation per machine: import another machine's results to compare"))
    return out


# ---------------------------------------------------------------- the second post (2011-11-22)

def second_post(j: Judge) -> list[Verdict]:
    out = []
    one = dict(grid="main", threads=1, warmup_policy="short")
    same = dict(grid="why", threads=1, warmup_policy="short", workers="reused", coarsening="off")
    same_scope = {"threads": 1, "warm-up": "short", "workers": "reused", "coarsening": "off"}
    if not j.biased:
        for cid in ("locks.biased-huge-benefit", "locks.biased-huge-benefit-same-thread", "locks.biased-4-5-cycles",
                    "locks.startup-delay-matters"):
            out.append(unmeasurable(CLAIM[cid], NO_BIAS))
    for jdk in j.biased:
        out += j.both("locks.biased-huge-benefit", {"jdk": jdk, "threads": 1, "warm-up": "short"},
                      [dict(one, jdk=jdk, variant="monitor-biased"), dict(one, jdk=jdk, variant="monitor-thin")],
                      lambda b, t: b / t, _ratio("biased", "thin"), per_op=1)
        scope = {"jdk": jdk, **same_scope}
        # the cell that isolates the mechanism (coarsening off, the lock's own thread): a sub-row of the post's
        # claim, its primary where the JIT removed the mechanism from the post's program (judge.requirements.floors)
        out += j.both("locks.biased-huge-benefit", scope,
                      [dict(same, jdk=jdk, variant="monitor-biased"), dict(same, jdk=jdk, variant="monitor-thin")],
                      lambda b, t: b / t, _ratio("biased", "thin"), per_op=1)
        out += j.both("locks.biased-huge-benefit-same-thread", scope,
                      [dict(same, jdk=jdk, variant="monitor-biased"), dict(same, jdk=jdk, variant="monitor-thin")],
                      lambda b, t: b / t, _ratio("biased", "thin"), per_op=1)
        out += j.cycles("locks.biased-4-5-cycles", scope, dict(same, jdk=jdk, variant="monitor-biased"),
                        "biased lock + increment + unlock")
        out += j.both("locks.startup-delay-matters", scope,
                      [dict(same, jdk=jdk, variant="monitor-biased"),
                       dict(same, jdk=jdk, variant="monitor-biased-delayed")],
                      lambda b, d: b / d, _ratio("delay 0", "4 s delay"))
    for jdk in j.jdks:
        mon = j.monitor(jdk)
        variants = [mon, "monitor-biased", "reentrant"] if mon == "monitor-thin" else [mon, "reentrant"]
        keys = [(v, t) for v in variants for t in j.threads(jdk, 1, variant=v)]
        cells = [dict(grid="main", jdk=jdk, variant=v, threads=t, warmup_policy=p) for v, t in keys
                 for p in ("short", "single")]
        ts = sorted({t for _, t in keys})
        out += j.both("locks.osr-no-difference", {"jdk": jdk, "threads": _span(ts) if ts else ""}, cells,
                      lambda *g: float(np.median([g[i] / g[i + 1] for i in range(0, len(g), 2)])),
                      lambda meds: f"{len(keys)} cells, short / single from "
                                   f"{fmt_ratio(min(meds[i] / meds[i + 1] for i in range(0, len(meds), 2)))} to "
                                   f"{fmt_ratio(max(meds[i] / meds[i + 1] for i in range(0, len(meds), 2)))}")
        ts3 = j.threads(jdk, 3, variant=mon)
        pol = dict(grid="main", jdk=jdk, warmup_policy="short")
        cells = [dict(pol, variant=mon, threads=2), dict(pol, variant="reentrant", threads=2)]
        cells += [dict(pol, variant=v, threads=t) for t in ts3 for v in ("reentrant", mon)]
        out += j.both("locks.reentrant-scales-except-2",
                      {"jdk": jdk, "variant": mon, "threads": f"2-{ts3[-1]}" if ts3 else "2+", "warm-up": "short"},
                      cells if ts3 else [], _div,
                      lambda meds: f"ReentrantLock / monitor: 2t {meds[1] / meds[0]:.2f}x (below 1 expected), "
                                   + _per_thread(ts3, 2)(meds), missing="needs 2 and 3 or more threads",
                      how="min", members=_pairs(cells if ts3 else []))
    return out


@analysis.by_machine
def verdicts(df: pd.DataFrame) -> list[Verdict]:
    """Every claim of both posts judged on these rows, machine by machine: the post's protocol, then the lab's."""
    j = Judge(df if df is not None else pd.DataFrame())
    if j.m.empty:
        return [unmeasurable(c, "no measured results") for c in CLAIMS]
    order = {c.id: i for i, c in enumerate(CLAIMS)}
    return sorted(first_post(j) + second_post(j), key=lambda v: order[v.claim.id])   # stable: JDKs, protocols kept
