"""Provenance: kernel fingerprints that follow the code deciding a run's numbers and ignore comments and layout,
the git state of the checkout, and stale / current / unknown for stored runs."""

import subprocess

import pytest

from mechsym import experiments
from mechsym.store import provenance

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


# ---------------------------------------------------------------- the bench: refusal, list, verdicts, pages

import json  # noqa: E402
import shutil  # noqa: E402
from pathlib import Path  # noqa: E402

from conftest import ROOT, mechsym  # noqa: E402

CODE = ("java-src", "jmh-src", "c-src", "pom.xml", "Makefile", "src/mechsym")
LOOP = "java-src/mechsym/callerchoose/SplitCost.java"


def copy_code(dest: Path) -> Path:
    for part in CODE:
        src = ROOT / part
        if src.is_dir():
            shutil.copytree(src, dest / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, dest / part)
    return dest


def stored_run(store: Path, fingerprint: str) -> Path:
    """A copy of the committed callerchoose run whose provenance names `fingerprint` (what a run records)."""
    def lab_base(path: Path) -> bool:   # not a JMH run, not forks added to another run (--until-decided)
        meta = json.loads(path.read_text())
        return not meta.get("extends") and (meta.get("overrides") or {}).get("protocol") != "jmh"

    src = [p for p in sorted((ROOT / "data" / "results").glob("*/callerchoose/*.json")) if lab_base(p)][-1]
    folder = store / src.parent.parent.name / "callerchoose"
    folder.mkdir(parents=True)
    shutil.copy2(src.with_suffix(".csv"), folder / src.with_suffix(".csv").name)
    meta = json.loads(src.read_text())
    meta["provenance"] = {"version": provenance.VERSION, "commit": "f" * 40, "clean": True, "fingerprint": fingerprint}
    (folder / src.name).write_text(json.dumps(meta, indent=2))
    return folder / src.name


def loop_line(text: str) -> tuple[str, str]:
    """A statement of the kernel's code (not a comment) and a changed copy of it."""
    import re

    code = provenance.java_tokens(text)
    m = re.search(r"\b(\w+)\s*\+\+", text) or re.search(r"\+=", text)
    assert m and m.group(0) in text and code
    return m.group(0), m.group(0).replace("++", "--") if "++" in m.group(0) else "-="


def test_a_changed_loop_marks_runs_stale_and_a_javadoc_edit_does_not(tmp_path):
    code = copy_code(tmp_path / "code")
    store = tmp_path / "results"
    stored_run(store, provenance.fingerprint("callerchoose", provenance.WorkTree(code)))
    env = {"MECHSYM_RESULTS": str(store), "MECHSYM_CODE_ROOT": str(code)}

    def listed() -> str:
        r = mechsym("list", env=env)
        assert r.returncode == 0, r.stderr
        return next(line for line in r.stdout.splitlines() if "callerchoose" in line and "standard" in line)

    def judged() -> str:
        r = mechsym("verdicts", "callerchoose", env=env)
        assert r.returncode == 0, r.stderr
        return r.stdout

    def banner():   # what a notebook shows above the runs (nb.whose) and on its verdict table
        from mechsym.view import nb
        from mechsym.store import runs as store

        with pytest.MonkeyPatch.context() as mp:
            for k, v in env.items():
                mp.setenv(k, v)
            return nb.stale_banner(store.load("callerchoose", "all"), "callerchoose")

    assert "current" in listed() and "STALE" not in judged() and banner() is None
    text = (code / LOOP).read_text()
    (code / LOOP).write_text(text.replace("/**", "/** Reworded: a javadoc edit. ", 1))
    assert "current" in listed() and "STALE" not in judged() and banner() is None
    old, new = loop_line(text)
    (code / LOOP).write_text(text.replace(old, new, 1))
    assert "stale" in listed() and "STALE" in judged() and "measured with older kernels" in banner()


@pytest.mark.kernel
def test_a_measuring_run_on_a_dirty_tree_is_refused_and_writes_nothing(tmp_path, monkeypatch):
    from mechsym import MechsymError, experiments
    from mechsym.run import sweep

    dirty = provenance.GitState("a" * 40, False, b"diff --git a/java-src/X.java b/java-src/X.java\n+x\n")
    monkeypatch.setattr(provenance, "git_state", lambda root=None: dirty)
    store = tmp_path / "results"
    monkeypatch.setenv("MECHSYM_RESULTS", str(store))
    for preset in ("standard", "full"):
        with pytest.raises(MechsymError, match=r"tree is not clean \(1 changed file: java-src/X.java\).*--allow-dirty"):
            sweep.execute(experiments.get("callerchoose"), preset, progress=False)
    assert not store.exists()
    assert sweep.check_clean("smoke") is dirty           # smoke runs are never results: no refusal
    assert sweep.check_clean("standard", allow_dirty=True) is dirty


def test_run_metadata_records_what_made_it(monkeypatch):
    from mechsym import experiments
    from mechsym.run import sweep
    from mechsym.machine.cpus import read_topology

    dirty = provenance.GitState("b" * 40, False, b"diff --git a/a b/a\n+1\n")
    monkeypatch.setattr(provenance, "git_state", lambda root=None: dirty)
    module = experiments.get("callerchoose")
    topo = read_topology()
    meta = sweep.run_metadata("callerchoose", "smoke", topo, sweep.plan(module, "smoke", topo=topo), {}, dirty, True)
    prov = meta["provenance"]
    assert meta["git_commit"] == "b" * 40 + "-dirty"
    assert prov["clean"] is False and prov["allow_dirty"] is True and prov["diff"] == "diff --git a/a b/a\n+1\n"
    assert prov["diff_sha256"] == dirty.diff_sha256 and prov["fingerprint"] == provenance.fingerprint("callerchoose")
    assert "build/mechsym.jar" in prov["artefacts"] and len(prov["artefacts"]["build/mechsym.jar"]) == 64


def test_replication_counts_only_other_runs_of_the_same_kernels(tmp_path, monkeypatch):
    import hashlib

    from mechsym import experiments
    from mechsym.store import runs as store
    from mechsym.view import collect as verdict_collect

    root = tmp_path / "results"
    now = provenance.fingerprint("callerchoose")
    first = stored_run(root, now)
    meta = json.loads(first.read_text())
    second = first.with_name(first.stem[:-6] + "abcdef.json")
    data = first.with_suffix(".csv").read_bytes().replace(first.stem.encode(), second.stem.encode())
    second.with_suffix(".csv").write_bytes(data)
    meta.update(run_id=second.stem, saved_at="2000-01-01T00:00:00+00:00", csv_bytes=len(data),
                csv_sha256=hashlib.sha256(data).hexdigest())
    monkeypatch.setenv("MECHSYM_RESULTS", str(root))
    module = experiments.get("callerchoose")
    machine = first.parent.parent.name

    def votes(fingerprint):
        meta["provenance"]["fingerprint"] = fingerprint
        second.write_text(json.dumps(meta))
        df = store.load("callerchoose", machine)
        assert set(df["run_id"]) == {first.stem}  # the newer run is shown, the other one may vote
        main = verdict_collect.machine_verdicts(module, df)
        return {v.runs_total for v in verdict_collect.replication(module, "callerchoose", df, main)}

    assert votes(now) == {2}          # the run judged and one other run of the same kernels (k of n runs)
    assert votes("0" * 16) in ({None}, {1})  # a run of other kernels never votes: the judged run alone


def test_a_notebook_over_a_stale_run_says_so(results_dir, smoke_store, tmp_path):
    from mechsym.view.reports import execute

    shutil.copytree(smoke_store("callerchoose"), results_dir, dirs_exist_ok=True)
    for j in results_dir.glob("*/callerchoose/*.json"):
        meta = json.loads(j.read_text())
        meta["provenance"]["fingerprint"] = "0" * 16
        j.write_text(json.dumps(meta))
    out = tmp_path / "16.ipynb"
    execute(ROOT / "notebooks" / "16-let-the-caller-choose.ipynb", out, preset="stored", timeout=600)
    text = out.read_text()
    assert "Stale results" in text and "measured with older kernels" in text


def test_stored_results_do_not_make_the_tree_dirty(repo):
    """A refresh stores one experiment's run, then measures the next: the first run's files are output, not code."""
    (repo / "data" / "results" / "m" / "foo").mkdir(parents=True)
    (repo / "data" / "results" / "m" / "foo" / "r.csv").write_text("run_id\n")
    assert provenance.git_state(repo).clean
    (repo / "src" / "mechsym" / "experiments" / "foo" / "new.py").write_text("X = 1\n")
    assert provenance.git_state(repo).dirty_files() == ["src/mechsym/experiments/foo/new.py"]


def test_a_saved_notebook_does_not_make_the_tree_dirty(repo):
    """A notebook saved in JupyterLab (its paired .ipynb and source, with a new PRESET) is not code that makes a
    number: a standard run is not refused for it; a changed kernel or shared module still is."""
    from mechsym import MechsymError
    from mechsym.run import sweep

    for path in ("notebooks/16.ipynb", "notebooks/src/16.py", "docs/new.md"):
        (repo / path).parent.mkdir(parents=True, exist_ok=True)
        (repo / path).write_text('PRESET = "standard"\n')
    assert provenance.git_state(repo).clean
    sweep.check_clean("standard", state=provenance.git_state(repo))
    (repo / "src" / "mechsym" / "launch.py").write_text("X = 2\n")
    (repo / "c-src" / "other.c").write_text("int main(void) { return 1; }\n")
    state = provenance.git_state(repo)
    assert state.dirty_files() == ["c-src/other.c", "src/mechsym/launch.py"]
    with pytest.raises(MechsymError, match=r"tree is not clean \(2 changed files"):
        sweep.check_clean("standard", state=state)
