"""Values that decide a run's numbers but live outside its kernels' sources, read from a tree **as values**: a
JVM flag the sweep takes from shared code (`harness.JIT_LOG`), the JMH presets (`jmh.PRESETS`), the command that
compiles a C kernel (the Makefile's `build/c/%` recipe, its variables expanded).

The lesson: a fingerprint that hashes files by path breaks on the first move of a module (every run stale, none
measured otherwise) and misses what a file elsewhere decides. So each value is found by name, the way the code
finds it (a constant in whichever `src/mechsym/**/<module>.py` defines it, at today's path or an older one), and
hashed as what it is (the constant's expression as a syntax tree; the recipe as the command it runs): a commit
from before a move gives the same value, and a changed flag gives another.
"""

from __future__ import annotations

import ast
import re

MISSING = "<undefined>"


# ---------------------------------------------------------------- constants the sweep takes from shared code

def shared_constants(modules: dict[str, ast.Module]) -> set[tuple[str, str]]:
    """(module name, CONSTANT) pairs the experiment's modules take from the lab's shared code: `harness.JIT_LOG`
    after `from ...run import harness`, and `PLACEMENTS` after `from ...machine.cpus import PLACEMENTS` (its own
    modules, `from .meta import ...`, are hashed whole; the standard library and third parties are left out)."""
    out: set[tuple[str, str]] = set()
    for tree in modules.values():
        bound: dict[str, str] = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.level >= 2 or (node.module or "").startswith("mechsym")):
                last = (node.module or "").rpartition(".")[2]
                for a in node.names:
                    if _constant(a.name) and last:
                        out.add((last, a.name))
                    else:
                        bound[a.asname or a.name] = a.name
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in bound \
                    and _constant(node.attr):
                out.add((bound[node.value.id], node.attr))
    return out


def _constant(name: str) -> bool:
    return bool(re.fullmatch(r"[A-Z][A-Z0-9_]*", name))


def constant_value(tree, module: str, name: str) -> str:
    """The expression `module.name` is assigned, as a syntax tree, from the first `src/mechsym/**/<module>.py`
    (outside the experiments) that assigns it at its top level; MISSING when none does."""
    candidates = sorted((p for p in tree.files("src/mechsym")
                         if p.endswith(f"/{module}.py") and not p.startswith("src/mechsym/experiments/")),
                        key=lambda p: (p.count("/"), p))
    for path in candidates:
        try:
            parsed = ast.parse((tree.read(path) or b"").decode("utf-8", "replace"))
        except SyntaxError:
            continue
        for stmt in parsed.body:
            targets = stmt.targets if isinstance(stmt, ast.Assign) else \
                [stmt.target] if isinstance(stmt, ast.AnnAssign) and stmt.value is not None else []
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                return ast.dump(stmt.value, annotate_fields=False)
    return MISSING


# ---------------------------------------------------------------- the C compiler command

def _makefile_variables(lines: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in lines:
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(?:\?=|:=|::=|=)\s*(.*?)\s*$", line)
        if m and m.group(1) not in out:
            out[m.group(1)] = m.group(2)
    return out


def c_recipe(tree, stem: str) -> str:
    """The commands `make` runs to write build/c/<stem> (its own rule, else the `build/c/%` pattern rule: the
    recipe lines naming the target `$@`), each with `$(VAR)` expanded from the Makefile's assignments and the echo
    marker `@` dropped; MISSING without a rule."""
    text = (tree.read("Makefile") or b"").decode("utf-8", "replace")
    lines = text.splitlines()
    variables = _makefile_variables(lines)
    for target in (f"build/c/{stem}", "build/c/%"):
        for i, line in enumerate(lines):
            if re.match(rf"^{re.escape(target)}\s*:(?!=)", line):
                recipe = []
                for rule in lines[i + 1:]:
                    if not rule.startswith("\t"):
                        break
                    if "$@" in rule:   # a command that writes the binary (not a check or a mkdir)
                        recipe.append(_expand(rule.strip().lstrip("@-+").strip(), variables))
                return "\n".join(recipe)
    return MISSING


def _expand(command: str, variables: dict[str, str], depth: int = 0) -> str:
    if depth > 5:
        return command
    out = re.sub(r"\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]", lambda m: variables.get(m.group(1), ""), command)
    return out if out == command else _expand(out, variables, depth + 1)
