"""Ansible stdout callback for `make fleet`: one JSON object a line for every task start and every host's result
(ok, changed, failed, unreachable, skipped, a retry of a polling task, an item of a loop) and the recap, so that
fleet/fleet.py reads what happened instead of parsing the default callback's text. fleet.py selects it
(ANSIBLE_STDOUT_CALLBACK=fleet_events, ANSIBLE_CALLBACK_PLUGINS=fleet/callback_plugins).

A result carries the fields a one-line reason or a progress line is made of (msg, rc, the last 4000 characters of
stdout, stderr, module_stdout and module_stderr), never the whole result: a module's own output can be large.
"""

from __future__ import annotations

import json
import sys
import time

from ansible.plugins.callback import CallbackBase

DOCUMENTATION = """
    name: fleet_events
    type: stdout
    short_description: one JSON line per task and result, for fleet/fleet.py
    description: one JSON line per task and result, for fleet/fleet.py
"""

FIELDS = ("msg", "stdout", "stderr", "module_stdout", "module_stderr", "rc", "attempts", "retries", "skip_reason")
TAIL = 4000


def _part(result, name):
    """result.host / .task / .result on ansible-core >= 2.19, result._host / ... before it."""
    try:
        return getattr(result, name)
    except AttributeError:
        return getattr(result, "_" + name)


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "stdout"
    CALLBACK_NAME = "fleet_events"

    def _emit(self, event: dict) -> None:
        event["t"] = round(time.time(), 3)
        sys.stdout.write(json.dumps(event, default=str) + "\n")
        sys.stdout.flush()

    def _result(self, status: str, result, **extra) -> None:
        data = _part(result, "result") or {}
        out = {"event": status, "host": _part(result, "host").get_name(), "task": _part(result, "task").get_name()}
        for k in FIELDS:
            v = data.get(k)
            if v not in (None, ""):
                out[k] = v[-TAIL:] if isinstance(v, str) else v
        if "item" in data or "_ansible_item_label" in data:
            out["item"] = str(data.get("_ansible_item_label", data.get("item")))
        if data.get("unreachable"):
            out["event"] = "unreachable"
        out.update(extra)
        self._emit(out)

    def v2_playbook_on_play_start(self, play):
        self._emit({"event": "play", "name": play.get_name()})

    def v2_playbook_on_task_start(self, task, is_conditional):
        self._emit({"event": "task", "name": task.get_name()})

    def v2_runner_on_ok(self, result):
        self._result("ok", result)

    def v2_runner_on_failed(self, result, ignore_errors=False):
        self._result("failed", result, ignored=bool(ignore_errors))

    def v2_runner_on_unreachable(self, result):
        self._result("unreachable", result)

    def v2_runner_on_skipped(self, result):
        self._result("skipped", result)

    def v2_runner_retry(self, result):
        self._result("retry", result)

    def v2_runner_item_on_ok(self, result):
        self._result("item_ok", result)

    def v2_runner_item_on_failed(self, result):
        self._result("item_failed", result)

    def v2_playbook_on_stats(self, stats):
        hosts = sorted(stats.processed.keys())
        self._emit({"event": "stats", "hosts": {h: stats.summarize(h) for h in hosts}})
