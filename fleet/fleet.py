"""`make fleet`: the same sweep on every host of an Ansible inventory, gathered into this checkout's store.

Runs fleet/site.yml with ansible-playbook (installed into .venv by `make fleet-deps`, pinned in
fleet/requirements.txt), prints one line per host and step as the hosts go (fleet/report.py, from the events of
fleet/callback_plugins/fleet_events.py), and at the end a summary: host, machine id, runs imported, and every failure
with its one-line reason. Each host's build and sweep run detached on the host (fleet/hostjob.py): a dropped
connection loses nothing, and running the same command again re-attaches to what still runs, resumes what did not
end well and gathers it. Exit status 0 when every host ran every experiment and its runs were imported, 1 when
anything failed, 2 for bad input.

    .venv/bin/python fleet/fleet.py --inventory fleet/inventory.example.ini --experiments writecombining
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PLAYBOOK = HERE / "site.yml"
PRESETS = ("smoke", "standard", "full")
KEEP = 5   # build/fleet/<time>/ folders kept: the newest five (each holds the hosts' bundles and the full log)
STAMP = re.compile(r"^\d{8}-\d{6}(-\d+)?$")

sys.path.insert(0, str(HERE))
from report import Fleet, summary_lines  # noqa: E402


class FleetError(Exception):
    """Bad input: one line naming it and what is allowed."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="make fleet", description=__doc__.split("\n\n")[0])
    ap.add_argument("--inventory", required=True, help="an Ansible inventory (fleet/inventory.example.ini)")
    ap.add_argument("--experiments", required=True, help="experiment names, comma-separated, run in this order")
    ap.add_argument("--preset", default="smoke", help="smoke | standard | full (default: smoke, a check)")
    ap.add_argument("--out", help="folder for the bundles, host records, summary and log (default: build/fleet/<time>, "
                                  f"the newest {KEEP} kept)")
    ap.add_argument("--pack", help="a `make pack` archive (build/pack/mechsym-pack.tar): hosts that build take "
                                   "everything from it, and need no internet")
    ap.add_argument("--limit", help="only these inventory hosts or groups (ansible-playbook --limit)")
    ap.add_argument("--poll", default="5", help="seconds between two looks at a host's sweep (default 5)")
    return ap.parse_args(argv)


def check(args: argparse.Namespace) -> tuple[Path, list[str], Path, Path, dict | None]:
    inventory = Path(args.inventory)
    if not inventory.is_file():
        raise FleetError(f"inventory {args.inventory}: no such file; give an Ansible inventory, "
                         "e.g. INVENTORY=fleet/inventory.example.ini")
    if args.preset not in PRESETS:
        raise FleetError(f"preset {args.preset!r}: not a preset; allowed: {', '.join(PRESETS)}")
    if not re.fullmatch(r"[1-9][0-9]{0,3}", args.poll):
        raise FleetError(f"poll {args.poll!r}: not a number of seconds; allowed: 1-9999")
    from mechsym.experiments import names

    known = names()
    experiments = [e.strip() for e in args.experiments.split(",") if e.strip()]
    if not experiments:
        raise FleetError("experiments: none given; e.g. EXPERIMENTS=locks,spsc (allowed: " + ", ".join(known) + ")")
    for e in experiments:
        if e not in known:
            raise FleetError(f"experiment {e!r}: unknown; allowed: {', '.join(known)}")
    pack = check_pack(Path(args.pack)) if args.pack else None
    playbook = Path(sys.executable).parent / "ansible-playbook"
    if not playbook.exists():
        raise FleetError(f"{playbook}: not installed; run `make fleet-deps` (ansible-core, pinned in "
                         "fleet/requirements.txt)")
    if args.out:
        out = Path(args.out)
        if out.exists() and any(out.iterdir()):
            raise FleetError(f"output folder {out}: not empty; give another --out (earlier bundles are kept)")
    else:
        out = new_run_folder(ROOT / "build" / "fleet")
    out.mkdir(parents=True, exist_ok=True)
    return inventory.resolve(), experiments, out.resolve(), playbook, pack


def check_pack(tar: Path) -> dict:
    """The pack's description (pack.json beside it), refused when it is not this checkout's requirements.lock."""
    about = tar.parent / "pack.json"
    if not tar.is_file() or not about.is_file():
        raise FleetError(f"pack {tar}: no such pack (or no pack.json beside it); run `make pack` first")
    pack = json.loads(about.read_text())
    if pack.get("lock_sha256") != hashlib.sha256((ROOT / "requirements.lock").read_bytes()).hexdigest():
        raise FleetError(f"pack {tar}: made for another requirements.lock; run `make pack` again")
    return {**pack, "tar": str(tar.resolve())}


def new_run_folder(base: Path) -> Path:
    """build/fleet/<time>, and the older ones beyond the newest KEEP removed (said, in one line)."""
    base.mkdir(parents=True, exist_ok=True)
    stamp, n = time.strftime("%Y%m%d-%H%M%S"), 1
    out = base / stamp
    while out.exists():
        n += 1
        out = base / f"{stamp}-{n}"
    out.mkdir()
    old = prune(base, KEEP)
    if old:
        print(f"fleet: removed {len(old)} older run folder{'s' if len(old) > 1 else ''} of {base} "
              f"(the newest {KEEP} are kept)")
    return out


def prune(base: Path, keep: int) -> list[Path]:
    """Removes the fleet run folders of `base` (named by time) beyond the newest `keep`; returns them."""
    runs = sorted((p for p in base.iterdir() if p.is_dir() and STAMP.match(p.name)),
                  key=lambda p: (p.name[:15], int(p.name[16:] or 1)))
    old = runs[:-keep] if keep > 0 else runs
    for p in old:
        shutil.rmtree(p, ignore_errors=True)
    return old


def controller_machine() -> str:
    from mechsym.machine.identity import machine_id

    return machine_id()


def run_playbook(args, inventory: Path, experiments: list[str], out: Path, playbook: Path, pack: dict | None,
                 commit: str, fleet: Fleet) -> int:
    """Runs the playbook, printing progress; returns its exit status."""
    subprocess.run(["git", "-C", str(ROOT), "bundle", "create", "-q", str(out / "mechsym-lab.bundle"), "HEAD"],
                   check=True)
    extra = {"fleet_commit": commit, "mechsym_experiments": experiments, "mechsym_preset": args.preset,
             "fleet_out": str(out), "fleet_mechsym": str(Path(sys.executable).parent / "mechsym"),
             "fleet_controller_machine": controller_machine(), "fleet_poll": int(args.poll)}
    if pack:
        extra.update(fleet_pack=pack["tar"], fleet_pack_id=pack["id"])
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0", ANSIBLE_RETRY_FILES_ENABLED="0",
               ANSIBLE_STDOUT_CALLBACK="fleet_events", ANSIBLE_CALLBACK_PLUGINS=str(HERE / "callback_plugins"),
               ANSIBLE_LOCALHOST_WARNING="0", ANSIBLE_INVENTORY_UNPARSED_WARNING="0", PYTHONUNBUFFERED="1",
               ANSIBLE_PIPELINING=os.environ.get("ANSIBLE_PIPELINING", "1"),
               # Ansible's default adds -C: compressing what is compressed already (the git bundle, the pack's
               # wheels and jars) costs the CPU and gains nothing
               ANSIBLE_SSH_ARGS=os.environ.get("ANSIBLE_SSH_ARGS", "-o ControlMaster=auto -o ControlPersist=60s"))
    cmd = [str(playbook), "-i", str(inventory), "--forks", "32", "-e", json.dumps(extra), str(PLAYBOOK)]
    if args.limit:
        cmd[1:1] = ["--limit", args.limit]
    with open(out / "ansible.log", "w") as log, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                                                 text=True, env=env, cwd=ROOT) as p:
        error = False
        for line in p.stdout:
            log.write(line)
            log.flush()
            try:
                event = json.loads(line)
            except ValueError:   # the playbook or the inventory itself is wrong: its error, and where
                error = error or bool(re.match(r"^\[?ERROR", line))
                if error and line.strip():
                    print(f"ansible: {line.rstrip()}", flush=True)
                continue
            error = False
            for shown in fleet.feed(event) if isinstance(event, dict) else ():
                print(shown, flush=True)
    return p.returncode


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        inventory, experiments, out, playbook, pack = check(args)
    except FleetError as e:
        print(f"fleet: {e}", file=sys.stderr)
        return 2
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    if dirty:
        print(f"fleet: this checkout has uncommitted changes; the hosts check out commit {commit[:12]} without them")
    print(f"fleet: {', '.join(experiments)} at preset {args.preset} on {inventory.name}"
          f"{' (pack ' + pack['id'][:12] + ')' if pack else ''}; bundles, records, summary and log in {out}",
          flush=True)
    fleet = Fleet(commit)
    try:
        rc = run_playbook(args, inventory, experiments, out, playbook, pack, commit, fleet)
    except KeyboardInterrupt:
        print("\nfleet: interrupted here; what the hosts run goes on there: the same command again re-attaches to "
              "it and gathers it")
        rc = 130
    rows = fleet.rows()
    for name in fleet.hosts:
        (out / f"{name}.json").write_text(json.dumps(fleet.record(name, args.preset, experiments), indent=1) + "\n")
    lines = summary_lines(rows, commit, args.preset, experiments)
    (out / "summary.txt").write_text("\n".join(lines) + "\n")
    print("\n" + "\n".join(lines))
    log = out / "ansible.log"
    if not rows:
        print(f"fleet: no host ran (ansible-playbook exited {rc}); see {log}")
        return 1
    print(f"log: {log}")
    return 0 if rc == 0 and not any(r["failures"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
