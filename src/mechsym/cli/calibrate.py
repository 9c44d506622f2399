"""`mechsym calibrate`: the calibration experiment as a stored run, then what this machine can measure, with spreads,
beside what the posts say of their machines (view/machine.py)."""

from __future__ import annotations

import sys

from .text import columns, rel_path, text_table, wrap_lines


def command(args) -> int:
    from .. import experiments
    from ..machine import calibration
    from ..machine.jdk import select
    from ..run import sweep
    from ..view.machine import calibration_table

    module = experiments.get(calibration.EXPERIMENT)
    sweep.check_preset(args.preset)
    meta = sweep.execute(module, args.preset, jdks=select(None)[:1], progress=not args.no_progress,
                         allow_dirty=args.allow_dirty)
    frame = meta.get("frame")
    if frame is None or frame.empty:
        print(f"calibration [{args.preset}]: nothing measured", file=sys.stderr)
        return 1
    ok = frame[frame["status"] == "ok"] if "status" in frame else frame
    cal = calibration.from_rows(ok, meta)
    table = calibration_table(cal)
    width = columns()
    out = wrap_lines(f"calibration [{args.preset}] of {cal.machine}: {cal.source}"
                     + (f", stored in {rel_path(str(meta['json'])[:-5] + '.csv')}" if meta.get("json") else ""), width)
    out += text_table([[q, *r] for q, r in zip(table.index, table.values.tolist())],
                      ["quantity", *table.columns], wrap=(0, 1, 3), roomy=(0, 3), width=width)
    if cal.notes:
        out += wrap_lines("notes: " + "; ".join(cal.notes), width)
    print("\n".join(out))
    if meta.get("failures"):
        print(f"{len(meta['failures'])} forks failed (not stored): first: {meta['failures'][0]['message']}",
              file=sys.stderr)
        return 1
    return 0
