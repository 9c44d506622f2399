"""Text a person reads: aligned tables within 100 columns, wrapped lines, and a stored run named by its id, preset,
date and duration."""

from __future__ import annotations

import sys

WIDTH = 100
DASH = "—"


def columns() -> int:
    """100 columns, or the terminal's width when it is narrower."""
    if sys.stdout.isatty():
        import shutil

        return max(60, min(WIDTH, shutil.get_terminal_size((WIDTH, 24)).columns))
    return WIDTH


def wrap_lines(text: str, width: int, indent: str = "", first: str = "") -> list[str]:
    import textwrap

    return textwrap.wrap(text, width, initial_indent=first or indent, subsequent_indent=indent,
                         break_on_hyphens=False) or [first.rstrip()]


def text_table(rows: list[list], header: list[str], right=(), wrap=(), indent: int = 0,
               width: int | None = None, roomy=()) -> list[str]:
    """Rows as an aligned text table: text left-aligned, columns in `right` right-aligned. When the table is wider
    than `width`, the columns in `wrap` are narrowed (widest first; those in `roomy` count half their width, so they
    keep about twice the room) and their text wrapped onto more lines."""
    import textwrap
    from itertools import zip_longest

    width = (width or columns()) - indent
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


def rel_path(path) -> str:
    """A path as the reader types it: relative to the repository when it is inside it."""
    from pathlib import Path

    from .. import repo_root

    p = Path(path)
    try:
        return str(p.resolve().relative_to(repo_root().resolve()))
    except (ValueError, OSError):
        return str(p)


def when_text(meta: dict) -> str:
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


def duration_text(seconds) -> str:
    try:
        s = float(seconds)
    except (TypeError, ValueError):
        return ""
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    return f"{s / 3600:.1f} h"


def run_line(meta: dict) -> str:
    """'run 20261122T003308Z-standard-1505f6 · preset standard · 2026-11-22 00:33 UTC · 48 min'."""
    bits = [f"run {meta.get('run_id')}", f"preset {meta.get('preset', '?')}", when_text(meta)]
    if meta.get("seconds"):
        bits.append(duration_text(meta["seconds"]))
    if meta.get("status", "complete") != "complete":
        bits.append(str(meta["status"]).upper())
    mark = stale_mark(meta)
    if mark:
        bits.append(mark)
    return " · ".join(bits)


def stale_mark(meta: dict) -> str:
    """'STALE: older kernels (commit 4bea8ad)', 'STALE: code unknown (why)', or for a run made by the checkout's
    kernels '' ('ALLOW-DIRTY' when it was measured on a tree with uncommitted changes, 'DIRTY TREE' for a smoke
    run on one)."""
    from ..store import provenance

    state, why = provenance.status(meta)
    if state == provenance.CURRENT:
        if (meta.get("provenance") or {}).get("allow_dirty"):
            return "ALLOW-DIRTY"
        return "DIRTY TREE" if provenance.dirty(meta) else ""
    if state == provenance.STALE:
        return f"STALE: older kernels (commit {provenance.commit_of(meta)})"
    return f"STALE: code unknown ({why})"
