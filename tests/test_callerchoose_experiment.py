"""The let-the-caller-choose experiment (notebook 16): its cells, claims and verdicts on synthetic rows, tables
and figures, a smoke sweep through the CLI, and the methods the kernel declares (the kernel itself:
tests/test_callerchoose_kernel.py). No test asserts a timing."""

import matplotlib
import pandas as pd
import pytest

matplotlib.use("Agg")

from mechsym.experiments import callerchoose as exp  # noqa: E402
from mechsym.machine.jdk import discover  # noqa: E402
from mechsym.judge.verdicts import FAILS, HOLDS, INCONCLUSIVE  # noqa: E402
from synthetic import topology  # noqa: E402


def test_standard_cells_give_the_large_input_an_array_larger_than_the_young_generation():
    jdks = discover()
    cells = exp.cells("standard", topology(), jdks)
    per_jdk = len(exp.METHODS) * len(exp.SIZES) * len(exp.COLLECTORS)
    assert len(cells) == per_jdk * len(jdks) and all(c.forks >= 5 for c in cells)
    assert {c.jdk.feature for c in cells} == {j.feature for j in jdks}
    large = [c for c in cells if c.labels["size"] == "large"]
    assert all("-Xmn8m" in c.flags and 16 + 4 * c.params["words"] > 8 * 2**20 for c in large)


def synthetic(split_ns=600.0, list_ns=500.0, split_bytes=600.0, list_bytes=480.0, large=3.0, forks=5):
    rows = []
    for g in ("G1", "Parallel"):
        for size, ns_s, ns_l in (("small", split_ns, list_ns), ("medium", 5e4, 4e4), ("large", 3e8 * large, 3e8)):
            for method, ns, b in (("split", ns_s, split_bytes), ("list", ns_l, list_bytes), ("set", ns_l, 800.0)):
                for f in range(forks):
                    for metric, v in (("ns_per_op", ns), ("alloc_bytes_per_op", b), ("gc_count", 1), ("gc_ms", 2),
                                      ("young_gen_bytes", 8 * 2**20), ("result_array_bytes", 56)):
                        rows.append(dict(variant=method, size=size, collector=g, words=10, fork=f, iteration=0,
                                         jdk="17",
                                         warmup=False, metric=metric, value=v * (1 + 0.01 * f), unit="",
                                         status="ok", machine="m", run_id="r"))
    return pd.DataFrame(rows)


def test_verdicts_follow_the_numbers():
    out = {(v.claim.id, v.scope["collector"], v.protocol): v.outcome for v in exp.verdicts(synthetic())}
    assert len(out) == 3 * 2 * 2 and set(out.values()) == {HOLDS}
    out = {v.claim.id: v.outcome for v in exp.verdicts(synthetic(split_ns=400, split_bytes=480, large=1.0))}
    assert set(out.values()) == {FAILS}
    out = {v.claim.id: v.outcome for v in exp.verdicts(synthetic(forks=2))}
    assert set(out.values()) == {INCONCLUSIVE}


def test_tables_and_figures_read_synthetic_rows():
    df = synthetic()
    c = exp.comparison(df)
    assert len(c) == 2 * 3 * 3 and c["String.split / this"].iloc[1] == "1.20x"
    assert set(exp.young_table(df)["fits in the young generation?"]) == {"yes"}
    assert not exp.summary(df).empty
    for fig in (exp.plot_methods(df), exp.plot_methods(df, "alloc_bytes_per_op"), exp.plot_methods(df.iloc[0:0])):
        assert fig.axes


def test_smoke_sweep_through_the_cli(smoke_store):
    df = pd.read_csv(next(smoke_store("callerchoose").rglob("*.csv")))   # `mechsym run callerchoose --preset smoke`
    ok = df[df["status"] == "ok"]
    assert set(ok["variant"]) == set(exp.METHODS) and set(ok["size"]) == set(exp.SIZES)
    assert len(exp.verdicts(df)) == 3 * 2


@pytest.mark.kernel
def test_the_methods_are_the_kernels_own_through_jpype():
    from mechsym.run import bridge
    from mechsym.experiments.callerchoose import sweep

    assert list(bridge.kernel(sweep.KERNEL).METHODS) == sweep.METHODS
