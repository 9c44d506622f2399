"""The fleet's hosts kept apart: no two inventory hosts under one machine id, and none under this machine's own.

A machine id is what the runs are stored, pooled and judged under. Hosts cloned from one image (same CPU, same
/etc/machine-id) report one id, and the store could not tell their runs apart; a host reporting the controller's id
would have its runs shown as "this machine". Both are refused before anything runs, with one line naming every
host concerned and the way out (`mechsym_machine=NAME` per host in the inventory).

    python3 fleet/machines.py CONTROLLER_ID '{"host-a": "id-1", "host-b": "id-1"}'   -> {"host-a": "...", ...}
"""

from __future__ import annotations

import json
import sys


def refusals(ids: dict[str, str], here: str = "") -> dict[str, str]:
    """host -> the one-line reason it is refused, for every host that shares its id with another or with `here`."""
    by_id: dict[str, list[str]] = {}
    for host, machine in sorted(ids.items()):
        by_id.setdefault(machine, []).append(host)
    out = {}
    for machine, hosts in sorted(by_id.items()):
        if len(hosts) > 1:
            line = (f"{', '.join(hosts)}: one machine id {machine} for {len(hosts)} hosts (cloned from one image?): "
                    "refused, nothing run; give each its own mechsym_machine=NAME in the inventory")
            out.update({h: line for h in hosts})
        elif machine == here:
            out[hosts[0]] = (f"{hosts[0]}: reports this machine's own id {machine} (the same box, or a clone of "
                             "its image): refused, nothing run; give it mechsym_machine=NAME, or run here with "
                             "`mechsym run`")
    return out


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: machines.py CONTROLLER_ID HOST_IDS_JSON")
    print(json.dumps(refusals(json.loads(sys.argv[2]), sys.argv[1])))
