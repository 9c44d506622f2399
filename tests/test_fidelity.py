"""data/fidelity: every file keeps the schema (mechsym.fidelity.records), a bad row is refused with a one-line message, and
the reading against the 0.9-1.1 band."""

import pandas as pd
import pytest

from mechsym import MechsymError
from mechsym.fidelity import records as fidelity

GOOD = {"experiment": "spsc", "kernel": "mechsym.spsc.SpscThroughput", "protocol": "post", "cell": "O1",
        "listing": "post's code", "date": "2026-11-23", "machine": "", "jdk": "17", "sets": "14", "ratio": "1.02",
        "ci_low": "0.93", "ci_high": "1.06", "interval": "", "ratio_of": "speed", "aa_ratio": "1.00", "current": "yes",
        "source": "c562c25", "note": ""}


def frame(**change) -> pd.DataFrame:
    return pd.DataFrame([{**GOOD, **change}], columns=list(fidelity.COLUMNS))


def test_every_fidelity_file_keeps_the_schema():
    assert fidelity.names(), "data/fidelity holds no CSV"
    for name in fidelity.names():
        df = fidelity.load(name)   # raises on a bad row
        assert len(df) and (df["experiment"] == name).all(), name


def test_a_good_row_passes():
    fidelity.validate(frame(), "spsc", "x.csv")


@pytest.mark.parametrize("change, message", [
    ({"ratio": "fast"}, "x.csv line 2: ratio='fast' (allowed: a number above 0, or empty)"),
    ({"ratio": "1.20"}, "x.csv line 2: need ci_low <= ratio <= ci_high"),
    ({"ratio": "", "ci_low": "", "ci_high": ""}, "give a ratio, or both ci_low and ci_high"),
    ({"ci_high": ""}, "give both ci_low and ci_high, or neither"),
    ({"source": ""}, "x.csv line 2: source is empty"),
    ({"source": "HEAD~1"}, "source='HEAD~1' (allowed: a commit hash"),
    ({"date": "23.11.2026"}, "date='23.11.2026' (allowed: YYYY-MM-DD)"),
    ({"current": "maybe"}, "current='maybe' (allowed: 'yes', 'no')"),
    ({"experiment": "seqio"}, "experiment 'seqio' in the file of 'spsc'"),
    ({"kernel": "mechsym.spsc.Nope"}, "kernel 'mechsym.spsc.Nope' is not one of"),
    ({"sets": "1.5"}, "sets='1.5' (allowed: a whole number above 0, or empty)"),
])
def test_a_bad_row_is_refused_in_one_line(change, message):
    with pytest.raises(MechsymError) as e:
        fidelity.validate(frame(**change), "spsc", "x.csv")
    assert message in str(e.value) and "\n" not in str(e.value)


def test_a_missing_column_is_refused():
    with pytest.raises(MechsymError, match="missing aa_ratio"):
        fidelity.validate(frame().drop(columns=["aa_ratio"]), "spsc", "x.csv")


@pytest.mark.parametrize("ratio, low, high, expected", [
    ("1.02", "0.93", "1.06", "within 0.9-1.1"),
    ("1.02", "", "", "within 0.9-1.1"),
    ("0.98", "0.82", "1.06", "interval crosses 0.9-1.1"),
    ("1.14", "1.11", "1.24", "outside 0.9-1.1"),
    ("", "2.05", "2.11", "outside 0.9-1.1"),
    ("", "0.95", "1.09", "within 0.9-1.1"),
])
def test_the_reading_against_the_band(ratio, low, high, expected):
    assert fidelity.reading({**GOOD, "ratio": ratio, "ci_low": low, "ci_high": high}) == expected


def test_the_table_puts_todays_kernel_first_and_says_when_nothing_was_measured():
    rows = fidelity.table("spsc")
    assert rows["today's kernel"].iloc[0] == "yes" and set(rows["today's kernel"]) == {"yes", "no"}
    assert "No fidelity measurement exists yet for c:pingpong" in fidelity.section("signalling", ["c:pingpong"]).data
    assert "No fidelity measurement exists yet for the locks experiment" in fidelity.section("locks").data
