"""Stored runs as `show`, `compare` and `run` read them: a run named by (part of) its id, its rows, the metrics and
parameter columns a table shows, and per cell the median over forks with the forks' range."""

from __future__ import annotations

from .. import MechsymError
from .text import DASH, wrap_lines


RATE_UNITS = ("ops/s", "MB/s", "bytes/s", "B/s")
NOT_KEYS = {"run_id", "experiment", "fork", "iteration", "warmup", "metric", "value", "unit", "status", "note",
            "machine", "taskset", "pinning", "jdk_version", "cpus", "iterations", "runs", "warmup_runs",
            "warmup_iterations", "warmup_passes", "passes", "size_bytes", "sample_every", "max_ms", "ops", "measured",
            "round"}
KEY_ORDER = ("variant", "jdk", "threads", "placement", "regime", "grid", "warmup_policy", "workers", "coarsening",
             "options", "size", "sync", "evict", "kind")



def find_run(spec: str, experiment: str | None = None) -> dict:
    """The stored run a user names: its full id or a unique part of it (e.g. its last six hex digits)."""
    from ..store import runs as store

    root = store.results_root()
    index = store.index(root)
    hits = [x for x in index if (experiment is None or x[2] == experiment) and (x[3].stem == spec or spec in x[3].stem)]
    exact = [x for x in hits if x[3].stem == spec]
    hits = exact or hits
    if not hits:
        where = f" of {experiment}" if experiment else ""
        raise MechsymError(f"run '{spec}': no stored run{where} matches (`mechsym list` shows the run ids)")
    if len(hits) > 1:
        raise MechsymError(f"run '{spec}': matches {len(hits)} runs ({', '.join(x[3].stem for x in hits[:4])}"
                           f"{', ...' if len(hits) > 4 else ''}); give more of the id")
    m, _, e, j = hits[0]
    found, problems = store.scan(e, m, None, True)  # the named run's own problem is the error: no warning first
    metas = [x for x in found if x["_json"] == str(j)]
    if not metas:
        raise MechsymError(next((p for p in problems if j.stem in p), f"run {j.stem}: its results file does not "
                                                                       "match its metadata; run skipped"))
    return metas[0]


def rows_of(meta: dict):
    import pandas as pd

    try:
        df = pd.read_csv(meta["_csv"], low_memory=False)
    except Exception as e:
        raise MechsymError(f"corrupt results file {meta['_csv']}: {str(e).splitlines()[0]}") from e
    df["machine"] = meta["_machine"]
    return df


def pick_metrics(ok, wanted: str | None) -> list[str]:
    """The metrics a table shows: --metric's (a comma list or 'all'), else the rates when the run has any."""
    have = list(dict.fromkeys(ok["metric"].astype(str)))
    if wanted == "all":
        return have
    if wanted:
        names = [w.strip() for w in wanted.split(",") if w.strip()]
        bad = [w for w in names if w not in have]
        if bad:
            raise MechsymError(f"metric '{bad[0]}': not in this run (its metrics: {', '.join(have)}, or 'all')")
        return names
    units = dict(zip(ok["metric"].astype(str), ok["unit"].astype(str)))
    rates = [m for m in have if units.get(m) in RATE_UNITS]
    # the JIT and GC time of each run (mechsym.run.harness) is about the harness, not the code: shown when asked
    timed = [m for m in have if units.get(m) not in ("count", "bool") and not m.endswith(("jit_ms", "gc_ms"))]
    return rates or timed or have


def cell_keys(df, start: list[str]) -> list[str]:
    """The parameter columns that tell these rows' cells apart, leaving out those another column already
    determines (lock from variant, jdk_version from jdk...). A sweep writes a cell's own columns first, up to
    `cpus`; the kernel's columns after it are measurements (e.g. a JVM's field offsets), not cells."""
    cols = list(df.columns)
    if "cpus" in cols:
        cols = cols[: cols.index("cpus")]
    cols = [c for c in KEY_ORDER if c in cols] + [c for c in cols if c not in KEY_ORDER and c not in NOT_KEYS]
    keep: list[str] = []
    groups = len(df.drop_duplicates(start)) if start else 1
    for c in cols:
        if df[c].nunique(dropna=False) <= 1:
            continue
        n = len(df.drop_duplicates(start + keep + [c]))
        if n > groups:
            keep.append(c)
            groups = n
    return keep


def per_cell(df, metrics: list[str], keys: list[str]):
    """Per cell and metric: the median over forks of each fork's median, the forks' range and their count."""
    from ..judge.analysis import LAB, measured, per_fork

    ok = measured(df, metrics)
    pf = per_fork(ok, LAB, by=keys + ["metric", "unit"])
    g = pf.groupby(keys + ["metric", "unit"], sort=False, dropna=False)["value"]
    return g.agg(["median", "min", "max", "count"]).reset_index()


def fmt_cell(v, unit: str, strip: bool) -> str:
    from ..style.units import fmt_value

    s = fmt_value(v, unit)
    if not s:
        return DASH
    return s[: -len(unit)].strip() if strip and s.endswith(" " + unit) else s


def key_text(v) -> str:
    import math

    if v is None or (isinstance(v, float) and math.isnan(v)) or str(v) in ("", "nan", "None"):
        return DASH
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    return str(v)


def sections(rows: list[list], keys: list[str], render, width: int) -> list[str]:
    """A table of `rows` (key cells first), narrowed to `width`: while it is too wide, the key with the fewest
    values (never the first) moves out of the table into a heading line above each group of rows."""
    table_keys = list(keys)

    def project(rs):
        return [[r[keys.index(k)] for k in table_keys] + r[len(keys):] for r in rs]
    while True:
        lines = render(project(rows), table_keys, 2 if len(table_keys) < len(keys) else 0)
        if max(map(len, lines)) <= width or len(table_keys) <= 1:
            break
        movable = [k for k in table_keys[1:]]
        counts = {k: len({r[keys.index(k)] for r in rows}) for k in movable}
        table_keys.remove(min(movable, key=lambda k: (counts[k], -movable.index(k))))
    heading = [k for k in keys if k not in table_keys]
    if not heading:
        return lines
    groups: dict[tuple, list] = {}
    for r in rows:
        groups.setdefault(tuple(r[keys.index(k)] for k in heading), []).append(r)
    out = []
    for values, members in groups.items():
        if out:
            out.append("")
        out += wrap_lines(" · ".join(f"{k} {v}" for k, v in zip(heading, values)), width)
        out += render(project(members), table_keys, 2)
    return out
