"""The layers of src/mechsym (docs/architecture.md) as a contract: import-linter's contracts in pyproject.toml hold
for the code as it is, and fail on an upward import, on an import cycle inside a package and on one experiment
importing another (each injected into a copy of the package, never into the checkout). And no source file of the
lab, Python, Java or C, the fleet's included, is over 400 lines."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT = Path(sys.executable).parent / "lint-imports"
LIMIT = 400


def lint(src: Path) -> subprocess.CompletedProcess:
    """lint-imports over the package `mechsym` found in `src`, with the checkout's contracts (pyproject.toml)."""
    env = {**os.environ, "PYTHONPATH": str(src), "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run([str(LINT), "--config", str(ROOT / "pyproject.toml"), "--no-cache"], cwd=src,
                          env=env, capture_output=True, text=True, timeout=120)


def copy_with(tmp_path: Path, module: str, line: str) -> Path:
    """A copy of src/mechsym with `line` added at the end of `module` (a path under src/mechsym)."""
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src" / "mechsym", src / "mechsym", ignore=shutil.ignore_patterns("__pycache__"))
    target = src / "mechsym" / module
    target.write_text(target.read_text() + "\n" + line + "\n")
    return src


def test_the_contracts_hold():
    r = lint(ROOT / "src")
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-2000:]
    assert "3 kept, 0 broken" in r.stdout


@pytest.mark.parametrize("module, line, broken", [
    # the bottom layer reaching up to the pages
    ("machine/cpus.py", "from ..view import nb  # noqa", "Each layer imports only the layers below it"),
    # the store reaching up to the judge
    ("store/runs.py", "from ..judge import stats  # noqa", "Each layer imports only the layers below it"),
    # a cycle inside one package: stats is imported by verdicts
    ("judge/stats.py", "from . import verdicts  # noqa", "No import cycle among the modules of any package"),
    # one experiment importing another
    ("experiments/spsc/meta.py", "from ..locks import meta as other  # noqa", "Experiments are independent"),
])
def test_a_broken_layer_fails_the_contract(tmp_path, module, line, broken):
    r = lint(copy_with(tmp_path, module, line))
    assert r.returncode != 0
    out = r.stdout
    assert f"{broken}" in out and "BROKEN" in out, out[-3000:]


def test_no_source_file_is_over_400_lines():
    long = []
    for folder, suffixes in (("src", (".py",)), ("java-src", (".java",)), ("jmh-src", (".java",)),
                             ("c-src", (".c", ".h")), ("fleet", (".py", ".sh", ".yml"))):
        for p in sorted((ROOT / folder).rglob("*")):
            if p.suffix in suffixes and p.is_file():
                n = len(p.read_text(errors="replace").splitlines())
                if n > LIMIT:
                    long.append(f"{p.relative_to(ROOT)}: {n} lines")
    assert not long, "split by job (docs/architecture.md): " + "; ".join(long)
