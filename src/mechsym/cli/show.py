"""`mechsym show` and `mechsym compare`: stored runs as tables of per-cell medians, one run or two side by side."""

from __future__ import annotations

from .. import MechsymError
from .cells import RATE_UNITS, cell_keys, find_run, fmt_cell, key_text, per_cell, pick_metrics, rows_of, sections
from .text import DASH, columns, run_line, text_table, wrap_lines


def _summary_table(cells, keys: list[str], width: int) -> tuple[list[str], str]:
    units = list(dict.fromkeys(cells["unit"].astype(str)))
    strip = len(units) == 1 and units[0] in RATE_UNITS
    one_metric = cells["metric"].nunique() == 1
    keys = keys + ([] if one_metric else ["metric"])
    values = [f"median ({units[0]})" if strip else "median", "forks' range", "forks"]
    rows = []
    for _, r in cells.iterrows():
        lo, hi = fmt_cell(r["min"], r["unit"], strip), fmt_cell(r["max"], r["unit"], strip)
        rows.append([key_text(r[k]) for k in keys]
                    + [fmt_cell(r["median"], r["unit"], strip), lo if lo == hi else f"{lo} – {hi}", str(int(r["count"]))])

    def render(rs, ks, indent=0):
        n = len(ks) + len(values)
        wrap = tuple(i for i, k in enumerate(ks) if k in ("flags", "options"))
        return text_table(rs, ks + values, right=(n - 3, n - 2, n - 1), wrap=wrap, indent=indent, width=width)

    metric = cells["metric"].iloc[0] if one_metric else ""
    return sections(rows, keys, render, width), (f"{metric} ({units[0]})" if one_metric
                                                   else ", ".join(dict.fromkeys(cells["metric"])))


def show(args) -> int:
    """`mechsym show`: per-cell medians and ranges of one stored run (or of the run each machine shows)."""
    from .. import experiments
    from ..machine import identity as machine
    from ..store import layout, runs as store

    experiments.get(args.experiment)
    if args.run is not None and not args.run.strip():
        raise MechsymError("--run '': give a run id or a unique part of it (`mechsym list` shows them)")
    if args.run:
        chosen = [find_run(args.run, args.experiment)]
    else:
        if args.preset:
            from ..run.overrides import check_preset

            check_preset(args.preset)
        chosen = store.chosen_runs(args.experiment, args.machine, preset=args.preset)
        if not chosen:
            what = f"{args.preset} " if args.preset else ""
            raise MechsymError(f"{args.experiment}: no stored {what}results"
                               f"{' for machine ' + args.machine if args.machine else ''}; "
                               f"run `mechsym run {args.experiment}` first")
    width = columns()
    machine.machine_id()  # a bad MECHSYM_MACHINE is refused before anything is printed
    for meta in chosen:
        df = rows_of(meta)
        ok = df[df["status"] == "ok"] if "status" in df else df
        print(f"{args.experiment}: {run_line(meta)}")
        print("\n".join(wrap_lines(f"machine {layout.machine_label(meta['_machine'])}", width)))
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
        metrics = pick_metrics(ok, args.metric)
        rows = ok[ok["metric"].isin(metrics)]
        keys = cell_keys(rows, [] if len(metrics) == 1 else ["metric"])
        cells = per_cell(rows, metrics, keys)
        lines, what = _summary_table(cells, keys, width)
        left = [m for m in dict.fromkeys(ok["metric"].astype(str)) if m not in metrics]
        print("\n".join(wrap_lines(f"{what}: per cell, the median over forks of each fork's median, and the forks' range"
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
                print("\n".join(wrap_lines(f"{n} cell{'s' if n > 1 else ''} not measurable here: {note}", width, "  ", "")))
    failures = meta.get("failures") or []
    if failures:
        print("\n".join(wrap_lines(f"{len(failures)} fork{'s' if len(failures) > 1 else ''} failed and stored no number: "
                                   f"first: {failures[0].get('message', '')}", width, "  ", "")))


def protocol_of(meta: dict) -> str:
    """'lab' (the kernels) or the protocol a run was made with (--protocol jmh)."""
    return str((meta.get("overrides") or {}).get("protocol") or "lab")


def compare(args) -> int:
    """`mechsym compare`: two stored runs of an experiment side by side, cell by cell, with ratios."""
    import pandas as pd

    from ..store import layout
    from ..style.units import fmt_ratio

    a, b = find_run(args.run_a), find_run(args.run_b)
    experiment = a.get("experiment")
    if b.get("experiment") != experiment:
        raise MechsymError(f"run {b['run_id']} is a run of {b.get('experiment')}, run {a['run_id']} of {experiment}: "
                           "compare two runs of one experiment")
    width = columns()
    pad = " " * (len(experiment) + 6)
    print("\n".join(wrap_lines(run_line(a), width, pad, f"{experiment}: A = ")))
    print("\n".join(wrap_lines(run_line(b), width, pad, f"{' ' * len(experiment)}  B = ")))
    for tag, m in (("A", a), ("B", b)):
        print("\n".join(wrap_lines(f"{tag}: {layout.machine_label(m['_machine'])}", width, "   ")))
    da, db = rows_of(a), rows_of(b)
    oka, okb = (d[d["status"] == "ok"] if "status" in d else d for d in (da, db))
    metrics = pick_metrics(pd.concat([oka, okb]), args.metric)
    both = pd.concat([oka[oka["metric"].isin(metrics)], okb[okb["metric"].isin(metrics)]], ignore_index=True)
    start = [] if len(metrics) == 1 else ["metric"]
    pa, pb = protocol_of(a), protocol_of(b)
    if pa == pb:
        keys = cell_keys(both, start)
    else:   # two protocols (the lab's kernels, JMH) write different columns, in another order: each run's own keys
        ka = cell_keys(oka[oka["metric"].isin(metrics)], start)
        keys = ka + [k for k in cell_keys(okb[okb["metric"].isin(metrics)], start) if k not in ka]
    keys = [k for k in keys if k not in ("run_id", "machine")]
    # cells are matched on the keys both runs have; a key only one has is shown as a dash for the other
    shared = [k for k in keys if k in oka and k in okb]
    ca = per_cell(oka[oka["metric"].isin(metrics)], metrics, [k for k in keys if k in oka])
    cb = per_cell(okb[okb["metric"].isin(metrics)], metrics, [k for k in keys if k in okb])
    for c in (ca, cb):
        for k in keys:
            if k in c:
                c[k] = c[k].map(key_text)
    ca["_order"], cb["_order"] = range(len(ca)), range(len(ca), len(ca) + len(cb))
    j = ca.merge(cb, on=shared + ["metric", "unit"], how="outer", suffixes=("_a", "_b"))
    for k in keys:
        j[k] = j[k].fillna(DASH)
    if pa != pb:
        print("\n".join(wrap_lines(f"A is protocol {pa}, B protocol {pb}: cells matched on {', '.join(shared)}",
                                    width)))
    j = j.assign(_o=j["_order_a"].fillna(j["_order_b"])).sort_values("_o", kind="stable")
    units = list(dict.fromkeys(j["unit"].astype(str)))
    strip = len(units) == 1 and units[0] in RATE_UNITS
    one = j["metric"].nunique() == 1
    rows = []
    for _, r in j.iterrows():
        ratio = r["median_b"] / r["median_a"] if pd.notna(r["median_a"]) and pd.notna(r["median_b"]) and r["median_a"] else None
        rows.append([r[k] for k in keys] + ([] if one else [r["metric"]])
                    + [fmt_cell(r["median_a"], r["unit"], strip), fmt_cell(r["median_b"], r["unit"], strip),
                       fmt_ratio(ratio) if ratio is not None else DASH])
    unit = f" ({units[0]})" if strip else ""
    values = [f"A median{unit}", f"B median{unit}", "B / A"]

    def render(rs, ks, indent=0):
        n = len(ks) + len(values)
        wrap = tuple(i for i, k in enumerate(ks) if k in ("flags", "options"))
        return text_table(rs, ks + values, right=(n - 3, n - 2, n - 1), wrap=wrap, indent=indent, width=width)

    print("\n".join(wrap_lines(f"{', '.join(metrics)}: per cell, the median over forks of each fork's median; "
                               f"{DASH} where one run lacks the cell", width)))
    print()
    print("\n".join(sections(rows, keys + ([] if one else ["metric"]), render, width)))
    return 0
