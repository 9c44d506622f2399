"""`mechsym reports`: every notebook rendered to HTML under reports/."""

from __future__ import annotations


def command(args) -> int:
    from ..view.reports import build

    build(preset=args.preset, output=args.output, machine=args.machine,
          only=args.only.split(",") if args.only else None, with_code=args.with_code)
    return 0
