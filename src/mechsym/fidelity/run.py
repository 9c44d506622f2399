"""Measure a kernel beside the post's own code and append the comparison to data/fidelity/<experiment>.csv.

The procedure is data/fidelity/README.md's "How a row is measured": a *set* is one run of the kernel, one of the
listing and one more of the listing (the A/A), each a fresh process, in an order that rotates from set to set, so a
burst of background load falls on every program in turn (design `rotating`). Design `bracketed`, for a machine whose
speed moves between regimes from one second to the next (a 2-vCPU VM whose host moves its vCPUs): a set is five
runs, listing, kernel, listing, listing-again, listing; the kernel is judged against the geometric mean of the two
listing runs beside it, and only when those two agree within `tolerance` (the regime held across the kernel's run);
the A/A is the listing-again against its two neighbours, by the same rule. The rule reads the listing's runs only,
never the kernel's, so it cannot select on the ratio it reports. Each program's figure is read from its output (a regex,
or the median of a metric of a mechsym kernel's CSV); the set's ratio is kernel / listing (of speeds or of
durations: `direction`), and the row gives the median of the per-set ratios with its 95% bootstrap interval
(mechsym.judge.stats), the A/A ratio (listing / listing-again, median over sets), the machine, the JDK, the date and the
clean commit the kernel was measured at. The listing runs in a scratch directory outside the repository (it is not
the lab's code to keep). The bench lock keeps any other measurement off the machine meanwhile. A program may carry
a *keep* condition on its output (`csv:METRIC=VALUE` of a mechsym kernel's CSV, or a regex that must match): a set
counts only when every run in it meets its program's condition, the same gate a kernel's runs pass for the verdicts
(VolatilePingPong: `csv:counters_share_line=1`, its counters on one cache line as the listing's); the row's note
says how many sets were kept and by which condition. A condition reads a label of the run, never its figure.

    plan(...)  -> Plan      every argument checked, the commands built (one-line MechsymError otherwise)
    measure(plan) -> Result the sets run, the figures read, the ratios and their interval
    append(plan, result)    the row written (whole file rewritten atomically, the schema checked first)
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import MechsymError, repo_root
from .figures import BRACKETED, DESIGNS, DIRECTIONS, MAX_SETS, MIN_SETS, PROGRAMS, Figure, Keep  # noqa: F401
from .rows import append, row  # noqa: F401 (the command calls them here)

FIDELITY_ENV = "MECHSYM_FIDELITY_DIR"
def fidelity_dir(given: str | Path | None = None) -> Path:
    """Where rows are appended: the argument, else $MECHSYM_FIDELITY_DIR, else the repository's data/fidelity."""
    if given:
        return Path(given).expanduser().resolve()
    env = os.environ.get(FIDELITY_ENV)
    if env:
        return Path(env).expanduser().resolve()
    from . import records as fidelity

    return fidelity.fidelity_dir()


# ---------------------------------------------------------------- the plan

@dataclass
class Plan:
    experiment: str
    kernel_name: str              # as mechsym.run.kernels names it (the row's kernel column)
    kernel: list[str]             # argv
    listing: list[str]            # argv, run in listing_dir
    listing_dir: Path
    kernel_figure: Figure
    listing_figure: Figure
    direction: str
    sets: int
    cell: str
    listing_label: str
    protocol: str
    jdk: str                      # feature version, or "" for C
    cpus: str | None
    timeout: float
    out_dir: Path
    note: str = ""
    allow_dirty: bool = False
    temp_dir: bool = False        # listing_dir made here (removed at the end)
    design: str = "rotating"
    tolerance: float = 0.1        # bracketed: how far the two listing runs beside a judged run may differ
    kernel_keep: Keep | None = None   # a set counts only when its kernel run meets this (and its listing runs theirs)
    listing_keep: Keep | None = None
    commands: list[str] = field(default_factory=list)

    def keep(self, program: str) -> Keep | None:
        return self.kernel_keep if program == "kernel" else self.listing_keep

    def argv(self, program: str) -> list[str]:
        cmd = self.kernel if program == "kernel" else self.listing
        return (["taskset", "-c", self.cpus] if self.cpus else []) + cmd

    def order(self, s: int) -> list[str]:
        """Set s runs the programs rotated by s: kernel first, then listing first, then listing-again first
        (bracketed: always BRACKETED)."""
        if self.design == "bracketed":
            return list(BRACKETED)
        k = s % len(PROGRAMS)
        return list(PROGRAMS[k:] + PROGRAMS[:k])

    def describe(self) -> list[str]:
        how = (f"bracketed sets of {', '.join(BRACKETED)} (kept when the listing runs beside a judged run agree "
               f"within {self.tolerance:.0%})" if self.design == "bracketed"
               else f"sets of {', '.join(PROGRAMS)} in rotating order")
        lines = [f"fidelity-run {self.experiment}: {self.sets} {how}, "
                 f"ratio of {self.direction}s, row to {self.out_dir / (self.experiment + '.csv')}"]
        lines.append("kernel:  " + shlex.join(self.argv("kernel")))
        lines.append(f"listing: (cd {shlex.quote(str(self.listing_dir))} && {shlex.join(self.argv('listing'))})")
        lines.append(f"figures: kernel {self.kernel_figure.spec!r} ({self.kernel_figure.reduce}), "
                     f"listing {self.listing_figure.spec!r} ({self.listing_figure.reduce})")
        if self.kernel_keep or self.listing_keep:
            lines.append("kept:    sets whose " + self.kept_text())
        return lines

    def kept_text(self, one_run: bool = False) -> str:
        """'kernel runs meet 'csv:...'' (and the listing's), or 'kernel run meets ...' for one set's runs."""
        verb = "run meets" if one_run else "runs meet"
        return " and ".join(f"{name} {verb} {k.spec!r}" for name, k in
                            (("kernel", self.kernel_keep), ("listing", self.listing_keep)) if k)


def _inside(path: Path, root: Path) -> bool:
    p, r = path.resolve(), root.resolve()
    return p == r or r in p.parents


def _split(text: str, what: str) -> list[str]:
    try:
        argv = shlex.split(text)
    except ValueError as e:
        raise MechsymError(f"{what} {text!r}: {e}") from None
    if not argv:
        raise MechsymError(f"{what}: empty; give the command to run")
    return argv


def _expand(argv: list[str], java: str | None) -> list[str]:
    if any("{java}" in a for a in argv):
        if java is None:
            raise MechsymError("{java} in a command, but no JDK was chosen (--jdk)")
        argv = [a.replace("{java}", java) for a in argv]
    return argv


def plan(experiment: str, kernel: str, listing: str, *, kernel_figure: str, listing_figure: str | None = None,
         direction: str, sets: int, cell: str, listing_label: str, reduce: str = "median",
         listing_reduce: str | None = None, kernel_name: str | None = None, listing_dir: str | None = None,
         jdk: str | None = "17", cpus: str | None = None, timeout: float = 600.0, fidelity_dir_arg: str | None = None,
         note: str = "", allow_dirty: bool = False, jvm_flags: str = "", design: str = "rotating",
         tolerance: float = 0.1, kernel_keep: str | None = None, listing_keep: str | None = None) -> Plan:
    """Every input checked (one-line MechsymError naming it and what is allowed) and the commands built.

    kernel: a registered mechsym kernel's name and its arguments (`mechsym.ping.PingBuffet --mode=ipc-spin`,
    `c:atomic_counter --threads=2`: run with the chosen JDK and the repository's class path), or any command
    (then kernel_name names the registered kernel it runs). listing: any command; `{java}` in either stands for the
    chosen JDK's java. kernel_keep, listing_keep: a set counts only when its runs meet them (Keep)."""
    from .. import experiments
    from ..run import kernels

    if experiment not in experiments.names():
        raise MechsymError(f"experiment '{experiment}': unknown (known: {', '.join(experiments.names())})")
    if direction not in DIRECTIONS:
        raise MechsymError(f"--direction '{direction}': unknown (allowed: {', '.join(DIRECTIONS)})")
    if design not in DESIGNS:
        raise MechsymError(f"--design '{design}': unknown (allowed: {', '.join(DESIGNS)})")
    if not (isinstance(tolerance, (int, float)) and 0 < tolerance <= 1):
        raise MechsymError(f"--tolerance {tolerance}: allowed above 0 and at most 1 (a fraction: 0.1 is 10%)")
    if not isinstance(sets, int) or not MIN_SETS <= sets <= MAX_SETS:
        raise MechsymError(f"--sets {sets}: allowed {MIN_SETS}-{MAX_SETS} (fewer sets give no interval)")
    keeps = tuple(None if k is None else Keep(k) for k in (kernel_keep, listing_keep))
    if not cell.strip() or not listing_label.strip():
        raise MechsymError("--cell and --listing-label: give both, not empty (they are the row's cell and listing)")
    if not (0 < timeout <= 86400):
        raise MechsymError(f"--timeout {timeout}: allowed above 0 and at most 86400 seconds")
    java_jdk = None
    if jdk:
        from ..machine.jdk import select

        java_jdk = select(jdk)
        if len(java_jdk) != 1:
            raise MechsymError(f"--jdk {jdk}: name one JDK (found {len(java_jdk)})")
        java_jdk = java_jdk[0]
    java = java_jdk.java if java_jdk else None
    k_argv = _expand(_split(kernel, "--kernel"), java)
    flags = _split(jvm_flags, "--jvm-flags") if jvm_flags.strip() else []
    if k_argv[0] in kernels.BY_NAME or k_argv[0].startswith("mechsym."):
        name = k_argv[0]
        kernels.get(name)  # registered, else one line with the known ones
        if not name.startswith("c:") and java_jdk is None:
            raise MechsymError(f"kernel {name}: a Java kernel needs --jdk")
        k_argv = kernels.command(name, k_argv[1:], jdk=java_jdk, flags=flags if not name.startswith("c:") else ())
        if kernel_name and kernel_name != name:
            raise MechsymError(f"--kernel-name {kernel_name}: the command runs {name}")
        kernel_name = name
    elif not kernel_name:
        raise MechsymError(f"--kernel {k_argv[0]!r}: not a registered mechsym kernel; start it with one (e.g. "
                           "mechsym.ping.PingBuffet --mode=ipc-spin) or name the kernel it runs with --kernel-name")
    else:
        kernels.get(kernel_name)
    protocol = next((a.split("=", 1)[1] for a in k_argv if a.startswith("--protocol=")), "")
    if protocol not in ("", "post", "lab"):
        protocol = ""
    l_argv = _expand(_split(listing, "--listing"), java)
    if cpus is not None:
        if not re.fullmatch(r"\d+(-\d+)?(,\d+(-\d+)?)*", cpus):
            raise MechsymError(f"--cpus '{cpus}': allowed a CPU list such as 0 or 0,1 or 0-3")
        if shutil.which("taskset") is None:
            raise MechsymError("--cpus: taskset is not installed (util-linux)")
    root = repo_root()
    temp = listing_dir is None
    ldir = Path(tempfile.mkdtemp(prefix="mechsym-listing-")) if temp else Path(listing_dir).expanduser().resolve()
    if not ldir.is_dir():
        raise MechsymError(f"--listing-dir {ldir}: not a directory")
    if _inside(ldir, root):
        raise MechsymError(f"--listing-dir {ldir}: inside the repository {root}; run the listing from a scratch "
                           "directory outside it")
    out = fidelity_dir(fidelity_dir_arg)
    return Plan(experiment, kernel_name, k_argv, l_argv, ldir, Figure(kernel_figure, reduce),
                Figure(listing_figure or kernel_figure, listing_reduce or reduce), direction, sets, cell.strip(),
                listing_label.strip(), protocol, str(java_jdk.feature) if java_jdk and not kernel_name.startswith("c:")
                else "", cpus, timeout, out, note, allow_dirty, temp, design, float(tolerance), *keeps)


# ---------------------------------------------------------------- measuring

@dataclass
class Result:
    figures: dict[str, list[float]]   # per program, one figure per set
    ratios: np.ndarray                # kernel / listing, per set
    aa: np.ndarray                    # listing / listing-again, per set
    ratio: float
    low: float
    high: float
    aa_ratio: float
    commit: str
    clean: bool
    run: int = 0                      # sets run (bracketed: ratios and aa hold only the kept ones)
    kept: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))   # per set run: met every keep


def run_program(p: Plan, program: str) -> str:
    """One fresh process; its stdout, or a one-line MechsymError (exit status or timeout, its last stderr line)."""
    argv = p.argv(program)
    cwd = p.listing_dir if program != "kernel" else None
    p.commands.append(shlex.join(argv))
    try:
        r = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=p.timeout)
    except FileNotFoundError:
        raise MechsymError(f"{program}: {argv[0]}: command not found") from None
    except subprocess.TimeoutExpired:
        raise MechsymError(f"{program}: did not finish within {p.timeout:g} s: {shlex.join(argv)[:160]}") from None
    if r.returncode != 0:
        last = (r.stderr.strip() or r.stdout.strip() or "(no output)").splitlines()[-1][:160]
        raise MechsymError(f"{program}: exit {r.returncode}: {last}")
    return r.stdout


def interval(ratios) -> tuple[float, float, float]:
    """The median of the per-set ratios and its 95% percentile-bootstrap interval (mechsym.judge.stats)."""
    from ..judge import stats

    boot = stats.bootstrap(np.median, [np.asarray(ratios, dtype=float)], of_medians=False)
    if boot is None or not np.isfinite(boot.low):
        raise MechsymError(f"{len(ratios)} sets: too few for an interval (at least {MIN_SETS})")
    return boot.value, boot.low, boot.high


def measure(p: Plan, progress=lambda line: print(line, file=sys.stderr)) -> Result:
    """The sets, under the bench lock, at a clean commit (unless allow_dirty)."""
    from ..store import provenance
    from ..run.sweep import bench_lock

    state = provenance.git_state()
    if not state.clean and not p.allow_dirty:
        files = state.dirty_files()
        raise MechsymError(f"fidelity-run: the tree is not clean ({len(files)} changed files: "
                           f"{', '.join(files[:3])}{', ...' if len(files) > 3 else ''}); commit first, or pass "
                           "--allow-dirty (said in the row's note)")
    figures: dict[str, list[float]] = {k: [] for k in PROGRAMS}
    sets: list[list[float]] = []
    kept: list[bool] = []
    try:
        with bench_lock(progress):
            for s in range(p.sets):
                one, ok = [], True
                for program in p.order(s):
                    fig = p.kernel_figure if program == "kernel" else p.listing_figure
                    out = run_program(p, program)
                    one.append(fig.read(out, program))
                    figures[program].append(one[-1])
                    keep = p.keep(program)
                    ok = ok and (keep is None or keep.ok(out))
                sets.append(one)
                kept.append(ok)
                progress(f"set {s + 1}/{p.sets}: " + ", ".join(f"{n} {v:.4g}" for n, v in zip(p.order(s), one))
                         + ("" if ok else f" (left out: not every {p.kept_text(one_run=True)})"))
    finally:
        if p.temp_dir:
            shutil.rmtree(p.listing_dir, ignore_errors=True)
    use = np.asarray(kept, dtype=bool)
    if use.sum() < MIN_SETS:
        raise MechsymError(f"fidelity-run: {int(use.sum())} of {p.sets} sets kept (those whose {p.kept_text()}): "
                           "too few for an interval; run more sets")
    if p.design == "bracketed":
        ratios, aa = bracketed(np.asarray(sets)[use], p.tolerance)
        if len(ratios) < MIN_SETS:
            raise MechsymError(f"fidelity-run: {len(ratios)} of {p.sets} bracketed sets kept (the listing moved more "
                               f"than {p.tolerance:.0%} across the others): too few for an interval; run more sets")
    else:
        k, li, again = (np.asarray(figures[x])[use] for x in PROGRAMS)
        ratios, aa = k / li, li / again
    ratio, low, high = interval(ratios)
    return Result(figures, ratios, aa, ratio, low, high, float(np.median(aa)) if len(aa) else float("nan"),
                  state.commit, state.clean, p.sets, use)


def bracketed(sets: np.ndarray, tolerance: float) -> tuple[np.ndarray, np.ndarray]:
    """Per bracketed set (a row of BRACKETED's five figures): kernel / geometric mean of the listing runs 0 and 2,
    kept when those two agree within `tolerance`; the A/A, listing-again / geometric mean of listing runs 2 and 4,
    kept by the same rule. Returns (kept ratios, kept A/A ratios)."""
    sets = np.asarray(sets, dtype=float)
    if sets.ndim != 2 or sets.shape[1] != len(BRACKETED):
        raise MechsymError(f"bracketed sets: need rows of {len(BRACKETED)} figures ({', '.join(BRACKETED)})")
    limit = np.log1p(tolerance)
    l0, k, l2, again, l4 = sets.T
    keep_k = np.abs(np.log(l0 / l2)) <= limit
    keep_a = np.abs(np.log(l2 / l4)) <= limit
    return (k / np.sqrt(l0 * l2))[keep_k], (again / np.sqrt(l2 * l4))[keep_a]
