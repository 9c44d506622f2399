"""mechsym.fidelity.listings (and its commands in mechsym.fidelity.originals): the posts' Java listings cut out of the posts'
text into a scratch directory outside the repository, with only the named edits made. Text only: nothing is
compiled or run here."""

from __future__ import annotations

import shlex

import pytest

from mechsym import MechsymError
from mechsym.fidelity import originals, listings as pl
from mechsym.cli.parser import parser

FAKE = """# A post

Some prose that mentions the class Demo in passing {not code}.

```java
import java.util.List;

public final class Demo
    implements Runnable
{
    public static final long COUNT = 500L * 1000L * 1000L; // the size
    private static final String S = "a } in a string";
    private static final char C = '}';

    public static void main(final String[] args)
    {
        /* a } in a comment */
        System.out.println("duration = " + COUNT);
    }

    public void run()
    {
    }
}
```

More prose after the listing }.
"""


@pytest.fixture
def posts(tmp_path, monkeypatch):
    d = tmp_path / "posts"
    d.mkdir()
    (d / "demo.md").write_text(FAKE.replace("    public static final long", "\u00a0\u00a0\u00a0\u00a0public static "
                                                                             "final long"))
    monkeypatch.setenv(pl.POSTS_ENV, str(d))
    monkeypatch.setenv("MECHSYM_SCRATCH", str(tmp_path / "scratch"))
    monkeypatch.setattr(pl, "LISTINGS", {"demo": pl.Listing("demo.md", "Demo", (
        pl.Edit("COUNT = 500L * 1000L * 1000L;", "COUNT = {n}L;", "COUNT", 500_000_000),), 20_000_000, 1000)})
    return d


def test_a_code_block_lands_as_its_class_file_in_the_scratch_directory(posts):
    base = originals.scratch()
    files = pl.write(base)
    java = base / "posts" / "demo" / "src" / "Demo.java"
    assert files == {"demo": java}
    text = java.read_text()
    assert text.startswith("import java.util.List;\n\npublic final class Demo\n")
    assert text.endswith("    {\n    }\n}\n")          # through the class's own closing brace, no prose or fence
    assert "```" not in text and "prose" not in text and "\u00a0" not in text
    assert "COUNT = 20000000L; // the size" in text     # the one edit, and nothing else changed
    assert text.replace("COUNT = 20000000L;", "COUNT = 500L * 1000L * 1000L;") in FAKE
    assert "COUNT cut to 20 M" in (base / "posts" / "demo" / "LISTING").read_text()
    assert "COUNT = 1000L;" in pl.write(base, tiny=True)["demo"].read_text()
    assert str(base / "posts-tiny" / "demo") in str(pl.write(base, tiny=True)["demo"])


def test_a_size_equal_to_the_listings_own_is_not_an_edit(posts, monkeypatch):
    monkeypatch.setattr(pl, "LISTINGS", {"demo": pl.Listing("demo.md", "Demo", (
        pl.Edit("COUNT = 500L * 1000L * 1000L;", "COUNT = {n}L;", "COUNT", 500_000_000),), 500_000_000, 1000)})
    text, said = pl.source("demo")
    assert said == [] and "COUNT = 500L * 1000L * 1000L;" in text
    assert pl.label("demo") == "post listing Demo (demo.md), compiled with javac 17 outside the repository"


def test_a_missing_post_is_a_one_line_error(posts, capsys):
    (posts / "demo.md").unlink()
    with pytest.raises(MechsymError, match=r"post .*demo\.md: not found; set MECHSYM_POSTS") as e:
        pl.source("demo")
    assert "\n" not in str(e.value)
    assert originals.main(["build", "--only", "posts"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "demo.md: not found" in err


def test_an_edit_must_match_once_and_the_class_must_close(posts, monkeypatch):
    monkeypatch.setattr(pl, "LISTINGS", {"demo": pl.Listing("demo.md", "Demo", (
        pl.Edit("COUNT = 7;", "COUNT = {n};", "COUNT", 7),), 20, 2)})
    with pytest.raises(MechsymError, match="occurs 0 times"):
        pl.source("demo")
    with pytest.raises(MechsymError, match="no declaration of class Other"):
        pl.extract(FAKE, "Other")
    with pytest.raises(MechsymError, match="braces do not close"):
        pl.extract(FAKE[:FAKE.index("    public void run()")], "Demo")


def test_a_listing_on_one_line_is_cut_at_its_closing_brace():
    text = "What does this look like?\n\nimport static java.lang.System.out;public final class W{ void f() {} }" \
           "\n\nThis program on my machine }\n"
    assert pl.extract(text, "W") == "import static java.lang.System.out;public final class W{ void f() {} }\n"


def test_every_comparison_is_a_fidelity_run_command_the_cli_accepts(posts, monkeypatch):
    monkeypatch.setattr(pl, "COMPARISONS", [("demo", 5, "demo", "2", dict(
        experiment="atomiclong", kernel="mechsym.atomic.AtomicIncrement --count={n}", kernel_figure="csv:duration",
        listing_figure=r"^duration = (\d+)$", direction="duration", cell="COUNT {N}"))])
    monkeypatch.setattr(originals, "COMPARISONS", [])
    [(name, secs, argv)] = originals.commands(sets=8)
    args = parser().parse_args(shlex.split(shlex.join(argv))[1:])
    assert (name, secs, args.experiment, args.sets, args.cell) == ("demo", 5, "atomiclong", "8", "COUNT 20 M")
    assert args.kernel == "mechsym.atomic.AtomicIncrement --count=20000000"
    base = originals.scratch()
    assert args.listing == f"{{java}} -cp {base / 'posts' / 'demo' / 'classes'} Demo 2"
    assert args.listing_label.endswith("run as Demo 2") and "COUNT cut to 20 M" in args.listing_label
    [(_, _, tiny)] = originals.commands(sets=5, tiny=True)
    assert "--count=1000" in tiny[tiny.index("--kernel") + 1] and "posts-tiny" in tiny[tiny.index("--listing") + 1]


@pytest.mark.skipif(not pl.posts_dir().is_dir(), reason="the posts are not on this machine")
def test_the_real_posts_give_every_listing_with_its_edits_made_once():
    for name, li in pl.LISTINGS.items():
        text, said = pl.source(name)
        assert f"class {li.cls}" in text and "\u00a0" not in text and text.rstrip().endswith("}")
        assert len(said) == len([e for e in li.edits if e.orig is None or e.orig != li.size])
