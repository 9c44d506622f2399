"""The `mechsym` command: list, run, show, compare, verdicts, bundle, import, reports.

What it prints is read by a person: aligned tables within 100 columns, numbers in readable units, and every table
says which stored run (id, preset, date, machine) it comes from. `mechsym list` starts without pandas, matplotlib
or JPype; the other commands import them where they need them."""

from __future__ import annotations

import argparse
import sys

from . import MechsymError


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


def _joined_values(argv: list[str], option: str, own: set[str]) -> list[str]:
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


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="mechsym", description="Re-run the Mechanical Sympathy experiments on this machine.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    sub.add_parser("list", help="this machine, the JDKs found, the experiments and the stored runs")
    r = sub.add_parser("run", help="run an experiment's sweep and store the results")
    r.add_argument("experiment")
    r.add_argument("--preset", default="standard", action=_Once, help="smoke | standard | full (default: standard)")
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
    r.add_argument("--no-progress", action=_OnceFlag, help="no progress bar")
    r.add_argument("--dry-run", action=_OnceFlag, help="print the cells and commands, run nothing")
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
    return p


RUN_OPTIONS = {"--preset", "--jdk", "--threads", "--cpus", "--jvm-flags", "--timeout", "--only", "--no-progress",
               "--dry-run", "-h", "--help"}


def main(argv: list[str] | None = None) -> int:
    argv = _joined_values(list(sys.argv[1:] if argv is None else argv), "--jvm-flags", RUN_OPTIONS)
    args = _parser().parse_args(argv)
    import signal

    def _stop(signum, frame):  # SIGTERM or SIGHUP: the same way out as Ctrl-C (clean-ups run, one line)
        raise KeyboardInterrupt(f"signal {signum}")
    for sig in (signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(sig) is not signal.SIG_IGN:  # `nohup mechsym run ...` keeps ignoring SIGHUP
            signal.signal(sig, _stop)
    try:
        return _dispatch(args)
    except MechsymError as e:
        print(f"mechsym: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        signum = int(str(e).split()[-1]) if str(e).startswith("signal ") else int(signal.SIGINT)
        how = "" if signum == signal.SIGINT else f" ({signal.Signals(signum).name})"
        print(f"mechsym: interrupted{how}", file=sys.stderr)
        return 128 + signum
    except BrokenPipeError:  # e.g. `mechsym verdicts | head`
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _dispatch(args) -> int:
    if args.command == "list":
        return _list()

    from . import experiments, store

    if args.command == "run":
        from . import sweep
        from .jdk import select

        module = experiments.get(args.experiment)
        sweep.check_preset(args.preset)
        jdks = select(args.jdk)
        import shlex

        try:
            flags = tuple(shlex.split(args.jvm_flags))
        except ValueError as e:
            raise MechsymError(f"--jvm-flags {args.jvm_flags!r}: {e} (quote a flag with spaces as "
                               "--jvm-flags=\"-Dname='a b'\")") from e
        overrides = dict(threads=args.threads, cpus=args.cpus, jvm_flags=flags,
                         timeout=args.timeout, only=args.only)
        if args.dry_run:
            cells = sweep.plan(module, args.preset, jdks, **overrides)
            for c in cells:
                print(f"{c.variant:24s} {'SKIP ' + c.unavailable if c.unavailable else c.command_line()}")
            print("\n".join(_plan_summary(module.NAME, args.preset, cells)))
            return 0
        meta = sweep.execute(module, args.preset, jdks=jdks, progress=not args.no_progress, **overrides)
        print("\n".join(_run_summary(module.NAME, args.preset, meta)))
        if meta.get("failures"):
            print(f"{len(meta['failures'])} forks failed (not stored): first: {meta['failures'][0]['message']}", file=sys.stderr)
            return 1
        return 0

    if args.command == "show":
        return _show(args)

    if args.command == "compare":
        return _compare(args)

    if args.command == "verdicts":
        from .overview import ERROR, collect, csv_frame

        if args.experiment:
            experiments.get(args.experiment)
        out = collect(args.machine, names=[args.experiment] if args.experiment else None)
        if args.format == "csv":
            csv_frame(out).to_csv(sys.stdout, index=False)
        else:
            print("\n".join(_verdicts_text(out)))
        errors = out[out["outcome"] == ERROR]
        if len(errors):
            print(f"mechsym: {len(errors)} claims could not be judged: first: {errors['why'].iloc[0]}", file=sys.stderr)
            return 1
        return 0

    if args.command == "bundle":
        from .bundle import bundle

        path, summary = bundle(args.output, args.machine, include_smoke=args.include_smoke)
        print(f"wrote {path}: {summary}")
        return 0

    if args.command == "import":
        from .bundle import import_bundle

        print(import_bundle(args.archive))
        return 0

    if args.command == "reports":
        from .reports import build

        build(preset=args.preset, output=args.output, machine=args.machine,
              only=args.only.split(",") if args.only else None, with_code=args.with_code)
        return 0
    raise MechsymError(f"command '{args.command}': unknown")


# ---------------------------------------------------------------- text a person reads (100 columns)

WIDTH = 100
DASH = "—"


def _width() -> int:
    """100 columns, or the terminal's width when it is narrower."""
    if sys.stdout.isatty():
        import shutil

        return max(60, min(WIDTH, shutil.get_terminal_size((WIDTH, 24)).columns))
    return WIDTH


def _wrap(text: str, width: int, indent: str = "", first: str = "") -> list[str]:
    import textwrap

    return textwrap.wrap(text, width, initial_indent=first or indent, subsequent_indent=indent,
                         break_on_hyphens=False) or [first.rstrip()]


def _table(rows: list[list], header: list[str], right=(), wrap=(), indent: int = 0, width: int | None = None,
           roomy=()) -> list[str]:
    """Rows as an aligned text table: text left-aligned, columns in `right` right-aligned. When the table is wider
    than `width`, the columns in `wrap` are narrowed (widest first; those in `roomy` count half their width, so they
    keep about twice the room) and their text wrapped onto more lines."""
    import textwrap
    from itertools import zip_longest

    width = (width or _width()) - indent
    rows = [["" if v is None else str(v) for v in r] for r in rows]
    n = len(header)
    w = [max([len(header[i])] + [len(r[i]) for r in rows]) for i in range(n)]
    floor = {i: max(10, len(header[i])) for i in wrap}
    while sum(w) + 2 * (n - 1) > width:
        shrinkable = [i for i in wrap if w[i] > floor[i]]
        if not shrinkable:
            break
        i = max(shrinkable, key=lambda k: w[k] / (2 if k in roomy else 1))
        w[i] -= 1
    pad = " " * indent

    def line(cells: list[str]) -> list[str]:
        split = [textwrap.wrap(c, w[i], break_on_hyphens=False) or [""] if i in wrap else [c]
                 for i, c in enumerate(cells)]
        out = []
        for parts in zip_longest(*split, fillvalue=""):
            out.append(pad + "  ".join(p.rjust(w[i]) if i in right else p.ljust(w[i])
                                       for i, p in enumerate(parts)).rstrip())
        return out

    out = line(header)
    out.append(pad + "  ".join("-" * x for x in w))
    for r in rows:
        out += line(r)
    return out


def _rel(path) -> str:
    """A path as the reader types it: relative to the repository when it is inside it."""
    from pathlib import Path

    from . import repo_root

    p = Path(path)
    try:
        return str(p.resolve().relative_to(repo_root().resolve()))
    except (ValueError, OSError):
        return str(p)


def _when(meta: dict) -> str:
    """'2026-11-22 00:33 UTC' from a run's start (or its id)."""
    import re

    start = str(meta.get("start") or "")
    m = re.match(r"(\d{4}-\d\d-\d\d)T(\d\d:\d\d)", start) or re.match(r"(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)",
                                                                        str(meta.get("run_id", "")))
    if not m:
        return "date unknown"
    if len(m.groups()) == 2:
        return f"{m.group(1)} {m.group(2)} UTC"
    y, mo, d, h, mi = m.groups()
    return f"{y}-{mo}-{d} {h}:{mi} UTC"


def _duration(seconds) -> str:
    try:
        s = float(seconds)
    except (TypeError, ValueError):
        return ""
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


def _run_line(meta: dict) -> str:
    """'run 20261122T003308Z-standard-1505f6 · preset standard · 2026-11-22 00:33 UTC · 48 min'."""
    bits = [f"run {meta.get('run_id')}", f"preset {meta.get('preset', '?')}", _when(meta)]
    if meta.get("seconds"):
        bits.append(_duration(meta["seconds"]))
    if meta.get("status", "complete") != "complete":
        bits.append(str(meta["status"]).upper())
    return " · ".join(bits)


# ---------------------------------------------------------------- list (fast: no pandas, matplotlib or JPype)

def _defer_import(name: str) -> None:
    """Bind `name` in sys.modules to a stand-in that imports the real module the first time one of its attributes
    is used. `list` reads the store's index through mechsym.store, which imports pandas at its top but needs it
    only to read rows; with the stand-in, `list` never pays pandas' ~0.4 s import. (importlib's LazyLoader does
    not do here: the next `import pandas` reads `__spec__`, and that loads it.)"""
    import importlib
    import importlib.util
    import types

    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None:
        return

    class Deferred(types.ModuleType):
        def __getattr__(self, attr):
            if sys.modules.get(name) is self:
                del sys.modules[name]
            real = importlib.import_module(name)
            self.__dict__.update(real.__dict__)
            return getattr(real, attr)

    stand_in = Deferred(name)
    stand_in.__spec__ = spec
    sys.modules[name] = stand_in


def _literal(node, names: dict):
    """The value of a literal expression whose names are module-level literals (NOTEBOOKS = [NOTEBOOK])."""
    import ast

    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        raise ValueError(node.id)
    if isinstance(node, (ast.List, ast.Tuple)):
        return [_literal(e, names) for e in node.elts]
    if isinstance(node, ast.Dict):  # PRESETS: only the preset names are needed
        return {_literal(k, names): None for k in node.keys}
    return ast.literal_eval(node)


def _describe(name: str) -> dict:
    """An experiment's TITLE, NOTEBOOKS and preset names, read from its source without running it (importing an
    experiment imports pandas and matplotlib); imported after all when the source does not spell them out."""
    import ast
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec(f"mechsym.experiments.{name}")
    files = [Path(spec.origin)] if spec and spec.origin else []
    for loc in (spec.submodule_search_locations or []) if spec else []:  # a package: sweep.py, claims.py first
        rest = sorted(Path(loc).glob("*.py"), key=lambda p: (p.name not in ("sweep.py", "claims.py"), p.name))
        files += [p for p in rest if p not in files]
    assigned: list = []
    names: dict = {}
    wanted = ("TITLE", "NOTEBOOKS", "PRESETS")
    for f in files:
        try:
            tree = ast.parse(f.read_text())
        except (OSError, SyntaxError):
            continue
        assigned += [(n.targets[0].id, n.value) for n in tree.body if isinstance(n, ast.Assign)
                     and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)]
        for _ in range(3):  # constants defined from other constants, in any file order
            for key, value in assigned:
                if key not in names:
                    try:
                        names[key] = _literal(value, names)
                    except (ValueError, TypeError, SyntaxError):
                        pass
        if all(k in names for k in wanted):
            break
    try:
        return {"TITLE": str(names["TITLE"]), "NOTEBOOKS": list(names["NOTEBOOKS"]), "PRESETS": list(names["PRESETS"])}
    except (KeyError, TypeError):
        from . import experiments

        m = experiments.get(name)
        return {"TITLE": m.TITLE, "NOTEBOOKS": list(m.NOTEBOOKS), "PRESETS": list(m.PRESETS)}


def _jdks_found() -> tuple[list[tuple], list[str]]:
    """Every JDK home the sweeps would look in, read from its `release` file (no JVM started):
    (feature, version, vendor, home, used by sweeps), and the problems met."""
    import os
    import re
    from pathlib import Path

    from .jdk import distinct_homes, probe

    out, problems, used = [], [], set()
    for home, real in distinct_homes():
        if not (real / "bin" / "java").is_file():
            if str(home) in os.environ.get("MECHSYM_JDKS", "").split(":"):
                problems.append(f"MECHSYM_JDKS: {home}: no bin/java there")
            continue
        props = {}
        try:
            for line in (real / "release").read_text().splitlines():
                m = re.match(r'(\w+)="?(.*?)"?$', line.strip())
                if m:
                    props[m.group(1)] = m.group(2)
        except OSError:
            pass
        version, vendor = props.get("JAVA_VERSION"), props.get("IMPLEMENTOR")
        if not version:  # no release file: ask the JVM itself
            try:
                j = probe(str(real))
            except MechsymError as e:
                problems.append(str(e))
                continue
            version, vendor = j.version, j.vendor
        head = version.split(".")
        feature = int(head[1]) if head[0] == "1" and len(head) > 1 else int(re.match(r"\d+", head[0]).group())
        out.append((feature, version, vendor or "unknown", str(real), feature not in used))
        used.add(feature)
    return sorted(out, key=lambda j: (j[0], not j[4])), problems


def _list() -> int:
    for heavy in ("pandas", "numpy"):
        _defer_import(heavy)
    from . import experiments, store

    width = _width()
    out = []
    here = store.machine_id()
    out.append(f"machine  {store.machine_label(here)}")
    root = store.results_root()
    out.append(f"results  {_rel(root)}" + ("  (MECHSYM_RESULTS)" if "MECHSYM_RESULTS" in __import__("os").environ else ""))
    out.append("")
    jdks, problems = _jdks_found()
    out += _wrap("JDKs found (MECHSYM_JDKS, JAVA_HOME, PATH, /usr/lib/jvm; a sweep uses the first of each version)",
                 width)
    rows = [[str(f), v, vendor, home + ("" if first else "  (not used: another JDK %d comes first)" % f)]
            for f, v, vendor, home, first in jdks]
    out += _table(rows, ["JDK", "version", "vendor", "home"], wrap=(3,), indent=2, width=width) if rows else \
        ["  none: install JDK 17, or set JAVA_HOME / MECHSYM_JDKS to a JDK home"]
    out += [f"  ! {p}" for p in problems]
    out.append("")
    out.append("Experiments (mechsym run NAME --preset smoke|standard|full)")
    names = experiments.names()
    rows = []
    for name in names:
        try:
            d = _describe(name)
            rows.append([name, f"{d['TITLE']} (notebooks {', '.join(d['NOTEBOOKS'])})"])
        except Exception as e:  # a module being written: say so, list the others
            rows.append([name, f"(its module does not load: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''})"])
    out += _table(rows, ["name", "what it measures"], wrap=(1,), indent=2, width=width)
    out.append("")
    index = [x for x in store._index(root) if x[2] in names] if root.is_dir() else []
    if not index:
        out.append(f"Stored runs: none in {_rel(root)} yet")
    else:
        multi = len({m for m, _, _, _ in index}) > 1 or any(m != here for m, _, _, _ in index)
        out += _wrap("Stored runs (`mechsym show NAME --run ID`; notebooks show each machine's newest run of the "
                     "most thorough preset)", width)
        rows = []
        for m, _, e, j in sorted(index, key=lambda x: (x[2], x[0], x[3].name)):
            try:
                meta = store._read_meta(j)
            except MechsymError as err:
                rows.append([e, j.stem, "?", "?", str(err)] + ([m] if multi else []))
                continue
            status = meta.get("status", "complete")
            rows.append([e, meta["run_id"], meta.get("preset", "?"), _when(meta),
                         _duration(meta.get("seconds")) + ("" if status == "complete" else f" {status}")]
                        + ([m + (" (this machine)" if m == here else "")] if multi else []))
        header = ["experiment", "run id", "preset", "started", "took"] + (["machine"] if multi else [])
        out += _table(rows, header, wrap=(5,) if multi else (), indent=2, width=width)
    print("\n".join(out))
    return 0


# ---------------------------------------------------------------- show and compare

RATE_UNITS = ("ops/s", "MB/s", "bytes/s", "B/s")
NOT_KEYS = {"run_id", "experiment", "fork", "iteration", "warmup", "metric", "value", "unit", "status", "note",
            "machine", "taskset", "pinning", "jdk_version", "cpus", "iterations", "runs", "warmup_runs",
            "warmup_iterations", "warmup_passes", "passes", "size_bytes", "sample_every", "max_ms", "ops", "measured",
            "round"}
KEY_ORDER = ("variant", "jdk", "threads", "placement", "regime", "grid", "warmup_policy", "workers", "coarsening",
             "options", "size", "sync", "evict", "kind")


def _find_run(spec: str, experiment: str | None = None) -> dict:
    """The stored run a user names: its full id or a unique part of it (e.g. its last six hex digits)."""
    from . import store

    root = store.results_root()
    index = store._index(root) if root.is_dir() else []
    hits = [x for x in index if (experiment is None or x[2] == experiment) and (x[3].stem == spec or spec in x[3].stem)]
    exact = [x for x in hits if x[3].stem == spec]
    hits = exact or hits
    if not hits:
        where = f" of {experiment}" if experiment else ""
        raise MechsymError(f"run '{spec}': no stored run{where} matches (`mechsym list` shows the run ids)")
    if len(hits) > 1:
        raise MechsymError(f"run '{spec}': matches {len(hits)} runs ({', '.join(x[3].stem for x in hits[:4])}"
                           f"{', ...' if len(hits) > 4 else ''}); give more of the id")
    m, _, e, j = hits[0]
    found, problems = store._scan(e, m, None, True)  # the named run's own problem is the error: no warning first
    metas = [x for x in found if x["_json"] == str(j)]
    if not metas:
        raise MechsymError(next((p for p in problems if j.stem in p), f"run {j.stem}: its results file does not "
                                                                       "match its metadata; run skipped"))
    return metas[0]


def _chosen_runs(experiment: str, machine: str | None, preset: str | None) -> list[dict]:
    """The runs `show` shows, one per machine: what the notebooks show (the newest run of the most thorough preset,
    or of `preset`)."""
    from . import store

    metas, skipped = store._scan(experiment, machine, None, False)
    if skipped and not metas:  # as store.load: a run that does not match its metadata is the error
        raise MechsymError(skipped[0])
    for s in skipped:
        store._warn(s)
    if preset:
        metas = [m for m in metas if m.get("preset") == preset]
    rank = {"full": 3, "standard": 2, "smoke": 1}
    out = []
    for m in sorted({x["_machine"] for x in metas}):
        mine = [x for x in metas if x["_machine"] == m]
        best = max(rank.get(x.get("preset"), 0) for x in mine)
        out.append([x for x in mine if rank.get(x.get("preset"), 0) == best][-1])
    return out


def _rows_of(meta: dict):
    import pandas as pd

    try:
        df = pd.read_csv(meta["_csv"], low_memory=False)
    except Exception as e:
        raise MechsymError(f"corrupt results file {meta['_csv']}: {str(e).splitlines()[0]}") from e
    df["machine"] = meta["_machine"]
    return df


def _metrics(ok, wanted: str | None) -> list[str]:
    """The metrics a table shows: --metric's (a comma list or 'all'), else the rates when the run has any."""
    have = list(dict.fromkeys(ok["metric"].astype(str)))
    if wanted == "all":
        return have
    if wanted:
        names = [w.strip() for w in wanted.split(",") if w.strip()]
        bad = [w for w in names if w not in have]
        if bad:
            raise MechsymError(f"metric '{bad[0]}': not in this run (its metrics: {', '.join(have)}, or 'all')")
        return names
    units = dict(zip(ok["metric"].astype(str), ok["unit"].astype(str)))
    rates = [m for m in have if units.get(m) in RATE_UNITS]
    return rates or [m for m in have if units.get(m) not in ("count", "bool")] or have


def _keys(df, start: list[str]) -> list[str]:
    """The parameter columns that tell these rows' cells apart, leaving out those another column already
    determines (lock from variant, jdk_version from jdk...). A sweep writes a cell's own columns first, up to
    `cpus`; the kernel's columns after it are measurements (e.g. a JVM's field offsets), not cells."""
    cols = list(df.columns)
    if "cpus" in cols:
        cols = cols[: cols.index("cpus")]
    cols = [c for c in KEY_ORDER if c in cols] + [c for c in cols if c not in KEY_ORDER and c not in NOT_KEYS]
    keep: list[str] = []
    groups = len(df.drop_duplicates(start)) if start else 1
    for c in cols:
        if df[c].nunique(dropna=False) <= 1:
            continue
        n = len(df.drop_duplicates(start + keep + [c]))
        if n > groups:
            keep.append(c)
            groups = n
    return keep


def _cells(df, metrics: list[str], keys: list[str]):
    """Per cell and metric: the median over forks of each fork's median, the forks' range and their count."""
    from .analysis import LAB, measured, per_fork

    ok = measured(df, metrics)
    pf = per_fork(ok, LAB, by=keys + ["metric", "unit"])
    g = pf.groupby(keys + ["metric", "unit"], sort=False, dropna=False)["value"]
    return g.agg(["median", "min", "max", "count"]).reset_index()


def _fmt(v, unit: str, strip: bool) -> str:
    from .analysis import fmt_value

    s = fmt_value(v, unit)
    if not s:
        return DASH
    return s[: -len(unit)].strip() if strip and s.endswith(" " + unit) else s


def _key_text(v) -> str:
    import math

    if v is None or (isinstance(v, float) and math.isnan(v)) or str(v) in ("", "nan", "None"):
        return DASH
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def _sections(rows: list[list], keys: list[str], render, width: int) -> list[str]:
    """A table of `rows` (key cells first), narrowed to `width`: while it is too wide, the key with the fewest
    values (never the first) moves out of the table into a heading line above each group of rows."""
    table_keys = list(keys)

    def project(rs):
        return [[r[keys.index(k)] for k in table_keys] + r[len(keys):] for r in rs]
    while True:
        lines = render(project(rows), table_keys, 2 if len(table_keys) < len(keys) else 0)
        if max(map(len, lines)) <= width or len(table_keys) <= 1:
            break
        movable = [k for k in table_keys[1:]]
        counts = {k: len({r[keys.index(k)] for r in rows}) for k in movable}
        table_keys.remove(min(movable, key=lambda k: (counts[k], -movable.index(k))))
    heading = [k for k in keys if k not in table_keys]
    if not heading:
        return lines
    groups: dict[tuple, list] = {}
    for r in rows:
        groups.setdefault(tuple(r[keys.index(k)] for k in heading), []).append(r)
    out = []
    for values, members in groups.items():
        if out:
            out.append("")
        out += _wrap(" · ".join(f"{k} {v}" for k, v in zip(heading, values)), width)
        out += render(project(members), table_keys, 2)
    return out


def _summary_table(cells, keys: list[str], width: int) -> tuple[list[str], str]:
    units = list(dict.fromkeys(cells["unit"].astype(str)))
    strip = len(units) == 1 and units[0] in RATE_UNITS
    one_metric = cells["metric"].nunique() == 1
    keys = keys + ([] if one_metric else ["metric"])
    values = [f"median ({units[0]})" if strip else "median", "forks' range", "forks"]
    rows = []
    for _, r in cells.iterrows():
        lo, hi = _fmt(r["min"], r["unit"], strip), _fmt(r["max"], r["unit"], strip)
        rows.append([_key_text(r[k]) for k in keys]
                    + [_fmt(r["median"], r["unit"], strip), lo if lo == hi else f"{lo} – {hi}", str(int(r["count"]))])

    def render(rs, ks, indent=0):
        n = len(ks) + len(values)
        wrap = tuple(i for i, k in enumerate(ks) if k in ("flags", "options"))
        return _table(rs, ks + values, right=(n - 3, n - 2, n - 1), wrap=wrap, indent=indent, width=width)

    metric = cells["metric"].iloc[0] if one_metric else ""
    return _sections(rows, keys, render, width), (f"{metric} ({units[0]})" if one_metric
                                                   else ", ".join(dict.fromkeys(cells["metric"])))


def _show(args) -> int:
    from . import experiments, store

    experiments.get(args.experiment)
    if args.run is not None and not args.run.strip():
        raise MechsymError("--run '': give a run id or a unique part of it (`mechsym list` shows them)")
    if args.run:
        chosen = [_find_run(args.run, args.experiment)]
    else:
        if args.preset:
            from .sweep import check_preset

            check_preset(args.preset)
        chosen = _chosen_runs(args.experiment, args.machine, args.preset)
        if not chosen:
            what = f"{args.preset} " if args.preset else ""
            raise MechsymError(f"{args.experiment}: no stored {what}results"
                               f"{' for machine ' + args.machine if args.machine else ''}; "
                               f"run `mechsym run {args.experiment}` first")
    width = _width()
    here = store.machine_id()
    for meta in chosen:
        df = _rows_of(meta)
        ok = df[df["status"] == "ok"] if "status" in df else df
        print(f"{args.experiment}: {_run_line(meta)}")
        print("\n".join(_wrap(f"machine {store.machine_label(meta['_machine'])}", width)))
        others = [m for m in store.runs(args.experiment, meta["_machine"]) if m["run_id"] != meta["run_id"]]
        if others:
            by = {}
            for m in others:
                by[m.get("preset", "?")] = by.get(m.get("preset", "?"), 0) + 1
            print(f"also stored for this machine: " + ", ".join(f"{n} {p}" for p, n in by.items())
                  + " (`mechsym list`; --run ID or --preset to choose)")
        if ok.empty:
            print("no measured rows in this run")
            continue
        metrics = _metrics(ok, args.metric)
        rows = ok[ok["metric"].isin(metrics)]
        keys = _keys(rows, [] if len(metrics) == 1 else ["metric"])
        cells = _cells(rows, metrics, keys)
        lines, what = _summary_table(cells, keys, width)
        left = [m for m in dict.fromkeys(ok["metric"].astype(str)) if m not in metrics]
        print("\n".join(_wrap(f"{what}: per cell, the median over forks of each fork's median, and the forks' range"
                              + (f"; other metrics: {', '.join(left)} (--metric NAME or all)" if left else ""), width)))
        print()
        print("\n".join(lines))
        _notes(df, meta, width)
        if meta is not chosen[-1]:
            print()
    return 0


def _notes(df, meta: dict, width: int) -> None:
    """What the run could not measure, and forks that failed."""
    if "status" in df:
        u = df[df["status"] == "unavailable"]
        if len(u):
            print()
            for note, n in u.groupby(u["note"].fillna("").astype(str), sort=False).size().items():
                print("\n".join(_wrap(f"{n} cell{'s' if n > 1 else ''} not measurable here: {note}", width, "  ", "")))
    failures = meta.get("failures") or []
    if failures:
        print("\n".join(_wrap(f"{len(failures)} fork{'s' if len(failures) > 1 else ''} failed and stored no number: "
                              f"first: {failures[0].get('message', '')}", width, "  ", "")))


def _compare(args) -> int:
    import pandas as pd

    from . import store
    from .analysis import fmt_ratio

    a, b = _find_run(args.run_a), _find_run(args.run_b)
    experiment = a.get("experiment")
    if b.get("experiment") != experiment:
        raise MechsymError(f"run {b['run_id']} is a run of {b.get('experiment')}, run {a['run_id']} of {experiment}: "
                           "compare two runs of one experiment")
    width = _width()
    print(f"{experiment}: A = {_run_line(a)}")
    print(f"{' ' * len(experiment)}  B = {_run_line(b)}")
    for tag, m in (("A", a), ("B", b)):
        print("\n".join(_wrap(f"{tag}: {store.machine_label(m['_machine'])}", width, "   ")))
    da, db = _rows_of(a), _rows_of(b)
    oka, okb = (d[d["status"] == "ok"] if "status" in d else d for d in (da, db))
    metrics = _metrics(pd.concat([oka, okb]), args.metric)
    both = pd.concat([oka[oka["metric"].isin(metrics)], okb[okb["metric"].isin(metrics)]], ignore_index=True)
    keys = [k for k in _keys(both, [] if len(metrics) == 1 else ["metric"]) if k not in ("run_id", "machine")]
    ca, cb = _cells(oka[oka["metric"].isin(metrics)], metrics, keys), _cells(okb[okb["metric"].isin(metrics)], metrics, keys)
    for c in (ca, cb):
        for k in keys:
            c[k] = c[k].map(_key_text)
    ca["_order"], cb["_order"] = range(len(ca)), range(len(ca), len(ca) + len(cb))
    j = ca.merge(cb, on=keys + ["metric", "unit"], how="outer", suffixes=("_a", "_b"))
    j = j.assign(_o=j["_order_a"].fillna(j["_order_b"])).sort_values("_o", kind="stable")
    units = list(dict.fromkeys(j["unit"].astype(str)))
    strip = len(units) == 1 and units[0] in RATE_UNITS
    one = j["metric"].nunique() == 1
    rows = []
    for _, r in j.iterrows():
        ratio = r["median_b"] / r["median_a"] if pd.notna(r["median_a"]) and pd.notna(r["median_b"]) and r["median_a"] else None
        rows.append([r[k] for k in keys] + ([] if one else [r["metric"]])
                    + [_fmt(r["median_a"], r["unit"], strip), _fmt(r["median_b"], r["unit"], strip),
                       fmt_ratio(ratio) if ratio is not None else DASH])
    unit = f" ({units[0]})" if strip else ""
    values = [f"A median{unit}", f"B median{unit}", "B / A"]

    def render(rs, ks, indent=0):
        n = len(ks) + len(values)
        wrap = tuple(i for i, k in enumerate(ks) if k in ("flags", "options"))
        return _table(rs, ks + values, right=(n - 3, n - 2, n - 1), wrap=wrap, indent=indent, width=width)

    print("\n".join(_wrap(f"{', '.join(metrics)}: per cell, the median over forks of each fork's median; "
                          f"{DASH} where one run lacks the cell", width)))
    print()
    print("\n".join(_sections(rows, keys + ([] if one else ["metric"]), render, width)))
    return 0


# ---------------------------------------------------------------- run: what a dry run would take, what a run measured

def _per_fork_seconds(experiment: str, preset: str) -> tuple[float | None, str]:
    """Seconds a fork took in earlier complete runs of the same preset (this machine's when it has any), and
    where that comes from."""
    import statistics

    from . import store

    root = store.results_root()
    here = store.machine_id()
    found: dict[bool, list[float]] = {True: [], False: []}
    for m, _, e, j in (store._index(root) if root.is_dir() else []):
        if e != experiment or f"-{preset}-" not in j.stem:
            continue
        try:
            meta = store._read_meta(j)
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
    per_fork, source = _per_fork_seconds(experiment, preset)
    if per_fork is None:
        line += f"; no earlier {preset} run of {experiment} to estimate its duration from"
    else:
        line += f"; estimated {_duration(per_fork * forks)} ({per_fork:.1f} s a fork in {source})"
    return _wrap(line, _width())


def _run_summary(experiment: str, preset: str, meta: dict) -> list[str]:
    """What a run measured, where it is stored, and how to look at it."""
    width = _width()
    frame = meta.get("frame")
    ok = frame[frame["status"] == "ok"] if frame is not None and "status" in frame else frame
    forks = len(meta.get("commands") or [])
    out = []
    if ok is not None and len(ok):
        keys = _keys(ok, [])
        cells = len(ok.drop_duplicates(keys)) if keys else 1
        units = dict(zip(ok["metric"].astype(str), ok["unit"].astype(str)))
        over = []
        for k in keys:
            values = list(dict.fromkeys(_key_text(v) for v in ok[k]))
            over.append(f"{k} {', '.join(values)}" if len(values) <= 4 else f"{len(values)} {k} values")
        out += _wrap(f"{experiment} [{preset}]: measured {cells} cells, {forks} forks in "
                     f"{_duration(meta.get('seconds'))}: " + ", ".join(f"{m} ({u})" for m, u in units.items())
                     + (f" over {'; '.join(over)}" if over else ""), width)
    if meta.get("unavailable"):
        reasons = list(dict.fromkeys(str(u.get("reason", "")) for u in meta["unavailable"]))
        out += _wrap(f"{len(meta['unavailable'])} cells not measurable here (stored with the reason): "
                     + "; ".join(reasons[:3]) + (" ..." if len(reasons) > 3 else ""), width, "  ", "")
    run_id = str(meta.get("run_id", ""))
    if meta.get("json"):
        out += _wrap(f"stored run {run_id}: {meta.get('rows')} rows in {_rel(str(meta['json'])[:-5] + '.csv')} "
                     "(+ .json)", width)
    short = run_id.rsplit("-", 1)[-1]
    out.append(f"see it: mechsym show {experiment} --run {short}")
    if preset == "smoke":
        out += _wrap("a smoke run checks that everything runs; its numbers are not measurements. Notebooks and "
                     "`mechsym show` keep showing the most thorough preset stored.", width)
    return out


# ---------------------------------------------------------------- verdicts as text

def _verdicts_text(out) -> list[str]:
    """Every verdict, notebook by notebook: which runs were judged, each claim in full, then one line per scope and
    protocol (wrapped to 100 columns, left-aligned)."""
    from . import store
    from .overview import agreement, post_title

    width = _width()
    here = store.machine_id()
    multi = out["machine"].nunique() > 1
    lines: list[str] = []
    counts: dict[str, int] = {}
    for nb, rows in out.groupby("notebook", sort=False):
        if lines:
            lines.append("")
        title = post_title(str(rows["post"].iloc[0])) if "post" in rows else ""
        lines.append(f"{nb}" + (f" · {title}" if title else ""))
        judged = rows[rows["run"].astype(str) != ""][["machine", "run"]].drop_duplicates()
        for _, r in judged.iterrows():
            preset = str(r["run"]).split("-")[1] if str(r["run"]).count("-") >= 2 else "?"
            whose = "this machine" if r["machine"] == here else "another machine"
            lines += _wrap(f"judged: run {r['run']} (preset {preset}, {_when({'run_id': r['run']})}) of "
                           f"{r['machine']} ({whose})", width, "  ", "  ")
        if judged.empty:
            lines.append("  judged: no stored run")
        for cid, claim in rows.groupby("id", sort=False):
            c0 = claim.iloc[0]
            lines.append("")
            then = f" (then: {c0['then']})" if str(c0.get("then") or "") else ""
            lines += _wrap(f"{cid}: {c0['claim']}{then}", width, "      ", "  ")
            table = []
            for _, r in claim.iterrows():
                now = r["now"] if r["now"] and r["now"] != "n/a" else r["why"]
                counts[r["outcome"]] = counts.get(r["outcome"], 0) + 1
                table.append(([r["machine"]] if multi else []) + [r["scope"] or DASH, r["protocol"] or DASH,
                                                                   r["outcome"], now or DASH, agreement(r) or DASH])
            header = (["machine"] if multi else []) + ["scope", "protocol", "holds?", "now", "runs agreeing"]
            k = 1 if multi else 0
            lines += _table(table, header, wrap=(k, k + 3, k + 4) + ((0,) if multi else ()), indent=4, width=width,
                            roomy=(k + 3,))
    lines.append("")
    lines.append(f"{len(out)} verdicts: " + ", ".join(f"{n} {s}" for s, n in counts.items()))
    return lines


if __name__ == "__main__":
    sys.exit(main())
