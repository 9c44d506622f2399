"""`mechsym refresh` (`make refresh`): re-run the `standard` preset of every experiment whose shown run is stale.

A stored run is stale when the kernels that made it are not the checkout's (mechsym.store.provenance). Refresh says
which experiments it will re-run and about how long it will take, refuses a dirty tree (a refreshed run must name
a clean commit), then runs them one at a time; each takes the bench lock, so nothing else measures meanwhile."""

from __future__ import annotations

import sys

from .. import MechsymError
from .text import columns, duration_text, wrap_lines

PRESET = "standard"


def stale_experiments(names: list[str] | None = None) -> list[tuple[str, str]]:
    """(experiment, why) for each experiment whose run shown on this machine is not current, or that has no
    `standard` or `full` run here."""
    from .. import experiments
    from ..machine import identity as machine
    from ..store import provenance, runs as store

    here = machine.machine_id()
    out = []
    for name in names or experiments.names():
        try:
            shown = store.chosen_runs(name, here) if here in store.machines() else []
        except MechsymError as e:
            out.append((name, str(e)))
            continue
        real = [m for m in shown if m.get("preset") in ("standard", "full")]
        if not real:
            out.append((name, "no standard run on this machine"))
            continue
        state, why = provenance.status(real[0])
        if state != provenance.CURRENT:
            out.append((name, f"{real[0]['run_id']}: {why}"))
    return out


def command(args) -> int:
    from .. import experiments
    from ..run import sweep
    from .run import per_fork_seconds

    names = [n.strip() for n in args.experiments.split(",")] if args.experiments else None
    for n in names or []:
        experiments.get(n)  # an unknown name is refused with the list of known ones
    state = sweep.check_clean(PRESET, allow_dirty=args.dry_run)  # a dry run measures nothing: it may look
    todo = stale_experiments(names)
    width = columns()
    if not todo:
        print("every experiment's shown run is current: nothing to refresh")
        return 0
    total, unknown = 0.0, []
    lines = []
    for name, why in todo:
        module = experiments.get(name)
        forks = sum(c.forks for c in sweep.plan(module, PRESET) if not c.unavailable)
        per_fork, _ = per_fork_seconds(name, PRESET)
        if per_fork is None:
            unknown.append(name)
            est = "duration unknown"
        else:
            total += per_fork * forks
            est = f"about {duration_text(per_fork * forks)}"
        lines += wrap_lines(f"{name}: {forks} forks, {est} ({why})", width, "    ", "  ")
    print(f"refresh: {len(todo)} experiment{'s' if len(todo) != 1 else ''} to re-run at preset {PRESET}, "
          f"about {duration_text(total)}" + (f" plus {', '.join(unknown)}" if unknown else "") + ":")
    print("\n".join(lines))
    if args.dry_run:
        if not state.clean:
            print("(the tree is not clean: a refresh itself would be refused until it is committed)")
        return 0
    failed = 0
    for i, (name, _) in enumerate(todo, 1):
        print(f"[{i}/{len(todo)}] {name}", file=sys.stderr)
        meta = sweep.execute(experiments.get(name), PRESET, progress=not args.no_progress)
        if meta.get("failures"):
            failed += 1
            print(f"{name}: {len(meta['failures'])} forks failed: {meta['failures'][0]['message']}", file=sys.stderr)
    return 1 if failed else 0
