"""A fingerprint per protocol family, holding what decides that family's numbers: the lab's kernels with the C
compiler command and the JVM flags the sweep takes from shared code; JMH's benchmarks with the JMH presets. A lab
kernel edit leaves a JMH run current, a benchmark edit a lab run; a moved module keeps both."""

import subprocess

import pytest

from mechsym.store import provenance
from mechsym.store.fingerprint import JMH, LAB, ProvenanceError

KERNEL = "package mechsym.foo;\npublic final class Foo { public static void main(String[] a) { long s = 1; } }\n"
BENCH = ("package mechsym.jmh;\nimport org.openjdk.jmh.annotations.Benchmark;\n"
         "public class FooBench { @Benchmark public long run() { return 1; } }\n")
C = '#include "shared.h"\nint main(void) { return SPIN; }\n'
SWEEP = '''"""The foo sweep."""
from ...run import harness
KERNEL = "mechsym.foo.Foo"
C_KERNEL = "spin"
JMH_BENCHMARK = "mechsym.jmh.FooBench.run"
FLAGS = (harness.JIT_LOG,)
'''
HARNESS = 'JIT_LOG = "-Xlog:jit+compilation=debug:stderr:uptimemillis"\nLIMIT = 0.05\n'
JMH_PY = ('from dataclasses import dataclass\nPRESETS = {"smoke": Preset(forks=1, warmup_time="100ms"),\n'
          '           "standard": Preset(forks=5, warmup_time="500ms")}\n')
MAKEFILE = ("CC     ?= gcc\n\nc: $(C_BINS)\nbuild/c/%: c-src/%.c $(wildcard c-src/*.h)\n"
            "\t@mkdir -p build/c\n\t$(CC) -O2 -pthread -Wall -o $@ $<\n")
POM = ("<project><dependencies><dependency><groupId>org.openjdk.jmh</groupId><artifactId>jmh-core</artifactId>"
       "<version>1.37</version></dependency></dependencies></project>\n")


def git(root, *args):
    subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t", *args], check=True,
                   capture_output=True)


@pytest.fixture
def repo(tmp_path):
    files = {"java-src/mechsym/foo/Foo.java": KERNEL, "jmh-src/mechsym/jmh/FooBench.java": BENCH,
             "c-src/spin.c": C, "c-src/shared.h": "#define SPIN 0\n", "src/mechsym/experiments/foo/sweep.py": SWEEP,
             "src/mechsym/run/harness.py": HARNESS, "src/mechsym/run/jmh.py": JMH_PY, "Makefile": MAKEFILE,
             "pom.xml": POM}
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "kernels")
    return tmp_path


def head(root):
    return subprocess.run(["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()


def edit(root, path, old, new):
    p = root / path
    text = p.read_text()
    assert old in text
    p.write_text(text.replace(old, new))


def statuses(repo, commit):
    """(lab run's status, JMH run's status) of two runs made at `commit` against the checkout."""
    lab = {"experiment": "foo", "run_id": "lab", "git_commit": commit}
    jmh = {"experiment": "foo", "run_id": "jmh", "git_commit": commit, "overrides": {"protocol": "jmh"}}
    return provenance.status(lab, repo)[0], provenance.status(jmh, repo)[0]


C_, S_ = provenance.CURRENT, provenance.STALE


@pytest.mark.parametrize("path, old, new, expect", [
    ("src/mechsym/run/harness.py", "debug:stderr", "info:stderr", (S_, S_)),       # the sweep's JVM flag
    ("src/mechsym/run/jmh.py", 'forks=5, warmup_time="500ms"', 'forks=5, warmup_time="100ms"', (C_, S_)),
    ("Makefile", "-O2", "-O0", (S_, C_)),                                           # the C compiler's flags
    ("Makefile", "CC     ?= gcc", "CC     ?= clang", (S_, C_)),                     # the compiler
    ("java-src/mechsym/foo/Foo.java", "long s = 1;", "long s = 2;", (S_, C_)),     # a lab kernel
    ("c-src/shared.h", "SPIN 0", "SPIN 1", (S_, C_)),                               # a header the C kernel includes
    ("jmh-src/mechsym/jmh/FooBench.java", "return 1;", "return 2;", (C_, S_)),     # the benchmark
    ("src/mechsym/run/harness.py", "LIMIT = 0.05", "LIMIT = 0.5", (C_, C_)),       # a constant the sweep never uses
    ("Makefile", "\t@mkdir -p build/c", "\t@mkdir -p build/c build/tmp", (C_, C_)),  # not the compile command
])
def test_each_family_is_stale_exactly_when_its_code_changed(repo, path, old, new, expect):
    commit = head(repo)
    assert statuses(repo, commit) == (C_, C_)
    edit(repo, path, old, new)
    assert statuses(repo, commit) == expect


def test_a_moved_module_keeps_every_fingerprint(repo):
    """The values are found by name: harness.py and jmh.py at the old flat paths give the same fingerprints."""
    commit = head(repo)
    for name in ("harness", "jmh"):
        (repo / f"src/mechsym/run/{name}.py").rename(repo / f"src/mechsym/{name}.py")
    assert statuses(repo, commit) == (C_, C_)


def test_the_families_differ_and_read_the_values(repo):
    lab = provenance.inputs("foo", provenance.WorkTree(repo), LAB)
    jmh = provenance.inputs("foo", provenance.WorkTree(repo), JMH)
    assert lab.digest() != jmh.digest()
    assert [p for p, _ in lab.sources] == ["src/mechsym/experiments/foo/sweep.py", "java-src/mechsym/foo/Foo.java",
                                           "c-src/shared.h", "c-src/spin.c"]
    assert [p for p, _ in jmh.sources] == ["src/mechsym/experiments/foo/sweep.py",
                                           "jmh-src/mechsym/jmh/FooBench.java"]
    assert dict(lab.values)["make build/c/spin"] == "gcc -O2 -pthread -Wall -o $@ $<"
    assert "uptimemillis" in dict(lab.values)["harness.JIT_LOG"]
    assert "500ms" in dict(jmh.values)["jmh.PRESETS"] and jmh.dependencies == ("org.openjdk.jmh:jmh-core:1.37",)


def test_a_run_records_its_familys_fingerprint(repo):
    state = provenance.git_state(repo)
    lab = provenance.record("foo", state, root=repo)
    jmh = provenance.record("foo", state, root=repo, protocol_family=JMH)
    assert lab["family"] == LAB and jmh["family"] == JMH and lab["fingerprint"] != jmh["fingerprint"]
    assert jmh["fingerprint"] == provenance.commit_fingerprint("foo", head(repo), repo, JMH)


def test_an_experiment_without_a_benchmark_has_no_jmh_fingerprint(repo):
    edit(repo, "src/mechsym/experiments/foo/sweep.py", 'JMH_BENCHMARK = "mechsym.jmh.FooBench.run"\n', "")
    with pytest.raises(ProvenanceError, match="names no JMH benchmark"):
        provenance.fingerprint("foo", provenance.WorkTree(repo), JMH)


def test_a_dirty_run_is_named_in_the_banner_even_when_current(repo):
    fp = provenance.fingerprint("foo", provenance.WorkTree(repo))
    dirty = {"experiment": "foo", "run_id": "d1", "git_commit": head(repo) + "-dirty",
             "provenance": {"version": provenance.VERSION, "fingerprint": fp, "commit": head(repo), "clean": False}}
    assert provenance.status(dirty, repo)[0] == C_
    text = provenance.banner([dirty], repo)
    assert text and "d1" in text and "--allow-dirty" in text
    clean = {"experiment": "foo", "run_id": "c1", "git_commit": head(repo)}
    assert provenance.banner([clean], repo) is None
