"""What every experiment package gets by being registered (a package under src/mechsym/experiments/):

- its presets and cells plan on fake topologies (2 CPUs without SMT, 8 CPUs with SMT on 2 sockets, 1 CPU), and a
  placement the machine lacks is marked unavailable with a reason, never faked;
- unique claim ids across the lab, each claim with a quote, a rule and a statistic;
- the post's own numbers pass the post's own claim (data/reference fed to the claim's rule);
- verdicts on empty results are all "not measurable here";
- no experiment imports the pre-interval verdict call.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from conftest import ROOT
from mechsym import experiments
from mechsym.cpus import read_topology
from mechsym.jdk import discover
from mechsym.verdicts import UNMEASURABLE

NAMES = experiments.names()


def fake_topology(root: Path, cpus: list[tuple[int, int, int]]):
    for cpu, core, socket in cpus:
        t = root / f"cpu{cpu}" / "topology"
        t.mkdir(parents=True)
        (t / "core_id").write_text(f"{core}\n")
        (t / "physical_package_id").write_text(f"{socket}\n")
    (root / "online").write_text(f"0-{len(cpus) - 1}\n" if len(cpus) > 1 else "0\n")
    return read_topology(root)


TOPOLOGIES = {
    "2cpu-no-smt": [(0, 0, 0), (1, 1, 0)],
    "8cpu-smt-2-sockets": [(c, c % 2, (c % 4) // 2) for c in range(8)],
    "1cpu": [(0, 0, 0)],
}


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
    assert vs and all(v.outcome == UNMEASURABLE and v.why for v in vs)
    assert {v.claim.id for v in vs} == {c.id for c in module.CLAIMS}


@pytest.mark.parametrize("name", NAMES)
def test_no_point_verdicts_left(name):
    pkg = ROOT / "src" / "mechsym" / "experiments" / name
    for f in pkg.glob("*.py"):
        assert "legacy_judge" not in f.read_text(), f"{f}: judge an estimate (verdicts.judge), not a bare bool"
