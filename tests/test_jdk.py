import os
import stat

import pytest

from mechsym import MechsymError
from mechsym.machine import jdk


def test_discover_finds_a_jdk_17_or_later():
    found = jdk.discover()
    assert found and all(j.feature >= 17 for j in found if j.has_javac)
    assert any(j.feature == 17 for j in found), "the lab needs JDK 17"


def test_probe_reports_version_and_vendor():
    j = jdk.select("17")[0]
    assert j.feature == 17 and j.version.startswith("17") and j.vendor


def test_not_a_jdk(tmp_path):
    with pytest.raises(MechsymError, match=r"JDK path .*: no executable bin/java"):
        jdk.probe(str(tmp_path))


def test_a_java_that_fails(tmp_path):
    java = tmp_path / "bin" / "java"
    java.parent.mkdir()
    java.write_text("#!/bin/sh\necho 'Error: broken' >&2\nexit 1\n")
    java.chmod(java.stat().st_mode | stat.S_IEXEC)
    with pytest.raises(MechsymError, match="bin/java -version failed: Error: broken"):
        jdk.probe(str(tmp_path))


def test_unknown_feature_version():
    with pytest.raises(MechsymError, match="JDK 8: not found on this machine"):
        jdk.select("8")


def test_flag_probes():
    j17 = jdk.select("17")[0]
    assert jdk.check_flags(j17, ("-XX:+UseBiasedLocking", "-XX:BiasedLockingStartupDelay=0")).accepted
    bogus = jdk.check_flags(j17, ("-XX:+NoSuchFlagAtAll",))
    assert not bogus.accepted and "Unrecognized VM option" in bogus.reason
    assert jdk.check_flags(j17, ()).accepted


def test_biased_locking_gone_after_jdk_17():
    later = [j for j in jdk.discover() if j.feature >= 18]
    if not later:
        pytest.skip("no JDK >= 18 here")
    assert not jdk.check_flags(later[0], ("-XX:+UseBiasedLocking",)).accepted


def test_obsolete_flag_that_only_warns_is_not_available(tmp_path):
    # JDK 18-22 start with an obsolete flag and only warn: that is "not available", not accepted.
    java = tmp_path / "java"
    java.write_text("#!/bin/sh\necho 'OpenJDK 64-Bit Server VM warning: Ignoring option UseBiasedLocking; "
                    "support was removed in 18.0' >&2\necho 'openjdk version \"18\"' >&2\nexit 0\n")
    java.chmod(java.stat().st_mode | stat.S_IEXEC)
    probe = jdk.probe_flags(str(java), ("-XX:+UseBiasedLocking",))
    assert not probe.accepted and "Ignoring option" in probe.reason
