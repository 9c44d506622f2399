"""A fleet of SSH hosts on this one machine, for tests of `make fleet` over real SSH: each host is a network namespace
with its own address and its own sshd, and the controller is a namespace of its own, so nothing touches the
machine's real interfaces or routes.

    ctl namespace: bridge 10.77.0.1/24 ── veth ── host namespace "a": 10.77.0.11, sshd on port 22
                                       └─ veth ── host namespace "b": 10.77.0.12, sshd ...
No namespace has a route out (no default route, no link to the machine's own network): every host is air-gapped.
An address with no host behind it (DEAD) answers nothing. The hosts share this machine's filesystem, so each sshd
gives its sessions a HOME of their own (and with it ~/mechsym-lab, ~/.ansible and no one's ~/.bashrc); `env` adds
variables to a host's sessions (sshd's SetEnv: a PATH whose python3 is broken, MECHSYM_JDKS, ...).

Everything is started by this class and stopped by pid when the `with` block ends, whatever happened in it: the
sshds, then every process still in a namespace (a detached sweep a host started over SSH included), then the
namespaces themselves. Needs root, `ip netns` and openssh-server (sshd).

    with FleetNet(tmp_path / "net", {"a": {}, "b": {"env": {"PATH": "/broken:/usr/bin:/bin"}}}) as net:
        subprocess.run(net.exec(["ansible-playbook", ...]))    # the controller runs in the ctl namespace
        net.cut("a")        # the connections to a's sshd, and its listener, killed: a is unreachable
        net.restore("a")    # a new sshd for a
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
from pathlib import Path

SUBNET = "10.77.0"
DEAD = f"{SUBNET}.99"
SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def usable() -> str | None:
    """Why the namespaced fleet cannot run here (None when it can)."""
    if os.geteuid() != 0:
        return "needs root (ip netns)"
    if not shutil.which("ip") or subprocess.run(["ip", "netns", "list"], capture_output=True).returncode != 0:
        return "needs `ip netns` (iproute2)"
    if not os.access(SSHD, os.X_OK):
        return "needs sshd (Debian: apt-get install openssh-server; .ci/run installs it)"
    if not shutil.which("ssh-keygen"):
        return "needs ssh-keygen (openssh-client)"
    return None


def ip(*args: str) -> None:
    r = subprocess.run(["ip", *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {r.stderr.strip()}")


class FleetNet:
    def __init__(self, scratch: Path, hosts: dict[str, dict]):
        self.scratch, self.hosts = Path(scratch), hosts
        self.tag = f"mf{os.getpid() % 1000000}"
        self.ctl = f"{self.tag}-ctl"
        self.ns = {h: f"{self.tag}-{i}" for i, h in enumerate(hosts)}
        self.address = {h: f"{SUBNET}.{11 + i}" for i, h in enumerate(hosts)}
        self.sshd: dict[str, subprocess.Popen] = {}
        self.made: list[str] = []   # namespaces made, deleted at the end

    # ------------------------------------------------------------ what a test uses

    def exec(self, argv: list[str], where: str | None = None) -> list[str]:
        """argv run in the controller's namespace (or in host `where`'s)."""
        return ["ip", "netns", "exec", self.ns[where] if where else self.ctl, *argv]

    @property
    def key(self) -> Path:
        return self.scratch / "id_ed25519"

    def ssh_args(self) -> str:
        return (f"-o UserKnownHostsFile={self.scratch / 'known_hosts'} -o StrictHostKeyChecking=yes "
                "-o ConnectTimeout=5 -o BatchMode=yes")

    def home(self, host: str) -> Path:
        return self.scratch / "home" / host

    def cut(self, host: str) -> None:
        """The host's sshd and every connection it serves killed (the master of Ansible's ControlPersist among them):
        the controller's next command there finds no one listening."""
        p = self.sshd.pop(host)
        parents = {pid: _ppid(pid) for pid in _pids()}
        tree, grown = {p.pid}, True
        while grown:   # the listener, the sessions it forked and what runs in them (a detached sweep is not in it)
            more = {pid for pid, parent in parents.items() if parent in tree} - tree
            tree |= more
            grown = bool(more)
        for pid in tree:
            _kill(pid, signal.SIGKILL)
        p.wait()

    def restore(self, host: str) -> None:
        self._start_sshd(host)

    # ------------------------------------------------------------ set-up and tear-down

    def __enter__(self) -> "FleetNet":
        try:
            self._up()
        except BaseException:
            self._down()
            raise
        return self

    def __exit__(self, *exc) -> None:
        self._down()

    def _up(self) -> None:
        self.scratch.mkdir(parents=True, exist_ok=True)
        for key in ("id_ed25519", "host_ed25519"):
            subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "fleet-test", "-f",
                            str(self.scratch / key)], check=True)
        (self.scratch / "authorized_keys").write_text((self.scratch / "id_ed25519.pub").read_text())
        host_key = (self.scratch / "host_ed25519.pub").read_text().split()[:2]
        (self.scratch / "known_hosts").write_text(
            "".join(f"{a} {' '.join(host_key)}\n" for a in self.address.values()))
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)   # sshd's privilege separation folder (Debian)
        ip("netns", "add", self.ctl)
        self.made.append(self.ctl)
        ip("-n", self.ctl, "link", "set", "lo", "up")
        ip("-n", self.ctl, "link", "add", "br0", "type", "bridge")
        ip("-n", self.ctl, "addr", "add", f"{SUBNET}.1/24", "dev", "br0")
        ip("-n", self.ctl, "link", "set", "br0", "up")
        for i, host in enumerate(self.hosts):
            ns, here, there = self.ns[host], f"{self.tag}h{i}", f"{self.tag}p{i}"
            ip("netns", "add", ns)
            self.made.append(ns)
            ip("link", "add", here, "netns", ns, "type", "veth", "peer", "name", there, "netns", self.ctl)
            ip("-n", self.ctl, "link", "set", there, "master", "br0", "up")
            ip("-n", ns, "addr", "add", f"{self.address[host]}/24", "dev", here)
            ip("-n", ns, "link", "set", here, "up")
            ip("-n", ns, "link", "set", "lo", "up")
            self.home(host).mkdir(parents=True, exist_ok=True)
            self._start_sshd(host)

    def _start_sshd(self, host: str) -> None:
        env = {"HOME": str(self.home(host)), "PATH": PATH, **self.hosts[host].get("env", {})}
        config = self.scratch / f"sshd-{host}.conf"
        config.write_text("\n".join([
            f"ListenAddress {self.address[host]}", "Port 22", f"HostKey {self.scratch / 'host_ed25519'}",
            f"AuthorizedKeysFile {self.scratch / 'authorized_keys'}", "PermitRootLogin prohibit-password",
            "PasswordAuthentication no", "KbdInteractiveAuthentication no", "UsePAM no", "StrictModes no",
            "UseDNS no", "PrintMotd no", "PrintLastLog no", "MaxSessions 64", "MaxStartups 64",
            f"PidFile {self.scratch / f'sshd-{host}.pid'}", "Subsystem sftp internal-sftp", "LogLevel INFO",
            "SetEnv " + " ".join(f'{k}="{v}"' for k, v in env.items()), ""]))
        p = subprocess.Popen(self.exec([SSHD, "-D", "-e", "-f", str(config)], host), stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.sshd[host] = p
        said = []
        for line in p.stderr:   # sshd says when it listens: no sleep, no polling
            said.append(line)
            if "Server listening on" in line:
                break
        else:
            raise RuntimeError(f"sshd for {host} did not start: {''.join(said)[-2000:]}")
        log = open(self.scratch / f"sshd-{host}.log", "a")
        threading.Thread(target=lambda: [log.write(line) or log.flush() for line in p.stderr], daemon=True).start()

    def _down(self) -> None:
        for host in list(self.sshd):
            p = self.sshd.pop(host)
            _kill(p.pid, signal.SIGKILL)
            p.wait()
        for ns in reversed(self.made):
            r = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True)
            for pid in r.stdout.split():
                _kill(int(pid), signal.SIGKILL)
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        self.made.clear()


def _pids() -> list[int]:
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def _ppid(pid: int) -> int | None:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except (OSError, IndexError, ValueError):
        return None


def _kill(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass
