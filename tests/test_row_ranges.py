"""A measured value is a physical quantity: finite and, for a rate or a duration, not a tiny positive no CPU can
produce (1e-300 ns would make a claim "hold" at 1e299x). Cases a kernel, a stored CSV or a bundle could carry;
every one is refused with the row and the rule, the values a CPU does produce pass."""

from __future__ import annotations

import pandas as pd
import pytest

from mechsym.store import rows


def hit(metric: str, unit: str, raw: str):
    return rows.values_problem(pd.Series([metric]), pd.Series([unit]), pd.Series([raw]))


@pytest.mark.parametrize("metric,unit,raw", [
    ("ns_per_store", "ns/op", "1e-300"), ("ns_per_store", "ns/op", "1e-320"), ("latency", "ns", "5e-324"),
    ("throughput", "ops/s", "1e-300"), ("throughput", "msg/s", "1e-12"), ("bandwidth", "MB/s", "1e-300"),
    ("gc_time", "ms", "1e-300"), ("latency", "ns", "-1e-300"), ("throughput", "ops/s", "inf"),
])
def test_impossible_values_are_refused(metric, unit, raw):
    problem = hit(metric, unit, raw)
    assert problem and ("impossible" in problem or "not a finite number" in problem), problem


@pytest.mark.parametrize("metric,unit,raw", [
    ("ns_per_store", "ns/op", "0.25"), ("latency", "ns", "12.5"), ("throughput", "ops/s", "3.2e9"),
    ("throughput", "ops/s", "0.5"), ("bandwidth", "MB/s", "0.01"), ("gc_time", "ms", "0"), ("gc_time", "ms", "0.003"),
])
def test_values_a_cpu_produces_pass(metric, unit, raw):
    assert hit(metric, unit, raw) is None
