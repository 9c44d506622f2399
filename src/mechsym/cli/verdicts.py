"""`mechsym verdicts`: every claim's verdict from stored results, as text (notebook by notebook) or CSV."""

from __future__ import annotations

import sys

from .text import DASH, columns, text_table, when_text, wrap_lines


def command(args) -> int:
    """Print every claim's verdict (of one experiment, or all); exit 1 when a claim could not be judged."""
    from .. import experiments
    from ..view.collect import ERROR, collect, csv_frame

    if args.experiment:
        experiments.get(args.experiment)
    if getattr(args, "jmh", False):
        return _jmh_ratios(args)
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


def _verdicts_text(out) -> list[str]:
    """Every verdict, notebook by notebook: which runs were judged, each claim in full, then one line per scope and
    protocol (wrapped to 100 columns, left-aligned)."""
    from ..machine import identity as machine
    from ..view.overview import post_title
    from ..view.collect import agreement, bh_line, claim_counts

    width = columns()
    here = machine.machine_id()
    multi = out["machine"].nunique() > 1
    lines: list[str] = []
    for nb, rows in out.groupby("notebook", sort=False):
        if lines:
            lines.append("")
        title = post_title(str(rows["post"].iloc[0])) if "post" in rows else ""
        lines.append(f"{nb}" + (f" · {title}" if title else ""))
        judged = rows[rows["run"].astype(str) != ""][["machine", "run", "code"]].drop_duplicates(["machine", "run"])
        for _, r in judged.iterrows():
            preset = str(r["run"]).split("-")[1] if str(r["run"]).count("-") >= 2 else "?"
            whose = "this machine" if r["machine"] == here else "another machine"
            code = str(r.get("code") or "")
            stale = f"; STALE ({code}): its verdicts judge older code" if code and code != "current" else ""
            lines += wrap_lines(f"judged: run {r['run']} (preset {preset}, {when_text({'run_id': r['run']})}) of "
                                f"{r['machine']} ({whose}){stale}", width, "  ", "  ")
        if judged.empty:
            lines.append("  judged: no stored run")
        for cid, claim in rows.groupby("id", sort=False):
            c0 = claim.iloc[0]
            lines.append("")
            then = f" (then: {c0['then']})" if str(c0.get("then") or "") else ""
            lines += wrap_lines(f"{cid}: {c0['claim']}{then}", width, "      ", "  ")
            table = []
            for _, r in claim.iterrows():
                now = r["now"] if r["now"] and r["now"] != "n/a" else r["why"]
                outcome = r["outcome"] + (" (not after BH)" if str(r.get("bh")) == "False" else "")
                table.append(([r["machine"]] if multi else []) + [
                    ("* " if r.get("primary") else "  ") + (r["scope"] or DASH), r["protocol"] or DASH,
                    outcome, now or DASH, agreement(r) or DASH])
            header = (["machine"] if multi else []) + ["scope", "protocol", "holds?", "now", "runs agreeing"]
            k = 1 if multi else 0
            lines += text_table(table, header, wrap=(k, k + 3, k + 4) + ((0,) if multi else ()), indent=4, width=width,
                                roomy=(k + 3,))
    lines.append("")
    counts = claim_counts(out)
    lines += wrap_lines(f"{sum(counts.values())} claims (each by its primary verdict, marked *): "
                        + ", ".join(f"{n} {s}" for s, n in counts.items())
                        + f"; {len(out)} verdicts in all with the sub-rows", width, "", "")
    line = bh_line(out)
    if line:
        lines += wrap_lines(line, width, "", "")
    return lines


def _jmh_ratios(args) -> int:
    """`mechsym verdicts --jmh`: the lab/JMH ratio table (jmh_ratios.overview_table), as text or CSV."""
    from ..jmh import ratios as jmh_ratios

    t = jmh_ratios.overview_table(None if args.machine == "all" else args.machine)
    if args.experiment:
        t = t[t["experiment"] == args.experiment]
    if args.format == "csv":
        t.to_csv(sys.stdout, index=False)
    else:
        print("\n".join(jmh_text(t, columns())))
    return 0


def jmh_text(t, width: int) -> list[str]:
    """overview_table's rows within `width`: a table per experiment, one line a cell (cell and reading wrapped),
    a flagged cell's reading marked, then each flagged cell's explanation (or UNEXPLAINED) in full, wrapped."""
    import math

    from ..jmh import ratios as jmh_ratios

    if t.empty:
        return wrap_lines("No JMH run is stored yet: `mechsym run EXPERIMENT --protocol jmh --preset standard` makes "
                          f"one (experiments with JMH cells: {', '.join(jmh_ratios.SPECS)}).", width)
    d = jmh_ratios.ratio_display(t)
    cols = ["cell", "jdk", "post", "lab", "JMH", "unit", "lab/JMH", "interval", "reading"]
    fmt = lambda v: ("" if math.isnan(v) else f"{v:.4g}") if isinstance(v, float) else str(v)  # noqa: E731
    out = []
    for experiment, g in d.groupby("experiment", sort=False):
        rows = [[fmt(v) for v in r] for r in g[cols].itertuples(index=False)]
        for r, flag in zip(rows, g["flag"]):
            r[-1] += f" ({flag})" if flag else ""
        out += ["", experiment] + text_table(rows, cols, right=(2, 3, 4, 6), wrap=(0, 8), indent=2, width=width)
    flagged = t[t["flagged"]]
    out += [""] + wrap_lines(f"{len(t)} headline cells; {len(flagged)} flagged (lab/JMH interval wholly outside "
                             f"{jmh_ratios.BAND[0]}-{jmh_ratios.BAND[1]}).", width)
    for _, r in flagged.iterrows():
        out += wrap_lines(f"{r['experiment']}, {r['cell']}: {r['explanation']}", width, "  ", "- ")
    return out[1:]
