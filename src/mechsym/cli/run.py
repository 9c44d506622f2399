"""`mechsym run`: a sweep and what it measured; with --dry-run, its cells and commands and how long it would take."""

from __future__ import annotations

import sys

from .. import MechsymError
from .cells import cell_keys, key_text
from .text import columns, duration_text, rel_path, wrap_lines


def command(args) -> int:
    """Run an experiment's sweep and store the results (or, with --dry-run, print its cells and commands)."""
    from .. import experiments
    from ..run import sweep
    from ..machine.jdk import select

    module = experiments.get(args.experiment)
    if getattr(args, "until_decided", False):
        args.preset = args.preset or "standard"   # it extends a stored measurement: there is no smoke one
        sweep.check_preset(args.preset)
        return _until_decided(args, module)
    if args.preset is None:   # a check, in seconds; a measurement is asked for by name
        args.preset = "smoke"
        # the command on a line of its own, never wrapped, so it can be copied
        print("\n".join(wrap_lines("preset smoke (the default: seconds, a check that everything runs); the stored "
                                    "results are", columns()) + [f"  mechsym run {module.NAME} --preset standard"]),
              file=sys.stderr)
    sweep.check_preset(args.preset)
    for opt, given in (("--budget", args.budget), ("--max-forks", args.max_forks)):
        if given is not None:
            raise MechsymError(f"{opt}: only with --until-decided")
    if args.protocol == "jmh" and args.experiment not in experiments.with_jmh_cells():
        raise MechsymError(f"protocol jmh: experiment {args.experiment} has no JMH benchmark cells yet "
                           f"(experiments with them: {', '.join(experiments.with_jmh_cells())})")
    jdks = select(args.jdk)
    import shlex

    try:
        flags = tuple(shlex.split(args.jvm_flags))
    except ValueError as e:
        raise MechsymError(f"--jvm-flags {args.jvm_flags!r}: {e} (quote a flag with spaces as "
                           "--jvm-flags=\"-Dname='a b'\")") from e
    overrides = dict(threads=args.threads, cpus=args.cpus, jvm_flags=flags,
                     timeout=args.timeout, only=args.only, protocol=args.protocol)
    if args.dry_run:
        cells = sweep.plan(module, args.preset, jdks, **overrides)
        print("\n".join(dry_run_lines(cells, columns())))
        print("\n".join(_plan_summary(module.NAME, args.preset, cells)))
        try:   # the dry run measures nothing, so it may look; the real run would be refused: say so
            sweep.check_clean(args.preset, allow_dirty=args.allow_dirty)
        except MechsymError as e:
            print(f"(the real run would be refused: {e})")
        return 0
    meta = sweep.execute(module, args.preset, jdks=jdks, progress=not args.no_progress,
                         allow_dirty=args.allow_dirty, **overrides)
    print("\n".join(_run_summary(module.NAME, args.preset, meta)))
    if meta.get("failures"):
        print(f"{len(meta['failures'])} forks failed (not stored): first: {meta['failures'][0]['message']}",
              file=sys.stderr)
        return 1
    return 0


def _until_decided(args, module) -> int:
    """`mechsym run EXP --until-decided`: forks added to the stored run's undecided claims (mechsym.judge.decide)."""
    from ..judge import decide
    from ..machine.jdk import select

    if args.preset not in decide.PRESETS:
        raise MechsymError(f"--until-decided with --preset {args.preset}: allowed {', '.join(decide.PRESETS)} (a smoke "
                           "run's numbers decide nothing)")
    if args.protocol not in (None, "lab"):
        raise MechsymError(f"--until-decided with --protocol {args.protocol}: allowed the lab's own kernels only "
                           "(JMH runs are a second opinion, not the verdict's forks)")
    for opt, given in (("--threads", args.threads), ("--cpus", args.cpus), ("--only", args.only),
                       ("--jvm-flags", args.jvm_flags or None)):
        if given is not None:
            raise MechsymError(f"--until-decided with {opt}: the added forks repeat the stored run's own cells; "
                               "drop the option")
    budget = decide.parse_budget(args.budget)
    max_forks = decide.check_max_forks(args.max_forks if args.max_forks is not None else decide.MAX_FORKS)
    decide.run(module, args.preset, select(args.jdk), budget=budget, max_forks=max_forks,
               progress=not args.no_progress, allow_dirty=args.allow_dirty, dry_run=args.dry_run,
               timeout=args.timeout, write=_wrapped)
    return 0


def _wrapped(line: str) -> None:
    """A line of the until-decided loop within the terminal's columns: continuations two columns further in."""
    indent = " " * (len(line) - len(line.lstrip(" ")))
    print("\n".join(wrap_lines(line.strip(), columns(), indent + "  ", indent or " ")
                    if line.strip() else [""]))


def dry_run_lines(cells, width: int) -> list[str]:
    """Each cell's variant and its command, wrapped as a shell line (` \\` continuations) within `width`. A class path,
    the same on every Java line and ~500 columns, is printed once as a shell assignment (CP=..., one entry a line)
    and written "$CP" in the commands, so the lines still run when pasted after it."""
    import shlex

    names: dict[str, str] = {}   # class path -> its variable
    commands = []
    for c in cells:
        if c.unavailable:
            commands.append((c.variant, None, c.unavailable))
            continue
        if c.runner:   # run by the experiment's own code, not a shell line: said as a comment, never pasted
            commands.append((c.variant, c.command_line(), None))
            continue
        argv = [shlex.quote(a) for a in shlex.split(c.command_line())]
        for i in range(len(argv) - 1):
            if argv[i] in ("-cp", "-classpath", "--class-path"):
                path = shlex.split(argv[i + 1])[0]
                argv[i + 1] = "$" + names.setdefault(path, "CP" if not names else f"CP{len(names) + 1}")
        commands.append((c.variant, argv, None))
    out = []
    for path, name in names.items():
        entries = path.split(":")
        out += [f"{name}=\\"] + [e + ":\\" for e in entries[:-1]] + [entries[-1]]
    for variant, argv, skip in commands:
        if argv is None:
            out += wrap_lines(f"{variant}: SKIP {skip}", width, "    ")
        elif isinstance(argv, str):
            out += [variant] + wrap_lines(argv, width, "  #     ", "  # ")
        else:
            out += [variant] + _shell_wrap(argv, width)
    return out


def _shell_wrap(words: list[str], width: int) -> list[str]:
    """A command as shell lines within `width`: two spaces in, continuations six, ` \\` at each break."""
    lines, line = [], "  "
    for w in words:
        if line.strip() and len(line) + 1 + len(w) + 2 > width:
            lines.append(line + " \\")
            line = "      " + w
        else:
            line = line + (" " if line.strip() else "") + w
    return lines + [line]


def per_fork_seconds(experiment: str, preset: str) -> tuple[float | None, str]:
    """Seconds a fork took in earlier complete runs of the same preset (this machine's when it has any), and
    where that comes from."""
    import statistics

    from ..machine import identity as machine
    from ..store import runs as store

    root = store.results_root()
    here = machine.machine_id()
    found: dict[bool, list[float]] = {True: [], False: []}
    for m, _, e, j in store.index(root):
        if e != experiment or f"-{preset}-" not in j.stem:
            continue
        try:
            meta = store.read_meta(j)
        except MechsymError:
            continue
        forks = len(meta.get("commands") or []) + len(meta.get("failures") or [])
        if meta.get("status", "complete") == "complete" and meta.get("preset") == preset and forks and meta.get("seconds"):
            found[m == here].append(float(meta["seconds"]) / forks)
    for mine in (True, False):
        if found[mine]:
            n = len(found[mine])
            where = "this machine" if mine else "other machines"
            return statistics.median(found[mine]), f"{n} earlier {preset} run{'s' if n > 1 else ''} on {where}"
    return None, ""


def _plan_summary(experiment: str, preset: str, cells) -> list[str]:
    runnable = [c for c in cells if not c.unavailable]
    forks = sum(c.forks for c in runnable)
    skipped = len(cells) - len(runnable)
    line = (f"{experiment} [{preset}]: {len(runnable)} cells, {forks} forks"
            + (f" ({skipped} cells not measurable here, stored with the reason)" if skipped else ""))
    per_fork, source = per_fork_seconds(experiment, preset)
    if per_fork is None:
        line += f"; no earlier {preset} run of {experiment} to estimate its duration from"
    else:
        line += f"; estimated {duration_text(per_fork * forks)} ({per_fork:.1f} s a fork in {source})"
    return wrap_lines(line, columns())


def _run_summary(experiment: str, preset: str, meta: dict) -> list[str]:
    """What a run measured, where it is stored, and how to look at it."""
    width = columns()
    frame = meta.get("frame")
    ok = frame[frame["status"] == "ok"] if frame is not None and "status" in frame else frame
    forks = len(meta.get("commands") or [])
    out = []
    if ok is not None and len(ok):
        keys = cell_keys(ok, [])
        cells = len(ok.drop_duplicates(keys)) if keys else 1
        units = dict(zip(ok["metric"].astype(str), ok["unit"].astype(str)))
        over = []
        for k in keys:
            values = list(dict.fromkeys(key_text(v) for v in ok[k]))
            over.append(f"{k} {', '.join(values)}" if len(values) <= 4 else f"{len(values)} {k} values")
        out += wrap_lines(f"{experiment} [{preset}]: measured {cells} cells, {forks} forks in "
                          f"{duration_text(meta.get('seconds'))}: " + ", ".join(f"{m} ({u})" for m, u in units.items())
                          + (f" over {'; '.join(over)}" if over else ""), width)
    if meta.get("unavailable"):
        reasons = list(dict.fromkeys(str(u.get("reason", "")) for u in meta["unavailable"]))
        out += wrap_lines(f"{len(meta['unavailable'])} cells not measurable here (stored with the reason): "
                          + "; ".join(reasons[:3]) + (" ..." if len(reasons) > 3 else ""), width, "  ", "")
    run_id = str(meta.get("run_id", ""))
    if meta.get("json"):
        out += wrap_lines(f"stored run {run_id}: {meta.get('rows')} rows in {rel_path(str(meta['json'])[:-5] + '.csv')} "
                          "(+ .json)", width)
    short = run_id.rsplit("-", 1)[-1]
    out.append(f"see it: mechsym show {experiment} --run {short}")
    if preset == "smoke":
        out += wrap_lines("a smoke run checks that everything runs; its numbers are not measurements. Notebooks and "
                          "`mechsym show` keep showing the most thorough preset stored.", width)
    return out
