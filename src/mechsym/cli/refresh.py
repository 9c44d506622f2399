"""`mechsym refresh` (`make refresh`): re-run the `standard` preset of every experiment whose shown run is stale,
the lab's run and the JMH run a notebook's "What does JMH say?" section shows alike.

A stored run is stale when the code that made it is not the checkout's (mechsym.store.provenance: the lab's
kernels for a lab run, the JMH benchmarks for a JMH run). Refresh says which runs it will re-run and about how long
it will take, refuses a dirty tree (a refreshed run must name a clean commit), then runs them one at a time; each
takes the bench lock, so nothing else measures meanwhile."""

from __future__ import annotations

import sys

from .. import MechsymError
from .text import columns, duration_text, wrap_lines

PRESET = "standard"


def stale_experiments(names: list[str] | None = None) -> list[tuple[str, str, str]]:
    """(experiment, protocol, why) for each run a notebook shows on this machine that is not current: the lab's
    (protocol "lab"; also when it has no `standard` or `full` run here) and, for an experiment with JMH cells, the
    JMH run its JMH section shows (protocol "jmh")."""
    from .. import experiments
    from ..machine import identity as machine
    from ..run.jmh import PROTOCOL as JMH
    from ..store import provenance, runs as store

    here = machine.machine_id()
    with_jmh = set(experiments.with_jmh_cells())
    out = []
    for name in names or experiments.names():
        for protocol in ("lab", JMH) if name in with_jmh else ("lab",):
            try:
                shown = store.chosen_runs(name, here, protocol=protocol) if here in store.machines() else []
            except MechsymError as e:
                out.append((name, protocol, str(e)))
                continue
            real = [m for m in shown if m.get("preset") in ("standard", "full")]
            if not real:
                if protocol == "lab":
                    out.append((name, protocol, "no standard run on this machine"))
                continue   # no JMH run stored here: its section says how to make one, nothing is stale
            state, why = provenance.status(real[0])
            if state != provenance.CURRENT:
                out.append((name, protocol, f"{real[0]['run_id']}: {why}"))
    return out


def command(args) -> int:
    from .. import experiments
    from ..run import jmh, sweep
    from .run import per_fork_seconds

    names = [n.strip() for n in args.experiments.split(",")] if args.experiments else None
    for n in names or []:
        experiments.get(n)  # an unknown name is refused with the list of known ones
    state = sweep.check_clean(PRESET, allow_dirty=args.dry_run)  # a dry run measures nothing: it may look
    todo = stale_experiments(names)
    width = columns()
    if not todo:
        print("every run a notebook shows is current, JMH's included: nothing to refresh")
        return 0
    total, unknown = 0.0, []
    lines = []
    for name, protocol, why in todo:
        module = experiments.get(name)
        cells = [c for c in sweep.plan(module, PRESET, protocol=protocol) if not c.unavailable]
        forks = sum(c.forks for c in cells)
        label = name if protocol == "lab" else f"{name} --protocol jmh"
        if protocol == jmh.PROTOCOL:
            seconds = jmh.sweep_seconds(cells)
        else:
            per_fork, _ = per_fork_seconds(name, PRESET)
            seconds = None if per_fork is None else per_fork * forks
        if seconds is None:
            unknown.append(label)
            est = "duration unknown"
        else:
            total += seconds
            est = f"about {duration_text(seconds)}"
        lines += wrap_lines(f"{label}: {forks} forks, {est} ({why})", width, "    ", "  ")
    print(f"refresh: {len(todo)} run{'s' if len(todo) != 1 else ''} to re-run at preset {PRESET}, "
          f"about {duration_text(total)}" + (f" plus {', '.join(unknown)}" if unknown else "") + ":")
    print("\n".join(lines))
    if args.dry_run:
        if not state.clean:
            print("(the tree is not clean: a refresh itself would be refused until it is committed)")
        return 0
    failed = 0
    for i, (name, protocol, _) in enumerate(todo, 1):
        print(f"[{i}/{len(todo)}] {name}" + ("" if protocol == "lab" else f" --protocol {protocol}"), file=sys.stderr)
        extra = {} if protocol == "lab" else {"protocol": protocol}
        meta = sweep.execute(experiments.get(name), PRESET, progress=not args.no_progress, **extra)
        if meta.get("failures"):
            failed += 1
            print(f"{name}: {len(meta['failures'])} forks failed: {meta['failures'][0]['message']}", file=sys.stderr)
    return 1 if failed else 0
