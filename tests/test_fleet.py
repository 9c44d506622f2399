"""The fleet (fleet/): the playbook for real on local hosts, refusing what must not run, and its parts one by one:
the host job that outlives its SSH connection (fleet/hostjob.py), the report that names each failure in the host's
own words (fleet/report.py), the machine ids kept apart (fleet/machines.py), the pack's unpacking, the pruning of old
runs. Over real SSH, with a sweep cut mid-run and an air-gapped host: tests/test_fleet_ssh.py.

ansible-core is not in requirements.lock: `make test` installs it into .venv (`make fleet-deps`, pinned in
fleet/requirements.txt); without it the playbook tests are skipped and say how to install it."""

import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FLEET = ROOT / "fleet"
PLAYBOOK = Path(sys.executable).parent / "ansible-playbook"
sys.path.insert(0, str(FLEET))
import hostjob  # noqa: E402
import machines  # noqa: E402
import report  # noqa: E402

needs_ansible = pytest.mark.skipif(not PLAYBOOK.exists(), reason="ansible-playbook is not in .venv: run "
                                                                   "`make fleet-deps` (`make test` does)")


def fleet(*args: str, env: dict | None = None, timeout: float = 240) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(FLEET / "fleet.py"), *args], capture_output=True, text=True,
                          env=env, timeout=timeout)


@needs_ansible
def test_hosts_that_must_not_run_are_refused_before_anything_runs_each_in_one_line(tmp_path):
    """A host without javac; two hosts under one machine id (cloned from one image); a host reporting this machine's
    own id: each stops before its build and sweep, with one line (the twins share theirs), and nothing is stored."""
    shim = tmp_path / "no-javac"
    shim.mkdir()
    for tool in ("gcc", "make", "git"):
        os.symlink(os.path.realpath(shutil.which(tool)), shim / tool)
    prebuilt = tmp_path / "prebuilt"
    prebuilt.mkdir()
    (prebuilt / "build").symlink_to(ROOT / "build")
    (prebuilt / ".venv").symlink_to(Path(sys.prefix))
    inventory = tmp_path / "hosts.ini"
    inventory.write_text(f"""
[local]
nojdk mechsym_machine=fleet-nojdk mechsym_path={tmp_path}/nojdk mechsym_search_path={shim}
twin-a mechsym_machine=fleet-twin mechsym_path={tmp_path}/twin-a
twin-b mechsym_machine=fleet-twin mechsym_path={tmp_path}/twin-b
self mechsym_path={tmp_path}/self

[local:vars]
ansible_connection=local
ansible_python_interpreter="{{{{ ansible_playbook_python }}}}"
mechsym_prebuilt={prebuilt}
""")
    store, out = tmp_path / "store", tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MECHSYM_")}
    env.update(MECHSYM_RESULTS=str(store), MECHSYM_BENCH_LOCK=str(tmp_path / "bench.lock"))
    r = fleet("--inventory", str(inventory), "--experiments", "writecombining", "--out", str(out), env=env)
    assert r.returncode == 1, r.stdout + r.stderr
    summary = r.stdout[r.stdout.index("fleet summary"):]
    failures = summary[summary.index("failures: "):].splitlines()
    assert failures[0] == "failures: 3", summary
    assert "  nojdk: missing javac (JDK 17)" in failures, summary
    twins = [f for f in failures if "twin-a" in f or "twin-b" in f]
    assert len(twins) == 1 and twins[0].startswith("  twin-a, twin-b: one machine id fleet-twin for 2 hosts"), summary
    own = [f for f in failures if f.startswith("  self: ")]
    here = subprocess.run([sys.executable, "-c", "from mechsym.machine.identity import machine_id; "
                           "print(machine_id())"], capture_output=True, text=True, env=env).stdout.strip()
    assert len(own) == 1 and f"reports this machine's own id {here}" in own[0], summary
    assert not (tmp_path / "nojdk").exists()   # it stopped before its checkout
    for host in ("twin-a", "twin-b", "self"):   # checked out and identified, then nothing run
        assert (tmp_path / host / ".git").is_dir() and not (tmp_path / host / "build" / "fleet-host").exists()
        assert json.loads((out / f"{host}.json").read_text())["failures"]
    assert not store.exists() or not any(store.iterdir())


# ---------------------------------------------------------------- the host job

def _spec(*steps: tuple[str, str]) -> str:
    return json.dumps({"commit": "c0ffee", "steps": [{"name": n, "argv": ["sh", "-c", cmd]} for n, cmd in steps]})


def _wait(started: dict) -> None:
    try:
        os.waitpid(started["started"], 0)   # the runner is this test's child: wait for it, no polling
    except ChildProcessError:   # reaped already (subprocess reaps the children it forgot)
        pass


def test_a_job_resumes_what_did_not_end_well_and_keeps_what_did(tmp_path):
    state, flag = tmp_path / "state", tmp_path / "flag"
    spec = _spec(("make", f"echo built >> {tmp_path / 'made'}"),
                 ("run locks", f"test -e {flag} || {{ echo 'kernel check failed: counter 3 != 4' >&2; exit 3; }}"))
    first = hostjob.start(str(state), spec)
    _wait(first)
    polled = hostjob.poll(str(state))
    assert polled["finished"] and [s["state"] for s in polled["steps"]] == ["done", "failed"], polled
    assert polled["steps"][1]["last"] == "kernel check failed: counter 3 != 4"
    flag.touch()
    second = hostjob.start(str(state), spec)   # the next `make fleet`: the failed step again, the done one kept
    assert second["kept"] == ["make"]
    _wait(second)
    assert [s["state"] for s in hostjob.poll(str(state))["steps"]] == ["done", "done"]
    assert (tmp_path / "made").read_text() == "built\n"   # make ran once


def test_a_running_job_is_attached_to_and_its_progress_read(tmp_path):
    state, gate = tmp_path / "state", tmp_path / "gate"
    os.mkfifo(gate)   # the step writes its progress, then reads the fifo: it runs until the test lets it end
    bar = "spsc [smoke]:  40%|####  | 4/10 [00:01<00:02]"
    spec = _spec(("run spsc", f"printf '%s\\r' '{bar}' >&2; cat {gate} >/dev/null"))
    started = hostjob.start(str(state), spec)
    try:
        again = hostjob.start(str(state), spec)
        assert again == {"attached": started["started"]}
        with open(gate, "w"):   # open once the step reads: its progress is written; closed, the step ends
            polled = hostjob.poll(str(state))
        assert not polled["finished"] and polled["steps"][0]["state"] == "running", polled
        assert polled["steps"][0]["last"] == "4 of 10 forks"
    finally:
        _wait(started)
    assert hostjob.poll(str(state))["finished"]


def test_a_checkout_is_not_moved_under_a_running_job_of_another_commit(tmp_path):
    src = tmp_path / "src"
    subprocess.run(["git", "init", "-q", str(src)], check=True)
    git = ["git", "-C", str(src), "-c", "user.email=t@t", "-c", "user.name=t"]
    commits = []
    for n in (1, 2):
        (src / "f").write_text(str(n))
        subprocess.run([*git, "add", "f"], check=True)
        subprocess.run([*git, "commit", "-q", "-m", str(n)], check=True)
        commits.append(subprocess.run([*git, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip())
    bundle = tmp_path / "b.bundle"
    subprocess.run([*git, "bundle", "create", "-q", str(bundle), "HEAD"], check=True)
    repo = Path(hostjob.checkout(str(tmp_path / "host"), str(bundle), commits[0]))
    gate = tmp_path / "gate"
    os.mkfifo(gate)
    started = hostjob.start(str(repo / "build" / "fleet-host" / "r1"),
                            json.dumps({"commit": commits[0], "steps": [{"name": "run", "argv": ["cat", str(gate)]}]}))
    try:
        with pytest.raises(hostjob.HostError, match=rf"commit {commits[0][:12]} still runs there \(pid "
                                                    rf"{started['started']}\)"):
            hostjob.checkout(str(repo), str(bundle), commits[1])
    finally:
        with open(gate, "w"):
            pass
        _wait(started)
    assert hostjob.checkout(str(repo), str(bundle), commits[1]) == str(repo)
    assert (repo / "f").read_text() == "2"


def _pack(tmp_path: Path, repo: Path, python=None, member="wheelhouse/x-1.0-py3-none-any.whl") -> Path:
    tar = tmp_path / "pack.tar"
    pack = {"id": "p" * 64, "python": python or list(sys.version_info[:3]), "machine": os.uname().machine,
            "wheels": 1, "sources": hostjob.digest(repo)}
    with tarfile.open(tar, "w") as t:
        for name, data in (("pack.json", json.dumps(pack).encode()), (member, b"w"), ("lib/.stamp", b""),
                           ("jmh-lib/.stamp", b""), ("mechsym.jar", b"j"), ("jmh.jar", b"j")):
            info = tarfile.TarInfo(name)
            info.size, info.mtime = len(data), 1_000_000_000   # the pack was made long ago
            t.addfile(info, io.BytesIO(data))
    return tar


def test_a_pack_is_unpacked_so_that_make_asks_no_one(tmp_path):
    repo = tmp_path / "repo"
    (repo / "java-src").mkdir(parents=True)
    (repo / "java-src" / "K.java").write_text("class K {}")
    (repo / "pom.xml").write_text("<project/>")
    said = hostjob.unpack(str(_pack(tmp_path, repo)), str(repo))
    build = repo / "build"
    assert "the kernels' jars from the pack" in said and (build / ".pack-id").read_text() == "p" * 64
    assert (build / "wheelhouse" / "x-1.0-py3-none-any.whl").exists() and not (tmp_path / "pack.tar").exists()
    # newer than the sources and pom.xml: make neither calls Maven nor rebuilds the jars
    assert (build / "lib" / ".stamp").stat().st_mtime >= (repo / "pom.xml").stat().st_mtime
    assert (build / "mechsym.jar").stat().st_mtime >= (build / "lib" / ".stamp").stat().st_mtime
    (repo / "java-src" / "K.java").write_text("class K { int x; }")   # other sources: the jars are built here
    assert "built here" in hostjob.unpack(str(_pack(tmp_path, tmp_path / "elsewhere")), str(repo))
    assert not (build / "mechsym.jar").exists()
    with pytest.raises(hostjob.HostError, match=r"the pack is for Python 2\.7 on .*: run `make pack PACK_PYTHON"):
        hostjob.unpack(str(_pack(tmp_path, repo, python=[2, 7, 18])), str(repo))
    with pytest.raises(hostjob.HostError, match="is not a plain file under build/"):
        hostjob.unpack(str(_pack(tmp_path, repo, member="../escape")), str(repo))


# ---------------------------------------------------------------- the report, the ids, the folders

def test_a_failure_is_told_in_the_hosts_own_words():
    f = report.Fleet("a" * 40)
    f.feed({"event": "failed", "host": "h", "task": "a folder for the fleet's files", "rc": 127,
            "msg": "Module result deserialization failed: No start of json char found",
            "module_stderr": "pyenv: python3.13: command not found\n"})
    f.feed({"event": "unreachable", "host": "d", "task": "prerequisites", "msg": "Task failed: Failed to connect to "
            "the host via ssh: ssh: connect to host 10.0.0.9 port 22: No route to host"})
    f.feed({"event": "ok", "host": "c", "task": "prerequisites", "stdout": "ready: /usr/bin/python3 3.11.2 x86_64\n"})
    shown = f.feed({"event": "retry", "host": "c", "task": "the sweep", "stdout": json.dumps(
        {"finished": False, "steps": [{"name": "run locks", "state": "running", "last": "3 of 10 forks"}]})})
    assert shown == ["  c: run locks: 3 of 10 forks"]
    assert f.feed({"event": "retry", "host": "c", "task": "the sweep", "stdout": json.dumps(
        {"finished": False, "steps": [{"name": "run locks", "state": "running", "last": "3 of 10 forks"}]})}) == []
    lost = f.feed({"event": "unreachable", "host": "c", "task": "the sweep", "msg": "Data could not be sent to remote "
                   "host \"10.0.0.3\". Make sure this host can be reached over ssh: ssh: connect to host 10.0.0.3 port "
                   "22: Connection refused"})
    rows = {r["host"]: r["failures"] for r in f.rows()}
    assert rows["h"] == ["h: a folder for the fleet's files failed: pyenv: python3.13: command not found"]
    assert rows["d"] == ["d: unreachable: ssh: connect to host 10.0.0.9 port 22: No route to host"]
    assert lost[0].startswith("  c: connection lost during the sweep (ssh: connect to host 10.0.0.3 port 22: "
                              "Connection refused); the sweep goes on on the host")


def test_the_playbooks_task_names_are_those_the_report_reads():
    text = (FLEET / "site.yml").read_text()
    for name in (report.PREREQS, report.MISSING, report.REFUSED, report.CHECKOUT, report.MACHINE, report.UNPACK,
                 report.START, report.SWEEP, report.IMPORT, *report.QUIET):
        assert f"- name: {name}\n" in text, name


def test_two_hosts_with_one_id_or_this_machines_id_are_refused_in_one_line():
    out = machines.refusals({"a": "m1", "b": "m1", "c": "m2", "d": "here"}, "here")
    assert out["a"] == out["b"] and out["a"].startswith("a, b: one machine id m1 for 2 hosts")
    assert "c" not in out and out["d"].startswith("d: reports this machine's own id here")


def test_old_fleet_runs_are_pruned_to_the_newest_five(tmp_path):
    import fleet as fleet_cli

    names = [f"20260101-12000{i}" for i in range(7)] + ["20260101-120006-2", "notes"]
    for n in names:
        (tmp_path / n).mkdir()
    removed = fleet_cli.prune(tmp_path, 5)
    assert sorted(p.name for p in removed) == names[:3]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names[3:])


def test_bad_input_is_one_line(tmp_path):
    inv = tmp_path / "hosts.ini"
    inv.write_text("[x]\nh ansible_connection=local\n")
    for args, words in ((["--inventory", str(tmp_path / "none.ini"), "--experiments", "locks"], "no such file"),
                        (["--inventory", str(inv), "--experiments", "nosuch"], "experiment 'nosuch': unknown"),
                        (["--inventory", str(inv), "--experiments", "locks", "--preset", "stored"],
                         "preset 'stored': not a preset"),
                        (["--inventory", str(inv), "--experiments", "locks", "--poll", "0"], "poll '0': not a number"),
                        (["--inventory", str(inv), "--experiments", "locks", "--pack", str(tmp_path / "p.tar")],
                         "run `make pack` first")):
        r = fleet(*args, "--out", str(tmp_path / "o"))
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
