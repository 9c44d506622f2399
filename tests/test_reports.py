"""`mechsym reports` as a reader meets it: reports/index.html and a notebook page opened in headless Chromium.

The pages are built at smoke size from a copy of the committed stored results (no kernel runs), then loaded
through the DevTools protocol over a pipe (--remote-debugging-pipe: stdlib only, no websocket client): the page
must load with no JavaScript error, no console error, no failed or off-machine request, and its figures must have a
real size. Screenshots are kept in tests/artifacts/.

Chromium is Debian's `chromium` package (.ci/run installs it). When it cannot be found the browser tests skip
with the reason, except under CI=true, where they fail.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import re
import select
import shutil
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import ROOT, mechsym

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def find_chromium() -> str | None:
    for name in (os.environ.get("MECHSYM_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


@pytest.fixture(scope="module")
def chromium():
    path = find_chromium()
    if path is None:
        why = "chromium not found (Debian: apt-get install chromium; or set MECHSYM_CHROMIUM)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{why}: CI=true, so this is a failure, not a skip")
        pytest.skip(why)
    return path


class Browser:
    """A headless Chromium driven through the DevTools protocol on fds 3 (commands in) and 4 (replies out)."""

    def __init__(self, binary: str, width: int = 1280, height: int = 900):
        self.tmp = tempfile.TemporaryDirectory(prefix="mechsym-chromium-")
        cmd_r, self._cmd_w = os.pipe()
        self._out_r, out_w = os.pipe()
        hi_r, hi_w = fcntl.fcntl(cmd_r, fcntl.F_DUPFD_CLOEXEC, 10), fcntl.fcntl(out_w, fcntl.F_DUPFD_CLOEXEC, 10)
        os.close(cmd_r)
        os.close(out_w)

        def child_fds():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        self.stderr = open(Path(self.tmp.name) / "stderr.log", "w+")
        self.proc = subprocess.Popen(
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={self.tmp.name}/profile", "--remote-debugging-pipe",
             f"--window-size={width},{height}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self.stderr, close_fds=False,
            preexec_fn=child_fds)
        os.close(hi_r)
        os.close(hi_w)
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []
        self.session = None
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False)

    def _read(self, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._out_r], [], [], left)[0]:
                raise TimeoutError(f"chromium: no reply within {timeout} s; stderr: {self._stderr_tail()}")
            chunk = os.read(self._out_r, 1 << 20)
            if not chunk:
                raise RuntimeError(f"chromium exited (code {self.proc.poll()}); stderr: {self._stderr_tail()}")
            self._buf += chunk
        msg, self._buf = self._buf.split(b"\0", 1)
        return json.loads(msg)

    def _stderr_tail(self) -> str:
        self.stderr.flush()
        return (Path(self.tmp.name) / "stderr.log").read_text()[-800:]

    def call(self, method: str, timeout: float = 30, **params) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params}
        if self.session and not method.startswith(("Target.", "Browser.")):
            msg["sessionId"] = self.session
        os.write(self._cmd_w, json.dumps(msg).encode() + b"\0")
        while True:
            reply = self._read(timeout)
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_for(self, event: str, timeout: float = 30) -> dict:
        for e in self.events:
            if e["method"] == event:
                return e
        deadline = time.monotonic() + timeout
        while True:
            e = self._read(max(0.1, deadline - time.monotonic()))
            if "method" in e:
                self.events.append(e)
                if e["method"] == event:
                    return e

    def open(self, url: str) -> dict:
        """Load a page; returns what went wrong (errors, failed/off-machine requests) and its figures' sizes."""
        self.events.clear()
        nav = self.call("Page.navigate", url=url)
        assert "errorText" not in nav, nav
        self.wait_for("Page.loadEventFired")
        time.sleep(0.3)  # late console messages
        self.call("Runtime.evaluate", expression="1")  # drain events queued meanwhile
        report = self.call("Runtime.evaluate", returnByValue=True, expression="""JSON.stringify({
            title: document.title,
            images: [...document.images].map(i => ({src: i.src.slice(0, 40), complete: i.complete,
                       naturalWidth: i.naturalWidth, naturalHeight: i.naturalHeight,
                       width: i.getBoundingClientRect().width, height: i.getBoundingClientRect().height})),
            links: [...document.links].map(a => a.getAttribute('href')),
            text: document.body.innerText.slice(0, 20000),
            height: document.documentElement.scrollHeight})""")["result"]["value"]
        page = json.loads(report)
        problems = []
        for e in self.events:
            m, p = e["method"], e.get("params", {})
            if m == "Runtime.exceptionThrown":
                problems.append(f"exception: {p['exceptionDetails'].get('text')} "
                                f"{p['exceptionDetails'].get('exception', {}).get('description', '')}")
            elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
                problems.append(f"console.{p['type']}: {[a.get('value') for a in p.get('args', [])]}")
            elif m == "Log.entryAdded" and p["entry"].get("level") == "error":
                problems.append(f"log: {p['entry'].get('text')} {p['entry'].get('url', '')}")
            elif m == "Network.loadingFailed":
                problems.append(f"request failed: {p.get('errorText')} (request {p.get('requestId')})")
            elif m == "Network.requestWillBeSent":
                u = p["request"]["url"]
                if not u.startswith(("file:", "data:", "about:")):
                    problems.append(f"off-machine request: {u}")
        page["problems"] = problems
        return page

    def screenshot(self, path: Path, max_height: int = 12000) -> None:
        size = self.call("Page.getLayoutMetrics")["cssContentSize"]
        clip = {"x": 0, "y": 0, "width": size["width"], "height": min(size["height"], max_height), "scale": 1}
        shot = self.call("Page.captureScreenshot", format="png", clip=clip, captureBeyondViewport=True, timeout=60)
        path.write_bytes(base64.b64decode(shot["data"]))

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self._cmd_w, self._out_r):
            os.close(fd)
        self.stderr.close()
        self.tmp.cleanup()


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """reports/ built at smoke size from a copy of the committed results (no new runs): 00-overview and 01."""
    tmp = tmp_path_factory.mktemp("reports")
    results = tmp / "results"
    committed = ROOT / "data" / "results"
    if committed.is_dir() and any(committed.rglob("*.json")):
        shutil.copytree(committed, results)
    else:
        results.mkdir()
    out = tmp / "reports"
    t0 = time.monotonic()
    r = mechsym("reports", "--preset", "stored", "--only", "00-overview,01-lock-implementations", "--output", str(out),
                "--machine", "all", env={"MECHSYM_RESULTS": str(results)}, timeout=300)
    secs = time.monotonic() - t0
    assert r.returncode == 0, r.stderr[-2000:]
    return out, results, secs, r.stderr


def page_text(html: str) -> str:
    """What a reader sees of a page's tables and text outputs (no CSS, no embedded images)."""
    html = re.sub(r"<style.*?</style>|<script.*?</script>", "", html, flags=re.S)
    html = re.sub(r'src="data:[^"]*"', "", html)
    return html


def tables(html: str) -> list[str]:
    return [re.sub(r"<[^>]+>", " ", t) for t in re.findall(r"<table.*?</table>", page_text(html), flags=re.S)]


def test_reports_are_written_and_self_contained(built):
    out, _, _, _ = built
    names = sorted(p.name for p in out.glob("*.html"))
    assert names == ["00-overview.html", "01-lock-implementations.html", "index.html"]
    for page in out.glob("*.html"):
        text = page.read_text()
        # nothing the page would fetch: no remote scripts, stylesheets, fonts or images
        assert not re.search(r'<(script|img|iframe)[^>]+src="(https?:)?//', text), page.name
        assert not re.search(r'<link[^>]+href="(https?:)?//', text), page.name
        assert not re.search(r'@import|url\((["\']?)(https?:)?//', text), page.name
    overview = (out / "00-overview.html").read_text()
    assert 'href="01-lock-implementations.html"' in overview and ".ipynb\"" not in overview
    assert "data:image/png;base64" in overview


def test_index_and_a_notebook_open_in_chromium(chromium, built, artifacts):
    out, _, _, _ = built
    b = Browser(chromium)
    try:
        index = b.open((out / "index.html").as_uri())
        b.screenshot(artifacts / "reports-index.png")
        assert index["problems"] == [], index["problems"]
        assert "00-overview.html" in index["links"] and "01-lock-implementations.html" in index["links"]
        assert "holds" in index["text"] and "01" in index["text"]

        heights = {"index": index["height"]}
        for name in ("01-lock-implementations", "00-overview"):
            page = b.open((out / f"{name}.html").as_uri())
            b.screenshot(artifacts / f"reports-{name}.png")
            heights[name] = page["height"]
            assert page["problems"] == [], page["problems"]
            figures = [i for i in page["images"] if i["src"].startswith("data:image/png")]
            assert figures, f"{name}: no figures"
            for f in figures:
                assert f["complete"] and f["naturalWidth"] > 100 and f["naturalHeight"] > 100, f
                assert f["width"] > 100 and f["height"] > 100, f
            assert "Verdicts" in page["text"]
        assert (artifacts / "reports-index.png").stat().st_size > 5000
        (artifacts / "reports-page-heights.json").write_text(json.dumps(heights, indent=1) + "\n")  # px at 1280 wide
    finally:
        b.close()


def test_index_counts_every_notebook(built):
    out, results, _, _ = built
    text = (out / "index.html").read_text()
    for stem in ("00-overview", "01-lock-implementations"):
        assert f'href="{stem}.html"' in text
    # the counts come from the same verdicts as `mechsym verdicts`
    r = mechsym("verdicts", "locks", "--format", "csv", "--machine", "all", env={"MECHSYM_RESULTS": str(results)})
    assert r.returncode == 0, r.stderr


def test_a_failing_notebook_is_named_and_the_others_still_written(tmp_path, results_dir):
    """A notebook that fails (MACHINE names no stored machine) is reported in one line; index.html still lists it."""
    out = tmp_path / "reports"
    r = mechsym("reports", "--only", "00-overview", "--machine", "no-such-machine", "--output", str(out))
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1].startswith("mechsym: 1 of 1 notebooks failed")
    assert "not rendered" in (out / "index.html").read_text()


def test_make_reports_prints_no_alarming_lines(built):
    """The kernel's TCP warning and the KeyboardInterrupt papermill's shutdown makes it log stay out of the build."""
    _, _, _, stderr = built
    for alarm in ("without encryption", "KeyboardInterrupt", "ERROR", "Traceback", "Warning"):
        assert alarm not in stderr, stderr


def test_pages_leave_the_code_and_the_parameters_out(built):
    out, _, _, _ = built
    for name in ("00-overview", "01-lock-implementations"):
        html = page_text((out / f"{name}.html").read_text())
        assert 'class="highlight' not in html, f"{name}: a code cell is shown"
        assert "PRESET =" not in html and "injected-parameters" not in html, f"{name}: a parameters cell is shown"
        assert "jp-InputPrompt jp-InputArea-prompt\">In" not in html


def test_tables_read_as_numbers(built):
    """No scientific notation, no NaN and no cell cut with '…' in any table of a page."""
    out, _, _, _ = built
    for page in sorted(out.glob("*.html")):
        for table in tables(page.read_text()):
            assert not re.search(r"\de[+-]\d", table), f"{page.name}: scientific notation in {table[:300]}"
            assert not re.search(r"\bNaN\b|\bnan\b", table), f"{page.name}: NaN in {table[:300]}"
            assert "…" not in table, f"{page.name}: a cut cell in {table[:300]}"


def test_with_code_keeps_the_code_and_never_the_parameters(tmp_path):
    """mechsym reports --with-code: code cells shown, the parameters cells (papermill's and the notebook's) not."""
    import nbformat

    from mechsym.reports import SETUP, SETUP_TAG, to_html

    nb = nbformat.v4.new_notebook()
    table = {"text/html": "<table><tr><td>312.4M ops/s</td><td>cross-core</td></tr></table>",
             "text/plain": "312.4M ops/s"}
    nb.cells = [
        nbformat.v4.new_code_cell(SETUP, metadata={"tags": [SETUP_TAG]}),
        nbformat.v4.new_markdown_cell("# A post"),
        nbformat.v4.new_code_cell('PRESET = "stored"', metadata={"tags": ["parameters"]}),
        nbformat.v4.new_code_cell('PRESET = "standard"', metadata={"tags": ["injected-parameters"]}),
        nbformat.v4.new_code_cell("import mechsym  # nothing shown"),
        nbformat.v4.new_code_cell("summary_table()", outputs=[nbformat.v4.new_output("execute_result", data=table,
                                                                                      execution_count=5)]),
    ]
    executed = tmp_path / "nb.ipynb"
    nbformat.write(nb, str(executed))
    for with_code in (False, True):
        html = tmp_path / f"page-{with_code}.html"
        to_html(executed, html, with_code)
        text = page_text(html.read_text())
        assert "312.4M ops/s" in text and "A post" in text
        assert "PRESET" not in text and "display_defaults" not in text
        assert ("summary_table" in text) == with_code and ("nothing shown" in text) == with_code
        # numbers right-aligned, text left-aligned
        assert '<td class="mechsym-num">312.4M ops/s</td>' in text and "<td>cross-core</td>" in text
