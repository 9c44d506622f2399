"""seqio's tables: the post's numbers, this machine's medians beside them, dd's ceilings, eviction checks, the two
kernel protocols side by side, and the run's set-up. Every table keeps machines apart (analysis.by_machine)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from ...store import runs as store
from ...judge.analysis import by_machine
from .meta import NAME, POST_METHODS
from .rows import ORDERS, PROTOCOL_NAMES, reference_medians, throughput
from .sweep import DD, METHODS, POST_REGIME, REGIMES

def reference_table(ref: pd.DataFrame) -> pd.DataFrame:
    """The post's two tables: MB/s per pass, method x (file, direction)."""
    t = ref.pivot_table(index=["file_size", "post_name"], columns=["direction", "pass"], values="MB/s", aggfunc="first")
    t = t.reindex(columns=["write", "read"], level=0).reindex(["400MB", "8GB"], level=0)
    t = t.reindex([METHODS[m][1] for m in POST_METHODS], level=1)
    t.columns.names = ["MB/s", "pass"]
    t.index.names = ["file", "method (the post's name)"]
    return t.round(0)


def ceilings(df: pd.DataFrame) -> pd.DataFrame:
    """Median MB/s of dd (measured passes) per regime and direction: `dd` and, where run, `dd-cached`."""
    m = throughput(df, measured_only=True)
    m = m[m["variant"].isin(list(DD))]
    return m.groupby(["regime", "variant", "direction"])["value"].median().unstack("variant")


def device_ceiling(df: pd.DataFrame) -> dict:
    """The device's own limit per direction: dd's median in the evicted regime (else larger-than-ram, else any).
    One machine's rows (callers split by machine)."""
    m = throughput(df, measured_only=True)
    m = m[m["variant"] == "dd"]
    for regime in ("evicted", "larger-than-ram", "page-cache"):
        sub = m[m["regime"] == regime]
        if len(sub):
            return {d: float(s["value"].median()) for d, s in sub.groupby("direction")} | {"regime": regime}
    return {}


@by_machine
def summary(df: pd.DataFrame, ref: pd.DataFrame | None = None) -> pd.DataFrame:
    """Median MB/s over the measured passes (2..5) per regime, direction, kernel protocol and method, with spread,
    the fraction of the device ceiling (dd), and the post's median for the matching file."""
    m = throughput(df, measured_only=True)
    if m.empty:
        return pd.DataFrame()
    s = analysis.summary(m, ["regime", "direction", "protocol", "variant"])
    ceiling = device_ceiling(df)
    s["x device ceiling (dd)"] = [v / ceiling[d] if d in ceiling else np.nan for v, d in zip(s["median"], s["direction"])]
    cols = ["regime", "direction", "protocol", "method", "median MB/s", "min", "max", "n", "x device ceiling (dd)"]
    if ref is not None:
        r = reference_medians(ref)
        s["post median MB/s"] = [r.get((POST_REGIME.get(g, g), d, v), np.nan)
                                 for g, d, v in zip(s["regime"], s["direction"], s["variant"])]
        cols.append("post median MB/s")
    s = analysis.sort_by(s.rename(columns={"variant": "method", "median": "median MB/s"}), ORDERS)
    return s[cols].round({"median MB/s": 0, "min": 0, "max": 0, "x device ceiling (dd)": 2, "post median MB/s": 0})


@by_machine
def protocols(df: pd.DataFrame) -> pd.DataFrame:
    """Where both kernel protocols ran: the post protocol's and the lab kernel's median MB/s per cell (medians over
    forks of each fork's median of passes 2-5), and lab / post. Empty when only one protocol is in the rows."""
    m = throughput(df, measured_only=True)
    m = m[m["variant"].isin(POST_METHODS)]
    if m.empty or m["protocol"].nunique() < 2:
        have = ", ".join(sorted(set(m["protocol"]))) or "none"
        return pd.DataFrame({"note": [f"one kernel protocol in these results ({have}): runs stored before the kernel "
                                      f"had its post protocol ran the lab's kernel only"]})
    pf = analysis.per_fork(m, analysis.LAB, by=["regime", "direction", "variant", "protocol"])
    t = pf.groupby(["regime", "direction", "variant", "protocol"])["value"].median().unstack("protocol")
    t = t.reindex(columns=PROTOCOL_NAMES).dropna().rename_axis(columns=None)
    t["lab / post"] = t["lab"] / t["post"]
    t = analysis.sort_by(t.reset_index().rename(columns={"variant": "method", "post": "post protocol MB/s",
                                                         "lab": "lab kernel MB/s"}), ORDERS)
    return t.round({"post protocol MB/s": 0, "lab kernel MB/s": 0, "lab / post": 2})


@by_machine
def residency(df: pd.DataFrame) -> pd.DataFrame:
    """How much of the file was still in the page cache right after each eviction (should be ~0)."""
    r = analysis.measured(df, "evict_resident", warmup=True)
    if r.empty:
        return pd.DataFrame()
    return r.groupby(["regime", "variant"])["value"].agg(["count", "max"]).rename(
        columns={"count": "evictions", "max": "largest fraction left resident"}).reset_index()


def run_info(df: pd.DataFrame) -> pd.DataFrame:
    """Where the file lived and how each regime was made, from the runs' metadata (one column per run)."""
    rows = []
    for m in store.run_metadata(df, NAME):
        sc = m.get("scratch", {})
        sizes = df[df["run_id"] == m["run_id"]].groupby("regime")["size_bytes"].max() if "regime" in df else {}
        rot = sc.get("rotational")
        rows.append({
            "run": m["run_id"], "preset": m.get("preset"),   # the machine: nb.machine_table
            "scratch directory": sc.get("base"), "file system": f"{sc.get('fstype', '?')} on {sc.get('device', '?')}"
            + ("" if rot is None else " (rotational)" if rot else " (non-rotational)"),
            "RAM": f"{m.get('machine', {}).get('memory_bytes', 0) / 2**30:.0f} GiB",
            "dd": m.get("dd"), "eviction": m.get("eviction"),
            **{f"{r} file": f"{int(s) / 1e6:,.0f} MB" for r, s in dict(sizes).items()},
            "minutes": round(m.get("seconds", 0) / 60, 1) if m.get("seconds") else None,
        })
    if not rows:
        return pd.DataFrame()
    t = pd.DataFrame(rows)
    return t.set_index(pd.Index("run " + t["run"].astype(str), name="")).drop(columns="run").T   # a column per run


def regimes_table(df: pd.DataFrame) -> pd.DataFrame:
    """Which regime each number comes from, what was done to the page cache, and the post's counterpart."""
    t = throughput(df)
    have = analysis.ordered(t["regime"], list(REGIMES)) if len(t) else list(REGIMES)
    sizes = t.groupby("regime")["size_bytes"].max() if len(t) else {}
    post = {"page-cache": "400MB file", "evicted": "8GB file (8GB RAM)", "larger-than-ram": "8GB file (8GB RAM)"}
    return pd.DataFrame([{"regime": r, "file here": f"{int(sizes[r]) / 1e6:,.0f} MB" if r in sizes else "",
                          "what is done": REGIMES[r], "compare with the post's": post[r]} for r in have]).set_index("regime")


def findings(df: pd.DataFrame) -> str:
    """A few sentences with the numbers of these runs (Markdown), machine by machine."""
    return analysis.per_machine_text(df, _findings)


def _findings(df: pd.DataFrame) -> str:
    s = summary(df)
    if s.empty:
        return "No measured results."
    ceiling = device_ceiling(df)
    lines = []
    if ceiling:
        lines.append(f"- **Device ceiling** (dd, {ceiling['regime']} regime): writes with fdatasync "
                     f"{analysis.fmt_value(ceiling.get('write'), 'MB/s')}, reads after eviction "
                     f"{analysis.fmt_value(ceiling.get('read'), 'MB/s')}.")
    for (regime, direction, protocol), sub in s.groupby(["regime", "direction", "protocol"], sort=False):
        java = sub[sub["method"].isin(list(METHODS))].set_index("method")["median MB/s"].sort_values(ascending=False)
        if java.empty:
            continue
        frac = ""
        if direction in ceiling:
            frac = (f" (best {java.iloc[0] / ceiling[direction]:.2f}x, worst {java.iloc[-1] / ceiling[direction]:.2f}x "
                    f"the device ceiling)")
        kernel = "post protocol" if protocol == "post" else "lab kernel"
        lines.append(f"- **{regime}, {direction}s, {kernel}** (median MB/s over the passes after the first): "
                     + ", ".join(f"{k} {v:,.0f}" for k, v in java.items()) + f"{frac}.")
        if regime == ceiling.get("regime") and direction == "read" and java.iloc[0] < ceiling["read"] / 1.2:
            lines.append(f"  dd reads this evicted file {ceiling['read'] / java.iloc[0]:.1f}x faster than the fastest "
                         f"Java method ({java.index[0]}): these Java reads are **not device-bound**; the per-byte "
                         f"work of each method's loop sets their pace, as it does from the page cache.")
    return "\n".join(lines)
