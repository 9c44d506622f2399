"""The JPype bridge: one JVM per Python process, with the kernels' jar on its classpath.

Used for kernel metadata (variants, defaults) and in-process calls. The JVM
is started lazily on first use with the JDK from MECHSYM_BRIDGE_JDK, JAVA_HOME
or the lowest JDK found; a JVM cannot be restarted in the same process.
"""

from __future__ import annotations

import os
import time

from .. import MechsymError, classpath
from ..machine.jdk import discover, probe

_started_with: str | None = None


def start(jdk_home: str | None = None) -> str:
    """Start the JVM if it is not running; returns the JDK home in use."""
    global _started_with
    import jpype

    if jpype.isJVMStarted():
        return _started_with or "unknown"
    home = jdk_home or os.environ.get("MECHSYM_BRIDGE_JDK") or os.environ.get("JAVA_HOME")
    jdk = probe(home) if home else discover()[0]
    lib = _libjvm(jdk.home)
    jpype.startJVM(str(lib), "-Xss4m", classpath=classpath().split(":"), convertStrings=True)
    _started_with = str(jdk.home)
    return _started_with


def _libjvm(home):
    for rel in ("lib/server/libjvm.so", "jre/lib/amd64/server/libjvm.so", "lib/libjvm.so"):
        p = home / rel
        if p.exists():
            return p
    raise MechsymError(f"JDK {home}: no libjvm.so found for the JPype bridge")


def kernel(class_name: str):
    """The Java class of a kernel, e.g. kernel("mechsym.locks.LockContention")."""
    start()
    import jpype

    try:
        return jpype.JClass(class_name)
    except Exception as e:  # java.lang.ClassNotFoundException surfaces as TypeError/NoClassDefFoundError
        raise MechsymError(f"kernel class {class_name}: not in {classpath()} ({e}); run `make`") from e


def metadata(class_name: str) -> dict:
    """A kernel's defaults (from its static defaults() method) as a dict."""
    k = kernel(class_name)
    out = {}
    for item in k.defaults():
        name, _, value = str(item).partition("=")
        out[name] = value
    return out


def timed_call(fn, *args):
    """Call a Java static method; returns (result, wall-clock seconds of the Python call)."""
    t0 = time.perf_counter_ns()
    result = fn(*args)
    return result, (time.perf_counter_ns() - t0) / 1e9
