"""What `make fleet` says as the hosts go and at the end, read from the playbook's events (fleet/callback_plugins).

The lesson: a failure is the host's own words. Ansible wraps a host's error in its own ("MODULE FAILURE", "Module
result deserialization failed", "non-zero return code"); the line that names the cause is the last one the host
wrote (its stderr, else its stdout, else Ansible's message), so that is the line shown, after the host and the step.
A lost connection during the sweep is not a failed sweep: the sweep goes on on the host, and the line says how to
gather it.
"""

from __future__ import annotations

import json
import re

# The playbook's task names (fleet/site.yml) this report reads; a renamed task is caught by tests/test_fleet.py.
PREREQS, MISSING, REFUSED = "prerequisites", "stop when something is missing", "refused"
CHECKOUT, MACHINE, UNPACK, START, SWEEP = "checkout", "machine id", "unpack it", "start the sweep", "the sweep"
IMPORT = "import"
OWN_WORDS = (MISSING, REFUSED)   # tasks whose message is already the host's one line
LOST_SWEEP = (START, SWEEP)
QUIET = ("remember where", "remember it", "pin the Python that passed", "the pack it has", "machines apart",
         "remember the refused", "the round is gathered", "a folder for the fleet's files")


def last_words(result: dict) -> str:
    """The last non-empty line the host wrote: stderr, module_stderr, stdout, module_stdout, then Ansible's msg."""
    for key in ("stderr", "module_stderr", "stdout", "module_stdout", "msg"):
        text = result.get(key)
        if isinstance(text, str):
            lines = [s.strip() for s in text.splitlines() if s.strip()]
            if lines:
                return lines[-1][:300]
    return f"exit status {result['rc']}" if result.get("rc") not in (None, 0) else "no message"


def _ssh(msg: str) -> str:
    """ssh's own words in an unreachable host's message ("Task failed: Failed to connect to the host via ssh: ssh:
    connect to host 10.0.0.9 port 22: No route to host" -> "ssh: connect to host ...: No route to host")."""
    text = last_words({"msg": msg})
    m = re.search(r"\bssh: (?!.*\bssh: ).*$", text)   # the last "ssh: ": ssh's own message
    return m.group(0) if m else re.sub(r"^(Task failed: )?(Failed to connect to the host via ssh: )?", "", text)


class Fleet:
    """The hosts' state as the events arrive: feed() returns the progress lines to print; rows() the summary."""

    def __init__(self, commit: str = ""):
        self.commit = commit
        self.hosts: dict[str, dict] = {}
        self.said: set[str] = set()

    def host(self, name: str) -> dict:
        return self.hosts.setdefault(name, {"machine": None, "machine_record": None, "python": None, "steps": [],
                                            "import": "", "failures": [], "reached": False, "shown": {}})

    def feed(self, event: dict) -> list[str]:
        kind, name, task = event.get("event"), event.get("host"), event.get("task", "")
        if not name or name == "localhost" or kind in ("task", "play", "stats", "skipped"):
            return []
        h = self.host(name)
        if kind == "unreachable":
            return self._lost(name, h, task, event)
        h["reached"] = True
        if kind in ("failed", "item_failed") and not event.get("ignored"):
            if kind == "failed" and event.get("msg") == "One or more items failed" and h["failures"]:
                return []
            line = event.get("msg", "") if task in OWN_WORDS else \
                f"{name}: {task}{' (' + event['item'] + ')' if event.get('item') else ''} failed: {last_words(event)}"
            h["failures"].append(line)
            return self._once(line)
        if kind not in ("ok", "retry", "item_ok") or task in QUIET:
            return []
        return self._progress(name, h, task, event)

    def _lost(self, name: str, h: dict, task: str, event: dict) -> list[str]:
        why = _ssh(event.get("msg", "")) or "unreachable"
        if task in LOST_SWEEP:
            line = (f"{name}: connection lost during the sweep ({why}); the sweep goes on on the host: the next "
                    "`make fleet` with the same commit, preset and experiments gathers it")
        elif h["reached"]:
            line = f"{name}: connection lost at {task!r} ({why})"
        else:
            line = f"{name}: unreachable: {why}"
        h["failures"].append(line)
        return self._once(line)

    def _once(self, line: str) -> list[str]:
        """A failure line as progress, once (hosts refused together share theirs)."""
        if line in self.said:
            return []
        self.said.add(line)
        return [f"  {line}"]

    def _progress(self, name: str, h: dict, task: str, event: dict) -> list[str]:
        out = (event.get("stdout") or "").strip()
        lines: list[str] = []
        if task == PREREQS and out.splitlines() and out.splitlines()[-1].startswith("ready: "):
            _, path, version, *_ = out.splitlines()[-1].split(" ") + ["", ""]
            h["python"] = path
            lines.append(f"Python {path} ({version}), tools there")
        elif task == CHECKOUT and out:
            lines.append(f"checkout at {self.commit[:12]} in {out.splitlines()[-1]}")
        elif task == MACHINE and out:
            rec = json.loads(out.splitlines()[-1])
            h["machine"], h["machine_record"] = rec.get("id"), rec
            lines.append(f"machine id {rec.get('id')} ({rec.get('cpu')}, {rec.get('cpus')} CPUs)")
        elif task == UNPACK and out:
            lines.append(out.splitlines()[-1])
        elif task == START and out:
            js = json.loads(out.splitlines()[-1])
            if "attached" in js:
                lines.append(f"its sweep of an earlier `make fleet` still runs (pid {js['attached']}): re-attached")
            else:
                kept = js.get("kept") or []
                lines.append(f"sweep started, detached (pid {js.get('started')})"
                             + (f"; kept from an earlier attempt: {', '.join(kept)}" if kept else ""))
        elif task == SWEEP and out:
            js = json.loads(out.splitlines()[-1])
            if js.get("error"):
                h["failures"].append(f"{name}: {js['error']}")
            h["steps"] = js.get("steps", [])
            for s in h["steps"]:
                text = {"done": "done", "failed": f"failed: {s.get('last') or 'exit ' + str(s.get('rc'))}"}.get(
                    s["state"], s.get("last") if s["state"] == "running" else None)
                if text and h["shown"].get(s["name"]) != text:
                    h["shown"][s["name"]] = text
                    lines.append(f"{s['name']}: {text}")
        elif task == IMPORT and out:
            h["import"] = out.splitlines()[-1]
            lines.append(h["import"])
        return [f"  {name}: {line}" for line in lines]

    def step_failures(self, name: str) -> list[str]:
        out = []
        for s in self.host(name)["steps"]:
            if s["state"] == "failed":
                out.append(f"{name}: {s['name']} failed: {s.get('last') or 'exit status ' + str(s.get('rc'))}")
            elif s["state"] == "stopped":
                out.append(f"{name}: {s['name']} stopped: its runner on the host is gone (killed, or the host "
                           "restarted); the next `make fleet` resumes it")
        return out

    def rows(self) -> list[dict]:
        """One row per host: host, machine, runs imported (and already stored), failures (one line each)."""
        rows = []
        for name in sorted(self.hosts):
            h = self.hosts[name]
            failures = h["failures"] + [f for f in self.step_failures(name) if f not in h["failures"]]
            m = re.search(r"imported (\d+) runs", h["import"])
            already = re.search(r"(\d+) already stored", h["import"])
            rows.append({"host": name, "machine": h["machine"] or "-", "imported": int(m.group(1)) if m else None,
                         "already": int(already.group(1)) if already else 0, "failures": failures})
        return rows

    def record(self, name: str, preset: str, experiments: list[str]) -> dict:
        """The host's record (fleet_out/<host>.json)."""
        h, row = self.hosts[name], next(r for r in self.rows() if r["host"] == name)
        return {"host": name, "machine": h["machine"], "machine_record": h["machine_record"], "python": h["python"],
                "commit": self.commit, "preset": preset, "experiments": experiments, "steps": h["steps"],
                "import": h["import"], "imported": row["imported"], "failures": row["failures"]}


def summary_lines(rows: list[dict], commit: str, preset: str, experiments: list[str]) -> list[str]:
    out = [f"fleet summary: commit {commit[:12]}, preset {preset}, experiments {', '.join(experiments)}"]
    wh = max([4] + [len(r["host"]) for r in rows])
    wm = max([10] + [len(r["machine"]) for r in rows])
    out.append(f"  {'host':<{wh}}  {'machine id':<{wm}}  runs imported")
    for r in rows:
        n = "-" if r["imported"] is None else str(r["imported"])
        if r["already"]:
            n += f" (+{r['already']} already stored)"
        out.append(f"  {r['host']:<{wh}}  {r['machine']:<{wm}}  {n}")
    failures = list(dict.fromkeys(f for r in rows for f in r["failures"]))   # hosts refused together: one line
    out.append(f"failures: {len(failures)}" + ("" if failures else " (every host ran every experiment)"))
    out += [f"  {f}" for f in failures]
    return out
