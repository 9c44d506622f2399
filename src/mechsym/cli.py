"""The `mechsym` command: list, run, show, verdicts, bundle, import, reports."""

from __future__ import annotations

import argparse
import sys

from . import MechsymError


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line (the full usage is in --help)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="mechsym", description="Re-run the Mechanical Sympathy experiments on this machine.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("list", help="experiments, their notebooks and stored runs")
    r = sub.add_parser("run", help="run an experiment's sweep and store the results")
    r.add_argument("experiment")
    r.add_argument("--preset", default="standard", help="smoke | standard | full (default: standard)")
    r.add_argument("--jdk", default=None, help="JDK feature versions (17,25), a JDK home, or 'all' (default)")
    r.add_argument("--threads", default=None, help="thread counts to run instead of the preset's, e.g. 1,2,4")
    r.add_argument("--cpus", default=None, help="run every fork under taskset -c CPUS (ids this machine has)")
    r.add_argument("--jvm-flags", default="", help="extra JVM flags for every Java fork, e.g. '-XX:+UseParallelGC'")
    r.add_argument("--timeout", type=float, default=None, help="seconds before a fork is killed (default: the preset's)")
    r.add_argument("--only", default=None, help="keep matching cells only, e.g. 'variant=reentrant,atomic;grid=main'")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.add_argument("--dry-run", action="store_true", help="print the cells and commands, run nothing")
    s = sub.add_parser("show", help="summary of the stored results of an experiment")
    s.add_argument("experiment")
    s.add_argument("--machine", default=None, help="a machine id, or 'all' (default: this machine)")
    v = sub.add_parser("verdicts", help="every claim's verdict from stored results")
    v.add_argument("experiment", nargs="?", default=None)
    v.add_argument("--machine", default=None,
                   help="a machine id, or 'all' (default: per experiment this machine, else the newest stored)")
    v.add_argument("--format", default="table", choices=["table", "csv"])
    b = sub.add_parser("bundle", help="pack this machine's stored results and their metadata into one archive")
    b.add_argument("--output", "-o", default=None,
                   help="archive path (default: mechsym-results-<machine>-<date>.tar.gz in the current folder)")
    b.add_argument("--machine", default=None, help="a stored machine id, or 'all' (default: this machine)")
    i = sub.add_parser("import", help="add another machine's results from a `mechsym bundle` archive")
    i.add_argument("archive")
    rep = sub.add_parser("reports", help="render every notebook to HTML under reports/")
    rep.add_argument("--preset", default="stored")
    rep.add_argument("--output", default=None)
    rep.add_argument("--machine", default=None, help="a stored machine id, or 'all' (default: this machine)")
    rep.add_argument("--only", default=None, help="notebooks to render, e.g. 00-overview,01-lock-implementations")
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
    except BrokenPipeError:  # e.g. `mechsym verdicts | head`
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


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
                         timeout=args.timeout, only=args.only)
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
        keys += [c for c in ("regime", "placement", "grid", "warmup_policy", "workers", "coarsening", "options", "threads")
                 if c in ok and ok[c].nunique() > 1]
        with pd.option_context("display.width", 200, "display.max_rows", 500):
            print(ok.groupby(keys + ["metric", "unit"])["value"].agg(["median", "min", "max", "count"]).to_string())
        return 0

    if args.command == "verdicts":
        import pandas as pd

        from .overview import ERROR, collect, csv_frame, agreement

        if args.experiment:
            experiments.get(args.experiment)
        out = collect(args.machine, names=[args.experiment] if args.experiment else None)
        if args.format == "csv":
            csv_frame(out).to_csv(sys.stdout, index=False)
        else:
            out = out.assign(runs=out.apply(agreement, axis=1))
            cols = ["notebook", "id", "scope", "protocol", "now", "outcome", "runs"]
            if out["machine"].nunique() > 1:
                cols.insert(1, "machine")
            view = out.assign(now=out.apply(lambda r: r["now"] if r["now"] and r["now"] != "n/a" else r["why"], axis=1))
            clip = lambda t: t if len(t) <= 80 else t[:79] + "…"
            view = view.assign(claim=view["claim"].map(clip), now=view["now"].map(clip))
            with pd.option_context("display.width", 250, "display.max_colwidth", 70, "display.max_rows", 1000):
                print(view[cols].rename(columns={"outcome": "holds?"}).to_string(index=False))
        errors = out[out["outcome"] == ERROR]
        if len(errors):
            print(f"mechsym: {len(errors)} claims could not be judged: first: {errors['why'].iloc[0]}", file=sys.stderr)
            return 1
        return 0

    if args.command == "bundle":
        from .bundle import bundle

        path, summary = bundle(args.output, args.machine)
        print(f"wrote {path}: {summary}")
        return 0

    if args.command == "import":
        from .bundle import import_bundle

        print(import_bundle(args.archive))
        return 0

    if args.command == "reports":
        from .reports import build

        build(preset=args.preset, output=args.output, machine=args.machine,
              only=args.only.split(",") if args.only else None)
        return 0
    raise MechsymError(f"command '{args.command}': unknown")


if __name__ == "__main__":
    sys.exit(main())
