"""`mechsym fidelity-run`: a kernel beside the post's own code, a row appended to data/fidelity/<experiment>.csv
(mechsym.fidelity.run does the work)."""

from __future__ import annotations


from .. import MechsymError


def command(args) -> int:
    from ..fidelity import run as fidelity_run

    if not (args.figure or args.kernel_figure) or not (args.figure or args.listing_figure):
        raise MechsymError("fidelity-run: give --figure (both programs), or --kernel-figure and --listing-figure")
    try:
        sets = int(args.sets)
        timeout = float(args.timeout)
        tolerance = float(args.tolerance)
    except ValueError:
        raise MechsymError(f"--sets {args.sets!r} / --timeout {args.timeout!r} / --tolerance {args.tolerance!r}: "
                           "give whole sets, seconds and a fraction") from None
    p = fidelity_run.plan(
        args.experiment, args.kernel, args.listing, kernel_figure=args.kernel_figure or args.figure,
        listing_figure=args.listing_figure or args.figure, direction=args.direction, sets=sets, cell=args.cell,
        listing_label=args.listing_label, reduce=args.reduce, listing_reduce=args.listing_reduce,
        kernel_name=args.kernel_name, listing_dir=args.listing_dir, jdk=args.jdk or None, cpus=args.cpus,
        timeout=timeout, fidelity_dir_arg=args.fidelity_dir, note=args.note, allow_dirty=args.allow_dirty,
        jvm_flags=args.jvm_flags, design=args.design, tolerance=tolerance, kernel_keep=args.kernel_keep,
        listing_keep=args.listing_keep)
    if args.dry_run:
        print("\n".join(p.describe()))
        if p.temp_dir:
            import shutil

            shutil.rmtree(p.listing_dir, ignore_errors=True)
        return 0
    result = fidelity_run.measure(p)
    new = fidelity_run.row(p, result)
    path = fidelity_run.append(p, new)
    print(f"{p.experiment} {p.cell}: ratio {new['ratio']} [{new['ci_low']}, {new['ci_high']}] (bootstrap 95%, "
          f"{new['sets']} sets kept of {p.sets}, of {p.direction}s), A/A {new['aa_ratio']}; appended to {path}")
    return 0


def add_parser(sub, once, once_flag) -> None:
    f = sub.add_parser("fidelity-run", help="run a kernel beside the post's own code in alternating sets and "
                                            "append the ratio to data/fidelity/<experiment>.csv")
    f.add_argument("experiment")
    f.add_argument("--kernel", required=True, action=once,
                   help="a registered kernel and its arguments ('mechsym.ping.PingBuffet --mode=ipc-spin'), or any "
                        "command with --kernel-name; {java} stands for the chosen JDK's java")
    f.add_argument("--kernel-name", default=None, action=once, help="the registered kernel a raw --kernel runs")
    f.add_argument("--listing", required=True, action=once,
                   help="the post's program as a command, run in --listing-dir ({java} as for --kernel)")
    f.add_argument("--listing-dir", default=None, action=once,
                   help="where the listing runs, outside the repository (default: a fresh temporary directory)")
    f.add_argument("--listing-label", required=True, action=once, help="the row's listing column")
    f.add_argument("--cell", required=True, action=once, help="the row's cell column: what was run")
    f.add_argument("--figure", default=None, action=once,
                   help="csv:METRIC (a mechsym kernel's CSV) or a regex whose first group is the figure")
    f.add_argument("--kernel-figure", default=None, action=once, help="the kernel's figure, if not --figure")
    f.add_argument("--listing-figure", default=None, action=once, help="the listing's figure, if not --figure")
    f.add_argument("--reduce", default="median", action=once,
                   help="one figure of a program's matches: median (default) | min | max | first | last")
    f.add_argument("--listing-reduce", default=None, action=once, help="the listing's, if not --reduce")
    f.add_argument("--direction", required=True, action=once, help="speed | duration: what the figure is")
    f.add_argument("--sets", default="8", action=once, help="sets of (kernel, listing, listing again); default 8")
    f.add_argument("--design", default="rotating", action=once,
                   help="rotating (default): each set the three programs in rotating order | bracketed: each set "
                        "listing, kernel, listing, listing again, listing, each judged run against the listing "
                        "runs beside it (for a machine whose speed moves between regimes within seconds)")
    f.add_argument("--tolerance", default="0.1", action=once,
                   help="bracketed: how far (a fraction) the two listing runs beside a judged run may differ for "
                        "its set to count (default 0.1)")
    f.add_argument("--kernel-keep", default=None, action=once,
                   help="count a set only when its kernel run meets this: csv:METRIC=NUMBER (a mechsym kernel's "
                        "CSV, e.g. csv:counters_share_line=1) or a regex its output must match")
    f.add_argument("--listing-keep", default=None, action=once,
                   help="count a set only when both its listing runs meet this (as --kernel-keep)")
    f.add_argument("--jdk", default="17", action=once, help="the JDK feature version or home (default 17)")
    f.add_argument("--jvm-flags", default="", action=once, help="JVM flags for a registered Java kernel")
    f.add_argument("--cpus", default=None, action=once, help="run every program under taskset -c CPUS")
    f.add_argument("--timeout", default="600", action=once, help="seconds before a program is killed (default 600)")
    f.add_argument("--fidelity-dir", default=None, action=once,
                   help="where the row goes (default: $MECHSYM_FIDELITY_DIR, else data/fidelity)")
    f.add_argument("--note", default="", action=once, help="added to the row's note")
    f.add_argument("--allow-dirty", action=once_flag, help="measure on a tree with uncommitted changes (noted)")
    f.add_argument("--dry-run", action=once_flag, help="print the commands, run nothing")
