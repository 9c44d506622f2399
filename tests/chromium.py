"""Headless Chromium driven through the DevTools protocol over a pipe (--remote-debugging-pipe: stdlib only, no
websocket client), for the tests that open the HTML reports as a reader would (tests/test_reports.py: index.html and
the pages built from stored results; tests/test_notebooks.py: every notebook's page at smoke size).

Chromium is Debian's `chromium` package (.ci/run installs it)."""

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

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def find_chromium() -> str | None:
    """The Chromium to drive: $MECHSYM_CHROMIUM, else the first of Debian's and Google's names on PATH."""
    for name in (os.environ.get("MECHSYM_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


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
        # Console messages of tasks the page queued while loading: wait, in the page, for a task queued after them
        # (no fixed sleep); the events they sent arrive before this call's reply.
        self.call("Runtime.evaluate", expression="new Promise(done => setTimeout(done, 0))", awaitPromise=True)
        report = self.call("Runtime.evaluate", returnByValue=True, expression="""JSON.stringify({
            title: document.title,
            images: [...document.images].map(i => ({src: i.src.slice(0, 40), complete: i.complete,
                       naturalWidth: i.naturalWidth, naturalHeight: i.naturalHeight,
                       width: i.getBoundingClientRect().width, height: i.getBoundingClientRect().height})),
            links: [...document.links].map(a => a.getAttribute('href')),
            text: document.body.innerText.slice(0, 200000),
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


def page_text(html: str) -> str:
    """What a reader sees of a page's tables and text outputs (no CSS, no scripts, no embedded images)."""
    html = re.sub(r"<style.*?</style>|<script.*?</script>", "", html, flags=re.S)
    return re.sub(r'src="data:[^"]*"', "", html)


def tables(html: str) -> list[str]:
    """The text of every HTML table of a page."""
    return [re.sub(r"<[^>]+>", " ", t) for t in re.findall(r"<table.*?</table>", page_text(html), flags=re.S)]


def table_problems(html: str) -> list[str]:
    """Cells a reader should never meet: scientific notation, NaN, a cell cut with '…'."""
    out = []
    for table in tables(html):
        if re.search(r"\de[+-]\d", table):
            out.append(f"scientific notation in {table[:300]}")
        if re.search(r"\bNaN\b|\bnan\b", table):
            out.append(f"NaN in {table[:300]}")
        if "…" in table:
            out.append(f"a cut cell in {table[:300]}")
    return out


def check_page(browser: Browser, html: Path, artifacts: Path, name: str, figures: bool = True) -> dict:
    """Open a report page as a reader would: it loads with no error and no off-machine request, its figures have a
    real size, its tables read as numbers. The screenshot is kept as tests/artifacts/reports-<name>.png and the
    page's length (px at 1280 wide) in reports-<name>.json. Returns what Browser.open saw."""
    page = browser.open(html.as_uri())
    browser.screenshot(artifacts / f"reports-{name}.png")
    (artifacts / f"reports-{name}.json").write_text(json.dumps({"page": html.name, "height_px": page["height"]}) + "\n")
    assert page["problems"] == [], f"{name}: {page['problems']}"
    if figures:
        shown = [i for i in page["images"] if i["src"].startswith("data:image/png")]
        assert shown, f"{name}: no figures"
        for f in shown:
            assert f["complete"] and f["naturalWidth"] > 100 and f["naturalHeight"] > 100, (name, f)
            assert f["width"] > 100 and f["height"] > 100, (name, f)
    assert table_problems(html.read_text()) == [], name
    return page
