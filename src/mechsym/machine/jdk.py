"""JDK discovery and probes.

Where JDKs are looked for, in order: MECHSYM_JDKS (extra JDK homes, separated
by ':'), JAVA_HOME, the `java` on PATH, and every directory in /usr/lib/jvm.
Each home is probed once (`java -XshowSettings:properties -version`) for its
feature version and vendor; JVM flags are probed per JDK before a sweep so
that a flag the JDK does not take is reported as "not available on JDK N".
"""

from __future__ import annotations

import functools
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from .. import MechsymError

JVM_ROOTS = [Path("/usr/lib/jvm")]


@dataclass(frozen=True)
class Jdk:
    home: Path
    feature: int  # 17, 25, ...
    version: str  # full java.version, e.g. 17.0.15
    vendor: str
    vm_name: str = ""
    has_javac: bool = False

    @property
    def java(self) -> str:
        return str(self.home / "bin" / "java")

    @property
    def label(self) -> str:
        return f"jdk{self.feature}"

    def as_dict(self) -> dict:
        return {"home": str(self.home), "feature": self.feature, "version": self.version,
                "vendor": self.vendor, "vm_name": self.vm_name}


def _parse_properties(text: str) -> dict[str, str]:
    props = {}
    for line in text.splitlines():
        m = re.match(r"\s+([\w.]+) = (.*)$", line)
        if m:
            props[m.group(1)] = m.group(2).strip()
    return props


@functools.lru_cache(maxsize=None)
def probe(home: str | Path) -> Jdk:
    """Probe one JDK home; MechsymError when it is not a JDK."""
    home = Path(home).expanduser()
    java = home / "bin" / "java"
    if not java.is_file() or not os.access(java, os.X_OK):
        raise MechsymError(f"JDK path {home}: no executable bin/java there; give the home directory of a JDK (one with bin/java)")
    try:
        r = subprocess.run([str(java), "-XshowSettings:properties", "-version"],
                           capture_output=True, text=True, errors="replace", timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise MechsymError(f"JDK path {home}: bin/java did not run ({e})") from e
    props = _parse_properties(r.stderr)
    spec = props.get("java.specification.version") or props.get("java.vm.specification.version")
    if r.returncode != 0 or not spec:
        first = (r.stderr.strip().splitlines() or ["no output"])[0]
        raise MechsymError(f"JDK path {home}: bin/java -version failed: {first}")
    feature = _feature(spec)
    if feature is None:
        raise MechsymError(f"JDK path {home}: bin/java reports java.specification.version {spec[:60]!r}, not a Java "
                           "version (such as 17 or 1.8); give the home directory of a JDK")
    return Jdk(home=home.resolve(), feature=feature, version=props.get("java.version", spec),
               vendor=props.get("java.vendor", "unknown"), vm_name=props.get("java.vm.name", ""),
               has_javac=(home / "bin" / "javac").exists())


def _feature(spec: str) -> int | None:
    """The feature version in a java.specification.version: '17' -> 17, '1.8' -> 8; None for anything else."""
    m = re.fullmatch(r"(?:1\.)?([1-9][0-9]{0,3})(?:\.[0-9]+)*", spec.strip())
    return int(m.group(1)) if m else None


def _candidate_homes() -> list[Path]:
    homes: list[Path] = []
    extra = os.environ.get("MECHSYM_JDKS", "")
    homes += [Path(p) for p in extra.split(":") if p]
    if os.environ.get("JAVA_HOME"):
        homes.append(Path(os.environ["JAVA_HOME"]))
    java = shutil.which("java")
    if java:
        homes.append(Path(java).resolve().parent.parent)
    for root in JVM_ROOTS:
        if root.is_dir():
            homes += sorted(p for p in root.iterdir() if p.is_dir() and not p.is_symlink())
    return homes


def distinct_homes():
    """(home as found, its resolved path) for every candidate JDK home, each real directory once."""
    seen: set[Path] = set()
    for home in _candidate_homes():
        try:
            real = home.resolve()
        except OSError:
            continue
        if real not in seen:
            seen.add(real)
            yield home, real


def feature_of_version(version: str) -> int | None:
    """The feature version in a java.version or a release file's JAVA_VERSION: '17.0.15' -> 17, '1.8.0_392' -> 8,
    '21-ea' -> 21; None when it names none."""
    head = version.split(".")
    m = re.match(r"\d+", head[1] if head[0] == "1" and len(head) > 1 else head[0])
    return int(m.group()) if m else None


def release(home: Path) -> tuple[str | None, str | None]:
    """(JAVA_VERSION, IMPLEMENTOR) from a JDK home's `release` file, without starting a JVM; None where absent."""
    props = {}
    try:
        for line in (home / "release").read_text().splitlines():
            m = re.match(r'(\w+)="?(.*?)"?$', line.strip())
            if m:
                props[m.group(1)] = m.group(2)
    except OSError:
        pass
    return props.get("JAVA_VERSION"), props.get("IMPLEMENTOR")


def installed() -> tuple[list[tuple], list[str]]:
    """Every JDK home a sweep would look in, read from its `release` file (a JVM is started only for a home without
    one): (feature, version, vendor, home, used by sweeps: the first of its feature), and the problems met."""
    out, problems, used = [], [], set()
    for home, real in distinct_homes():
        if not (real / "bin" / "java").is_file():
            if str(home) in os.environ.get("MECHSYM_JDKS", "").split(":"):
                problems.append(f"MECHSYM_JDKS: {home}: no bin/java there")
            continue
        version, vendor = release(real)
        if not version:  # no release file: ask the JVM itself
            try:
                j = probe(str(real))
            except MechsymError as e:
                problems.append(str(e))
                continue
            version, vendor = j.version, j.vendor
        feature = feature_of_version(version)
        if feature is None:
            problems.append(f"JDK {real}: version {version[:60]!r} names no Java feature version")
            continue
        out.append((feature, version, vendor or "unknown", str(real), feature not in used))
        used.add(feature)
    return sorted(out, key=lambda j: (j[0], not j[4])), problems


@functools.lru_cache(maxsize=1)
def discover() -> tuple[Jdk, ...]:
    """Every distinct JDK found, one per feature version (the first found wins), sorted by version.

    Homes listed in MECHSYM_JDKS must be JDKs: a bad one is an error, not skipped."""
    for p in os.environ.get("MECHSYM_JDKS", "").split(":"):
        if p:
            probe(p)  # raises with a clear message
    found: dict[int, Jdk] = {}
    for _home, real in distinct_homes():
        try:
            jdk = probe(str(real))
        except MechsymError:
            continue
        found.setdefault(jdk.feature, jdk)
    if not found:
        raise MechsymError("no JDK found: install JDK 17 or set JAVA_HOME / MECHSYM_JDKS to a JDK home")
    return tuple(sorted(found.values(), key=lambda j: j.feature))


def select(spec: str | None = None) -> list[Jdk]:
    """JDKs by a spec: None or 'all' = every JDK found; '17,25' = those feature versions; a path = that JDK."""
    if spec in (None, "", "all"):
        return list(discover())
    out = []
    for part in str(spec).split(","):
        part = part.strip()
        if not part:
            raise MechsymError(f"JDK spec '{spec}': an empty item; give feature versions (17,25), a JDK home, or 'all'")
        if part.isdigit():
            match = [j for j in discover() if j.feature == int(part)]
            if not match:
                have = ", ".join(str(j.feature) for j in discover())
                raise MechsymError(f"JDK {part}: not found on this machine (found: {have}); add its home to MECHSYM_JDKS")
            out += match
        else:
            out.append(probe(part))
    return list(dict.fromkeys(out))  # a JDK named twice (17,17 or 17 and its home) runs once


@dataclass
class FlagProbe:
    accepted: bool
    reason: str = ""  # why not, in a few words
    detail: str = field(default="", repr=False)


_DEAD_FLAG = re.compile(r"(Unrecognized VM option|Ignoring option|support was removed|is obsolete|Could not create the Java Virtual Machine|Improperly specified VM option|must be enabled via -XX:\+UnlockExperimentalVMOptions|not supported)", re.I)


@functools.lru_cache(maxsize=None)
def probe_flags(java: str, flags: tuple[str, ...]) -> FlagProbe:
    """Does this JVM take these flags and act on them?

    A flag is not available when the JVM refuses to start with it, or starts
    but says it ignores it (an obsolete flag such as -XX:+UseBiasedLocking on
    JDK 18-22 only warns)."""
    if not flags:
        return FlagProbe(True)
    try:
        r = subprocess.run([java, *flags, "-version"], capture_output=True, text=True, errors="replace", timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return FlagProbe(False, f"probe failed: {e}")
    # the JVM prints some start-up errors on stdout ("Error occurred during initialization of VM / Too small
    # maximum heap"): its reason is looked for in both
    text = r.stderr + "\n" + r.stdout
    m = _DEAD_FLAG.search(text)
    if r.returncode != 0 or m:
        return FlagProbe(False, _reason(text) or f"exit code {r.returncode}", text.strip())
    return FlagProbe(True, "", r.stderr)


_GENERIC = re.compile(r"(Could not create the Java Virtual Machine|A fatal exception has occurred|"
                      r"Error occurred during initialization of VM)", re.I)


def _reason(text: str) -> str:
    """The JVM's own reason for refusing to start: the line naming the flag, else its last specific line."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    specific = [ln for ln in lines if not _GENERIC.search(ln)]
    named = [ln for ln in specific if _DEAD_FLAG.search(ln)]
    return ((named or specific or lines or [""])[0 if named else -1])[:300]


def check_flags(jdk: Jdk, flags: list[str] | tuple[str, ...]) -> FlagProbe:
    return probe_flags(jdk.java, tuple(flags))
