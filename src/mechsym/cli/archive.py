"""`mechsym bundle` and `mechsym import`: results carried from one machine to another."""

from __future__ import annotations


def bundle_command(args) -> int:
    """Pack this machine's (or the given machine's) stored runs into one archive."""
    from ..store.bundle import bundle

    path, summary = bundle(args.output, args.machine, include_smoke=args.include_smoke)
    print(f"wrote {path}: {summary}")
    return 0


def import_command(args) -> int:
    """Add another machine's runs from a `mechsym bundle` archive."""
    from ..store.bundle import import_bundle

    print(import_bundle(args.archive))
    return 0
