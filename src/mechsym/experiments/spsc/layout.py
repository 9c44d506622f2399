"""The queues' field layouts as JOL reads them (mechsym.spsc.SpscLayout, one JVM per JDK), beside the post's
java-object-layout tables. Descriptive: that the port lays I1 and I3 out as the post did is a test of the port
(tests/test_spsc_experiment.py), not a claim of the post."""

from __future__ import annotations

import pandas as pd

from ... import analysis
from ...analysis import by_machine
from .sweep import QUEUES

PAD_FIELD = r"^(p\d+|p0i|b\d+)$"   # padding fields (p10.., p0i, O1's holder pads b000..) are left out of the tables
CHECKS = ["min_hot_gap", "min_cross_gap", "cold_offset", "instance_size", "jol_unavailable"]


def layout_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The JOL rows (variant "layout") of runs that passed, with `jdk` and `queue` as text and `key` the field's name."""
    if df is None or df.empty or "variant" not in df:
        return pd.DataFrame()
    lay = analysis.ok_rows(df)
    lay = lay[lay["variant"].astype(str) == "layout"].copy()
    if lay.empty:
        return lay
    lay["queue"] = lay["queue"].astype(str)
    lay["key"] = lay["field"].astype(str).str.rsplit(".", n=1).str[-1]
    lay.loc[lay["metric"] == "instance_size", "key"] = "(instance)"
    return lay


def offsets(df: pd.DataFrame, jdk) -> dict[tuple[str, str], float]:
    """{(queue, field name): offset in bytes} on one JDK (instance sizes under the field name "(instance)")."""
    lay = analysis.where(layout_rows(df), jdk=jdk)
    if lay.empty:
        return {}
    lay = lay[lay["metric"].isin(["offset", "instance_size"])].drop_duplicates(["queue", "key"])
    return {(q, k): v for q, k, v in zip(lay["queue"], lay["key"], lay["value"])}


def _bytes(t: pd.DataFrame) -> pd.DataFrame:
    """Byte offsets and sizes as whole numbers (JOL's offsets are integers; the frame stores them as floats), a
    missing one as <NA> (shown as '—')."""
    t = t.copy()
    for c in t.columns:
        num = pd.to_numeric(t[c], errors="coerce")
        if num.notna().any() and (num.dropna() == num.dropna().round()).all():
            t[c] = num.round().astype("Int64")
    return t


@by_machine
def layout_table(df: pd.DataFrame, queues=("I1", "I3", "I4", "O1", "jctools")) -> pd.DataFrame:
    """Offsets (bytes) of the non-padding fields of each queue's object, per JDK, as JOL reads them; O1's holder
    classes too."""
    lay = layout_rows(df)
    if lay.empty:
        return pd.DataFrame()
    off = lay[(lay["metric"] == "offset") & lay["queue"].isin(queues) & ~lay["key"].str.match(PAD_FIELD)].copy()
    off["class"] = (off["class"].astype(str).str.replace("mechsym.spsc.", "", regex=False)
                    .str.replace("org.jctools.queues.", "", regex=False))
    off["field"] = off["field"].astype(str).str.split(".").str[-2:].str.join(".")
    t = off.pivot_table(index=["queue", "class", "field"], columns="jdk", values="value", aggfunc="first")
    jdks = analysis.ordered(t.columns)
    t = t[jdks].reset_index().sort_values(jdks[0], kind="stable")        # by offset on the first JDK...
    t = analysis.sort_by(t, {"queue": list(queues)})                      # ...within each queue
    t[jdks] = _bytes(t[jdks])
    return t.rename(columns={j: f"offset on JDK {j}" for j in jdks}).set_index(["queue", "class", "field"])


@by_machine
def layout_checks(df: pd.DataFrame) -> pd.DataFrame:
    """Per queue and JDK: smallest gap between hot fields, between a producer and a consumer field, the first cold
    field's offset and the instance size (bytes), read from the queue's own class."""
    lay = layout_rows(df)
    if lay.empty:
        return pd.DataFrame()
    own = lay.groupby(["jdk", "queue"])["class"].transform("first")
    d = lay[(lay["class"] == own) & lay["metric"].isin(CHECKS)]
    t = d.pivot_table(index=["queue", "jdk"], columns="metric", values="value", aggfunc="first").reset_index()
    t = analysis.sort_by(t, {"queue": list(QUEUES), "jdk": []})
    t = t.set_index(["queue", "jdk"])[[c for c in CHECKS if c in t.columns]]
    return _bytes(t)


@by_machine
def layout_vs_post(df: pd.DataFrame, ref: pd.DataFrame) -> pd.DataFrame:
    """The post's java-object-layout offsets of I1 and I3 (data/reference) beside JOL's on each JDK here."""
    r = ref[ref["metric"].isin(["offset", "instance_size"])][["variant", "field", "metric", "value"]].copy()
    r["key"] = r["field"].str.rsplit(".", n=1).str[-1]
    out = r.rename(columns={"value": "post (JDK 7u17)"})
    lay = layout_rows(df)
    for j in ([] if lay.empty else analysis.ordered(lay["jdk"].unique())):
        got = offsets(df, j)
        out[f"JDK {j}"] = [got.get((v, k)) for v, k in zip(out["variant"], out["key"])]
    out = out.drop(columns=["key", "metric"]).set_index(["variant", "field"])
    return _bytes(out)
