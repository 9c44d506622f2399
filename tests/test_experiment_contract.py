"""What every experiment package gets by being registered (a package under src/mechsym/experiments/):

- its presets and cells plan on fake topologies (2 CPUs without SMT, 8 CPUs with SMT on 2 sockets, 1 CPU), and a
  placement the machine lacks is marked unavailable with a reason, never faked;
- unique claim ids across the lab, each claim with a quote, a rule and a statistic;
- the post's own numbers pass the post's own claim (data/reference fed to the claim's rule);
- verdicts on empty results are all "not measurable here";
- no experiment imports the pre-interval verdict call;
- one shape: exactly the role files (meta, sweep, rows, claims, verdicts, tables, figures), each importing only the
  roles before it, meta importing nothing heavy and read alone by experiments.metas(), one spelling per constant.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT
from mechsym import experiments
from mechsym.judge.analysis import Protocol
from mechsym.machine.jdk import discover
from mechsym.judge.verdicts import UNMEASURABLE
from synthetic import TOPOLOGIES, fake_topology

NAMES = experiments.names()


def test_experiments_are_packages():
    assert NAMES
    for name in NAMES:
        assert (ROOT / "src" / "mechsym" / "experiments" / name / "__init__.py").exists(), \
            f"experiment {name} should be a package (sweep, tables, figures, claims in separate files)"


@pytest.mark.parametrize("topo_name", TOPOLOGIES)
@pytest.mark.parametrize("preset", ["smoke", "standard", "full"])
@pytest.mark.parametrize("name", NAMES)
def test_cells_plan_on_any_topology(name, preset, topo_name, tmp_path):
    module = experiments.get(name)
    topo = fake_topology(tmp_path, TOPOLOGIES[topo_name])
    cells = module.cells(preset, topo, discover())
    assert cells, f"{name} {preset} on {topo_name}: no cells"
    for c in cells:
        if c.cpus:
            assert set(c.cpus) <= set(topo.ids), f"{name}: cell {c.variant} pinned to CPUs the machine lacks"
        if c.unavailable:
            assert len(c.unavailable) > 10, f"{name}: unavailable cell {c.variant} without a reason"
        assert c.forks >= 1 and c.timeout > 0
    if topo_name == "1cpu":
        two_cpu = [c for c in cells if str(c.columns().get("placement")) in ("cross-core", "smt", "cross-socket")]
        assert all(c.unavailable for c in two_cpu), f"{name}: a two-CPU placement planned on one CPU"


def all_claims():
    return [(name, c) for name in NAMES for c in experiments.get(name).CLAIMS]


def test_claim_ids_are_unique():
    ids = [c.id for _, c in all_claims()]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


@pytest.mark.parametrize("name,claim", all_claims(), ids=lambda x: getattr(x, "id", x))
def test_claim_is_data(name, claim):
    assert claim.rule is not None, f"{claim.id}: no rule"
    assert claim.quote, f"{claim.id}: no quote of the post's sentence"
    assert claim.statistic, f"{claim.id}: no statistic named"
    assert claim.source in ("post", "lab")
    assert claim.notebook in experiments.get(name).NOTEBOOKS


WITH_POST_NUMBERS = [(n, c) for n, c in all_claims() if c.from_post is not None]


@pytest.mark.parametrize("name,claim", WITH_POST_NUMBERS, ids=lambda x: getattr(x, "id", x))
def test_the_posts_own_numbers_pass_its_own_claim(name, claim):
    then = claim.then_value()
    assert then is not None, f"{claim.id}: no statistic from {claim.reference}"
    assert claim.rule.holds_at(then), (f"{claim.id}: the post's own {claim.statistic} = {then:.4g} fails "
                                       f"its rule {claim.rule.text(claim.unit)}")


def test_self_consistency_covers_claims_with_numbers():
    assert WITH_POST_NUMBERS, "no claim reads the post's numbers from data/reference"


@pytest.mark.parametrize("name", NAMES)
def test_verdicts_on_empty_results_are_not_measurable(name):
    module = experiments.get(name)
    empty = pd.DataFrame(columns=["experiment", "variant", "jdk", "fork", "iteration", "warmup", "metric", "value",
                                  "unit", "status", "note", "machine", "run_id"])
    vs = module.verdicts(empty)
    if not module.CLAIMS:  # an experiment without a post (calibration) judges nothing
        assert module.POST_FILE is None and vs == []
        return
    assert vs and all(v.outcome == UNMEASURABLE and v.why for v in vs)
    assert {v.claim.id for v in vs} == {c.id for c in module.CLAIMS}


@pytest.mark.parametrize("name", NAMES)
def test_no_point_verdicts_left(name):
    pkg = ROOT / "src" / "mechsym" / "experiments" / name
    for f in pkg.glob("*.py"):
        assert "legacy_judge" not in f.read_text(), f"{f}: judge an estimate (verdicts.judge), not a bare bool"


# ---------------------------------------------------------------- one shape

ROLES = ["meta", "sweep", "rows", "claims", "verdicts", "tables", "figures"]
# The roles each role may import (the package's own modules; the shared layer is free): one direction,
# meta <- sweep <- rows <- claims <- verdicts; tables read rows, never claims or verdicts; figures may also
# draw a table's numbers or a claim's threshold.
MAY_IMPORT = {
    "meta": set(),
    "sweep": {"meta"},
    "rows": {"meta", "sweep"},
    "claims": {"meta", "sweep", "rows"},
    "verdicts": {"meta", "sweep", "rows", "claims"},
    "tables": {"meta", "sweep", "rows"},
    "figures": {"meta", "sweep", "rows", "tables", "claims"},
}
HEAVY = {"pandas", "numpy", "matplotlib", "scipy", "jpype"}
META_NAMES = ["NAME", "TITLE", "NOTEBOOKS", "PRESETS", "POST_FILE", "REFERENCE"]
OLD_SPELLINGS = {"REF", "REF1", "REF2", "REF_1", "REF_2", "REF_CV", "REF_ITL", "POST1", "POST2", "POST_1", "POST_2",
                 "KERNEL_PROTOCOLS", "PROTOCOL"}
PACKAGES = ROOT / "src" / "mechsym" / "experiments"


def _imports(path: Path) -> list[tuple[str, str]]:
    """(module, how) for every import in a file: a package role as 'role', anything else by its top-level name."""
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:  # from .x import y, from . import x
                mods = [node.module] if node.module else [a.name for a in node.names]
                out += [(m.split(".")[0], "role") for m in mods]
            elif node.level == 0 and node.module:
                out.append((node.module.split(".")[0], "absolute"))
        elif isinstance(node, ast.Import):
            out += [(a.name.split(".")[0], "absolute") for a in node.names]
    return out


def shape_problems(pkg: Path) -> list[str]:
    """What keeps a package directory from the one shape: missing or extra files, imports against the direction,
    a heavy import in meta."""
    have = {f.stem for f in pkg.glob("*.py")} - {"__init__"}
    problems = [f"{pkg.name}: no {r}.py" for r in ROLES if r not in have]
    problems += [f"{pkg.name}: {x}.py is not a role ({', '.join(ROLES)})" for x in sorted(have - set(ROLES))]
    problems += [f"{pkg.name}: {d.name}/ is not a role" for d in pkg.iterdir() if d.is_dir() and d.name != "__pycache__"]
    for role in ROLES:
        f = pkg / f"{role}.py"
        if not f.exists():
            continue
        for mod, how in _imports(f):
            if how == "role" and mod not in MAY_IMPORT[role]:
                problems.append(f"{pkg.name}/{role}.py imports .{mod} (a {role} may import only "
                                f"{', '.join(sorted(MAY_IMPORT[role])) or 'the shared layer'})")
            if role == "meta" and (how == "absolute" and mod in HEAVY | {"mechsym"} or how == "role"):
                problems.append(f"{pkg.name}/meta.py imports {mod} (meta is read alone, without pandas)")
    return problems


@pytest.mark.parametrize("name", NAMES)
def test_package_has_the_one_shape(name):
    assert shape_problems(PACKAGES / name) == []


@pytest.mark.parametrize("name", NAMES)
def test_meta_is_read_alone_and_agrees_with_the_package(name):
    meta = experiments.metas()[name]
    module = experiments.get(name)
    for attr in META_NAMES:
        assert hasattr(meta, attr), f"{name}: meta.py has no {attr}"
        assert getattr(module, attr) == getattr(meta, attr), f"{name}: the package's {attr} is not meta's"
    assert meta.NAME == name and meta.TITLE and meta.NOTEBOOKS
    assert {"smoke", "standard", "full"} <= set(meta.PRESETS)


@pytest.mark.parametrize("name", NAMES)
def test_one_spelling_per_constant(name):
    module = experiments.get(name)
    rows = importlib.import_module(f"mechsym.experiments.{name}.rows")
    sweep = importlib.import_module(f"mechsym.experiments.{name}.sweep")
    assert isinstance(rows.PROTOCOLS, tuple) and all(isinstance(p, Protocol) for p in rows.PROTOCOLS)
    if module.POST_FILE is None:  # no post (calibration): no post protocol, no claims, no reference numbers
        assert rows.PROTOCOLS == () and not module.CLAIMS and module.REFERENCE is None, name
    else:
        assert rows.PROTOCOLS and rows.PROTOCOLS[0].name == "post", f"{name}: the post's protocol comes first"
        assert str(module.POST_FILE).endswith(".md") and not str(module.REFERENCE).endswith(".md")
    if hasattr(module, "PROTOCOLS"):
        assert module.PROTOCOLS == rows.PROTOCOLS, f"{name}: PROTOCOLS is the Protocol tuple of rows.py"
    if hasattr(sweep, "PROTOCOL_NAMES"):
        assert all(isinstance(p, str) for p in sweep.PROTOCOL_NAMES)
    if hasattr(module, "POST"):
        assert isinstance(module.POST, Protocol), f"{name}: POST is the post's protocol (the file is POST_FILE)"
    for f in (PACKAGES / name).glob("*.py"):
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.Name) and node.id in OLD_SPELLINGS:
                pytest.fail(f"{f.name}: {node.id} (one spelling: REFERENCE, REFERENCE_<TAG>, POST_FILE, PROTOCOLS)")


def test_metas_import_nothing_heavy():
    code = ("import sys; from mechsym import experiments; experiments.metas(); "
            f"print(sorted(m for m in {sorted(HEAVY)!r} if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert r.stdout.strip() == "[]", f"metas() imported {r.stdout.strip()}"


def _package(root: Path, files: dict[str, str]) -> Path:
    pkg = root / "demo"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    for role in ROLES:
        (pkg / f"{role}.py").write_text(files.get(role, ""))
    return pkg


def test_the_shape_check_fails_a_bad_package(tmp_path):
    good = {"sweep": "from .meta import NAME\n", "rows": "import pandas as pd\nfrom .sweep import cells\n",
            "claims": "from .rows import forks\n", "verdicts": "from .claims import CLAIMS\n",
            "tables": "from .rows import forks\n", "figures": "from .tables import summary\n"}
    assert shape_problems(_package(tmp_path / "good", good)) == []
    missing = _package(tmp_path / "missing", good)
    (missing / "verdicts.py").unlink()
    assert shape_problems(missing) == ["demo: no verdicts.py"]
    extra = _package(tmp_path / "extra", good)
    (extra / "judge.py").write_text("")
    assert shape_problems(extra) == ["demo: judge.py is not a role (meta, sweep, rows, claims, verdicts, tables, "
                                     "figures)"]
    for role, line in [("rows", "from .claims import CLAIMS\n"), ("tables", "from .claims import post_value\n"),
                       ("sweep", "from . import rows\n"), ("claims", "from .verdicts import verdicts\n")]:
        backward = _package(tmp_path / f"backward-{role}", {**good, role: line})
        problems = shape_problems(backward)
        assert len(problems) == 1 and f"demo/{role}.py imports ." in problems[0], problems
    heavy = _package(tmp_path / "heavy", {**good, "meta": "import numpy as np\n"})
    assert shape_problems(heavy) == ["demo/meta.py imports numpy (meta is read alone, without pandas)"]
