"""What a claim needs from the machine, checked against its calibration (mechsym.machine.calibration).

The lesson: a machine that cannot show an effect cannot refute it. A migration claim on two vCPUs with two busy
threads has no CPU to migrate to; a same-core claim needs SMT siblings; a scaling claim needs a core per thread; a
latency claim needs a wake-up floor well under the effect (else it times the hypervisor's interrupt to a halted
vCPU); a run-to-run variance claim needs a machine whose fresh JVMs run in one regime. A claim whose requirement
fails is "not measurable here: needs <requirement>; this machine <measured value>", whatever its interval says;
the measured figure stays in the row. A requirement the machine's record cannot answer (no calibration stored,
or a field it did not measure) is "not checked", said in the reason and never taken as met: a decisive verdict
resting on it is inconclusive until `mechsym calibrate` runs on that machine. Without a calibration the topology
(CPUs, cores, SMT) still comes from the runs' machine record (calibration.from_record).

Mechanism floors: a cell that runs one operation faster than the physical floor of what it claims to time (a lock
acquire faster than this machine's uncontended CAS) measures the JIT, not the mechanism ("the JIT removed the
mechanism"); it cannot decide the post's claim, and the cell that isolates the mechanism speaks for it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from .rules import DECISIVE, INCONCLUSIVE, UNMEASURABLE
from ..style.units import fmt_ns

MIGRATION, SMT, CORES, WAKEUP, REGIME = "migration", "smt", "cores", "wakeup", "regime"
KINDS = (MIGRATION, SMT, CORES, WAKEUP, REGIME)
WAKEUP_FACTOR = 5   # a latency claim needs the cross-CPU wake-up at most a fifth of the effect it times
NOT_STORED = "not checked: no calibration stored for this machine"
UNDECIDED = "so it cannot decide here (`mechsym calibrate` on that machine checks it)"


def undecided(v, note: str):
    """A decisive verdict whose requirement or floor could not be checked: inconclusive, the reason said."""
    if v.outcome not in DECISIVE:
        return replace(v, why="; ".join(x for x in (v.why, note) if x))
    return replace(v, outcome=INCONCLUSIVE, why="; ".join(x for x in (f"{note}, {UNDECIDED}", v.why) if x),
                   p_value=None, near=False)


@dataclass(frozen=True)
class Requirement:
    """One need of a claim. kind: migration (free CPUs >= threads + 1), smt (SMT siblings), cores (cores >= threads),
    wakeup (the cross-CPU wake-up <= effect_ns / factor), regime (one regime across fresh JVMs).
    scope: the verdict scopes it concerns ({"placement": "same-core"}); empty: every verdict of the claim."""
    kind: str
    threads: int = 2
    effect_ns: float | None = None
    factor: float = WAKEUP_FACTOR
    scope: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"requirement kind '{self.kind}': allowed {', '.join(KINDS)}")
        if self.kind == WAKEUP and not (self.effect_ns and self.effect_ns > 0):
            raise ValueError("requirement 'wakeup' needs effect_ns > 0 (the effect the claim times, in ns)")
        if self.threads < 1:
            raise ValueError(f"requirement threads {self.threads}: allowed 1 or more")

    def text(self) -> str:
        """What is needed, in words."""
        if self.kind == MIGRATION:
            return (f"a CPU to migrate to: free CPUs >= {self.threads + 1} ({self.threads} busy threads + 1)")
        if self.kind == SMT:
            return "SMT siblings (two logical CPUs of one core)"
        if self.kind == CORES:
            return f"a core per thread: cores >= {self.threads}"
        if self.kind == WAKEUP:
            return (f"a cross-CPU wake-up well under the effect: <= {fmt_ns(self.effect_ns / self.factor)} "
                    f"(1/{self.factor:g} of {fmt_ns(self.effect_ns)})")
        return "one regime across fresh JVMs (an A/A of one kernel shows one level)"

    def measured(self, cal) -> tuple[object, str]:
        """The calibration's value this requirement reads (None: not measured) and it in words."""
        if self.kind == MIGRATION:
            return cal.free_cpus, f"{cal.free_cpus} free CPUs"
        if self.kind == SMT:
            return cal.smt_siblings, ("SMT siblings" if cal.smt_siblings else
                                      f"no SMT siblings ({cal.logical_cpus} logical CPUs on {cal.cores} cores)")
        if self.kind == CORES:
            return cal.cores, f"{cal.cores} cores"
        if self.kind == WAKEUP:
            v = cal.wakeup_cross_ns
            return v, "wake-up not measured" if v is None else f"cross-CPU wake-up {fmt_ns(v)}"
        v = cal.regimes
        ratio = f", {cal.regime_ratio:.2f}x apart" if cal.regime_ratio else ""
        return v, "regimes not measured" if v is None else f"{v} regime{'s' if v != 1 else ''}{ratio}"

    def met(self, cal) -> bool | None:
        """True / False, or None when the calibration did not measure what it reads."""
        v, _ = self.measured(cal)
        if v is None:
            return None
        if self.kind == MIGRATION:
            return v >= self.threads + 1
        if self.kind == SMT:
            return bool(v)
        if self.kind == CORES:
            return v >= self.threads
        if self.kind == WAKEUP:
            return v <= self.effect_ns / self.factor
        return v == 1

    def check(self, cal) -> str | None:
        """None when met; else 'needs <requirement>; this machine <measured value>' (or 'not checked: ...')."""
        ok = self.met(cal)
        if ok:
            return None
        said = self.measured(cal)[1]
        if ok is None:
            return f"not checked: needs {self.text()}; the calibration ({cal.source}) has no value: {said}"
        return f"needs {self.text()}; this machine {said}"

    def concerns(self, scope: dict) -> bool:
        return all(str(scope.get(k)) == str(v) for k, v in self.scope.items())


FLOORS = {"cas_ns": "this machine's uncontended CAS", "line_rt_cross_ns": "this machine's cross-CPU cache-line "
          "round trip", "line_rt_same_ns": "this machine's same-CPU cache-line round trip"}
JIT_REMOVED = "the JIT removed the mechanism"


def under_floor(v, cal) -> str | None:
    """'the JIT removed the mechanism: ...' when the verdict's cell runs one operation faster than the physical floor
    its claim names (a lock acquire faster than an uncontended CAS): it times the JIT, not the mechanism. None when
    it does not, or when the floor or the cell's time is unknown."""
    floor = getattr(v.claim, "floor", ())
    if not floor or cal is None or v.per_op_ns is None:
        return None
    name, what = floor
    limit = getattr(cal, name, None)
    if limit is None or v.per_op_ns >= limit:
        return None
    return (f"{JIT_REMOVED}: {fmt_ns(v.per_op_ns)} per {what}, under {FLOORS.get(name, name)} "
            f"({fmt_ns(limit)}); the post's program on today's JIT shows {v.now}")


def floors(verdicts: list, cal) -> list:
    """A verdict under its claim's floor cannot decide the post's claim: 'not measurable here', saying what the
    post's program shows on today's JIT; each measurable verdict of the same claim and protocol (the cell that
    isolates the mechanism: coarsening off, same thread) says it beside its own figure, and becomes the primary."""
    flagged = {}
    out = []
    for v in verdicts:
        floor = getattr(v.claim, "floor", ())
        if floor and v.per_op_ns is not None and (cal is None or getattr(cal, floor[0], None) is None):
            v = undecided(v, f"its floor ({floor[1]} against {FLOORS.get(floor[0], floor[0])}): "
                             + (NOT_STORED if cal is None else f"not measured by {cal.source}"))
        said = under_floor(v, cal)
        if said and v.outcome != UNMEASURABLE:
            flagged.setdefault((v.claim.id, v.machine, v.protocol), []).append(said)
            v = replace(v, outcome=UNMEASURABLE, why="; ".join(x for x in (said, v.why) if x), p_value=None,
                        near=False, modes=())
        out.append(v)
    return [replace(v, why="; ".join(x for x in (v.why, "the mechanism isolated; beside it, " + " / ".join(
                flagged[(v.claim.id, v.machine, v.protocol)])) if x))
            if (v.claim.id, v.machine, v.protocol) in flagged and v.outcome != UNMEASURABLE else v for v in out]


def apply(verdicts: list, cal) -> list:
    """The verdicts with their claims' requirements checked against `cal` (None: no calibration stored). A failed
    requirement makes the verdict 'not measurable here' with the requirement and the measured value (the figure
    stays; no p-value, so it never enters the multiplicity line); an unchecked one is said in the reason. Then the
    mechanism floors (`floors`)."""
    out = []
    for v in verdicts:
        # a stand-in (one vCPU for SMT siblings) is judged as what it is, a labelled sub-row (never primary)
        reqs = [] if v.stand_in else [r for r in getattr(v.claim, "requires", ()) if r.concerns(v.scope)]
        if not reqs:
            out.append(v)
            continue
        if cal is None:
            out.append(undecided(v, f"{NOT_STORED} (needs " + "; ".join(r.text() for r in reqs) + ")"))
            continue
        said = [s for s in (r.check(cal) for r in reqs) if s]
        failed = [s for s in said if not s.startswith("not checked")]
        if failed:
            out.append(replace(v, outcome=UNMEASURABLE, why="; ".join(failed + ([v.why] if v.why else [])),
                               p_value=None, near=False, modes=()))
        elif said:
            out.append(undecided(v, "; ".join(said)))
        else:
            out.append(v)
    return floors(out, cal)
