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
