"""The overview's "This machine" section: the calibration record (machine/calibration.py) beside what the posts say
of the machines they measured on, so a reader sees at once which of the posts' mechanisms this machine can show
(two vCPUs with a 30 µs wake-up cannot show a 2 µs lock hand-off, nor SMT effects without SMT siblings)."""

from __future__ import annotations

import pandas as pd

from ..machine import calibration
from ..machine.calibration import Calibration
from ..style.units import fmt_ns, fmt_pct

# field -> (what it is, what the posts say of their machines, and where)
POSTS = {
    "cpus": ("CPUs", "4-core Nehalem 2.8 GHz with Hyper-Threading (false sharing, locks); Sandy Bridge laptop 2.2 GHz "
                     "(inter-thread latency); dual-socket Xeon (SPSC queues)"),
    "smt_siblings": ("SMT siblings", "yes: Hyper-Threading; the SPSC post pins threads to one core's two siblings"),
    "free_cpus": ("CPUs a thread may migrate to", "4-8 (the posts' desktops), 2 sockets' worth on the SPSC Xeon"),
    "timer_ns": ("System.nanoTime step", "not stated"),
    "timer_millis_ns": ("System.currentTimeMillis step", "not stated"),
    "cas_ns": ("uncontended CAS", "11.4 ns (one thread with CAS: 5,700 ms for 500 M; Westmere 2.4 GHz, single writer)"),
    "line_rt_same_ns": ("cache-line round trip, one CPU", "not measured (the posts pin to distinct cores)"),
    "line_rt_cross_ns": ("cache-line round trip, two CPUs", "~90 ns (~45 ns a hand-off, 22 M messages/s; Sandy "
                                                            "Bridge 2.2 GHz, inter-thread latency)"),
    "line_rt_cross_c_ns": ("the same in C", "slightly faster than Java (inter-thread latency, C++)"),
    "wakeup_cross_ns": ("park/unpark wake-up, other CPU", "~2 µs a lock hand-off (2,082 ns/op; Nehalem 2.8 GHz, "
                                                          "condition variables)"),
    "futex_cross_ns": ("futex wake-up, other CPU (C)", "not measured"),
    "steal_pct": ("steal during the calibration", "bare metal: none"),
    "regimes": ("per-JVM regimes (A/A levels)", "the SPSC post: run-to-run variance over 30 runs, pinned or not"),
}


def _value(cal: Calibration, field: str) -> str:
    v = getattr(cal, field, None)
    if field == "cpus":
        return f"{cal.logical_cpus} logical, {cal.cores} cores" + (f", {cal.sockets} socket(s)" if cal.sockets else "")
    if v is None:
        return "not measured"
    if field == "smt_siblings":
        return "yes" if v else "no"
    if field == "free_cpus":
        return str(v)
    if field == "steal_pct":
        return fmt_pct(v)
    if field == "regimes":
        ratio = f", slowest/fastest {cal.regime_ratio:.2f}x" if cal.regime_ratio else ""
        switch = f", switching between {cal.regime_switches:.0%} of consecutive forks" if cal.regime_switches \
            is not None else ""
        return f"{v} level{'s' if v != 1 else ''}{ratio}{switch}"
    return fmt_ns(v)


def _spread(cal: Calibration, field: str) -> str:
    s = (cal.spread or {}).get(field)
    if not s:
        return ""
    if field == "regimes":
        return f"forks {fmt_ns(s['low'])} - {fmt_ns(s['high'])}"
    return f"{fmt_ns(s['low'])} - {fmt_ns(s['high'])}"


def calibration_table(cal: Calibration) -> pd.DataFrame:
    """One row per quantity: this machine's value, its interquartile range, and what the posts say of theirs."""
    rows = [{"quantity": what, "this machine": _value(cal, f), "spread (IQR)": _spread(cal, f), "the posts": posts}
            for f, (what, posts) in POSTS.items()]
    return pd.DataFrame(rows).set_index("quantity")


def this_machine(machine: str | None = None, root=None) -> pd.DataFrame:
    """The "This machine" section: the newest stored calibration of `machine` (default: this one) beside the posts'
    machines; without a stored calibration, one row saying how to make one."""
    cal = calibration.load(machine, root)
    if cal is None:
        return pd.DataFrame([{"quantity": "calibration", "this machine": "none stored: run `mechsym calibrate`",
                              "spread (IQR)": "", "the posts": ""}]).set_index("quantity")
    table = calibration_table(cal)
    table.attrs["source"] = f"{cal.machine}: {cal.source}"
    return table
