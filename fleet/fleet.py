"""`make fleet`: the same sweep on every host of an Ansible inventory, gathered into this checkout's store.

Runs fleet/site.yml with ansible-playbook (installed into .venv by `make fleet-deps`, pinned in
fleet/requirements.txt), prints one line per host and step as the hosts go, and at the end a summary: host, machine
id, runs imported, and every failure with its one-line reason. Exit status 0 when every host ran every experiment and
its runs were imported, 1 when anything failed, 2 for bad input.

    .venv/bin/python fleet/fleet.py --inventory fleet/inventory.example.ini --experiments writecombining --preset smoke
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLAYBOOK = ROOT / "fleet" / "site.yml"
PRESETS = ("smoke", "standard", "full")

TASK = re.compile(r"^TASK \[(?:[^\]]*? : )?(?P<task>[^\]]*)\]")
RESULT = re.compile(r"^(?P<status>ok|changed|failed|fatal|skipping): \[(?P<host>[^\]\s]+)(?: -> [^\]]+)?\]"
                    r"(?::? ?(?P<what>UNREACHABLE!|FAILED!))?(?: => \(item=(?P<item>[^)]*)\)| \(item=(?P<item2>[^)]*)\))?"
                    r"(?P<rest>.*)$")
RECAP = re.compile(r"^(?P<host>\S+)\s+: ok=\d+\s+changed=\d+\s+unreachable=(?P<unreachable>\d+)\s+failed=(?P<failed>\d+)")


class FleetError(Exception):
    """Bad input: one line naming it and what is allowed."""


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="make fleet", description=__doc__.split("\n\n")[0])
    ap.add_argument("--inventory", required=True, help="an Ansible inventory (fleet/inventory.example.ini)")
    ap.add_argument("--experiments", required=True, help="experiment names, comma-separated, run in this order")
    ap.add_argument("--preset", default="standard", help="smoke | standard | full (default: standard)")
    ap.add_argument("--out", help="folder for the bundles, host records and the log (default: build/fleet/<time>)")
    return ap.parse_args(argv)


def check(args: argparse.Namespace) -> tuple[Path, list[str], Path, Path]:
    inventory = Path(args.inventory)
    if not inventory.is_file():
        raise FleetError(f"inventory {args.inventory}: no such file; give an Ansible inventory, "
                         "e.g. INVENTORY=fleet/inventory.example.ini")
    if args.preset not in PRESETS:
        raise FleetError(f"preset {args.preset!r}: not a preset; allowed: {', '.join(PRESETS)}")
    from mechsym.experiments import names

    known = names()
    experiments = [e.strip() for e in args.experiments.split(",") if e.strip()]
    if not experiments:
        raise FleetError("experiments: none given; e.g. EXPERIMENTS=locks,spsc (allowed: " + ", ".join(known) + ")")
    for e in experiments:
        if e not in known:
            raise FleetError(f"experiment {e!r}: unknown; allowed: {', '.join(known)}")
    playbook = Path(sys.executable).parent / "ansible-playbook"
    if not playbook.exists():
        raise FleetError(f"{playbook}: not installed; run `make fleet-deps` (ansible-core, pinned in "
                         "fleet/requirements.txt)")
    out = Path(args.out) if args.out else ROOT / "build" / "fleet" / time.strftime("%Y%m%d-%H%M%S")
    if out.exists() and any(out.iterdir()):
        raise FleetError(f"output folder {out}: not empty; give another --out (earlier bundles are kept)")
    out.mkdir(parents=True, exist_ok=True)
    return inventory.resolve(), experiments, out.resolve(), playbook


def progress(line: str, state: dict) -> str | None:
    """One progress line for a line of ansible-playbook's output, or None."""
    m = TASK.match(line)
    if m:
        state["task"] = m.group("task")
        return None
    m = RESULT.match(line)
    if not m or m.group("status") == "skipping" or m.group("host") == "localhost" \
            or state.get("task", "").startswith("the host's record"):
        return None
    host, status, item = m.group("host"), m.group("status"), m.group("item") or m.group("item2")
    if m.group("what") == "UNREACHABLE!":
        status = "unreachable: " + _msg(m.group("rest"))
    elif status in ("failed", "fatal"):
        status = "failed" + (f": {_msg(m.group('rest'))}" if _msg(m.group("rest")) else "")
    return f"  {host}: {state.get('task', '?')}{f' ({item})' if item else ''}: {status}"


def _msg(rest: str) -> str:
    """The first line of the msg of a result's JSON (`=> {...}`), when there is one."""
    _, _, js = rest.partition("=> ")
    try:
        data = json.loads(js)
    except ValueError:
        return ""
    text = str(data.get("msg") or "").strip() if isinstance(data, dict) else ""
    return text.splitlines()[0][:200] if text else ""


def run_playbook(inventory: Path, experiments: list[str], preset: str, out: Path, playbook: Path) -> dict:
    """Runs the playbook, printing progress; returns what its recap and output say about each host."""
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()
    subprocess.run(["git", "-C", str(ROOT), "bundle", "create", "-q", str(out / "mechsym-lab.bundle"), "HEAD"],
                   check=True)
    extra = {"fleet_commit": commit, "mechsym_experiments": experiments, "mechsym_preset": preset, "fleet_out": str(out),
             "fleet_mechsym": str(Path(sys.executable).parent / "mechsym")}
    env = dict(os.environ, ANSIBLE_NOCOLOR="1", ANSIBLE_FORCE_COLOR="0", ANSIBLE_RETRY_FILES_ENABLED="0",
               ANSIBLE_STDOUT_CALLBACK="default", ANSIBLE_LOCALHOST_WARNING="0", PYTHONUNBUFFERED="1",
               ANSIBLE_CALLBACK_RESULT_FORMAT="json", ANSIBLE_CALLBACK_FORMAT_PRETTY="0",
               ANSIBLE_PIPELINING=os.environ.get("ANSIBLE_PIPELINING", "1"))
    cmd = [str(playbook), "-i", str(inventory), "--forks", "32", "-e", json.dumps(extra), str(PLAYBOOK)]
    hosts: dict[str, dict] = {}
    state: dict = {}
    log = out / "ansible.log"
    with open(log, "w") as f, subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                               env=env, cwd=ROOT) as p:
        for line in p.stdout:
            f.write(line)
            line = line.rstrip("\n")
            shown = progress(line, state)
            if shown:
                print(shown, flush=True)
            m = RESULT.match(line)
            if m and m.group("what") == "UNREACHABLE!":
                hosts.setdefault(m.group("host"), {})["unreachable"] = _msg(m.group("rest")) or "unreachable"
            m = RECAP.match(line)
            if m:
                hosts.setdefault(m.group("host"), {}).update(unreachable_count=int(m.group("unreachable")),
                                                             failed_count=int(m.group("failed")))
    if not (out / "localhost.json").exists():
        hosts.pop("localhost", None)   # the play that makes the commit's git bundle, not an inventory host
    hosts["_returncode"] = p.returncode
    hosts["_log"] = str(log)
    return hosts


def summary(out: Path, seen: dict) -> tuple[list[dict], bool]:
    """One row per host: host, machine, runs imported, failures (one line each); and whether all went well."""
    rows, all_ok = [], True
    names = sorted({p.stem for p in out.glob("*.json")} | {h for h in seen if not h.startswith("_")})
    for host in names:
        rec_path = out / f"{host}.json"
        rec = json.loads(rec_path.read_text()) if rec_path.exists() else {}
        failures = []
        if rec.get("failure"):
            failures.append(rec["failure"])
        for exp, why in zip(rec.get("failed_experiments", []), rec.get("run_errors", [])):
            failures.append(f"{host}: run {exp} failed: {why or 'no message'}")
        if rec.get("import_error"):
            failures.append(f"{host}: import refused: {rec['import_error']}")
        if not rec:
            why = seen.get(host, {}).get("unreachable") or "no record written; see the log"
            failures.append(f"{host}: {why}")
        imported = None
        m = re.search(r"imported (\d+) runs", rec.get("import", ""))
        if m:
            imported = int(m.group(1))
        already = re.search(r"(\d+) already stored", rec.get("import", ""))
        rows.append({"host": host, "machine": rec.get("machine") or "-", "imported": imported,
                     "already": int(already.group(1)) if already else 0, "failures": failures})
        all_ok = all_ok and not failures
    return rows, all_ok


def print_summary(rows: list[dict], commit: str, preset: str, experiments: list[str]) -> None:
    print(f"\nfleet summary: commit {commit[:12]}, preset {preset}, experiments {', '.join(experiments)}")
    wh = max([4] + [len(r["host"]) for r in rows])
    wm = max([10] + [len(r["machine"]) for r in rows])
    print(f"  {'host':<{wh}}  {'machine id':<{wm}}  runs imported")
    for r in rows:
        n = "-" if r["imported"] is None else str(r["imported"])
        if r["already"]:
            n += f" (+{r['already']} already stored)"
        print(f"  {r['host']:<{wh}}  {r['machine']:<{wm}}  {n}")
    failures = [f for r in rows for f in r["failures"]]
    print(f"failures: {len(failures)}" + ("" if failures else " (every host ran every experiment)"))
    for f in failures:
        print(f"  {f}")


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        inventory, experiments, out, playbook = check(args)
    except FleetError as e:
        print(f"fleet: {e}", file=sys.stderr)
        return 2
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    if dirty:
        print(f"fleet: this checkout has uncommitted changes; the hosts check out commit {commit[:12]} without them")
    print(f"fleet: {', '.join(experiments)} at preset {args.preset} on {inventory.name}; "
          f"bundles, records and the log in {out}", flush=True)
    seen = run_playbook(inventory, experiments, args.preset, out, playbook)
    rows, ok = summary(out, seen)
    print_summary(rows, commit, args.preset, experiments)
    if not rows:
        print(f"fleet: no host ran (ansible-playbook exited {seen['_returncode']}); see {seen['_log']}")
        return 1
    print(f"log: {seen['_log']}")
    return 0 if ok and seen["_returncode"] in (0, 2) else 1


if __name__ == "__main__":
    sys.exit(main())
