"""The `mechsym` command: list, run, show, verdicts, reports."""

from __future__ import annotations

import argparse
import sys

from . import MechsymError


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="mechsym", description="Re-run the Mechanical Sympathy experiments on this machine.")
    sub = p.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="experiments, their notebooks and stored runs")
    r = sub.add_parser("run", help="run an experiment's sweep and store the results")
    r.add_argument("experiment")
    r.add_argument("--preset", default="standard", help="smoke | standard | full (default: standard)")
    r.add_argument("--jdk", default=None, help="JDK feature versions (17,25), a JDK home, or 'all' (default)")
    r.add_argument("--threads", default=None, help="thread counts to run instead of the preset's, e.g. 1,2,4")
    r.add_argument("--cpus", default=None, help="run every fork under taskset -c CPUS (ids this machine has)")
    r.add_argument("--jvm-flags", default="", help="extra JVM flags for every Java fork, e.g. '-XX:+UseParallelGC'")
    r.add_argument("--timeout", type=float, default=None, help="seconds before a fork is killed (default: the preset's)")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.add_argument("--dry-run", action="store_true", help="print the cells and commands, run nothing")
    s = sub.add_parser("show", help="summary of the stored results of an experiment")
    s.add_argument("experiment")
    s.add_argument("--machine", default=None, help="a machine id, or 'all' (default: this machine)")
    v = sub.add_parser("verdicts", help="every claim's verdict from stored results")
    v.add_argument("experiment", nargs="?", default=None)
    v.add_argument("--machine", default=None)
    v.add_argument("--format", default="table", choices=["table", "csv"])
    rep = sub.add_parser("reports", help="render every notebook to HTML under reports/")
    rep.add_argument("--preset", default="stored")
    rep.add_argument("--output", default=None)
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return _dispatch(args)
    except MechsymError as e:
        print(f"mechsym: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mechsym: interrupted", file=sys.stderr)
        return 130


def _dispatch(args) -> int:
    from . import experiments, store

    if args.command == "list":
        for name in experiments.names():
            m = experiments.get(name)
            runs = store.runs(name, "all") if store.machines() else []
            print(f"{name:12s} {m.TITLE}")
            print(f"{'':12s} notebooks: {', '.join(m.NOTEBOOKS)}; presets: {', '.join(m.PRESETS)}; stored runs: {len(runs)}")
        return 0

    if args.command == "run":
        from . import sweep
        from .jdk import select

        module = experiments.get(args.experiment)
        sweep.check_preset(args.preset)
        jdks = select(args.jdk)
        overrides = dict(threads=args.threads, cpus=args.cpus, jvm_flags=tuple(args.jvm_flags.split()),
                         timeout=args.timeout)
        if hasattr(module, "run"):
            meta = module.run(args.preset, jdks=jdks, progress=not args.no_progress, dry_run=args.dry_run, **overrides)
            if args.dry_run:
                return 0
        elif args.dry_run:
            for c in sweep.plan(module, args.preset, jdks, **overrides):
                print(f"{c.variant:24s} {'SKIP ' + c.unavailable if c.unavailable else c.launch().command_line}")
            return 0
        else:
            meta = sweep.execute(module, args.preset, jdks=jdks, progress=not args.no_progress, **overrides)
        print(f"stored {meta.get('rows')} rows in {meta.get('json')} ({meta.get('seconds')} s)")
        if meta.get("unavailable"):
            print(f"{len(meta['unavailable'])} cells not available here (stored with the reason)")
        if meta.get("failures"):
            print(f"{len(meta['failures'])} forks failed (not stored): first: {meta['failures'][0]['message']}", file=sys.stderr)
            return 1
        return 0

    if args.command == "show":
        import pandas as pd

        module = experiments.get(args.experiment)
        df = store.load(args.experiment, args.machine)
        if df.empty:
            raise MechsymError(f"{args.experiment}: no stored results; run `mechsym run {args.experiment}` first")
        ok = df[(df["status"] == "ok") & (~df["warmup"].astype(bool))]
        keys = [c for c in ("machine", "jdk", "variant") if c in ok]
        with pd.option_context("display.width", 200, "display.max_rows", 500):
            print(ok.groupby(keys + ["metric", "unit"])["value"].agg(["median", "min", "max", "count"]).to_string())
        return 0

    if args.command == "verdicts":
        from .verdicts import table

        names = [args.experiment] if args.experiment else experiments.names()
        rows = []
        for name in names:
            module = experiments.get(name)
            df = store.load(name, args.machine)
            if df.empty:
                continue
            rows.append(table(module.verdicts(df)))
        if not rows:
            raise MechsymError("no stored results to judge; run `mechsym run EXPERIMENT` first")
        import pandas as pd

        out = pd.concat(rows, ignore_index=True)
        if args.format == "csv":
            out.to_csv(sys.stdout, index=False)
        else:
            cols = ["notebook", "claim", "then", "now", "holds on this machine?"]
            with pd.option_context("display.width", 250, "display.max_colwidth", 70, "display.max_rows", 500):
                print(out[cols].to_string(index=False))
        return 0

    if args.command == "reports":
        from .reports import build

        build(preset=args.preset, output=args.output)
        return 0
    raise MechsymError(f"command '{args.command}': unknown")


if __name__ == "__main__":
    sys.exit(main())
