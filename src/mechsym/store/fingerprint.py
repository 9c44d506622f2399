"""A **kernel fingerprint** is a sha256 over everything that decides a run's numbers, and nothing else, one per
protocol family, since the two families run different code:

- **lab** (the lab's kernels, `lab` and `post` protocols): the Java packages its sweep names
  (`"mechsym.locks.LockContention"` -> `java-src/mechsym/locks/`) and every class those reach, the C sources it names
  (`"pingpong"` -> `c-src/pingpong.c`) with the headers they include, and the command that compiles them (the
  Makefile's `build/c/%` recipe, expanded: `gcc -O2 ...`);
- **jmh** (`mechsym run --protocol jmh`): the JMH benchmarks its sweep names (`"mechsym.jmh.Locks.increment"` ->
  `jmh-src/mechsym/jmh/Locks.java`) and every class those reach (a kernel class a benchmark imports, too), and the
  JMH presets (`jmh.PRESETS`: forks, warm-up and measured iterations);
- both: the third-party jars the Java sources import (`group:artifact:version` from pom.xml), its sweep (`sweep.py`
  and `meta.py` of its package, or its single module in older trees, as Python syntax trees: docstrings, comments
  and import paths dropped), and the constants the sweep takes from shared code (`harness.JIT_LOG`, a JVM flag).

Java and C are tokenised with comments and layout dropped (a javadoc edit or a reflowed line keeps the fingerprint;
a changed loop, constant or field order does not). Values outside the sources (flags, presets, the compiler command)
are read as values, found by name (mechsym.store.extracted), so moving a module keeps every fingerprint. A lab-kernel
or C edit leaves the JMH runs current where the benchmarks did not change, and a benchmark edit the lab's runs.

The fingerprint is computed over a tree: the checkout (`WorkTree`) or any commit (`CommitTree`), so a run stored
before fingerprints were recorded (or under an older VERSION) gets one derived from the clean commit it names
(mechsym.store.provenance compares them). Not covered: the shared bench (how `launch` starts a JVM), the JDK and
the C compiler's own version, which the run's metadata records separately.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import io
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .trees import CommitTree, ProvenanceError, WorkTree, _git, repo_root  # noqa: F401  (re-exported)

#: Bump when the normalisation changes: fingerprints of different versions never compare equal. 3: one fingerprint
#: per protocol family, with the shared constants, the JMH presets and the C compiler command.
VERSION = 3
#: The protocol families: the lab's kernels (protocols lab and post) and JMH's benchmarks.
LAB, JMH = "lab", "jmh"
FAMILIES = (LAB, JMH)


# ---------------------------------------------------------------- normalisation

_C_LIKE = re.compile(
    r'"""(?:.|\n)*?"""'                 # Java text block
    r'|"(?:\\.|[^"\\\n])*"'             # string literal
    r"|'(?:\\.|[^'\\\n])*'"             # char literal
    r"|//[^\n]*"                        # line comment
    r"|/\*(?:.|\n)*?\*/"                # block comment (javadoc too)
    r"|[A-Za-z0-9_$.]+"                 # identifiers, keywords, numbers (dots kept: 1.5e3, a.b)
    r"|\S")                             # any other single character


def java_tokens(text: str) -> str:
    """Java or C source as its tokens, one space between two word tokens: comments and layout gone, literals kept."""
    out: list[str] = []
    prev_word = False
    for m in _C_LIKE.finditer(text):
        tok = m.group(0)
        if tok.startswith("//") or tok.startswith("/*"):
            continue
        word = tok[0].isalnum() or tok[0] in "_$"
        if word and prev_word:
            out.append(" ")
        out.append(tok)
        prev_word = word
    return "".join(out)


def _strip_docstrings(tree: ast.AST) -> ast.AST:
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree


def _strip_import_paths(tree: ast.AST) -> ast.AST:
    """`from ...run.sweep import Cell, Fork` as `from _ import Cell` and `from _ import Fork` (`... import runs as
    store` as `import store`), each run of import statements in name order: the names a module binds decide what it
    runs; the module they come from, and how the imports are grouped, is where the lab keeps them (moving a module
    between packages changes no number)."""
    for node in ast.walk(tree):
        for name in ("body", "orelse", "finalbody"):
            body = getattr(node, name, None)
            if not isinstance(body, list) or not body or not isinstance(body[0], ast.AST):
                continue
            out, run = [], []
            for stmt in body + [None]:
                if isinstance(stmt, ast.ImportFrom):
                    run += [ast.ImportFrom(module=None, names=[ast.alias(name=a.asname or a.name)], level=0)
                            for a in stmt.names]
                    continue
                if run:
                    out += sorted(run, key=lambda s: s.names[0].name)
                    run = []
                if stmt is not None:
                    out.append(stmt)
            setattr(node, name, out)
    return tree


def python_tokens(text: str) -> str:
    """A Python module as its syntax tree without docstrings and import paths (comments and layout never reach the
    tree)."""
    return ast.dump(_strip_import_paths(_strip_docstrings(ast.parse(text))), annotate_fields=False)


# ---------------------------------------------------------------- what an experiment's numbers depend on

def _experiment_python(tree, experiment: str) -> dict[str, str]:
    """The experiment's Python sources that build its cells: {path: text} (package sweep/meta, or the old module)."""
    pkg = f"src/mechsym/experiments/{experiment}"
    out = {}
    for name in ("sweep.py", "meta.py"):
        data = tree.read(f"{pkg}/{name}")
        if data is not None:
            out[f"{pkg}/{name}"] = data.decode("utf-8", "replace")
    if not out:
        data = tree.read(f"{pkg}.py")
        if data is not None:
            out[f"{pkg}.py"] = data.decode("utf-8", "replace")
    return out


def _all_experiment_text(tree, experiment: str) -> str:
    """Every Python source of the experiment (to find the kernels it names; its tables may name a second one)."""
    pkg = f"src/mechsym/experiments/{experiment}"
    texts = [(tree.read(p) or b"").decode("utf-8", "replace") for p in tree.files(pkg) if p.endswith(".py")]
    single = tree.read(f"{pkg}.py")
    if single is not None:
        texts.append(single.decode("utf-8", "replace"))
    return "\n".join(texts)


def _java_files(tree) -> dict[str, str]:
    """{fully qualified class name: path} of every Java source under java-src/ (kernels) and jmh-src/ (benchmarks)."""
    out = {}
    for p in tree.files("java-src") + tree.files("jmh-src"):
        if p.endswith(".java"):
            parts = PurePosixPath(p).with_suffix("").parts[1:]
            out[".".join(parts)] = p
    return out


def _java_closure(tree, start: set[str]) -> tuple[list[str], set[str]]:
    """The Java sources reached from the classes in `start`: a file reaches a class of its own package that it names,
    a class it imports (or whose package it imports with *), and a class it names fully qualified. Returns the paths
    and the imports outside mechsym (for the third-party jars)."""
    classes = _java_files(tree)
    by_package: dict[str, dict[str, str]] = {}
    for fq in classes:
        pkg, _, simple = fq.rpartition(".")
        by_package.setdefault(pkg, {})[simple] = fq
    todo, seen, imports = [c for c in start if c in classes], set(), set()
    while todo:
        fq = todo.pop()
        if fq in seen:
            continue
        seen.add(fq)
        text = java_tokens((tree.read(classes[fq]) or b"").decode("utf-8", "replace"))
        words = set(re.findall(r"[A-Za-z_$][A-Za-z0-9_$]*", text))
        visible = dict(by_package.get(fq.rpartition(".")[0], {}))
        for m in re.finditer(r"\bimport (static )?([A-Za-z0-9_.]+?)(\.\*)?;", text):
            name = m.group(2)
            imports.add(name.lower())
            if m.group(3) and name in by_package:
                visible.update(by_package[name])
            elif name in classes:
                visible[name.rpartition(".")[2]] = name
            elif m.group(1) and name.rpartition(".")[0] in classes:
                todo.append(name.rpartition(".")[0])
        todo += [v for k, v in visible.items() if k in words and v not in seen]
        todo += [m.group(0) for m in re.finditer(r"\bmechsym(?:\.[a-z][a-z0-9_]*)+\.[A-Z]\w*", text)
                 if m.group(0) in classes]
    return sorted(classes[c] for c in seen), imports


def _dependencies(tree, imports: set[str]) -> list[str]:
    """pom.xml dependencies whose groupId prefixes one of the imports, as group:artifact:version."""
    data = tree.read("pom.xml")
    if data is None:
        return []
    try:
        root = ET.parse(io.BytesIO(data)).getroot()
    except ET.ParseError as e:
        raise ProvenanceError(f"pom.xml does not parse: {e}") from e
    ns = {"m": root.tag[1:].split("}")[0]} if root.tag.startswith("{") else {}
    q = (lambda t: f"m:{t}") if ns else (lambda t: t)
    out = []
    for dep in root.iterfind(f"{q('dependencies')}/{q('dependency')}", ns):
        g, a, v = (dep.findtext(q(t), default="", namespaces=ns).strip() for t in ("groupId", "artifactId", "version"))
        if any(i.startswith(g.lower() + ".") or i == g.lower() for i in imports):
            out.append(f"{g}:{a}:{v}")
    return sorted(out)


def _c_headers(tree, sources: list[str]) -> list[str]:
    """The c-src headers the C sources include (`#include "x.h"`), transitively: a header only one kernel includes
    changes only that kernel's experiments."""
    seen: list[str] = []
    todo = list(sources)
    while todo:
        path = todo.pop()
        text = (tree.read(path) or b"").decode("utf-8", "replace")
        for m in re.finditer(r'^\s*#\s*include\s*"([^"]+)"', text, re.M):
            h = f"c-src/{m.group(1)}"
            if h not in seen and tree.read(h) is not None:
                seen.append(h)
                todo.append(h)
    return seen


@dataclass(frozen=True)
class Inputs:
    """What an experiment's fingerprint hashes for one family: each path with its normalised text, the
    dependencies, and the values read from elsewhere in the tree (`name`, value)."""
    sources: tuple[tuple[str, str], ...]
    dependencies: tuple[str, ...]
    values: tuple[tuple[str, str], ...] = ()
    family: str = LAB

    def digest(self) -> str:
        h = hashlib.sha256(f"mechsym-fingerprint v{VERSION} {self.family}\n".encode())
        for path, text in self.sources:
            h.update(f"{path}\0{len(text)}\0".encode())
            h.update(text.encode())
        for d in self.dependencies:
            h.update(f"dep\0{d}\n".encode())
        for name, value in self.values:
            h.update(f"value\0{name}\0{len(value)}\0".encode())
            h.update(value.encode())
        return h.hexdigest()


def check_family(family: str) -> str:
    if family not in FAMILIES:
        raise ProvenanceError(f"protocol family '{family}': not one of {', '.join(FAMILIES)}")
    return family


def inputs(experiment: str, tree=None, family: str = LAB) -> Inputs:
    """The normalised sources, dependencies and values that decide `experiment`'s numbers under `family` (lab: its
    kernels; jmh: its JMH benchmarks), in `tree` (default: the checkout)."""
    from . import extracted

    check_family(family)
    tree = tree or WorkTree()
    python = _experiment_python(tree, experiment)
    if not python:
        raise ProvenanceError(f"experiment '{experiment}': no sweep in {tree.key()}")
    text = _all_experiment_text(tree, experiment)
    benchmarks = {fq for fq, path in _java_files(tree).items() if path.startswith("jmh-src/")}
    named = {m.group(0) for m in re.finditer(r"\bmechsym(?:\.[a-z][a-z0-9_]*)+\.[A-Z]\w*", text)}
    start = named & benchmarks if family == JMH else named - benchmarks
    if family == JMH and not start:
        raise ProvenanceError(f"experiment '{experiment}': names no JMH benchmark in {tree.key()}")
    java, imports = _java_closure(tree, start)
    sources: list[tuple[str, str]] = []
    trees = {}
    for path, src in sorted(python.items()):
        try:
            trees[path] = ast.parse(src)
            sources.append((path, python_tokens(src)))
        except SyntaxError as e:
            raise ProvenanceError(f"{path} does not parse: {e.msg} (line {e.lineno})") from e
    for path in java:
        sources.append((path, java_tokens((tree.read(path) or b"").decode("utf-8", "replace"))))
    values = [(f"{m}.{c}", extracted.constant_value(tree, m, c))
              for m, c in sorted(extracted.shared_constants(trees))]
    if family == JMH:
        values.append(("jmh.PRESETS", extracted.constant_value(tree, "jmh", "PRESETS")))
    else:
        c_files = [p for p in tree.files("c-src") if p.endswith(".c")]
        named_c = [p for p in c_files if re.search(rf"[\"'/:]{re.escape(PurePosixPath(p).stem)}(?:\.c)?\b", text)]
        for path in sorted(set(named_c + _c_headers(tree, named_c))):
            sources.append((path, java_tokens((tree.read(path) or b"").decode("utf-8", "replace"))))
        values += [(f"make build/c/{PurePosixPath(p).stem}", extracted.c_recipe(tree, PurePosixPath(p).stem))
                   for p in sorted(named_c)]
    return Inputs(tuple(sources), tuple(_dependencies(tree, imports)), tuple(values), family)


def fingerprint(experiment: str, tree=None, family: str = LAB) -> str:
    """The kernel fingerprint of `experiment` for `family` in `tree` (default: the checkout), 16 hex digits."""
    return inputs(experiment, tree, family).digest()[:16]


@functools.lru_cache(maxsize=8)
def _commit_tree(root: str, commit: str) -> CommitTree:
    return CommitTree(commit, root)   # read once for every experiment and family at that commit


@functools.lru_cache(maxsize=None)
def _commit_fingerprint(root: str, commit: str, experiment: str, family: str) -> str:
    return fingerprint(experiment, _commit_tree(root, commit), family)


def commit_fingerprint(experiment: str, commit: str, root: Path | str | None = None, family: str = LAB) -> str:
    """The fingerprint of `experiment` for `family` at a commit of this history (ProvenanceError when it is not
    there)."""
    return _commit_fingerprint(str(root or repo_root()), commit, experiment, family)


# ---------------------------------------------------------------- one kernel (the fidelity rows name one)

def kernel_inputs(kernel: str, tree=None) -> Inputs:
    """One kernel's own code, as a fidelity row names it: a Java class (`mechsym.spsc.SpscThroughput`: the classes
    it reaches and the jars they import) or a C program (`c:atomic_counter`: its source, the headers it includes and
    the command that compiles it). No sweep: whether the post's code and the kernel agree does not depend on the
    cells a sweep picks."""
    from . import extracted

    tree = tree or WorkTree()
    if kernel.startswith("c:"):
        stem = kernel[2:]
        path = f"c-src/{stem}.c"
        if tree.read(path) is None:
            raise ProvenanceError(f"kernel '{kernel}': no {path} in {tree.key()}")
        sources = [(p, java_tokens((tree.read(p) or b"").decode("utf-8", "replace")))
                   for p in sorted({path, *_c_headers(tree, [path])})]
        return Inputs(tuple(sources), (), ((f"make build/c/{stem}", extracted.c_recipe(tree, stem)),), LAB)
    java, imports = _java_closure(tree, {kernel})
    if not java:
        raise ProvenanceError(f"kernel '{kernel}': no such class in {tree.key()}")
    sources = [(p, java_tokens((tree.read(p) or b"").decode("utf-8", "replace"))) for p in java]
    return Inputs(tuple(sources), tuple(_dependencies(tree, imports)), (), LAB)


def kernel_fingerprint(kernel: str, tree=None) -> str:
    """The fingerprint of one kernel's own code in `tree` (default: the checkout), 16 hex digits."""
    return kernel_inputs(kernel, tree).digest()[:16]


@functools.lru_cache(maxsize=None)
def commit_kernel_fingerprint(kernel: str, commit: str, root: str | None = None) -> str:
    """kernel_fingerprint at a commit of this history (ProvenanceError when the commit or the kernel is not there)."""
    return kernel_fingerprint(kernel, _commit_tree(str(root or repo_root()), commit))
