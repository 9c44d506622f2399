"""The ping-buffet kernel (notebook 13): its two JVMs end to end, every transport round-trips and leaves no
file, a wrong echo fails the run, and killing the client leaves no server and no file. No test asserts a timing."""

import signal
import subprocess
import time

import pytest

from conftest import kernel_process, run_kernel
from mechsym.run.kernels import command

pytestmark = pytest.mark.kernel  # every test here runs a kernel or a sweep: serial

KERNEL = "mechsym.ping.PingBuffet"
TINY = ("--pings=200", "--runs=1", "--warmup-runs=0")


# ---------------------------------------------------------------- the kernel: two JVMs

# ipc-spin under both protocols: each has its own layout of the mapped file (java-ping's under post)
@pytest.mark.parametrize("mode,protocol", [("tcp-selectnow", "lab"), ("tcp-select", "lab"), ("tcp-block", "lab"),
                                           ("udp-spin", "post"), ("ipc-spin", "lab"), ("ipc-spin", "post")])
def test_every_transport_round_trips_and_leaves_no_file(mode, protocol, tmp_path):
    rows = run_kernel(KERNEL, f"--mode={mode}", *TINY, "--pin=0,1", f"--dir={tmp_path}", f"--protocol={protocol}")
    assert set(rows["mode"]) == {mode} and set(rows["pinning"]) == {"thread"}
    got = dict(zip(rows["metric"], rows["value"]))
    assert got["pings"] == 200 and 0 < got["rtt_min"] <= got["rtt_p50"] <= got["rtt_p99.99"] <= got["rtt_max"]
    assert list(tmp_path.iterdir()) == []


# Exactly one ping fails: the ends stay in turns after a bad echo. Under post the server's counter is the echo, and
# a client that waited only while that counter equalled seq - 1 ran ahead after it (200 of 200 pings failed) and,
# when it overwrote a counter the server had not yet seen, left both ends spinning until the test's timeout.
@pytest.mark.parametrize("mode,protocol", [("tcp-spin", "lab"), ("ipc-spin", "lab"), ("ipc-spin", "post")])
def test_a_wrong_echo_from_the_server_fails_the_run(mode, protocol, tmp_path):
    r = kernel_process(KERNEL, f"--mode={mode}", *TINY, "--inject=bad-echo", f"--dir={tmp_path}",
                       f"--protocol={protocol}")
    assert r.returncode == 3 and r.stdout == ""
    assert "run 0: 1 of 200 pings came back with another sequence number" in r.stderr
    assert len(r.stderr.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(p) for p in out.split()]


def _gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ", 1)[1].startswith("Z")   # a zombie has ended: only its entry is left
    except FileNotFoundError:
        return True


# the post protocol's server spins bare (no exit test in its loop): its stdin alone ends it
@pytest.mark.parametrize("how,protocol", [(signal.SIGKILL, "lab"), (signal.SIGTERM, "lab"), (signal.SIGKILL, "post")])
def test_killing_the_client_leaves_no_server_and_no_file(how, protocol, tmp_path):
    """The server JVM reads its stdin; when the client dies, however, the pipe closes and the server halts."""
    client = subprocess.Popen(command(KERNEL, ["--mode=ipc-spin", "--pings=100000000", "--runs=1",
                                               f"--dir={tmp_path}", f"--protocol={protocol}"]),
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        servers: list[int] = []
        deadline = time.monotonic() + 60
        while not (servers and list(tmp_path.iterdir())) and time.monotonic() < deadline:
            servers = _children(client.pid)
            time.sleep(0.05)   # polling for a state, not waiting for an event
        assert servers, "the client never started its server"
        client.send_signal(how)
        client.wait(timeout=30)
        deadline = time.monotonic() + 30
        while not all(_gone(s) for s in servers) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert all(_gone(s) for s in servers), "a server outlived its client"
        deadline = time.monotonic() + 10
        while list(tmp_path.iterdir()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert list(tmp_path.iterdir()) == []
    finally:
        if client.poll() is None:
            client.kill()
