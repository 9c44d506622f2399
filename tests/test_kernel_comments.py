"""Every kernel's class comment is a lesson, not a measurement diary: at most 40 lines (issue 29, DESIGN.md)."""
import re
from pathlib import Path

import pytest

from mechsym.run import kernels

ROOT = Path(__file__).resolve().parents[1]
LIMIT = 40


def kernel_file(name: str) -> Path:
    """The source file of a kernel as `mechsym.run.kernels` names it."""
    if name.startswith("c:"):
        return ROOT / "c-src" / f"{name[2:]}.c"
    return ROOT / "java-src" / (name.replace(".", "/") + ".java")


def class_comment(path: Path) -> str:
    """The leading comment: the /** */ just before the public top-level class, or a C file's first /* */."""
    text = path.read_text()
    if path.suffix == ".c":
        m = re.match(r"\s*(/\*.*?\*/)", text, re.S)
    else:
        m = re.search(r"(/\*\*(?:(?!\*/).)*\*/)\s*(?:@\w+(?:\([^)]*\))?\s*)*"
                      r"public\s+(?:final\s+|abstract\s+)*(?:class|interface|enum|record)\s", text, re.S)
    if not m:
        raise AssertionError(f"{path.relative_to(ROOT)}: no leading class comment")
    return m.group(1)


def comment_lines(path: Path) -> int:
    return len(class_comment(path).splitlines())


@pytest.mark.parametrize("name", [k.name for k in kernels.KERNELS])
def test_class_comment_is_short(name):
    n = comment_lines(kernel_file(name))
    assert n <= LIMIT, f"{name}: class comment is {n} lines, at most {LIMIT}"


def test_measure_finds_the_comment_before_the_class(tmp_path):
    f = tmp_path / "K.java"
    f.write_text("package p;\n/** not this */\nimport x;\n/**\n * one\n * two\n */\n@SuppressWarnings(\"x\")\n"
                 "public final class K {\n  /** nor this */\n}\n")
    assert comment_lines(f) == 4
    c = tmp_path / "k.c"
    c.write_text("/* a\n b\n c */\n#include <x.h>\n/* later */\n")
    assert comment_lines(c) == 3
