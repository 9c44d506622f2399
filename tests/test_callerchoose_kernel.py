"""The let-the-caller-choose kernel (notebook 16): every method passes its checksum and reports what it
allocated, and a wrong checksum fails every method. No test asserts a timing."""

import pytest

from conftest import kernel_process, run_kernel
from mechsym.experiments import callerchoose as exp

pytestmark = pytest.mark.kernel  # every test here runs a kernel or a sweep: serial

KERNEL = exp.sweep.KERNEL


@pytest.mark.parametrize("method", exp.METHODS)
def test_every_method_passes_its_checksum_and_reports_what_it_allocated(method):
    rows = run_kernel(KERNEL, f"--method={method}", "--words=50", "--ops=2000", "--runs=2", "--warmup-runs=1")
    measured = rows[~rows["warmup"]]
    assert len(measured[measured["metric"] == "ns_per_op"]) == 2 and rows["warmup"].any()
    assert (measured.loc[measured["metric"] == "alloc_bytes_per_op", "value"] > 0).all()
    assert set(rows.loc[rows["metric"] == "result_array_bytes", "value"]) == {16 + 4 * 50}
    assert (rows.loc[rows["metric"] == "young_gen_bytes", "value"] > 0).all()


@pytest.mark.parametrize("method", exp.METHODS)
def test_a_wrong_checksum_fails_every_method(method):
    r = kernel_process(KERNEL, f"--method={method}", "--ops=100", "--runs=1", "--warmup-runs=0", "--inject=checksum")
    assert r.returncode == 3 and r.stdout == "" and "CHECK FAILED" in r.stderr
