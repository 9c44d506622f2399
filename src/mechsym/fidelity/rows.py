"""The row a fidelity run (a mechsym.fidelity.run Plan and its Result) appends to data/fidelity/<experiment>.csv: the ratio with its interval, the A/A, the
machine, the JDK, the commit, and a note saying how the sets were run and which counted."""

from __future__ import annotations

import csv
import datetime
import io
import re
from pathlib import Path

import numpy as np

from ..style import units
from .figures import BRACKETED, PROGRAMS


def row(p, r, machine: str | None = None, today: str | None = None) -> dict:
    from . import records as fidelity

    if machine is None:
        from ..machine.identity import machine_id

        machine = machine_id()
    how = (f"bracketed sets of {', '.join(BRACKETED)} as fresh processes, the kernel against the geometric mean of "
           f"the listing runs beside it, kept when they agree within {p.tolerance:.0%}: {len(r.ratios)} of {r.run} "
           f"sets kept (A/A {len(r.aa)})" if p.design == "bracketed"
           else f"per set {', '.join(PROGRAMS)} as fresh processes in rotating order")
    note = "; ".join(x for x in (
        f"fidelity-run: {how}"
        + (f" under taskset -c {p.cpus}" if p.cpus else "")
        + f"; medians{' of the counted sets' if r.kept.size and not r.kept.all() else ''}: "
          f"kernel {units.si(_counted_median(r, 'kernel'), 4)}, listing {units.si(_counted_median(r, 'listing'), 4)}",
        f"{int(np.count_nonzero(r.kept))} of {r.run} sets counted, those whose {p.kept_text()}"
        if p.kernel_keep or p.listing_keep else "",
        "" if r.clean else "measured on a tree with uncommitted changes (--allow-dirty)",
        p.note) if x)
    out = {c: "" for c in fidelity.COLUMNS}
    out.update(experiment=p.experiment, kernel=p.kernel_name, protocol=p.protocol, cell=p.cell,
               listing=p.listing_label, date=today or datetime.date.today().isoformat(), machine=machine, jdk=p.jdk,
               sets=str(len(r.ratios)), ratio=f"{r.ratio:.3f}", ci_low=f"{r.low:.3f}", ci_high=f"{r.high:.3f}",
               interval="bootstrap 95%", ratio_of=p.direction,
               aa_ratio=f"{r.aa_ratio:.3f}" if np.isfinite(r.aa_ratio) else "", current="yes",
               source=r.commit[:7] if re.fullmatch(r"[0-9a-f]{40}", r.commit) else r.commit, note=note)
    return out


def _counted_median(r, program: str) -> float:
    """The median of a program's figures in the sets that counted (a program may run several times a set)."""
    v = np.asarray(r.figures[program], dtype=float)
    if r.kept.size and v.size % r.kept.size == 0:
        v = v[np.repeat(r.kept, v.size // r.kept.size)]
    return float(np.median(v)) if v.size else float("nan")


def append(p, new: dict) -> Path:
    """The row appended to <dir>/<experiment>.csv, the file checked against the schema and rewritten whole
    (tmp + rename: a crash leaves the old file or the new one)."""
    import pandas as pd

    from . import records as fidelity
    from ..store import files as fsio

    p.out_dir.mkdir(parents=True, exist_ok=True)
    path = p.out_dir / f"{p.experiment}.csv"
    old = path.read_text() if path.exists() else ""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(fidelity.COLUMNS), lineterminator="\n")
    if not old:
        w.writeheader()
    w.writerow(new)
    text = (old if not old or old.endswith("\n") else old + "\n") + buf.getvalue()
    df = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False)
    fidelity.validate(df, p.experiment, str(path))
    fsio.atomic_write(path, text)
    return path
