"""A **kernel fingerprint** is a sha256 over everything that decides an experiment's numbers, and nothing else:

- the Java packages its sweep names (`"mechsym.locks.LockContention"` -> `java-src/mechsym/locks/`), every package
  those reach through `mechsym.<pkg>` references, and `common/`, each file tokenised with comments and layout
  dropped (a javadoc edit or a reflowed line keeps the fingerprint; a changed loop, constant or field order does not);
- the C sources its sweep names (`"pingpong"` -> `c-src/pingpong.c`) and every header in `c-src/`, tokenised alike;
- the third-party jars its Java sources import, as `group:artifact:version` from pom.xml;
- its sweep (the cells, presets and kernel arguments it passes): `sweep.py` and `meta.py` of its package (or its
  single module in older trees) as Python syntax trees, docstrings and comments dropped.

The fingerprint is computed over a tree: the checkout (`WorkTree`) or any commit (`CommitTree`), so a run stored
before fingerprints were recorded gets one derived from the clean commit it names (mechsym.store.provenance compares
them). Not covered: the shared bench (how `launch` starts a JVM) and the JDK itself, which the run's metadata records
separately.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import io
import os
import re
import subprocess
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

#: Bump when the normalisation changes: fingerprints of different versions never compare equal.
VERSION = 2


class ProvenanceError(Exception):
    """A fingerprint that cannot be derived (the message says why, in one line)."""


def repo_root() -> Path:
    """The checkout whose kernels runs are compared with: this repository, or $MECHSYM_CODE_ROOT (a copy of its
    java-src, c-src, pom.xml and src/mechsym/experiments, e.g. to ask whether runs are current for another tree)."""
    other = os.environ.get("MECHSYM_CODE_ROOT")
    return Path(other) if other else Path(__file__).resolve().parents[3]


# ---------------------------------------------------------------- trees: the checkout, or a commit

class WorkTree:
    """Files of the checkout as they are on disk (dirty or not)."""

    def __init__(self, root: Path | str | None = None):
        self.root = Path(root or repo_root())

    def files(self, folder: str) -> list[str]:
        base = self.root / folder
        if not base.is_dir():
            return []
        return sorted(p.relative_to(self.root).as_posix() for p in base.rglob("*") if p.is_file())

    def read(self, path: str) -> bytes | None:
        try:
            return (self.root / path).read_bytes()
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            return None

    def key(self) -> str:
        return f"work:{self.root}"


class CommitTree:
    """Files of one commit, read from git's object store (no checkout)."""

    def __init__(self, commit: str, root: Path | str | None = None):
        self.root = Path(root or repo_root())
        self.commit = commit
        r = _git(self.root, "ls-tree", "-r", "--name-only", commit)
        if r is None:
            raise ProvenanceError(f"commit {commit[:12]} is not in this repository's history")
        self._names = r.decode().splitlines()
        self._cache: dict[str, bytes | None] = {}

    def files(self, folder: str) -> list[str]:
        prefix = folder.rstrip("/") + "/"
        return sorted(n for n in self._names if n.startswith(prefix))

    def read(self, path: str) -> bytes | None:
        if not self._cache:
            self._prefetch()
        if path not in self._cache:
            self._cache[path] = _git(self.root, "show", f"{self.commit}:{path}") if path in self._names else None
        return self._cache[path]

    def _prefetch(self) -> None:
        """Every file a fingerprint can read, in one `git cat-file --batch` (one process, not one a file)."""
        wanted = [n for n in self._names if n == "pom.xml" or n.startswith(("java-src/", "jmh-src/", "c-src/",
                                                                            "src/mechsym/experiments/"))]
        try:
            r = subprocess.run(["git", "-C", str(self.root), "cat-file", "--batch"],
                               input="".join(f"{self.commit}:{n}\n" for n in wanted).encode(),
                               capture_output=True, timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            return
        out, pos = r.stdout, 0
        for name in wanted:
            end = out.find(b"\n", pos)
            if end < 0:
                return
            header = out[pos:end].split()
            if len(header) != 3 or header[1] != b"blob":
                pos = end + 1
                continue
            size = int(header[2])
            self._cache[name] = out[end + 1:end + 1 + size]
            pos = end + 1 + size + 1

    def key(self) -> str:
        return f"commit:{self.commit}"


def _git(root: Path, *args: str) -> bytes | None:
    try:
        r = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return r.stdout if r.returncode == 0 else None


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
    """What an experiment's fingerprint hashes: each path with its normalised text, and the dependencies."""
    sources: tuple[tuple[str, str], ...]
    dependencies: tuple[str, ...]

    def digest(self) -> str:
        h = hashlib.sha256(f"mechsym-fingerprint v{VERSION}\n".encode())
        for path, text in self.sources:
            h.update(f"{path}\0{len(text)}\0".encode())
            h.update(text.encode())
        for d in self.dependencies:
            h.update(f"dep\0{d}\n".encode())
        return h.hexdigest()


def inputs(experiment: str, tree=None) -> Inputs:
    """The normalised sources and dependencies that decide `experiment`'s numbers, in `tree` (default: checkout)."""
    tree = tree or WorkTree()
    python = _experiment_python(tree, experiment)
    if not python:
        raise ProvenanceError(f"experiment '{experiment}': no sweep in {tree.key()}")
    text = _all_experiment_text(tree, experiment)
    start = {m.group(0) for m in re.finditer(r"\bmechsym(?:\.[a-z][a-z0-9_]*)+\.[A-Z]\w*", text)}
    java, imports = _java_closure(tree, start)
    sources: list[tuple[str, str]] = []
    for path, src in sorted(python.items()):
        try:
            sources.append((path, python_tokens(src)))
        except SyntaxError as e:
            raise ProvenanceError(f"{path} does not parse: {e.msg} (line {e.lineno})") from e
    for path in java:
        sources.append((path, java_tokens((tree.read(path) or b"").decode("utf-8", "replace"))))
    c_files = [p for p in tree.files("c-src") if p.endswith(".c")]
    named = [p for p in c_files if re.search(rf"[\"'/:]{re.escape(PurePosixPath(p).stem)}(?:\.c)?\b", text)]
    named += _c_headers(tree, named)
    for path in sorted(set(named)):
        sources.append((path, java_tokens((tree.read(path) or b"").decode("utf-8", "replace"))))
    return Inputs(tuple(sources), tuple(_dependencies(tree, imports)))


def fingerprint(experiment: str, tree=None) -> str:
    """The kernel fingerprint of `experiment` in `tree` (default: the checkout), 16 hex digits."""
    return inputs(experiment, tree).digest()[:16]


@functools.lru_cache(maxsize=None)
def _commit_fingerprint(root: str, commit: str, experiment: str) -> str:
    return fingerprint(experiment, CommitTree(commit, root))


def commit_fingerprint(experiment: str, commit: str, root: Path | str | None = None) -> str:
    """The fingerprint of `experiment` at a commit of this history (ProvenanceError when it is not there)."""
    return _commit_fingerprint(str(root or repo_root()), commit, experiment)
