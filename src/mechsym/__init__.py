"""mechsym-lab: the bench that re-runs the Mechanical Sympathy experiments."""

from pathlib import Path

__version__ = "0.1.0"


class MechsymError(Exception):
    """A user-facing error: its message is one line naming the input and what is allowed."""


def repo_root() -> Path:
    """The repository root (where build/, data/ and notebooks/ live).

    MECHSYM_ROOT overrides it (tests use a temporary copy of data/)."""
    import os

    env = os.environ.get("MECHSYM_ROOT")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2]


def data_root() -> Path:
    import os

    env = os.environ.get("MECHSYM_DATA")
    return Path(env) if env else repo_root() / "data"


def jar_path() -> Path:
    import os

    env = os.environ.get("MECHSYM_JAR")
    return Path(env) if env else Path(__file__).resolve().parents[2] / "build" / "mechsym.jar"


def classpath() -> str:
    """The kernels' classpath: build/mechsym.jar and the third-party jars in build/lib."""
    jar = jar_path()
    if not jar.exists():
        raise MechsymError(f"kernel jar {jar} not found: run `make` first")
    libs = sorted((jar.parent / "lib").glob("*.jar"))
    return ":".join([str(jar)] + [str(p) for p in libs])


def portable(value):
    """`value` (a string, or dicts, lists and tuples of them) as run metadata records it: naming no person's
    directories. Paths under $MECHSYM_SCRATCH become `$MECHSYM_SCRATCH/...`; paths in this checkout become
    relative to the repository (`build/mechsym.jar`, `scratch-io/...`); system paths (/usr/lib/jvm/...) stay."""
    import os
    import re

    if isinstance(value, dict):
        return {k: portable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(portable(v) for v in value)
    if not isinstance(value, str):
        return value
    out = value
    bases = []
    scratch = os.environ.get("MECHSYM_SCRATCH")
    if scratch:
        bases.append((Path(scratch).expanduser().resolve(), "$MECHSYM_SCRATCH"))
    bases.append((repo_root().resolve(), "."))
    for base, name in bases:
        for spelling in dict.fromkeys((str(base), os.path.realpath(base), os.path.abspath(base))):
            if spelling in ("", "/"):
                continue
            # a path starts the string or follows a space, '=', ':', ',' or a quote; it ends at '/' or a path's end
            pattern = rf"(?<![^\s=:,'\"]){re.escape(spelling)}(?=/|$|[\s:,'\"])"
            out = re.sub(pattern + "/", "" if name == "." else name + "/", out)
            out = re.sub(pattern, name, out)
    return out
