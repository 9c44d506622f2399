"""mechsym.io.SequentialIo at smoke size: every method, its checks, its bad arguments."""

import subprocess

import pytest

from conftest import java_kernel, without_jit_gc
from mechsym.run import bridge, launch
from mechsym import classpath
from mechsym.machine.jdk import discover

pytestmark = pytest.mark.kernel  # every test here runs a kernel or a sweep: serial

KERNEL = "mechsym.io.SequentialIo"
METHODS = ["random-access-file", "buffered-stream", "channel-heap", "channel-direct", "mapped"]
POST_METHODS = ["random-access-file", "buffered-stream", "channel-heap", "mapped"]  # the post's cases, its order
SIZE = 1 << 20  # 1 MiB; with --window=64 KiB the mapped method re-maps 16 times a phase


def run_kernel(*args, jdk=None):
    """The kernel's rows; its JIT and GC rows (write_jit_ms ... read_gc_count) checked present and left out."""
    r = java_kernel(KERNEL, *args, jdk=jdk)
    assert r.returncode == 0, r.stderr
    df = launch.parse_csv(r.stdout)
    phases = {m.split("_", 1)[0] for m in df["metric"] if m.endswith(("jit_ms", "gc_ms", "gc_count"))}
    assert phases == {"write", "read"}, phases
    return without_jit_gc(df)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("sync", ["false", "true"])
def test_every_method_writes_and_reads_back(tmp_path, method, sync):
    f = tmp_path / "seqio.dat"
    df = run_kernel(f"--method={method}", f"--file={f}", f"--size={SIZE + 4096}", "--passes=3", "--window=65536",
                    f"--sync={sync}")
    assert set(df["metric"]) == {"write_duration", "write_throughput", "read_duration", "read_throughput"}
    assert df["iteration"].tolist().count(0) == 4 and df["iteration"].max() == 2
    assert df[df["iteration"] == 0]["warmup"].all() and not df[df["iteration"] > 0]["warmup"].any()
    assert (df["value"] > 0).all()
    assert set(df["unit"]) == {"ns", "MB/s"}
    assert (df["method"] == method).all() and (df["size_bytes"] == SIZE + 4096).all()
    # MB/s is the kernel's own bytes / duration
    d = df.pivot_table(index="iteration", columns="metric", values="value")
    assert ((SIZE + 4096) * 1e3 / d["read_duration"] / d["read_throughput"]).between(0.999, 1.001).all()
    assert not f.exists(), "the kernel deletes the file it created"


@pytest.mark.parametrize("method", POST_METHODS + ["all"])
@pytest.mark.parametrize("sync", ["false", "true"])
def test_post_protocol_writes_and_reads_back(tmp_path, method, sync):
    f = tmp_path / "post.dat"
    df = run_kernel("--protocol=post", f"--method={method}", f"--file={f}", f"--size={SIZE + 4096}", "--passes=2",
                    "--window=65536", f"--sync={sync}")
    methods = POST_METHODS if method == "all" else [method]
    assert list(dict.fromkeys(df["method"])) == methods
    assert set(df["metric"]) == {"write_duration", "write_throughput", "read_duration", "read_throughput"}
    for m in methods:
        mine = df[df["method"] == m]
        assert len(mine) == 8 and mine[mine["iteration"] == 0]["warmup"].all()
    assert (df["value"] > 0).all()
    assert not f.exists(), "the kernel deletes the file it created"


def test_post_protocol_maps_the_whole_file_by_default(tmp_path):
    # the post's window is Integer.MAX_VALUE, not a page multiple: refused only when given
    df = run_kernel("--protocol=post", "--method=mapped", f"--file={tmp_path / 'w.dat'}", "--size=65536",
                    "--passes=1")
    assert len(df) == 4


@pytest.mark.parametrize("protocol", ["lab", "post"])
@pytest.mark.parametrize("method", POST_METHODS)
def test_injected_corruption_always_fails_the_check(tmp_path, protocol, method):
    for n in range(3):
        f = tmp_path / f"c{n}.dat"
        r = java_kernel(KERNEL, f"--protocol={protocol}", f"--method={method}", f"--file={f}", "--size=65536",
                        "--passes=2", "--inject=corrupt")
        assert r.returncode == 3, r.stderr
        assert r.stdout == "" and len(r.stderr.strip().splitlines()) == 1 and "checksum read" in r.stderr
        assert not f.exists()


def test_every_jdk_runs_the_kernel(tmp_path):
    for jdk in discover():
        df = run_kernel("--method=mapped", f"--file={tmp_path / f'j{jdk.feature}.dat'}", "--size=65536", "--passes=1",
                        "--window=8192", jdk=jdk)
        assert len(df) == 4


def test_reuses_an_existing_file_without_deleting_it(tmp_path):
    f = tmp_path / "mine.dat"
    f.write_bytes(bytes(65536))
    run_kernel("--method=channel-heap", f"--file={f}", "--size=65536", "--passes=1", "--preallocate=false")
    assert f.exists() and f.stat().st_size == 65536


def _interactive(tmp_path, tamper, method="random-access-file", passes=2, protocol="lab"):
    """Run with --evict=ask; call tamper(path, phase, pass) at each request; return (rc, stderr, requests)."""
    f = tmp_path / "t.dat"
    f.write_bytes(bytes(65536))
    java = discover()[0].java
    p = subprocess.Popen([java, "-cp", classpath(), KERNEL, f"--protocol={protocol}", f"--method={method}",
                          f"--file={f}", "--size=65536", f"--passes={passes}", "--evict=ask", "--preallocate=false"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    requests, err = [], []
    for line in p.stderr:
        if line.startswith("seqio: evict before"):
            parts = line.split()
            phase, n = parts[3], parts[5]
            assert parts[6:] == ["method", method] or method == "all", line
            requests.append((phase, int(n)) if method != "all" else (parts[7], phase, int(n)))
            tamper(f, phase, int(n))
            try:
                p.stdin.write("ok\n")
                p.stdin.flush()
            except BrokenPipeError:
                pass
        else:
            err.append(line)
    out = p.stdout.read()
    p.wait(timeout=60)
    return p.returncode, "".join(err), requests, out


@pytest.mark.parametrize("protocol, method", [("lab", "random-access-file"), ("post", "random-access-file"),
                                              ("post", "mapped")])
def test_evict_ask_waits_before_every_phase(tmp_path, protocol, method):
    rc, err, requests, out = _interactive(tmp_path, lambda f, phase, n: None, method, passes=3, protocol=protocol)
    assert rc == 0, err
    assert requests == [(ph, n) for n in range(3) for ph in ("write", "read")]
    assert out.startswith("method,sync,evict,size_bytes,iteration,warmup,metric,value,unit")


def test_evict_ask_names_the_method_when_one_jvm_runs_them_all(tmp_path):
    rc, err, requests, out = _interactive(tmp_path, lambda f, phase, n: None, "all", passes=1, protocol="post")
    assert rc == 0, err
    assert requests == [(m, ph, 0) for m in POST_METHODS for ph in ("write", "read")]


@pytest.mark.parametrize("protocol, method", [("lab", m) for m in METHODS] + [("post", m) for m in POST_METHODS])
def test_corrupted_file_fails_the_check_and_prints_nothing(tmp_path, protocol, method):
    def corrupt(f, phase, n):
        if phase == "read" and n == 1:
            with open(f, "r+b") as h:
                h.seek(8192)
                h.write(b"\x7f" * 100)
    rc, err, _, out = _interactive(tmp_path, corrupt, method, protocol=protocol)
    assert rc == 3, err
    assert "CHECK FAILED" in err and "checksum read" in err
    assert out == ""


def test_stale_data_from_an_earlier_pass_fails_the_check(tmp_path):
    saved = {}

    def replay(f, phase, n):
        if phase == "read" and n == 0:
            saved["pass0"] = f.read_bytes()
        if phase == "read" and n == 1:
            f.write_bytes(saved["pass0"])  # pass 1 reads what pass 0 wrote
    rc, err, _, out = _interactive(tmp_path, replay)
    assert rc == 3 and "checksum read" in err and out == ""


def test_short_file_fails_the_check(tmp_path):
    def truncate(f, phase, n):
        if phase == "read":
            with open(f, "r+b") as h:
                h.truncate(65536 - 4096)
    rc, err, _, out = _interactive(tmp_path, truncate, "channel-heap")
    assert rc == 3 and "bytes" in err and out == ""


def test_checksums_differ_from_pass_to_pass():
    k = bridge.kernel(KERNEL)
    sums = [int(k.expectedChecksum(409_600_000 // 100, seed)) for seed in range(1, 8)]
    assert len(set(sums)) == len(sums)


def test_in_process_write_and_read_through_jpype(tmp_path):
    import jpype

    k = bridge.kernel(KERNEL)
    f = tmp_path / "jp.dat"
    f.write_bytes(bytes(32768))
    path = jpype.JClass("java.nio.file.Path").of(str(f))
    for method in METHODS:
        written = k.write(method, path, 32768, 5, 8192, False)
        assert written == k.expectedChecksum(32768, 5)
        assert k.read(method, path, 32768, 8192) == written
    assert set(str(m) for m in k.methods()) == set(METHODS)
    assert dict(item.split("=", 1) for item in map(str, k.defaults()))["protocol"] == "lab"


@pytest.mark.parametrize("args, message", [
    (["--method=nio"], "--method=nio: allowed values are random-access-file, buffered-stream, channel-heap, "
                       "channel-direct, mapped"),
    ([], "--file: required"),
    (["--size=4097"], "--size=4097: must be a multiple of the page size 4096"),
    (["--size=0"], "--size=0: out of range"),
    (["--size=lots"], "--size=lots: not a whole number"),
    (["--passes=0"], "--passes=0: out of range (allowed 1..1000)"),
    (["--window=5000"], "--window=5000: must be a multiple of the page size 4096"),
    (["--window=4294967296"], "--window=4294967296: out of range"),
    (["--sync=yes"], "--sync=yes: allowed values are false, true"),
    (["--evict=always"], "--evict=always: allowed values are none, ask"),
    (["--colour=red"], "--colour: unknown argument"),
    (["--protocol=fast"], "--protocol=fast: allowed values are lab, post"),
    (["--protocol=post", "--method=channel-direct"], "--method=channel-direct: not one of the post's cases"),
    (["--inject=truncate"], "--inject=truncate: allowed values are none, corrupt"),
    (["--size=1099511627776"], "bytes free in"),
])
def test_bad_arguments_exit_2_with_one_line(tmp_path, args, message):
    if not any(a.startswith("--file") for a in args) and args != []:
        args = args + [f"--file={tmp_path / 'x.dat'}"]
    r = java_kernel(KERNEL, *args)
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], lines
    assert r.stdout == ""
    assert not (tmp_path / "x.dat").exists()


def test_refuses_to_overwrite_an_existing_file(tmp_path):
    f = tmp_path / "precious.dat"
    f.write_bytes(b"keep me")
    r = java_kernel(KERNEL, f"--file={f}", "--size=4096")
    assert r.returncode == 2 and "already exists" in r.stderr
    assert f.read_bytes() == b"keep me"


def test_preallocate_false_needs_the_exact_size(tmp_path):
    f = tmp_path / "small.dat"
    f.write_bytes(bytes(4096))
    r = java_kernel(KERNEL, f"--file={f}", "--size=8192", "--preallocate=false")
    assert r.returncode == 2 and "exactly 8192 bytes" in r.stderr


def test_missing_directory(tmp_path):
    r = java_kernel(KERNEL, f"--file={tmp_path / 'nope' / 'x.dat'}", "--size=4096")
    assert r.returncode == 2 and "directory does not exist" in r.stderr
