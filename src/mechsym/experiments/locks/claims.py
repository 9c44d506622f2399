"""The claims of the two lock posts, as data: the post's sentence, the rule that reads it, the statistic, and that
statistic computed from the post's own tables (data/reference), so the post's numbers pass the post's claim.

Where a claim stands on the posts' tables, `from_post` takes the post's weakest table (Nehalem 2.8 GHz or Sandy
Bridge 2.0 GHz, whichever is closer to failing the rule), so every table the post printed passes its own claim."""

from __future__ import annotations

import pandas as pd

from ...judge.verdicts import Claim, Rule
from ...judge.requirements import CORES, Requirement
from .meta import POST_FILE, POST_FILE_BIASED, REFERENCE, REFERENCE_BIASED

NB1, NB2 = "01-lock-implementations", "02-biased-locking"
NBSP = "\u00a0 "   # the posts put a no-break space after some full stops; quotes are verbatim


# ---------------------------------------------------------------- the posts' tables, read once

def tables(ref: pd.DataFrame) -> dict[str, dict[tuple[str, int], float]]:
    """CPU -> {(variant, threads): ops/s} from the second post's two tables."""
    r = ref[ref["metric"] == "throughput"]
    return {cpu: {(v, int(t)): float(x) for v, t, x in zip(sub["variant"], sub["threads"], sub["value"])}
            for cpu, sub in r.groupby("cpu", sort=False)}


def clocks(ref: pd.DataFrame) -> dict[str, float]:
    """CPU -> its clock in MHz, as the tables' titles give it ("Nehalem 2.8GHz")."""
    r = ref[ref["metric"] == "cpu_clock"]
    return dict(zip(r["cpu"], r["value"].astype(float)))


def _threads(t: dict, variant: str, low: int) -> list[int]:
    return sorted(n for v, n in t if v == variant and n >= low)


def limit(t: dict, monitor: str = "monitor-thin") -> float:
    """The best of 3..N threads over 2 threads: above 1 means more threads bought more throughput."""
    return max(t[(monitor, n)] for n in _threads(t, monitor, 3)) / t[(monitor, 2)]


def scales(t: dict, monitor: str = "monitor-thin") -> float:
    """ReentrantLock over the monitor at its worst contended thread count from 3 up."""
    return min(t[("reentrant", n)] / t[(monitor, n)] for n in _threads(t, monitor, 3))


def scales_except_2(t: dict, monitor: str = "monitor-thin") -> float:
    """The worst of: the monitor over ReentrantLock at 2 threads, ReentrantLock over the monitor at 3..N."""
    return min(t[(monitor, 2)] / t[("reentrant", 2)], scales(t, monitor))


def _extra_cost(ref: pd.DataFrame) -> float:
    return float(ref.loc[ref["metric"] == "extra_cost_vs_thin", "value"].iloc[0])


def _atomic_cycles(ref: pd.DataFrame) -> float:
    r = ref[ref["cpu"] == "Nehalem and later"]
    return float(r[r["metric"].str.startswith("atomic_instruction_cost")]["value"].mean())


def _biased_cycles(ref: pd.DataFrame) -> float:
    t, mhz = tables(ref), clocks(ref)
    return max(mhz[cpu] * 1e6 / t[cpu][("monitor-biased", 1)] for cpu in t)


def _sandybridge(ref: pd.DataFrame) -> float:
    t = tables(ref)
    n, s = t["Nehalem 2.8GHz"], t["Sandy Bridge 2.0GHz"]
    top = max(_threads(n, "monitor-thin", 1))
    return min(n[("monitor-thin", 1)] / s[("monitor-thin", 1)], s[("monitor-thin", top)] / n[("monitor-thin", top)])


def worst(fn, pick=min):
    """The statistic over the post's tables, the one closest to failing (min for '>=' rules, max for '<=')."""
    return lambda ref: pick(fn(t) for t in tables(ref).values())


# ---------------------------------------------------------------- the claims

HARNESS1 = "the first post's harness: one warm-up run as large as the measured one, new threads for every run"
HARNESS2 = "the second post's harness: ten short warm-up runs, new threads for every run"
SAME_THREAD = ("one thread, ten short warm-ups, the same worker thread for every run (a bias is never revoked by a "
               "new thread) and -XX:-EliminateLocks (C2 cannot take one lock for many unrolled iterations)")

# A thin (unbiased) lock + increment + unlock does at least one CAS: a thin cell faster than one uncontended CAS has
# had its locks coarsened or elided by C2 (the JIT removed the mechanism), whatever its ratio says. (A biased lock
# does no CAS, so the floor is checked on the thin cell.)
LOCK_FLOOR = ("cas_ns", "thin lock + increment + unlock")

CLAIMS = [
    Claim("locks.biased-costs-10pct", POST_FILE, NB1,
          "Biased locking, in the un-contended case, is ~10% more expensive than atomic locking.",
          "~10% more expensive (Figures 1-3 give no numbers; Oracle JDK 1.6.0_29)",
          f"1 thread, {HARNESS1}: -UseBiasedLocking ops/s over +UseBiasedLocking with JDK 6's 4 s start-up delay "
          "(the first post's flags), as extra cost in %.",
          quote="Biased locking, in the un-contended case, is ~10% more expensive than the atomic locking.",
          rule=Rule("between", 5, 20, reading="'~10%' read as within a factor of two of 10%: 5% to 20%"),
          statistic="extra cost of the biased lock, (thin ops/s / biased ops/s - 1) x 100", unit="%",
          reference=REFERENCE, from_post=_extra_cost),
    Claim("locks.atomic-10-20-cycles", POST_FILE, NB1,
          "Since Nehalem an atomic instruction costs only 10-20 cycles (more than 100 before).",
          "10-20 cycles (Nehalem and later); more than 100 before Nehalem",
          f"1 thread, {HARNESS1}: AtomicLong.incrementAndGet (a lock xadd), ns per increment in cycles at the CPU "
          "clock recorded in the run's metadata (machine.cpu_mhz), loop included.",
          quote="Since Nehalem, atomic instructions can be handled local to a CPU core, and typically cost only 10-20 "
                "cycles if they do not need to wait on the store buffer to empty while enforcing memory ordering "
                "semantics.",
          rule=Rule("<=", 20, reading="'typically cost only 10-20 cycles' (said against the >100 cycles before Nehalem) "
                                      "read as at most 20 cycles; the loop around the increment is counted too"),
          statistic="cycles per uncontended atomic increment (the middle of the post's range: 15)", unit="cycles",
          reference=REFERENCE, from_post=_atomic_cycles),
    Claim("locks.monitor-throughput-limit", POST_FILE, NB1,
          "As contention increases, language monitor locks quickly reach a throughput limit regardless of thread count.",
          "from 2 threads on the monitor never gets faster: best of 3..8 threads / 2 threads = 0.72x (Nehalem), "
          "0.44x (Sandy Bridge), 2011-11-22 tables",
          f"synchronized without bias, {HARNESS1}: the best ops/s of 3..N threads over the 2-thread ops/s.",
          quote="As contention increases, language monitor locks quickly reach a throughput limit regardless of "
                "thread count.",
          rule=Rule("<=", 1.25, reading="'a throughput limit regardless of thread count' read as: from 2 contending "
                                        "threads on, more threads never buy more than 25% more throughput"),
          statistic="best of 3..N threads / 2 threads, monitor ops/s", unit="x",
          reference=REFERENCE_BIASED, from_post=worst(limit, max),
          requires=(Requirement(CORES, threads=3),)),
    Claim("locks.reentrant-best-uncontended", POST_FILE, NB1,
          "ReentrantLock gives the best un-contended performance.",
          "62,876,566 vs 53,283,461 ops/s = 1.18x (Nehalem); 1.25x (Sandy Bridge), 1 thread, 2011-11-22 tables "
          "(no biased column of the first post's kind)",
          f"1 thread, {HARNESS1}: ReentrantLock ops/s over the best of the first post's monitors "
          "(-UseBiasedLocking, +UseBiasedLocking with the 4 s delay; JDK 18+: the default monitor).",
          quote="ReentrantLock gives the best un-contended performance and scales significantly better with "
                "increasing contention compared to language monitors using synchronized.",
          rule=Rule(">=", 1.05, effect=0.05, reading="'the best' read as at least 5% faster than every monitor "
                    "variant"),
          statistic="ReentrantLock / best monitor, ops/s at 1 thread", unit="x",
          reference=REFERENCE_BIASED, from_post=worst(lambda t: t[("reentrant", 1)] / t[("monitor-thin", 1)])),
    Claim("locks.reentrant-scales-better", POST_FILE, NB1,
          "ReentrantLock scales significantly better with increasing contention than synchronized.",
          "worst of 3..8 threads: 14,108,622 vs 13,349,605 ops/s = 1.06x (Nehalem, 3 threads; 3.45x at 8); "
          "1.62x (Sandy Bridge), 2011-11-22 tables",
          f"3..N threads, {HARNESS1}: ReentrantLock over the unbiased monitor at each thread count, the worst of them.",
          quote="ReentrantLock gives the best un-contended performance and scales significantly better with "
                "increasing contention compared to language monitors using synchronized.",
          rule=Rule(">=", 1.03, effect=0.03, reading="'scales significantly better' read as at least 3% ahead of "
                    "synchronized at every thread count from 3 up (2 threads is the post's own exception, claim "
                    "reentrant-dip-at-2); the post's weakest margin is 1.06x, so the post itself sits near the edge "
                    "and 'significantly' cannot be read as 5% or more"),
          statistic="min over 3..N threads of ReentrantLock / monitor ops/s", unit="x",
          reference=REFERENCE_BIASED, from_post=worst(scales),
          requires=(Requirement(CORES, threads=3),)),
    Claim("locks.reentrant-dip-at-2", POST_FILE, NB1,
          "ReentrantLock has reduced performance when 2 threads are contending.",
          "10,217,186 at 2 threads vs 14,108,622 at 3 = 0.72x (Nehalem); 0.25x (Sandy Bridge), 2011-11-22 tables",
          f"{HARNESS1}: ReentrantLock ops/s at 2 threads over 3 threads.",
          quote="ReentrantLock has an odd characteristic of reduced performance when 2 threads are contending.",
          rule=Rule("<=", 0.9, reading="'reduced performance' read as at least 10% below the 3-thread figure"),
          statistic="ReentrantLock ops/s, 2 threads / 3 threads", unit="x",
          reference=REFERENCE_BIASED, from_post=worst(lambda t: t[("reentrant", 2)] / t[("reentrant", 3)], max),
          requires=(Requirement(CORES, threads=3),)),
    Claim("locks.sandybridge-vs-nehalem", POST_FILE, NB1,
          "Sandy Bridge suffers from slower atomic instructions at low contention and shows its strength at high "
          "contention.",
          "Nehalem / Sandy Bridge at 1 thread 1.54x, Sandy Bridge / Nehalem at 8 threads 1.26x (-UseBiasedLocking, "
          "2011-11-22 tables)",
          "needs two CPU generations side by side: compare machines with `mechsym import` and MACHINE = \"all\".",
          quote="Sandybridge suffers from the increased latency of atomic instructions I detailed in a previous "
                f"article when contended thread count is low.{NBSP}As contended thread count continues to increase, "
                "the cost of the kernel arbitration tends to dominate and Sandybridge shows its strength with "
                "increased memory throughput.",
          rule=Rule(">=", 1.05, effect=0.05, reading="the older CPU at least 5% ahead at 1 thread and the newer at "
                    "least 5% ahead at the most threads"),
          statistic="worst of (old / new at 1 thread, new / old at N threads), monitor ops/s", unit="x",
          reference=REFERENCE_BIASED, from_post=_sandybridge),
    Claim("locks.biased-huge-benefit", POST_FILE_BIASED, NB2,
          "Biased locking has a huge benefit in the un-contended single threaded case.",
          "450,950,969 vs 53,283,461 ops/s = 8.46x (Nehalem); 11.5x (Sandy Bridge)",
          f"1 thread, {HARNESS2}, the JIT's defaults: +UseBiasedLocking (delay 0) over -UseBiasedLocking ops/s.",
          quote="Biased locking has a huge benefit in the un-contended single threaded case.",
          rule=Rule(">=", 2.0, reading="'huge' read generously as at least 2x"),
          statistic="biased / thin ops/s at 1 thread", unit="x",
          reference=REFERENCE_BIASED, from_post=worst(lambda t: t[("monitor-biased", 1)] / t[("monitor-thin", 1)]),
          floor=LOCK_FLOOR),
    Claim("locks.biased-huge-benefit-same-thread", POST_FILE_BIASED, NB2,
          "Biased locking has a huge benefit un-contended, when the lock stays biased to one thread and is not "
          "coarsened away.",
          "8.46x (Nehalem), 11.5x (Sandy Bridge): the post's own harness kept the bias on JDK 6",
          f"{SAME_THREAD}: +UseBiasedLocking (delay 0) over -UseBiasedLocking ops/s.",
          quote="Biased locking has a huge benefit in the un-contended single threaded case.",
          rule=Rule(">=", 2.0, reading="'huge' read generously as at least 2x"),
          statistic="biased / thin ops/s at 1 thread", unit="x", source="lab",
          reference=REFERENCE_BIASED, from_post=worst(lambda t: t[("monitor-biased", 1)] / t[("monitor-thin", 1)]),
          floor=LOCK_FLOOR),
    Claim("locks.biased-4-5-cycles", POST_FILE_BIASED, NB2,
          "Biased locking when un-contended, and not revoked, only adds 4-5 cycles of cost.",
          "adds 4-5 cycles; a whole biased lock + increment + unlock iteration is 6.2 cycles (Nehalem 2.8 GHz) and "
          "5.0 cycles (Sandy Bridge 2.0 GHz) in the post's tables",
          f"{SAME_THREAD}: ns per biased lock + increment + unlock, in cycles at the CPU clock recorded in the run's "
          "metadata (machine.cpu_mhz): the whole iteration, an upper bound on what the bias adds.",
          quote=f"Biased locking when un-contended, and not revoked, only adds 4-5 cycles of cost.{NBSP}This is the "
                "cost when having a cache hit for the lock structures, on top of the code protected in the critical "
                "section.",
          rule=Rule("<=", 7, reading="'adds 4-5 cycles ... on top of the code protected in the critical section': "
                                     "the kernel times the whole iteration (there is no lock-free plain increment to "
                                     "subtract), so 5 cycles for the bias plus 2 for the increment and the loop: at "
                                     "most 7 cycles per iteration"),
          statistic="cycles per biased lock + increment + unlock iteration", unit="cycles",
          reference=REFERENCE_BIASED, from_post=_biased_cycles),
    Claim("locks.startup-delay-matters", POST_FILE_BIASED, NB2,
          "-XX:BiasedLockingStartupDelay=0 needs to be set for lean applications and micro-benchmarks.",
          "the 4 s default delay hid biasing in the first post (the post gives no number for the delayed lock)",
          f"{SAME_THREAD}: biased with delay 0 over biased with JDK 6's 4 s delay, the lock allocated at start-up.",
          quote="-XX:BiasedLockingStartupDelay=0 needs to be set for lean applications and micro-benchmarks.",
          rule=Rule(">=", 2.0, reading="'needs to be set' read as: with the 4 s delay the micro-benchmark's lock runs "
                                       "at most half as fast (the delay changes what is measured)"),
          statistic="biased (delay 0) / biased (4 s delay) ops/s at 1 thread", unit="x"),
    Claim("locks.osr-no-difference", POST_FILE_BIASED, NB2,
          "Avoiding OSR (ten short warm-ups instead of one long one) does not make a material difference.",
          "no material difference (the post gives no numbers for it)",
          "the post's variants (-UseBiasedLocking, +UseBiasedLocking delay 0, ReentrantLock; JDK 18+: the default "
          "monitor), every thread count, new threads per run: ops/s after ten short warm-ups over ops/s after one "
          "long one, the median over those cells.",
          quote="Avoiding OSR does not make a material difference to this set of test results.",
          rule=Rule("between", 0.9, 1 / 0.9, reading="'no material difference' read as within 10% either way (the "
                                                    "first post's whole finding was a 10% difference)"),
          statistic="median over cells of short / single warm-up ops/s", unit="x"),
    Claim("locks.reentrant-scales-except-2", POST_FILE_BIASED, NB2,
          "ReentrantLocks scale better than synchronised locks under contention, except with 2 contending threads.",
          "worst margin 1.06x (Nehalem: 14.1M vs 13.3M at 3 threads; 10.2M vs 18.5M at 2); 1.62x (Sandy Bridge)",
          f"2..N threads, {HARNESS2}: the worst of -UseBiasedLocking over ReentrantLock at 2 threads and ReentrantLock "
          "over -UseBiasedLocking at each of 3..N threads.",
          quote="For the current implementations, ReentrantLocks scale better than synchronised locks under "
                "contention, except in the case of 2 contending threads.",
          rule=Rule(">=", 1.03, effect=0.03, reading="'scale better ... except in the case of 2' read as: at least 3% "
                    "behind at 2 threads, at least 3% ahead at every count from 3 up (the post's weakest step is "
                    "1.06x: the post itself sits near the edge of a 5% effect)"),
          statistic="min(monitor / RL at 2 threads, RL / monitor at each of 3..N)", unit="x",
          reference=REFERENCE_BIASED, from_post=worst(scales_except_2),
          requires=(Requirement(CORES, threads=3),)),
]
CLAIM = {c.id: c for c in CLAIMS}
