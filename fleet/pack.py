"""`make pack`: what a fleet host without internet needs, built on this machine into one archive,
build/pack/mechsym-pack.tar (with its description, build/pack/pack.json, beside it).

A host's `make` downloads ~660 MB (Maven Central, PyPI); lab servers are often air-gapped. The pack carries:
- a wheelhouse: every package of requirements.lock as a wheel (`pip wheel`, sdists built here) and the build backend
  of pyproject.toml (the host keeps the pip its venv comes with), for one Python: PACK_PYTHON's minor version and
  this machine's CPU architecture (the lock's markers are evaluated for that Python, so its versions are the ones an
  online `make` would install);
- the Maven jars (build/lib, build/jmh-lib) and the kernels' jars (build/mechsym.jar, build/jmh.jar) with a digest
  of the sources they were built from: a host whose checkout has the same sources takes them, any other host
  rebuilds them with its own javac.
The C kernels are not in it: each host builds them from its checkout with gcc, for its own CPU.
`make fleet ... PACK=1` sends the pack to every host that builds (fleet/site.yml; fleet/hostjob.py unpacks it), and
its `make` then installs from the wheelhouse only (PIP_NO_INDEX).

    python3 fleet/pack.py --python python3 --out build/pack
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hostjob import digest  # noqa: E402  (the host computes the same digest of its own checkout)

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"
JARS = ("lib", "jmh-lib", "mechsym.jar", "jmh.jar")
FORMAT = 1   # what a pack holds and how; a pack of another format is made again


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def build_requires() -> list[str]:
    """The build backend of pyproject.toml ([build-system] requires): the host's `pip install -e .` needs it."""
    m = re.search(r"^\[build-system\][^\[]*?^requires\s*=\s*\[(.*?)\]", (ROOT / "pyproject.toml").read_text(),
                  flags=re.S | re.M)
    return re.findall(r'"([^"]+)"', m.group(1)) if m else []


def pip_of(python: str, out: Path) -> tuple[Path, dict]:
    """A small venv of PACK_PYTHON whose pip builds the wheelhouse (markers evaluated for that Python); and what
    that Python is."""
    r = subprocess.run([python, "-c", "import json, platform, sys; print(json.dumps({'python': list(sys.version_info"
                        "[:3]), 'machine': platform.machine(), 'executable': sys.executable}))"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"make pack: PACK_PYTHON={python} does not run: {(r.stderr.strip().splitlines() or ['?'])[-1]}")
    about = json.loads(r.stdout)
    venv = out / "pip"
    have = subprocess.run([str(venv / "bin" / "python"), "-c", "import sys; print(list(sys.version_info[:3]))"],
                          capture_output=True, text=True).stdout.strip() if (venv / "bin" / "python").exists() else ""
    if have != str(about["python"]):
        shutil.rmtree(venv, ignore_errors=True)
        subprocess.run([python, "-m", "venv", str(venv)], check=True)
    return venv / "bin" / "python", about


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="make pack", description=__doc__.split("\n\n")[0])
    ap.add_argument("--python", default="python3", help="the hosts' Python (default python3: this machine's)")
    ap.add_argument("--out", default=str(ROOT / "build" / "pack"))
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    missing = [j for j in JARS if not (ROOT / "build" / j).exists()]
    if missing:
        sys.exit(f"make pack: build/{missing[0]} missing: run `make` first")
    pip, about = pip_of(args.python, out)
    inputs = {"format": FORMAT, "python": about["python"], "machine": about["machine"], "lock_sha256": sha256(LOCK),
              "sources": digest(ROOT), "jars": {j: sha256(ROOT / "build" / j) for j in JARS[2:]},
              "build_requires": build_requires()}
    try:
        made = json.loads((out / "pack.json").read_text())
    except (OSError, ValueError):
        made = {}
    if (out / "mechsym-pack.tar").exists() and all(made.get(k) == v for k, v in inputs.items()):
        print(f"make pack: {out / 'mechsym-pack.tar'} is up to date (pack {made['id'][:12]})")
        return 0
    wheels = out / "wheelhouse"
    shutil.rmtree(wheels, ignore_errors=True)
    for what in (["-r", str(LOCK)], build_requires()):
        r = subprocess.run([str(pip), "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels), *what])
        if r.returncode != 0:
            sys.exit(f"make pack: pip wheel {' '.join(what)} failed (exit {r.returncode}; its error is above)")
    names = sorted(p.name for p in wheels.glob("*.whl"))
    pack = {**inputs, "python_executable": about["executable"], "wheels": len(names),
            "made": time.strftime("%Y-%m-%dT%H:%M:%S")}
    pack["id"] = hashlib.sha256(json.dumps([inputs, names], sort_keys=True).encode()).hexdigest()
    tmp = out / "mechsym-pack.tar.tmp"
    with tarfile.open(tmp, "w") as t:
        info = tarfile.TarInfo("pack.json")
        data = json.dumps(pack, indent=1).encode()
        info.size, info.mtime = len(data), int(time.time())
        t.addfile(info, io.BytesIO(data))
        t.add(wheels, "wheelhouse")
        for j in JARS:
            t.add(ROOT / "build" / j, j)
    tmp.replace(out / "mechsym-pack.tar")
    shutil.rmtree(wheels)   # in the archive now
    (out / "pack.json").write_text(json.dumps(pack, indent=1) + "\n")
    size = (out / "mechsym-pack.tar").stat().st_size / 2**20
    print(f"make pack: {out / 'mechsym-pack.tar'} ({size:.0f} MB): {len(names)} wheels for Python "
          f"{'.'.join(map(str, about['python'][:2]))} on {about['machine']}, the Maven and kernels' jars; "
          "`make fleet ... PACK=1` sends it to the hosts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
