"""The command line: its commands and options, usage errors as one line, options that may be given once."""

from __future__ import annotations

import argparse


class _Parser(argparse.ArgumentParser):
    """Usage errors as one line (the full usage is in --help)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


class _Once(argparse.Action):
    """An option that may be given once: a second value is refused rather than silently replacing the first."""

    def __call__(self, parser, namespace, values, option_string=None):
        if option_string in getattr(namespace, "_given", set()):
            both = "" if self.nargs == 0 else f" ({getattr(namespace, self.dest)!r} and {values!r})"
            parser.error(f"argument {option_string}: given twice{both}; give it once")
        namespace._given = getattr(namespace, "_given", set()) | {option_string}
        setattr(namespace, self.dest, values)


class _OnceFlag(_Once):
    def __init__(self, option_strings, dest, **kw):
        super().__init__(option_strings, dest, nargs=0, default=False, **kw)

    def __call__(self, parser, namespace, values, option_string=None):
        super().__call__(parser, namespace, True, option_string)


def joined_values(argv: list[str], option: str, own: set[str]) -> list[str]:
    """`--jvm-flags "-XX:+UseParallelGC"` as the README writes it: a value that starts with '-' taken as the value
    (argparse would read it as an option), unless it is one of the command's own options."""
    out, i = [], 0
    while i < len(argv):
        a = argv[i]
        if a == "--":
            return out + argv[i:]
        if a == option and i + 1 < len(argv) and argv[i + 1].startswith("-") and argv[i + 1].split("=", 1)[0] not in own:
            out.append(f"{option}={argv[i + 1]}")
            i += 2
            continue
        out.append(a)
        i += 1
    return out


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="mechsym", description="Re-run the Mechanical Sympathy experiments on this machine.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("list", help="this machine, the JDKs found, the experiments and the stored runs")
    r = sub.add_parser("run", help="run an experiment's sweep and store the results")
    r.add_argument("experiment")
    r.add_argument("--preset", default=None, action=_Once,
                   help="smoke | standard | full (default: smoke, seconds; with --until-decided: standard)")
    r.add_argument("--jdk", default=None, action=_Once,
                   help="JDK feature versions (17,25), a JDK home, or 'all' (default)")
    r.add_argument("--threads", default=None, action=_Once,
                   help="thread counts to run instead of the preset's, e.g. 1,2,4")
    r.add_argument("--cpus", default=None, action=_Once,
                   help="run every fork under taskset -c CPUS (ids this machine has)")
    r.add_argument("--jvm-flags", default="", action=_Once,
                   help="extra JVM flags for every Java fork, e.g. \"-XX:+UseParallelGC -Xmx2g\"")
    r.add_argument("--timeout", default=None, action=_Once,
                   help="seconds before a fork is killed, at most 86400 (default: the preset's)")
    r.add_argument("--only", default=None, action=_Once,
                   help="keep matching cells only, e.g. 'variant=reentrant,atomic;grid=main'")
    r.add_argument("--protocol", default=None, action=_Once,
                   help="lab (default: the kernels) | jmh (JMH benchmarks, for experiments that have them)")
    r.add_argument("--no-progress", action=_OnceFlag, help="no progress bar")
    r.add_argument("--dry-run", action=_OnceFlag, help="print the cells and commands, run nothing")
    r.add_argument("--allow-dirty", action=_OnceFlag,
                   help="measure a standard or full run on a tree with uncommitted changes (recorded, with the diff)")
    r.add_argument("--until-decided", action=_OnceFlag,
                   help="add forks to the cells of the stored run's undecided claims until each is decided "
                        "(stored as a run extending it)")
    r.add_argument("--budget", default=None, action=_Once,
                   help="with --until-decided: wall time to spend, e.g. 90s, 30m, 1h (default: no limit)")
    r.add_argument("--max-forks", default=None, action=_Once,
                   help="with --until-decided: forks per cell at most (default: 40)")
    cal = sub.add_parser("calibrate", help="measure what this machine can time (timer, CAS, cache-line round trips, "
                                           "wake-ups, per-JVM regimes) and store it as a calibration run")
    cal.add_argument("--preset", default="standard", action=_Once,
                     help="smoke (seconds) | standard (~2-3 minutes, default) | full")
    cal.add_argument("--no-progress", action=_OnceFlag, help="no progress bar")
    cal.add_argument("--allow-dirty", action=_OnceFlag,
                     help="measure a standard or full run on a tree with uncommitted changes (recorded, with the diff)")
    f = sub.add_parser("refresh", help="re-run the standard preset of every experiment whose shown run is stale")
    f.add_argument("--experiments", default=None, help="only these, e.g. locks,spsc (default: every experiment)")
    f.add_argument("--dry-run", action=_OnceFlag, help="say what would be re-run and how long it would take")
    f.add_argument("--no-progress", action=_OnceFlag, help="no progress bars")
    s = sub.add_parser("show", help="per-cell medians and ranges of one stored run of an experiment")
    s.add_argument("experiment")
    s.add_argument("--machine", default=None, help="a machine id, or 'all' (default: this machine)")
    s.add_argument("--run", default=None, help="a run id, or a unique part of it (default: what the notebooks show)")
    s.add_argument("--preset", default=None, help="the newest run of this preset (default: the most thorough stored)")
    s.add_argument("--metric", default=None, help="metrics to show, e.g. duration,throughput, or 'all' "
                                                  "(default: the rates, else every metric)")
    c = sub.add_parser("compare", help="two stored runs of an experiment side by side, cell by cell, with ratios")
    c.add_argument("run_a", metavar="RUN_A", help="a run id, or a unique part of it")
    c.add_argument("run_b", metavar="RUN_B")
    c.add_argument("--metric", default=None, help="as for show")
    v = sub.add_parser("verdicts", help="every claim's verdict from stored results")
    v.add_argument("experiment", nargs="?", default=None)
    v.add_argument("--machine", default=None,
                   help="a machine id, or 'all' (default: per experiment this machine, else the newest stored)")
    v.add_argument("--format", default="table", choices=["table", "csv"])
    v.add_argument("--jmh", action="store_true",
                   help="the lab/JMH ratio table instead: per headline cell, lab/JMH with its 95%% interval, the "
                        "cells outside 0.9-1.1 flagged with their explanation")
    b = sub.add_parser("bundle", help="pack this machine's stored results and their metadata into one archive")
    b.add_argument("--output", "-o", default=None,
                   help="archive path (default: mechsym-results-<machine>-<date>.tar.gz in the current folder)")
    b.add_argument("--machine", default=None, help="a stored machine id, or 'all' (default: this machine)")
    b.add_argument("--include-smoke", action="store_true",
                   help="pack smoke runs too (left out by default: their numbers are not measurements)")
    i = sub.add_parser("import", help="add another machine's results from a `mechsym bundle` archive")
    i.add_argument("archive")
    rep = sub.add_parser("reports", help="render every notebook to HTML under reports/")
    rep.add_argument("--preset", default="stored")
    rep.add_argument("--output", default=None)
    rep.add_argument("--machine", default=None, help="a stored machine id, or 'all' (default: this machine)")
    rep.add_argument("--only", default=None, help="notebooks to render, e.g. 00-overview,01-lock-implementations")
    rep.add_argument("--with-code", action="store_true", help="keep the code cells in the pages (left out by default)")
    from .fidelityrun import add_parser

    add_parser(sub, _Once, _OnceFlag)
    return p


RUN_OPTIONS = {"--preset", "--jdk", "--threads", "--cpus", "--jvm-flags", "--timeout", "--only", "--protocol",
               "--allow-dirty", "--no-progress", "--until-decided", "--budget", "--max-forks",
               "--dry-run", "-h", "--help"}
