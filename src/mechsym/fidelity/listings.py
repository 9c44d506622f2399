"""The posts' own Java listings, cut out of the posts' text and compiled outside the repository (mechsym.fidelity.originals).

The listings are not the lab's code and are never committed: `python -m mechsym.fidelity.originals build` reads them from
the posts ($MECHSYM_POSTS, default /work/shared/posts), writes each into <scratch>/posts/<name>/src/<Class>.java
and compiles it with javac 17 into <scratch>/posts/<name>/classes. A listing is the text from its imports to the
brace that closes its public class, as the post prints it; the only changes made are

- the blog's non-breaking spaces (its HTML indentation) written as spaces, which javac requires;
- the edits named in LISTINGS, each an exact text that must occur once: the post's own instructions
  (FalseSharing's `NUM_THREADS = 4; // change` and `p1 ... p6; // comment out`), and a size constant cut where
  the listing's own size makes a set (kernel, listing, listing again) take more than 30 s on a 2-vCPU machine.

Each listing's edits are said in its comparison's listing label, and in <scratch>/posts/<name>/LISTING.
`build --tiny` builds the same listings at tiny sizes into <scratch>/posts-tiny (for checking that the
fidelity-run commands parse both programs' output; never for numbers).

"Single Writer Principle" (2011-09-22) prints no listing: the lab's "simplest program for the table" was its own
program, so there is nothing of the post's to compare CounterCost with here.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .. import MechsymError

POSTS_ENV = "MECHSYM_POSTS"
NBSP = "\u00a0"


@dataclass(frozen=True)
class Edit:
    """`old`, exact text of the listing (it must occur once), becomes `new`; `{n}` in `new` is the listing's size.
    A size edit names the listing's own value (`orig`): it is made only where the size differs from it."""
    old: str
    new: str
    why: str
    orig: int | None = None


@dataclass(frozen=True)
class Listing:
    post: str                    # the post's file in the posts directory
    cls: str                     # its public class: <cls>.java
    edits: tuple[Edit, ...] = ()
    size: int | None = None      # {n}: the size the comparison runs at
    tiny: int | None = None      # {n} in the tiny build


def _ff(threads: int, padded: bool, size: int) -> Listing:
    edits = [Edit("NUM_THREADS = 4; // change", f"NUM_THREADS = {threads}; // change",
                  f"NUM_THREADS = {threads} (the post's '// change')")]
    if not padded:
        edits.append(Edit("public long p1, p2, p3, p4, p5, p6; // comment out",
                          "// public long p1, p2, p3, p4, p5, p6; // comment out",
                          "the padding commented out (the post's '// comment out')"))
    edits.append(Edit("ITERATIONS = 500L * 1000L * 1000L;", "ITERATIONS = {n}L;", "ITERATIONS", 500_000_000))
    return Listing("2011-07-30-false-sharing.md", "FalseSharing", tuple(edits), size, 2_000_000)


#: name -> listing. Sizes: a set is three JVMs; where the post's own size makes a set take > 30 s here it is cut
#: (per JVM, from the post-protocol cells of the stored standard run of 2026-11-26 on a 2-vCPU EPYC: unpadded
#: false sharing, 2 threads x 500 M writes, 7-12 s; write combining at 2^31 - 1 iterations about 13 s; the volatile
#: ping-pong's 500 M round trips 26 s; the locked ping-pong's 10 M round trips 50-440 s). Kept: padded false
#: sharing (2.6-6.7 s), AtomicLong (2.4 s one thread, 3.6 s two).
LISTINGS = {
    "false-sharing-padded-2": _ff(2, True, 500_000_000),
    "false-sharing-unpadded-2": _ff(2, False, 200_000_000),
    "write-combining": Listing("2011-07-15-write-combining.md", "WriteCombining", (
        Edit("ITERATIONS = Integer.MAX_VALUE;", "ITERATIONS = {n};", "ITERATIONS", 2**31 - 1),), 1 << 29, 1 << 20),
    "atomic-increment": Listing("2011-09-11-adventures-with-atomiclong.md", "TestAtomicIncrement", (
        Edit("COUNT = 500L * 1000L * 1000L;", "COUNT = {n}L;", "COUNT", 500_000_000),), 500_000_000, 2_000_000),
    "inter-thread-latency": Listing("2011-08-09-inter-thread-latency.md", "InterThreadLatency", (
        Edit("ITERATIONS = 500L * 1000L * 1000L;", "ITERATIONS = {n}L;", "ITERATIONS", 500_000_000),),
        100_000_000, 200_000),
    "locked-signalling": Listing("2011-11-05-locks-condition-variables-latency-impact.md", "LockedSignallingLatency", (
        Edit("ITERATIONS = 10 * 1000 * 1000;", "ITERATIONS = {n};", "ITERATIONS", 10_000_000),), 100_000, 2_000),
}


def posts_dir() -> Path:
    return Path(os.environ.get(POSTS_ENV, "/work/shared/posts")).expanduser()


def read_post(post: str) -> str:
    path = posts_dir() / post
    if not path.is_file():
        raise MechsymError(f"post {path}: not found; set {POSTS_ENV} to the directory holding the posts")
    return path.read_text(encoding="utf-8")


_DECL = r"^(?P<pre>[ \t]*(?:(?:import|package)\s[^;\n]*;[ \t]*)*)(?:(?:public|final|abstract)\s+)*class\s+{cls}\b"
_HEAD = re.compile(r"[ \t]*((?:import|package)\s[^;\n]*;[ \t]*)*")


def extract(text: str, cls: str, where: str = "post") -> str:
    """The listing of public class `cls` in a post's text: its imports (the lines just above it, or before it on
    its line) through the brace that closes the class; non-breaking spaces as spaces."""
    text = text.replace(NBSP, " ")
    for m in re.finditer(_DECL.format(cls=re.escape(cls)), text, re.M):
        body = text.find("{", m.end())
        if body < 0 or not re.fullmatch(r"[\s\w.,<>]*", text[m.end():body]):
            continue   # prose that names the class, not its declaration
        end = _close(text, body)
        if end is None:
            raise MechsymError(f"{where}: class {cls}: its braces do not close (the listing is cut short)")
        start = m.start()
        lines = text[:start].split("\n")[:-1]      # whole lines above the declaration's line
        keep = 0
        for line in reversed(lines):
            if line.strip() and not _HEAD.fullmatch(line):
                break
            keep += 1
        head = "\n".join(lines[len(lines) - keep:]).strip("\n")
        return (head + "\n\n" if head else "") + text[start:end + 1].strip("\n") + "\n"
    raise MechsymError(f"{where}: no declaration of class {cls} at the start of a line")


def _close(text: str, i: int) -> int | None:
    """The index of the brace that closes the one at i, skipping comments, strings and char literals."""
    depth, n = 0, len(text)
    while i < n:
        c, two = text[i], text[i:i + 2]
        if two == "//":
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if two == "/*":
            j = text.find("*/", i + 2)
            if j < 0:
                return None
            i = j + 2
            continue
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            i = j + 1
            continue
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def source(name: str, tiny: bool = False) -> tuple[str, list[str]]:
    """Listing `name` with its edits made, and the edits said in words (those actually made)."""
    if name not in LISTINGS:
        raise MechsymError(f"listing '{name}': unknown (known: {', '.join(LISTINGS)})")
    li = LISTINGS[name]
    text = extract(read_post(li.post), li.cls, li.post)
    n = li.tiny if tiny else li.size
    said = []
    for e in li.edits:
        if e.orig is not None and n == e.orig:
            continue
        count = text.count(e.old)
        if count != 1:
            raise MechsymError(f"listing {name}: {e.old!r} occurs {count} times in {li.post}'s {li.cls}; an edit "
                               "needs exactly one")
        text = text.replace(e.old, e.new.replace("{n}", str(n)))
        said.append(e.why if e.orig is None else f"{e.why} cut to {_size(n)}")
    return text, said


def _size(n: int) -> str:
    for unit, word in ((1_000_000, "M"), (1000, "k")):
        if n % unit == 0:
            return f"{n // unit:,} {word}"
    k = n.bit_length() - 1
    return f"{n:,} (2^{k})" if n == 1 << k else f"{n:,}"


def label(name: str, tiny: bool = False) -> str:
    """The comparison's listing column: the post's class, the edits made, where it was built."""
    li = LISTINGS[name]
    _, said = source(name, tiny)
    return ", ".join([f"post listing {li.cls} ({li.post[:10]})", *said,
                      "compiled with javac 17 outside the repository"])


def where(base: Path, tiny: bool = False) -> Path:
    return base / ("posts-tiny" if tiny else "posts")


def write(base: Path, tiny: bool = False) -> dict[str, Path]:
    """Every listing's source written into <base>/posts[-tiny]/<name>/src; returns name -> its .java file."""
    out = {}
    for name, li in LISTINGS.items():
        text, said = source(name, tiny)
        d = where(base, tiny) / name
        (d / "src").mkdir(parents=True, exist_ok=True)
        for old in (d / "src").glob("*.java"):
            old.unlink()
        (d / "src" / f"{li.cls}.java").write_text(text)
        (d / "LISTING").write_text(f"{posts_dir() / li.post}: class {li.cls}\nedits: {'; '.join(said) or 'none'}\n"
                                   "non-breaking spaces written as spaces\n")
        out[name] = d / "src" / f"{li.cls}.java"
    return out


def build(base: Path, javac17, tiny: bool = False, out=print) -> None:
    """write() and every listing compiled with javac --release 17 (`javac17()` finds it) into <name>/classes."""
    files = write(base, tiny)
    javac = javac17()
    for name, java_file in files.items():
        classes = java_file.parent.parent / "classes"
        shutil.rmtree(classes, ignore_errors=True)
        classes.mkdir()
        c = subprocess.run([str(javac), "--release", "17", "-nowarn", "-d", str(classes), str(java_file)],
                           capture_output=True, text=True)
        if c.returncode != 0:
            raise MechsymError(f"listing {name}: javac failed: {(c.stderr.strip() or '?').splitlines()[0]}")
        out(f"{name}: {LISTINGS[name].post} class {LISTINGS[name].cls} compiled into {classes}"
            + (" (tiny sizes)" if tiny else ""))


# ---------------------------------------------------------------- the comparisons

# (name, expected seconds a set on a quiet 2-vCPU machine, listing, its arguments, fidelity-run arguments);
# {n} is the listing's size. A set is the kernel, the listing and the listing again, each a fresh JVM.
D = r"^duration = (\d+)$"
COMPARISONS = [
    ("false-sharing padded-longs, 2 threads", 12, "false-sharing-padded-2", "", dict(
        experiment="falsesharing",
        kernel="mechsym.falsesharing.FalseSharing --protocol=post --layout=padded-longs --threads=2 "
               "--iterations={n} --runs=1 --warmup-runs=0 --array-offset=as-allocated",
        kernel_figure="csv:duration", listing_figure=D, direction="duration",
        cell="padded-longs, 2 threads, {N} writes each, unpinned, array as allocated")),
    ("false-sharing unpadded, 2 threads", 13, "false-sharing-unpadded-2", "", dict(
        experiment="falsesharing",
        kernel="mechsym.falsesharing.FalseSharing --protocol=post --layout=unpadded --threads=2 "
               "--iterations={n} --runs=1 --warmup-runs=0 --array-offset=as-allocated",
        kernel_figure="csv:duration", listing_figure=D, direction="duration",
        cell="unpadded, 2 threads, {N} writes each, unpinned, array as allocated")),
    ("write-combining SingleLoop", 12, "write-combining", "", dict(
        experiment="writecombining",
        kernel="mechsym.writecombining.WriteCombining --protocol=post --iterations={n} --items=16777216 --runs=3",
        kernel_figure=r"^6,6,\d+,false,duration,(\d+),ns$",   # arrays,per_loop,iteration,warmup,metric,value,unit
        listing_figure=r"^\d+ SingleLoop\s+duration \(ns\) = (\d+)$",
        direction="duration", cell="SingleLoop, {N} iterations, 2^24 items, median of the 3 repetitions")),
    ("write-combining SplitLoop", 12, "write-combining", "", dict(
        experiment="writecombining",
        kernel="mechsym.writecombining.WriteCombining --protocol=post --iterations={n} --items=16777216 --runs=3",
        kernel_figure=r"^6,3,\d+,false,duration,(\d+),ns$",   # arrays,per_loop,iteration,warmup,metric,value,unit
        listing_figure=r"^\d+ SplitLoop\s+duration \(ns\) = (\d+)$",
        direction="duration", cell="SplitLoop, {N} iterations, 2^24 items, median of the 3 repetitions")),
    ("AtomicLong atomic-increment, 1 thread", 8, "atomic-increment", "1", dict(
        experiment="atomiclong",
        kernel="mechsym.atomic.AtomicIncrement --protocol=post --variant=atomic-increment --threads=1 --count={n} "
               "--runs=1 --warmup-runs=0",
        kernel_figure="csv:duration", listing_figure=D, direction="duration",
        cell="atomic-increment, one thread, COUNT {N}")),
    ("AtomicLong atomic-increment, 2 threads", 12, "atomic-increment", "2", dict(
        experiment="atomiclong",
        kernel="mechsym.atomic.AtomicIncrement --protocol=post --variant=atomic-increment --threads=2 --count={n} "
               "--runs=1 --warmup-runs=0",
        kernel_figure="csv:duration", listing_figure=D, direction="duration",
        cell="atomic-increment, two threads, COUNT {N}, unpinned")),
    ("inter-thread latency (VolatilePingPong)", 18, "inter-thread-latency", "", dict(
        experiment="signalling",
        kernel="mechsym.signalling.VolatilePingPong --protocol=post --iterations={n} --wait=spin --sample-every=0 "
               "--runs=1 --warmup-runs=0",
        kernel_figure="csv:throughput", listing_figure=r"^op/sec = (\d+)$", direction="speed",
        kernel_keep="csv:counters_share_line=1",   # the verdicts' gate: a run on two lines times another exchange
        cell="{N} exchanges, unpinned")),
    ("locks + condition variables (LockedSignalling)", 10, "locked-signalling", "", dict(
        experiment="signalling",
        kernel="mechsym.signalling.LockedSignalling --protocol=post --iterations={n} --sample-every=0 --runs=1 "
               "--warmup-runs=0",
        kernel_figure="csv:throughput", listing_figure=r"^([\d,]+) ops/s$", direction="speed",
        cell="lock + two conditions, {N} exchanges, unpinned (the post's taskset -c 2,4 is every CPU here)")),
]


def comparisons(base: Path, tiny: bool = False) -> list[tuple[str, int, dict]]:
    """(name, seconds a set, fidelity-run arguments) per comparison; the listing run as `{java} -cp ... Class`."""
    out = []
    for name, secs, lname, largs, args in COMPARISONS:
        li = LISTINGS[lname]
        n = li.tiny if tiny else li.size
        a = {k: v.replace("{n}", str(n)).replace("{N}", _size(n)) for k, v in args.items()}
        cp = where(base, tiny) / lname / "classes"
        a["listing"] = " ".join(["{java}", "-cp", str(cp), li.cls, *largs.split()])
        a["listing_label"] = label(lname, tiny) + (f", run as {li.cls} {largs}" if largs else "")
        out.append((name, secs, a))
    return out
