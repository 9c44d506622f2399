"""A sweep's cells and forks: one point of a sweep (a kernel, its arguments, flags, JDK and CPUs) and one fresh
process of it as the run loop runs it. The sweep (mechsym.run.sweep), JMH's cells (mechsym.run.jmh) and the
command line's overrides (mechsym.run.overrides) all build on them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import pandas as pd

from .. import MechsymError
from ..machine.jdk import Jdk
from .launch import Launch, java_command, native_command


@dataclass
class Cell:
    """One point of a sweep: a kernel with its arguments, flags, JDK and CPUs.

    kernel is a Java class name ("mechsym.locks.LockContention"), "c:<binary>"
    for a C kernel built into build/c/, or "cmd:<name>" for a cell its `runner`
    runs (e.g. dd). params are the kernel's --k=v arguments; labels are extra
    columns for the results (variant names, placements...). prepare, args,
    reply and runner are the hooks described in the module's doc."""
    variant: str
    kernel: str
    params: dict = field(default_factory=dict)
    labels: dict = field(default_factory=dict)
    flags: tuple[str, ...] = ()
    jdk: Jdk | None = None
    cpus: list[int] | None = None     # taskset -c; None or [] = unpinned
    forks: int = 3
    timeout: float = 300.0
    unavailable: str | None = None    # reason, when the machine lacks what the cell needs
    prepare: Callable[["Fork"], None] | None = None
    args: Callable[["Fork"], dict] | None = None
    reply: Callable[["Fork", str], str | None] | None = None
    runner: Callable[["Fork"], pd.DataFrame] | None = None

    def launch(self, fork: "Fork | None" = None) -> Launch:
        params = {**self.params, **(self.args(fork or Fork(self, 0)) if self.args else {})}
        if self.kernel.startswith("c:"):
            return native_command(self.kernel[2:], params, self.cpus)
        if self.kernel.startswith("cmd:"):
            raise MechsymError(f"cell {self.variant}: {self.kernel} is run by its runner, not launched")
        if self.jdk is None:
            raise MechsymError(f"cell {self.variant}: a Java kernel needs a JDK")
        return java_command(self.jdk, self.kernel, params, self.flags, self.cpus)

    def command_line(self) -> str:
        """What a fork runs (for dry runs; hooks see no workspace)."""
        if self.runner:
            return f"{self.kernel.removeprefix('cmd:')} (run by the experiment) " + " ".join(
                f"--{k}={v}" for k, v in self.params.items())
        return self.launch().command_line

    def columns(self) -> dict:
        cols = {"variant": self.variant, **{k.replace("-", "_"): v for k, v in self.params.items()}, **self.labels}
        if self.kernel.startswith("c:"):
            cols.update(jdk="c", jdk_version="gcc", flags="")
        elif self.kernel.startswith("cmd:"):
            cols.update(jdk=self.kernel.removeprefix("cmd:"), flags="")
            cols.setdefault("jdk_version", "")
        else:
            cols.update(jdk=self.jdk.feature if self.jdk else "", jdk_version=self.jdk.version if self.jdk else "",
                        flags=" ".join(self.flags))
        cols["cpus"] = ",".join(map(str, sorted(set(self.cpus)))) if self.cpus else "all"
        return cols


@dataclass
class Fork:
    """One fork of a cell as the run loop runs it, handed to the cell's hooks.

    workspace: what the experiment's session yielded (None outside a run: a dry run). rows: rows a hook records
    for this fork (e.g. a check between two timed phases) in the kernel's columns (iteration, warmup, metric,
    value, unit, ...); they are stored with the fork's own. commands: the run's command list (a runner adds the
    commands it runs)."""
    cell: Cell
    number: int
    workspace: object = None
    rows: list[dict] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
