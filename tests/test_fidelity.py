"""data/fidelity: every file keeps the schema (mechsym.fidelity.records), a bad row is refused with a one-line message,
the reading against the 0.9-1.1 band (an A/A outside it too), and "today's kernel" derived from the kernel's
fingerprint at the row's commit, never typed."""

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
    order = {"yes": 0, "unknown": 1, "no": 2}
    derived = list(rows["today's kernel"])
    assert set(derived) <= set(order) and derived == sorted(derived, key=order.get)
    assert "No fidelity measurement exists yet for c:pingpong" in fidelity.section("signalling", ["c:pingpong"]).data
    assert "No fidelity measurement exists yet for the locks experiment" in fidelity.section("locks").data


def test_an_outside_a_a_reads_outside_whatever_the_ratio():
    assert fidelity.reading({**GOOD, "aa_ratio": "0.892"}) == "outside 0.9-1.1 (A/A 0.892)"
    assert fidelity.reading({**GOOD, "aa_ratio": "1.105"}).startswith("outside")
    assert fidelity.reading({**GOOD, "aa_ratio": "1.00"}) == "within 0.9-1.1"


def test_todays_kernel_is_derived_from_the_kernel_fingerprint_at_the_rows_commit(tmp_path, monkeypatch):
    import subprocess

    def git(*args):
        subprocess.run(["git", "-C", str(tmp_path), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                       capture_output=True)
    java = tmp_path / "java-src/mechsym/foo/Foo.java"
    java.parent.mkdir(parents=True)
    java.write_text("package mechsym.foo;\n/** The lesson. */\npublic class Foo { long run() { return 1; } }\n")
    c = tmp_path / "c-src/spin.c"
    c.parent.mkdir(parents=True)
    c.write_text("int main(void) { return 0; }\n")
    (tmp_path / "Makefile").write_text("CC ?= gcc\nbuild/c/%: c-src/%.c\n\t$(CC) -O2 -o $@ $<\n")
    git("init", "-q")
    git("add", "-A")
    git("commit", "-qm", "kernels")
    commit = subprocess.run(["git", "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    monkeypatch.setenv("MECHSYM_CODE_ROOT", str(tmp_path))
    assert fidelity.todays_kernel("mechsym.foo.Foo", commit) == "yes"
    assert fidelity.todays_kernel("c:spin", commit) == "yes"
    java.write_text(java.read_text().replace("The lesson.", "Another lesson."))   # a comment: same code
    assert fidelity.todays_kernel("mechsym.foo.Foo", commit) == "yes"
    java.write_text(java.read_text().replace("return 1;", "return 2;"))
    assert fidelity.todays_kernel("mechsym.foo.Foo", commit) == "no"
    assert fidelity.todays_kernel("c:spin", commit) == "yes"   # another kernel's edit leaves it
    (tmp_path / "Makefile").write_text("CC ?= gcc\nbuild/c/%: c-src/%.c\n\t$(CC) -O0 -o $@ $<\n")
    assert fidelity.todays_kernel("c:spin", commit) == "no"    # its compiler flags changed
    assert fidelity.todays_kernel("mechsym.foo.Foo", "0" * 40) == "unknown"
