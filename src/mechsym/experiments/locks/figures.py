"""The locks figures: every fork a dot, the median a line or bar; one panel row per machine when several."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ...judge import analysis
from ...style import plots
from ...judge.analysis import POST, Protocol
from ...style.plots import plt
from .meta import VARIANTS
from .rows import forks, one_thread, throughput
from .sweep import HARNESS, MONITORS, POLICIES

COLORS = plots.colors_for(VARIANTS)   # one colour per variant, the same in every notebook (plots.VARIANT_COLORS)


def _legend(fig, axes, extra: dict | None = None) -> None:
    handles = {}
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(lab, h)
    handles.update(extra or {})
    if handles:
        fig.legend(handles.values(), handles.keys(), loc="outside right center", fontsize=8)


def plot_reference(ref: pd.DataFrame):
    """The second post's two tables as figures (ops/s vs threads, log scale)."""
    r = ref[ref["metric"] == "throughput"]
    cpus = list(dict.fromkeys(r["cpu"]))
    fig, axes = plots.grid(len(cpus), cols=len(cpus), width=5.2, height=3.8, sharey=True)
    for ax, cpu in zip(axes, cpus):
        for variant, sub in r[r["cpu"] == cpu].groupby("variant", sort=False):
            ax.plot(sub["threads"], sub["value"], "-o", color=COLORS[variant],
                    label=f"{variant} ({sub['column'].iloc[0]})")
        ax.set_yscale("log")
        plots.log_ticks(ax.yaxis)
        plots.title(ax, f"{cpu}, JDK 1.6.0_29 (2011-11-22 post)")
        ax.set_xlabel("threads")
    axes[0].set_ylabel("ops/s (log)")
    _legend(fig, axes)
    return fig


def plot_scaling(df: pd.DataFrame, policy: str, variants: list[str] | None = None, ref: pd.DataFrame | None = None,
                 protocol: Protocol = POST):
    """ops/s vs threads, one panel per machine and JDK: each fork (fresh JVM) a dot, read under the protocol; the
    median over forks a line; the post's Nehalem numbers dashed, for scale."""
    panels, several = [], len(analysis.machines(df)) > 1
    for machine, sub in analysis.split(df):
        pf = forks(sub, protocol, grid="main", warmup_policy=policy)
        for jdk in analysis.jdks(pf):
            panels.append((machine, jdk, pf[pf["jdk"] == jdk]))
    fig, axes = plots.grid(len(panels), cols=max(1, len(analysis.jdks(throughput(df)))), width=5.6, height=4.2,
                           sharey=True)
    if not panels:
        plots.empty(axes[0], "no measured rows")
        return fig
    for ax, (machine, jdk, pf) in zip(axes, panels):
        shown = [v for v in (variants or list(VARIANTS)) if v in set(pf["variant"])]
        plots.points_and_median(ax, pf[pf["variant"].isin(shown)], "threads", "value", "variant", order=shown,
                                colors=COLORS, log=True)
        if ref is not None:
            top = pf["threads"].max()
            r = ref[(ref["metric"] == "throughput") & ref["cpu"].str.startswith("Nehalem") & (ref["threads"] <= top)]
            for v, rs in r.groupby("variant"):
                if v in shown:
                    ax.plot(rs["threads"], rs["value"], "--", color=COLORS[v], alpha=0.6, lw=1)
        missing = [v for v in (variants or list(VARIANTS)) if v not in shown]
        title = (f"{machine}: " if several else "") + f"JDK {jdk}, {policy} warm-up"
        if missing:
            title += f"\n(not run on JDK {jdk}: {', '.join(missing)})"
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("threads")
        ax.set_xticks(sorted(pf["threads"].unique()))
    axes[0].set_ylabel(f"ops/s (log), {protocol.name} protocol")
    extra = {"the post, Nehalem (dashed)": plt.Line2D([], [], ls="--", color="grey")} if ref is not None else {}
    extra["one fork (dot) / median (line)"] = plt.Line2D([], [], ls="", marker="o", color="grey", alpha=0.4)
    _legend(fig, axes, extra)
    return fig


def plot_why(df: pd.DataFrame, protocol: Protocol = POST):
    """One thread, the oldest JDK: each monitor variant (and ReentrantLock) as the harness changes; a bar is the
    median over forks, a dot one fork. One panel per machine."""
    parts = [(machine, one_thread(sub, protocol)) for machine, sub in analysis.split(df)]
    fig, axes = plots.grid(len(parts), cols=1, width=10, height=4.2, sharey=True)
    for ax, (machine, pf) in zip(axes, parts):
        if pf.empty:
            plots.empty(ax, "no one-thread cells")
            continue
        jdk = analysis.jdks(pf)[0]
        pf = pf[pf["jdk"] == jdk]
        variants = [v for v in MONITORS + ["reentrant"] if v in set(pf["variant"])]
        width = 0.8 / max(1, len(variants))
        rng = np.random.default_rng(1)
        for i, v in enumerate(variants):
            for j, (_, _, harness) in enumerate(HARNESS):
                vals = pf[(pf["variant"] == v) & (pf["harness"] == harness)]["value"]
                if vals.empty:
                    continue
                x = j + (i - (len(variants) - 1) / 2) * width
                ax.bar(x, vals.median(), width * 0.9, color=COLORS[v], alpha=0.8, label=v if j == 0 else None)
                ax.scatter(x + rng.uniform(-width / 4, width / 4, len(vals)), vals, s=9, color="black", alpha=0.6,
                           zorder=3)
        ax.set_xticks(range(len(HARNESS)), [h.replace(", ", ",\n") for _, _, h in HARNESS])
        ax.set_yscale("log")
        plots.log_ticks(ax.yaxis)
        ax.set_ylabel(f"ops/s, 1 thread (log)\nbar = median, dot = fork ({protocol.name})")
        ax.set_title((f"{machine}: " if len(parts) > 1 else "")
                     + f"One thread, JDK {jdk}: what the harness does to the lock being measured")
    _legend(fig, axes)
    return fig


def plot_runs(df: pd.DataFrame, variants: list[str] | None = None):
    """One thread, the posts' harness: ops/s of each measured run in its JVM, in order (run 1 is the one the posts
    timed), after one long warm-up and after ten short ones. A dot is one fork's run, the line the median."""
    variants = variants or ["monitor-thin", "monitor-biased", "monitor-default", "reentrant", "atomic"]
    panels, several = [], len(analysis.machines(df)) > 1
    for machine, sub in analysis.split(df):
        m = analysis.where(throughput(sub), grid="main", threads=1, variant=variants)
        for jdk in analysis.jdks(m):
            for policy in POLICIES:
                panels.append((machine, jdk, policy, analysis.where(m, jdk=jdk, warmup_policy=policy)))
    fig, axes = plots.grid(len(panels), cols=len(POLICIES), width=5.2, height=3.8, sharey=True)
    if not panels:
        plots.empty(axes[0], "no measured one-thread rows")
        return fig
    for ax, (machine, jdk, policy, m) in zip(axes, panels):
        m = m.copy()
        keys = [c for c in ("run_id", "fork") if c in m]
        m["run"] = m.groupby(["variant"] + keys)["iteration"].rank(method="first").astype(int)
        shown = [v for v in variants if v in set(m["variant"])]
        plots.points_and_median(ax, m, "run", "value", "variant", order=shown, colors=COLORS, log=True)
        ax.set_xticks(sorted(m["run"].unique()))
        ax.set_xlabel("measured run in the JVM (1 = the run the post timed)")
        ax.set_title((f"{machine}: " if several else "") + f"JDK {jdk}, {policy} warm-up",
                     fontsize=9)
    axes[0].set_ylabel("ops/s, 1 thread (log)")
    _legend(fig, axes)
    return fig
