"""The `mechsym` command: list, calibrate, run, show, compare, verdicts, bundle, import, reports, fidelity-run.

What it prints is read by a person: aligned tables within 100 columns, numbers in readable units, and every table
says which stored run (id, preset, date, machine) it comes from. `mechsym list` starts without pandas, matplotlib
or JPype; the other commands import them where they need them.

    parser.py    the commands and their options         text.py      tables and lines within 100 columns
    listing.py   list                                   run.py       run (and --dry-run)
    cells.py     a stored run's cells, for show/run     show.py      show, compare
    verdicts.py  verdicts                               archive.py   bundle, import
    reports.py   reports                                fidelityrun.py  fidelity-run
    calibrate.py calibrate
"""

from __future__ import annotations

import sys

from .. import MechsymError
from .parser import RUN_OPTIONS, joined_values, parser


def main(argv: list[str] | None = None) -> int:
    argv = joined_values(list(sys.argv[1:] if argv is None else argv), "--jvm-flags", RUN_OPTIONS)
    args = parser().parse_args(argv)
    import signal

    from ..run.interrupts import interrupt_on_stop_signals, signal_number

    interrupt_on_stop_signals()  # SIGTERM or SIGHUP: the same way out as Ctrl-C (clean-ups run, one line)
    try:
        return _dispatch(args)
    except MechsymError as e:
        print(f"mechsym: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt as e:
        signum = signal_number(e)
        how = "" if signum == signal.SIGINT else f" ({signal.Signals(signum).name})"
        print(f"mechsym: interrupted{how}", file=sys.stderr)
        return 128 + signum
    except BrokenPipeError:  # e.g. `mechsym verdicts | head`
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


def _dispatch(args) -> int:
    if args.command == "list":
        from . import listing

        return listing.command()

    if args.command == "calibrate":
        from . import calibrate

        return calibrate.command(args)
    if args.command == "refresh":
        from . import refresh

        return refresh.command(args)
    if args.command == "run":
        from . import run

        return run.command(args)
    if args.command in ("show", "compare"):
        from . import show

        return show.show(args) if args.command == "show" else show.compare(args)
    if args.command == "verdicts":
        from . import verdicts

        return verdicts.command(args)
    if args.command in ("bundle", "import"):
        from . import archive

        return archive.bundle_command(args) if args.command == "bundle" else archive.import_command(args)
    if args.command == "fidelity-run":
        from . import fidelityrun

        return fidelityrun.command(args)
    if args.command == "reports":
        from . import reports

        return reports.command(args)
    raise MechsymError(f"command '{args.command}': unknown")
