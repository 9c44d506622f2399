"""Provenance: kernel fingerprints that follow the code deciding a run's numbers and ignore comments and layout,
the git state of the checkout, and stale / current / unknown for stored runs."""

import subprocess

import pytest

from mechsym import experiments, provenance

KERNEL = """package mechsym.foo;

import mechsym.common.Args;

/** Counts to N: the lesson is in the loop. */
public final class Foo {
    // the loop below is what is timed
    public static void main(String[] args) {
        long n = Args.n(args);
        long sum = 0;
        for (long i = 0; i < n; i++) { sum += i; }
        System.out.println("sum," + sum);
    }
}
"""
ARGS = "package mechsym.common;\npublic final class Args { public static long n(String[] a) { return 10; } }\n"
UNUSED = "package mechsym.common;\npublic final class Unused { int x = 1; }\n"
SWEEP = '''"""The foo sweep."""
KERNEL = "mechsym.foo.Foo"
PRESETS = {"smoke": {"n": 10}, "standard": {"n": 1000}}
'''


def git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path):
    files = {"java-src/mechsym/foo/Foo.java": KERNEL, "java-src/mechsym/common/Args.java": ARGS,
             "java-src/mechsym/common/Unused.java": UNUSED,
             "src/mechsym/experiments/foo/sweep.py": SWEEP,
             "src/mechsym/experiments/foo/tables.py": "X = 1\n", "c-src/other.c": "int main(void) { return 0; }\n"}
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    git(tmp_path, "init", "-q")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "add", "-A")
    git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "kernel")
    return tmp_path


def head(root):
    return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()


def fp(root):
    return provenance.fingerprint("foo", provenance.WorkTree(root))


def edit(root, path, old, new):
    p = root / path
    text = p.read_text()
    assert old in text
    p.write_text(text.replace(old, new))


def test_inputs_are_the_kernel_what_it_reaches_and_the_sweep(repo):
    paths = [p for p, _ in provenance.inputs("foo", provenance.WorkTree(repo)).sources]
    assert paths == ["src/mechsym/experiments/foo/sweep.py", "java-src/mechsym/common/Args.java",
                     "java-src/mechsym/foo/Foo.java"]


@pytest.mark.parametrize("path, old, new", [
    ("java-src/mechsym/foo/Foo.java", "/** Counts to N: the lesson is in the loop. */", "/** Another lesson. */"),
    ("java-src/mechsym/foo/Foo.java", "// the loop below is what is timed", "// reworded"),
    ("java-src/mechsym/foo/Foo.java", "for (long i = 0; i < n; i++) { sum += i; }",
     "for (long i = 0;\n             i < n;\n             i++) {\n            sum += i;\n        }"),
    ("src/mechsym/experiments/foo/sweep.py", '"""The foo sweep."""', '"""Reworded."""\n# a comment'),
    ("src/mechsym/experiments/foo/tables.py", "X = 1", "X = 2"),
    ("java-src/mechsym/common/Unused.java", "int x = 1;", "int x = 2;"),
    ("c-src/other.c", "return 0;", "return 1;"),
])
def test_comments_layout_and_unrelated_files_keep_the_fingerprint(repo, path, old, new):
    before = fp(repo)
    edit(repo, path, old, new)
    assert fp(repo) == before


@pytest.mark.parametrize("path, old, new", [
    ("java-src/mechsym/foo/Foo.java", "sum += i;", "sum += 2 * i;"),
    ("java-src/mechsym/foo/Foo.java", '"sum,"', '"total,"'),
    ("java-src/mechsym/common/Args.java", "return 10;", "return 11;"),
    ("src/mechsym/experiments/foo/sweep.py", '"n": 1000', '"n": 2000'),
])
def test_a_change_to_what_is_run_changes_the_fingerprint(repo, path, old, new):
    before = fp(repo)
    edit(repo, path, old, new)
    assert fp(repo) != before


def test_the_commit_and_the_clean_checkout_agree(repo):
    assert provenance.commit_fingerprint("foo", head(repo), repo) == fp(repo)


def test_stored_runs_are_current_stale_or_unknown(repo):
    meta = {"experiment": "foo", "run_id": "r1", "git_commit": head(repo)}
    assert provenance.status(meta, repo)[0] == provenance.CURRENT
    assert provenance.banner([meta], repo) is None
    edit(repo, "java-src/mechsym/foo/Foo.java", "sum += i;", "sum -= i;")
    state, why = provenance.status(meta, repo)
    assert state == provenance.STALE and head(repo)[:7] in why
    assert "r1" in provenance.banner([meta], repo) and "refresh" in provenance.banner([meta], repo)
    dirty = {"experiment": "foo", "run_id": "r2", "git_commit": head(repo) + "-dirty"}
    assert provenance.status(dirty, repo) == (provenance.UNKNOWN, f"made from a dirty tree: {head(repo)[:12]}")
    gone = {"experiment": "foo", "run_id": "r3", "git_commit": "0" * 40}
    assert provenance.status(gone, repo)[0] == provenance.UNKNOWN
    recorded = {"experiment": "foo", "run_id": "r4",
                "provenance": {"version": provenance.VERSION, "fingerprint": fp(repo), "commit": "x"}}
    assert provenance.status(recorded, repo)[0] == provenance.CURRENT


def test_git_state_carries_the_diff_that_rebuilds_the_tree(repo):
    state = provenance.git_state(repo)
    assert state.clean and state.diff == b"" and state.diff_sha256 is None
    edit(repo, "java-src/mechsym/foo/Foo.java", "sum += i;", "sum ^= i;")
    (repo / "java-src/mechsym/foo/New.java").write_text("class New {}\n")
    state = provenance.git_state(repo)
    assert not state.clean and len(state.diff_sha256) == 64
    assert state.dirty_files() == ["java-src/mechsym/foo/Foo.java", "java-src/mechsym/foo/New.java"]
    # the diff applied to a clean copy of the commit gives back the dirty tree
    clone = repo.parent / "clone"
    subprocess.run(["git", "clone", "-q", str(repo), str(clone)], check=True)
    subprocess.run(["git", "-C", str(clone), "apply", "-"], input=state.diff, check=True)
    assert fp(clone) == fp(repo)
    assert (clone / "java-src/mechsym/foo/New.java").read_text() == "class New {}\n"


def test_every_experiment_of_the_checkout_has_a_fingerprint():
    for name in experiments.names():
        assert len(provenance.fingerprint(name)) == 16
