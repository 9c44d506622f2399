"""Is the kernel the post's code? The comparisons of each kernel with the post's own code, transcribed into
data/fidelity/<experiment>.csv (columns and method: data/fidelity/README.md), checked and rendered for the
notebooks' "Is this the post's code?" sections.

The lab's rule (DESIGN.md): a kernel's post protocol lands within 0.9-1.1x of the listing. A row is flagged when its
ratio lies outside that band, when the bounds reported beside it reach outside it, or when its A/A (the harness
against itself) does: a comparison whose harness cannot reproduce itself within the band says nothing within it.

Whether a row still describes today's kernel is derived, never typed: the kernel's fingerprint (its own code:
mechsym.store.fingerprint.kernel_fingerprint) at the row's `source` commit against the checkout's. The `current`
column on disk is what was typed when the row was written; the pages show the derived value.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from .. import MechsymError, repo_root
from ..style import frames

COLUMNS = ("experiment", "kernel", "protocol", "cell", "listing", "date", "machine", "jdk", "sets", "ratio", "ci_low",
           "ci_high", "interval", "ratio_of", "aa_ratio", "current", "source", "note")
REQUIRED = ("experiment", "kernel", "cell", "listing", "date", "current", "source")
NUMBERS = ("ratio", "ci_low", "ci_high", "aa_ratio")
ALLOWED = {
    "protocol": ("", "post", "lab"),
    "interval": ("", "bootstrap 95%", "range"),
    "ratio_of": ("", "speed", "duration", "kernel / listing", "kernel / program"),
    "current": ("yes", "no"),
}
BAND = (0.9, 1.1)


def fidelity_dir() -> Path:
    return repo_root() / "data" / "fidelity"


def names() -> list[str]:
    """The experiments that have a fidelity file."""
    return sorted(p.stem for p in fidelity_dir().glob("*.csv"))


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value > 0 and value == value and value != float("inf") else None


def validate(df: pd.DataFrame, experiment: str, where: str = "") -> None:
    """Raises MechsymError, one line naming the file, the row and the field, unless every row keeps the schema."""
    where = where or f"data/fidelity/{experiment}.csv"
    missing = [c for c in COLUMNS if c not in df.columns]
    extra = [c for c in df.columns if c not in COLUMNS]
    if missing or extra:
        raise MechsymError(f"{where}: columns must be {', '.join(COLUMNS)}"
                           + (f"; missing {', '.join(missing)}" if missing else "")
                           + (f"; unknown {', '.join(extra)}" if extra else ""))
    from ..run import kernels

    known_kernels = {k.name for k in kernels.KERNELS}
    for i, row in enumerate(df.to_dict("records"), start=2):   # line 1 is the header
        at = f"{where} line {i}"
        for c in REQUIRED:
            if not row[c]:
                raise MechsymError(f"{at}: {c} is empty (required: {', '.join(REQUIRED)})")
        if row["experiment"] != experiment:
            raise MechsymError(f"{at}: experiment '{row['experiment']}' in the file of '{experiment}'")
        if row["kernel"] not in known_kernels:
            raise MechsymError(f"{at}: kernel '{row['kernel']}' is not one of mechsym.run.kernels.KERNELS")
        for c, allowed in ALLOWED.items():
            if row[c] not in allowed:
                raise MechsymError(f"{at}: {c}='{row[c]}' (allowed: {', '.join(repr(a) for a in allowed)})")
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", row["date"]):
            raise MechsymError(f"{at}: date='{row['date']}' (allowed: YYYY-MM-DD)")
        if not re.fullmatch(r"[0-9a-f]{7,40}", row["source"]):
            raise MechsymError(f"{at}: source='{row['source']}' (allowed: a commit hash, 7-40 hex digits)")
        for c in ("sets", "jdk"):
            if row[c] and not (row[c].isdigit() and int(row[c]) > 0):
                raise MechsymError(f"{at}: {c}='{row[c]}' (allowed: a whole number above 0, or empty)")
        values = {}
        for c in NUMBERS:
            if row[c]:
                values[c] = _number(row[c])
                if values[c] is None:
                    raise MechsymError(f"{at}: {c}='{row[c]}' (allowed: a number above 0, or empty)")
        if "ratio" not in values and not ("ci_low" in values and "ci_high" in values):
            raise MechsymError(f"{at}: give a ratio, or both ci_low and ci_high")
        if ("ci_low" in values) != ("ci_high" in values):
            raise MechsymError(f"{at}: give both ci_low and ci_high, or neither")
        if "ci_low" in values:
            low, high = values["ci_low"], values["ci_high"]
            if low > high or ("ratio" in values and not low <= values["ratio"] <= high):
                raise MechsymError(f"{at}: need ci_low <= ratio <= ci_high (got {row['ci_low']}, {row['ratio']}, "
                                   f"{row['ci_high']})")


def load(experiment: str) -> pd.DataFrame:
    """An experiment's fidelity rows, checked (validate); an empty frame with the columns when it has no file."""
    path = fidelity_dir() / f"{experiment}.csv"
    if not path.exists():
        return pd.DataFrame(columns=list(COLUMNS))
    try:
        df = pd.read_csv(path, dtype=str, keep_default_na=False)
    except Exception as e:
        raise MechsymError(f"corrupt fidelity file {path}: {str(e).splitlines()[0]}") from e
    validate(df, experiment, f"data/fidelity/{path.name}")
    return df


def todays_kernel(kernel: str, source: str) -> str:
    """'yes' when `kernel`'s code at commit `source` is the checkout's (same kernel fingerprint), 'no' when it
    differs, 'unknown' when either cannot be derived (a commit not in this history, a kernel since removed)."""
    from ..store import fingerprint

    try:
        return "yes" if fingerprint.commit_kernel_fingerprint(kernel, source) == _kernel_now(kernel) else "no"
    except fingerprint.ProvenanceError:
        return "unknown"


def _kernel_now(kernel: str) -> str:
    from ..store import fingerprint

    return fingerprint.kernel_fingerprint(kernel)


def reading(row) -> str:
    """Where a row falls against the 0.9-1.1 band: 'within 0.9-1.1', 'outside 0.9-1.1' (the ratio, its bounds, or
    its A/A wholly outside; the A/A named) or 'interval crosses 0.9-1.1' (the bounds reach outside the band)."""
    lo, hi = BAND
    aa = _number(row["aa_ratio"]) if row.get("aa_ratio") else None
    if aa is not None and not lo <= aa <= hi:
        return f"outside {lo}-{hi} (A/A {row['aa_ratio']})"
    ratio = _number(row["ratio"]) if row["ratio"] else None
    low = _number(row["ci_low"]) if row["ci_low"] else None
    high = _number(row["ci_high"]) if row["ci_high"] else None
    if (ratio is not None and not lo <= ratio <= hi) or (high is not None and high < lo) or (low is not None
                                                                                           and low > hi):
        return f"outside {lo}-{hi}"
    if low is not None and (low < lo or high > hi):
        return f"interval crosses {lo}-{hi}"
    return f"within {lo}-{hi}"


def table(experiment: str, kernels: tuple[str, ...] | list[str] | None = None) -> pd.DataFrame:
    """The rows for a reader, those that describe today's kernel first (derived: todays_kernel): what was
    compared, the ratio with its bounds, the A/A, and the reading against the band."""
    df = load(experiment)
    if kernels is not None:
        df = df[df["kernel"].isin(list(kernels))]

    def bounds(r) -> str:
        if not r["ci_low"]:
            return ""
        kind = {"range": " (range)", "bootstrap 95%": " (95%)"}.get(r["interval"], "")
        return f"[{r['ci_low']}, {r['ci_high']}]{kind}"

    out = pd.DataFrame({
        "kernel": df["kernel"].str.rsplit(".", n=1).str[-1],
        "protocol": df["protocol"],
        "cell": df["cell"],
        "compared with": df["listing"],
        "ratio": df["ratio"],
        "bounds": df.apply(bounds, axis=1) if len(df) else [],
        "of": df["ratio_of"],
        "A/A": df["aa_ratio"],
        "sets": df["sets"],
        "JDK": df["jdk"],
        "machine": df["machine"],
        "date": df["date"],
        "today's kernel": [todays_kernel(k, c) for k, c in zip(df["kernel"], df["source"])],
        "reading": df.apply(reading, axis=1) if len(df) else [],
        "source": df["source"],
        "note": df["note"],
    })
    return out.sort_values("today's kernel", ascending=False, kind="stable").reset_index(drop=True)


def section(experiment: str, kernels: tuple[str, ...] | list[str] | None = None):
    """A notebook's "Is this the post's code?" content: the table of its rows, or a plain sentence that no fidelity
    measurement exists yet for it (or for the kernels named)."""
    rows = table(experiment, kernels)
    if rows.empty:
        from IPython.display import Markdown

        what = ", ".join(k.rsplit(".", 1)[-1] for k in kernels) if kernels else f"the {experiment} experiment"
        return Markdown(f"No fidelity measurement exists yet for {what}: no row in `data/fidelity/` compares it "
                        f"with the post's code.")

    return frames.table(rows.mask(rows == ""))
