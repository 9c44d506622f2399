"""The reader's loop in a running JupyterLab, driven through its REST API and kernel websocket as the browser drives
it: open a notebook, set PRESET = "smoke" in its parameters cell, run every cell, save. The save writes the paired
source (notebooks/jupytext.toml) and the .ipynb without outputs (mechsym.view.lab.strip_outputs), so the only change
to the tracked files is the line the reader typed, there is no stray file, and setting it back leaves the tree as it
was; the run is stored. The lab runs in a git copy of the checkout (its tracked files, without data/results), with a
private results store."""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path

import nbformat
import pytest
import requests
import websocket

from conftest import ROOT

NOTEBOOK = "16-let-the-caller-choose.ipynb"   # the smallest experiment whose smoke sweep is quick
EXPERIMENT = "callerchoose"
TOKEN = uuid.uuid4().hex
#: The server as `make lab` starts it (its Makefile line), on a free port.
LAB_ARGS = ["--no-browser", "--ip=127.0.0.1", "--ServerApp.port_retries=0", "--ServerApp.root_dir=notebooks",
            "--ContentsManager.pre_save_hook=mechsym.view.lab.strip_outputs"]

pytestmark = pytest.mark.kernel


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", *args],
                          check=True, capture_output=True, text=True).stdout


def copy_checkout(dst: Path) -> Path:
    """The checkout's files that git tracks or would (results left out), as they are on disk, committed in a new git
    repository, and its build."""
    names = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                           check=True, capture_output=True).stdout
    for name in filter(None, names.decode().split("\0")):
        if name.startswith("data/results/") or not (ROOT / name).is_file():
            continue
        (dst / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, dst / name)
    git(dst, "init", "-q")
    git(dst, "add", "-A")
    git(dst, "commit", "-q", "-m", "copy")
    (dst / "build").symlink_to(ROOT / "build")   # ignored by git, as build/ is
    return dst


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    def __init__(self, port: int):
        self.base = f"http://127.0.0.1:{port}"
        self.ws_base = f"ws://127.0.0.1:{port}"
        self.http = requests.Session()
        self.http.headers["Authorization"] = f"token {TOKEN}"

    def api(self, method: str, path: str, **kw) -> dict:
        r = self.http.request(method, f"{self.base}/api/{path}", timeout=60, **kw)
        assert r.status_code < 300, f"{method} {path}: {r.status_code} {r.text[:300]}"
        return r.json() if r.content else {}

    def save(self, path: str, nb: dict) -> None:
        self.api("PUT", f"contents/{path}", json={"type": "notebook", "format": "json", "content": nb})

    def run_all(self, path: str, nb: dict) -> None:
        """Every code cell executed in a session's kernel, outputs put into `nb` as the lab's front end does."""
        session = self.api("POST", "sessions", json={"path": path, "name": path, "type": "notebook",
                                                     "kernel": {"name": "python3"}})
        ws = websocket.create_connection(f"{self.ws_base}/api/kernels/{session['kernel']['id']}/channels"
                                         f"?session_id={session['id']}", header=[f"Authorization: token {TOKEN}"],
                                         timeout=600)
        try:
            for n, cell in enumerate(c for c in nb["cells"] if c["cell_type"] == "code"):
                cell["outputs"], cell["execution_count"] = execute(ws, session["id"], cell["source"]), n + 1
        finally:
            ws.close()
            self.api("DELETE", f"sessions/{session['id']}")


def execute(ws, session_id: str, code: str) -> list:
    """One execute_request; its outputs, collected from iopub until the kernel is idle again."""
    msg_id = uuid.uuid4().hex
    ws.send(json.dumps({"channel": "shell", "buffers": [], "metadata": {}, "parent_header": {},
                        "header": {"msg_id": msg_id, "msg_type": "execute_request", "session": session_id,
                                   "username": "test", "version": "5.3"},
                        "content": {"code": code, "silent": False, "store_history": True, "user_expressions": {},
                                    "allow_stdin": False, "stop_on_error": True}}))
    outputs = []
    while True:
        msg = json.loads(ws.recv())
        if msg.get("parent_header", {}).get("msg_id") != msg_id or msg.get("channel") != "iopub":
            continue
        kind = msg["msg_type"]
        if kind in ("stream", "display_data", "execute_result", "error"):
            outputs.append(nbformat.v4.output_from_msg(msg))
            assert kind != "error", f"{code[:60]!r}: {msg['content'].get('ename')}: {msg['content'].get('evalue')}"
        if kind == "status" and msg["content"]["execution_state"] == "idle":
            return outputs


def set_preset(nb: dict, old: str, new: str) -> None:
    (params,) = [c for c in nb["cells"] if "parameters" in c["metadata"].get("tags", [])]
    assert f'PRESET = "{old}"' in params["source"]
    params["source"] = params["source"].replace(f'PRESET = "{old}"', f'PRESET = "{new}"')


@pytest.fixture
def lab(tmp_path):
    repo = copy_checkout(tmp_path / "repo")
    port = free_port()
    env = {**os.environ, "JUPYTER_TOKEN": TOKEN, "PYTHONPATH": str(repo / "src"),
           "MECHSYM_RESULTS": str(tmp_path / "results"), "MECHSYM_DATA": str(repo / "data"),
           "JUPYTER_CONFIG_DIR": str(tmp_path / "jupyter-config"), "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")}
    env.pop("MECHSYM_ROOT", None)
    args = [sys.executable, "-m", "jupyterlab", *LAB_ARGS, f"--port={port}"]
    if os.geteuid() == 0:
        args.append("--allow-root")
    log = open(tmp_path / "lab.log", "wb")
    proc = subprocess.Popen(args, cwd=repo, env=env, stdout=log, stderr=subprocess.STDOUT)
    client = Lab(port)
    try:
        deadline = time.monotonic() + 120
        while True:   # polled: the server answers once it listens
            try:
                if client.http.get(f"{client.base}/api/status", timeout=5).ok:
                    break
            except requests.ConnectionError:
                pass
            assert time.monotonic() < deadline, "the lab did not answer within 120 s"
            try:   # the interval between polls, ended early if the server exits
                proc.wait(timeout=0.2)
                pytest.fail("the lab exited: " + (tmp_path / "lab.log").read_text()[-2000:])
            except subprocess.TimeoutExpired:
                pass
        yield client, repo, tmp_path / "results"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def changed_lines(repo: Path) -> list[str]:
    diff = git(repo, "diff", "-U0")
    return [line for line in diff.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---"))]


def test_a_notebook_run_and_saved_in_the_lab_changes_only_what_the_reader_typed(lab):
    client, repo, results = lab
    nb = client.api("GET", f"contents/{NOTEBOOK}?content=1")["content"]
    set_preset(nb, "stored", "smoke")
    client.run_all(NOTEBOOK, nb)
    assert any("image/png" in o.get("data", {}) for c in nb["cells"] for o in c.get("outputs", []))
    client.api("POST", f"contents/{NOTEBOOK}/checkpoints")
    client.save(NOTEBOOK, nb)

    status = git(repo, "status", "--porcelain", "--untracked-files=all").splitlines()
    assert sorted(status) == [f" M notebooks/{NOTEBOOK}", f" M notebooks/src/{Path(NOTEBOOK).stem}.py"], status
    changed = changed_lines(repo)
    assert len(changed) == 4 and all("PRESET = " in line for line in changed), changed
    stored = nbformat.read(repo / "notebooks" / NOTEBOOK, as_version=4)
    assert not any(c.get("outputs") or c.get("execution_count") for c in stored.cells if c.cell_type == "code")
    runs = list(results.glob(f"*/{EXPERIMENT}/*smoke*.json"))
    assert len(runs) == 1, runs

    set_preset(nb, "smoke", "stored")
    client.save(NOTEBOOK, nb)
    assert git(repo, "status", "--porcelain", "--untracked-files=all") == ""


def test_make_lab_on_a_taken_port_says_so_first_with_the_fix(tmp_path):
    """Before any URL or token: the port, and LAB_PORT= to pick another. (The build is taken as done: -o all.)"""
    venv = Path(sys.executable).parent.parent
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        r = subprocess.run(["make", "-s", "-o", "all", "lab", f"VENV={venv}", f"LAB_PORT={port}"], cwd=ROOT,
                           capture_output=True, text=True, timeout=60)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stdout.splitlines()[0].startswith(f"make lab: port {port} on 127.0.0.1 is taken"), r.stdout
    assert f"make lab LAB_PORT={port + 1}" in r.stdout and "http" not in r.stdout + r.stderr
