"""The fleet playbook (fleet/site.yml through fleet/fleet.py), for real, on an inventory of local hosts: two inventory
names with their own machine ids and checkouts run one cheap experiment at smoke size, and their runs arrive in one
store, apart; a third host whose PATH has no javac fails with one line naming it and the tool, and the others finish.

The hosts link this checkout's build/ and .venv (mechsym_prebuilt, mechsym_make=false) instead of building again.
ansible-core is not in requirements.lock: `make test` installs it into .venv (`make fleet-deps`, pinned in
fleet/requirements.txt); without it the test is skipped and says how to install it."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PLAYBOOK = Path(sys.executable).parent / "ansible-playbook"

pytestmark = pytest.mark.skipif(not PLAYBOOK.exists(), reason="ansible-playbook is not in .venv: run "
                                                                "`make fleet-deps` (`make test` does)")


def inventory(tmp_path: Path) -> Path:
    shim = tmp_path / "no-javac"
    shim.mkdir()
    for tool in ("gcc", "make", "mvn", "git"):
        os.symlink(os.path.realpath(shutil.which(tool)), shim / tool)
    os.symlink(os.path.realpath(sys.executable), shim / "python3")
    path = tmp_path / "hosts.ini"
    path.write_text(f"""
[local]
box-a mechsym_machine=fleet-box-a mechsym_path={tmp_path}/box-a
box-b mechsym_machine=fleet-box-b mechsym_path={tmp_path}/box-b
nojdk mechsym_machine=fleet-nojdk mechsym_path={tmp_path}/nojdk mechsym_search_path={shim}

[local:vars]
ansible_connection=local
ansible_python_interpreter="{{{{ ansible_playbook_python }}}}"
mechsym_prebuilt={ROOT}
mechsym_make=false
""")
    return path


@pytest.mark.kernel
def test_two_machines_on_one_box_are_imported_apart_and_a_host_without_javac_fails_alone(tmp_path):
    store, out = tmp_path / "store", tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MECHSYM_") or k == "MECHSYM_BENCH_LOCK"}
    env["MECHSYM_RESULTS"] = str(store)
    r = subprocess.run([sys.executable, str(ROOT / "fleet" / "fleet.py"), "--inventory", str(inventory(tmp_path)),
                        "--experiments", "writecombining", "--preset", "smoke", "--out", str(out)],
                       capture_output=True, text=True, env=env, timeout=240)
    assert r.returncode == 1, r.stdout + r.stderr   # one host failed
    summary = r.stdout[r.stdout.index("fleet summary"):]

    # the host without javac: one line naming it and the tool, in the progress and in the summary's failures
    assert "  nojdk: missing javac (JDK 17)\n" in summary, summary
    assert summary.count("nojdk:") == 1 and "failures: 1\n" in summary, summary
    assert not (tmp_path / "nojdk").exists()  # it stopped before its checkout

    # the two others: their checkouts at this commit, one run each, imported under their own ids, kept apart
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    runs = {}
    for host, machine in (("box-a", "fleet-box-a"), ("box-b", "fleet-box-b")):
        head = subprocess.run(["git", "-C", str(tmp_path / host), "rev-parse", "HEAD"], capture_output=True, text=True)
        assert head.stdout.strip() == commit
        assert any(line.split()[:3] == [host, machine, "1"] for line in summary.splitlines()), summary
        record = json.loads((out / f"{host}.json").read_text())
        assert record["machine"] == machine and record["failed_experiments"] == [] and not record["failure"]
        stored = sorted((store / machine / "writecombining").glob("*.json"))
        assert len(stored) == 1, stored
        meta = json.loads(stored[0].read_text())
        assert meta["machine"]["machine_id"] == machine and meta["preset"] == "smoke"
        assert stored[0].with_suffix(".csv").stat().st_size > 0
        runs[machine] = stored[0].stem
    assert sorted(p.name for p in store.iterdir() if not p.name.startswith(".")) == ["fleet-box-a", "fleet-box-b"]
    assert runs["fleet-box-a"] != runs["fleet-box-b"]
    # the hosts' own stores hold their own runs only
    for host, machine in (("box-a", "fleet-box-a"), ("box-b", "fleet-box-b")):
        smoke = (tmp_path / host / "data" / "results").glob("*/writecombining/*-smoke-*.json")
        assert {p.parent.parent.name for p in smoke} == {machine}


def test_bad_input_is_one_line(tmp_path):
    inv = tmp_path / "hosts.ini"
    inv.write_text("[x]\nh ansible_connection=local\n")
    for args, words in ((["--inventory", str(tmp_path / "none.ini"), "--experiments", "locks"], "no such file"),
                        (["--inventory", str(inv), "--experiments", "nosuch"], "experiment 'nosuch': unknown"),
                        (["--inventory", str(inv), "--experiments", "locks", "--preset", "stored"],
                         "preset 'stored': not a preset")):
        r = subprocess.run([sys.executable, str(ROOT / "fleet" / "fleet.py"), *args, "--out", str(tmp_path / "o")],
                           capture_output=True, text=True)
        assert r.returncode == 2 and words in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_machines_claims_shows_each_claims_outcome_per_machine():
    import pandas as pd

    from mechsym.view import overview

    rows = [("m1", "a", "holds"), ("m2", "a", "does not hold"), ("m1", "b", "holds"), ("m2", "b", "holds"),
            ("m1", "c", "inconclusive")]
    claims = pd.DataFrame([{"notebook": "nb", "claim": c, "scope": "", "protocol": "", "machine": m, "outcome": o}
                           for m, c, o in rows])
    t = overview.machines_claims(claims).data.set_index("claim")
    assert list(t.columns) == ["notebook", "where", "m1", "m2", "holds on"]
    assert t.loc["a", "m2"] == "does not hold" and t.loc["b", "holds on"] == "2 of 2"
    assert t.loc["c", "m2"] == overview.NOT_RUN and t.loc["c", "holds on"] == "0 of 2"
