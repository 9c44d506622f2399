"""The JVM option variables (JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS, _JAVA_OPTIONS) would change a kernel's options
with no trace in its run: kernels run without them, and what the bench found is recorded in the run's metadata."""

from __future__ import annotations

import pytest

from mechsym.run import launch


@pytest.mark.parametrize("var", launch.JAVA_ENV)
def test_a_kernel_never_sees_a_jvm_option_variable_and_the_run_records_it(monkeypatch, var):
    monkeypatch.setenv(var, "-XX:+UseSerialGC -Xmx16m")
    script = f'printf "iteration,warmup,metric,value,unit\\n0,false,%s,1,ns\\n" "${{{var}:-none}}"'
    rows = launch.run(launch.Launch(["sh", "-c", script], "none", []), timeout=30)
    assert list(rows["metric"]) == ["none"]
    assert launch.java_environment() == {"found": {var: "-XX:+UseSerialGC -Xmx16m"}, "kernels": "cleared"}


def test_nothing_found_is_recorded_as_such(monkeypatch):
    for var in launch.JAVA_ENV:
        monkeypatch.delenv(var, raising=False)
    assert launch.java_environment() == {"found": {}, "kernels": "cleared"}
