"""`mechsym reports` leaves nothing behind and never replaces a good page with a fragment: its scratch folder and
the kernels' Jupyter connection files (each holding a kernel's HMAC key) go when it ends, by an exception too, and
the next build removes those of a build killed outright; a page that cannot be written whole (a full disk, a
read-only folder) keeps the old one and says so in one line. No notebook is executed here."""

from __future__ import annotations

import errno
import os
import subprocess

import pytest


def test_a_build_ending_in_an_exception_leaves_no_scratch_or_connection_file(tmp_path, monkeypatch):
    from mechsym.view import reports

    monkeypatch.setattr(reports.tempfile, "tempdir", str(tmp_path))
    monkeypatch.delenv("JUPYTER_RUNTIME_DIR", raising=False)
    seen = {}

    def interrupted(nb, output, *a, **k):
        runtime = os.environ["JUPYTER_RUNTIME_DIR"]
        seen["runtime"] = runtime
        (output.parent / "runtime" / "kernel-1234.json").write_text('{"key": "secret"}')   # what jupyter_client writes
        raise KeyboardInterrupt

    monkeypatch.setattr(reports, "execute", interrupted)
    with pytest.raises(KeyboardInterrupt):
        reports.build(output=str(tmp_path / "out"), only=[reports.notebooks()[0].stem])
    assert seen["runtime"].startswith(str(tmp_path / reports.SCRATCH))
    assert "JUPYTER_RUNTIME_DIR" not in os.environ
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_the_scratch_of_a_killed_build_is_removed_by_the_next(tmp_path):
    from mechsym.view import reports

    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = tmp_path / f"{reports.SCRATCH}{dead.pid}-abcd"
    (stale / "runtime").mkdir(parents=True)
    (stale / "runtime" / "kernel-1.json").write_text('{"key": "secret"}')
    live = tmp_path / f"{reports.SCRATCH}{os.getpid()}-efgh"
    live.mkdir()
    assert reports.clean_stale_scratch(tmp_path) == [stale]
    assert not stale.exists() and live.exists()


@pytest.mark.parametrize("failure", [errno.ENOSPC, errno.EROFS])
def test_a_page_that_cannot_be_written_whole_keeps_the_old_one(tmp_path, monkeypatch, failure):
    from mechsym import MechsymError
    from mechsym.store import files as fsio

    page = tmp_path / "01-falsesharing.html"
    page.write_text("<html>the old good page</html>\n")
    real = fsio.write_synced

    def cut(path, data):
        real(path, data[: len(data) // 3])   # a fragment reaches the disk, then the write fails
        raise OSError(failure, os.strerror(failure))

    monkeypatch.setattr(fsio, "write_synced", cut)
    with pytest.raises(MechsymError) as e:
        fsio.replace_whole(page, "<html>" + "x" * 100_000 + "</html>\n", "page")
    assert len(str(e.value).splitlines()) == 1 and str(page) in str(e.value) and "old one is kept" in str(e.value)
    assert page.read_text() == "<html>the old good page</html>\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [page.name]   # no temporary file left


def test_a_read_only_folder_is_said_before_writing(tmp_path, monkeypatch):
    from mechsym import MechsymError
    from mechsym.store import files as fsio

    page = tmp_path / "index.html"
    page.write_text("old\n")
    monkeypatch.setattr(fsio, "room", lambda p: (True, 10**12, 10**6))
    with pytest.raises(MechsymError, match="read-only file system; the old one is kept"):
        fsio.replace_whole(page, "new\n", "page")
    assert page.read_text() == "old\n"
