"""What a notebook cell calls: results for PRESET/MACHINE, the machine, the environment."""

from __future__ import annotations

import html

import pandas as pd

from .. import MechsymError, experiments
from ..judge import analysis, tables
from ..store import runs as store
from ..store.runs import run_metadata
from ..style import units
from ..style.frames import table
from ..machine.jdk import discover
from ..machine.cpus import read_topology
from ..machine.identity import machine_info
from ..store.layout import machine_label

NOTEBOOK_PRESETS = ("stored", "smoke", "standard", "full")


def check(preset: str, machine: str | None = None) -> None:
    if preset not in NOTEBOOK_PRESETS:
        raise MechsymError(f"PRESET '{preset}': allowed values are {', '.join(NOTEBOOK_PRESETS)}")
    if machine not in (None, "", "all") and machine not in store.machines():
        have = ", ".join(store.machines()) or "none"
        raise MechsymError(f"MACHINE '{machine}': no stored results for it (stored: {have}, or 'all', or None for this machine)")


def results(experiment: str, preset: str = "stored", machine: str | None = None, progress: bool = True) -> pd.DataFrame:
    """The rows a notebook renders.

    PRESET "stored" reads data/results (MACHINE: None = this machine, else the
    newest stored; an id; or "all"); any other preset runs the sweep on this
    machine now (with a progress bar), stores it, and returns its rows."""
    from ..run import sweep

    check(preset, machine)
    module = experiments.get(experiment)
    if preset == "stored":
        df = store.load(experiment, machine)
        if df.empty:
            raise MechsymError(f"{experiment}: no stored results for machine {machine or store.machine_id()}; "
                               f"run `mechsym run {experiment} --preset standard` or set PRESET = \"smoke\"")
        return df
    meta = sweep.execute(module, preset, progress=progress)
    df = meta["frame"].copy()
    df.insert(0, "run_id", meta["run_id"])
    df["machine"] = meta["machine"]["machine_id"]
    return df


def short_commit(meta: dict) -> str:
    """The run's commit cut to 12 hex digits, with "-dirty" kept (a run made with --allow-dirty, or a smoke run on a
    dirty tree: its code is the commit plus a diff)."""
    commit = str(meta.get("git_commit", ""))
    dirty = commit.endswith("-dirty") or (meta.get("provenance") or {}).get("clean") is False
    return commit.removesuffix("-dirty")[:12] + ("-dirty" if dirty else "")


def machine_table(df: pd.DataFrame | None = None, experiment: str | None = None) -> pd.DataFrame:
    """Machine and JDKs of the results shown (from their metadata), or of this machine when nothing is stored."""
    rows = []
    metas = run_metadata(df, experiment) if df is not None and experiment else []
    if metas:
        for m in metas:
            mi = m.get("machine", {})
            rows.append({
                "machine": m.get("_machine") or mi.get("machine_id"), "CPU": mi.get("cpu_model"),
                "logical CPUs": mi.get("logical_cpus"), "physical cores": mi.get("physical_cores"),
                "sockets": mi.get("sockets"), "SMT": _yes_no(mi.get("smt")), "kernel": mi.get("kernel"),
                "JDKs": "; ".join(f"{j['feature']}: {j['vendor']} {j['version']}" for j in m.get("jdks", [])),
                "preset": m.get("preset"), "run": m.get("run_id"), "started": m.get("start"),
                "minutes": round(m.get("seconds", 0) / 60, 1) if m.get("seconds") else None,
                "taskset": m.get("taskset"), "git commit": short_commit(m),
            })
    else:
        info = machine_info()
        rows.append({"machine": info["machine_id"], "CPU": info["cpu_model"], "logical CPUs": info["logical_cpus"],
                     "physical cores": info["physical_cores"], "sockets": info["sockets"], "SMT": _yes_no(info["smt"]),
                     "kernel": info["kernel"],
                     "JDKs": "; ".join(f"{j.feature}: {j.vendor} {j.version}" for j in discover())})
    t = pd.DataFrame(rows)
    names = t["machine"].astype(str)
    if names.duplicated().any() and "run" in t:   # two runs of one machine: a column per run
        names = names + " · run " + t["run"].astype(str)
    return t.set_index(pd.Index(names, name="")).drop(columns="machine").T   # a column per machine, named by it


def _yes_no(v) -> str:
    """SMT and other flags as this_machine shows them: 'yes'/'no' (stored as bool or text), '—' when unknown."""
    if v is None or v == "":
        return units.MISSING
    return "yes" if str(v).strip().lower() in analysis.TRUE_STRINGS else "no"


def this_machine() -> pd.DataFrame:
    topo = read_topology()
    info = machine_info(topo)
    rows = [("machine id", info["machine_id"]), ("CPU", info["cpu_model"]),
            ("logical CPUs", info["logical_cpus"]), ("physical cores", info["physical_cores"]),
            ("sockets", info["sockets"]), ("SMT", "yes" if info["smt"] else "no"),
            ("memory", f"{info['memory_bytes'] / 2**30:.0f} GiB"), ("kernel", info["kernel"])]
    for j in discover():
        rows.append((f"JDK {j.feature}", f"{j.vendor} {j.version} ({j.home})"))
    return pd.DataFrame(rows, columns=["", "value"]).set_index("")


def calibration_table(machine: str | None = None):
    """The newest stored calibration of `machine` (default: this one) beside the posts' machines (view/machine.py),
    under a line naming the run it comes from."""
    from IPython.display import HTML, display

    from . import machine as calibration_view

    t = calibration_view.this_machine(machine)
    source = t.attrs.get("source")
    if source:
        display(HTML(f"<p><small>calibration of {html.escape(source)}</small></p>"))
    return t.style.set_properties(**{"text-align": "left", "vertical-align": "top"}).set_table_styles(
        [{"selector": "th", "props": "text-align: left; vertical-align: top"}])


def unavailable(df: pd.DataFrame) -> pd.DataFrame:
    """The cells that could not run here: per machine (when several), variant, JDK and placement, the reason and how
    many cells (one copy: analysis.unavailable)."""
    return analysis.unavailable(df)


def whose(df: pd.DataFrame, experiment: str | None = None):
    """One line per machine naming whose runs a notebook shows: this machine's, or another host's (never passed
    off as this machine's), with the run ids."""
    from IPython.display import Markdown

    if df is None or df.empty or "machine" not in df:
        return Markdown("No stored runs are shown.")
    warning = stale_banner(df, experiment)
    parts = [f"> **⚠ {warning}**\n"] if warning else []
    for m in sorted(df["machine"].astype(str).unique()):
        runs = sorted(df.loc[df["machine"].astype(str) == m, "run_id"].astype(str).unique()) if "run_id" in df else []
        parts.append(f"- {machine_label(m)}; run{'s' if len(runs) > 1 else ''} "
                     + ", ".join(f"`{r}`" for r in runs))
    head = [p for p in parts if p.startswith(">")]
    return Markdown("\n".join(head) + "\nResults shown:\n" + "\n".join(p for p in parts if not p.startswith(">")))


def stale_banner(df: pd.DataFrame, experiment: str | None) -> str | None:
    """One line when a run behind these rows was measured with other kernels than the checkout's (or its code is not
    known): which runs, their commits, and how to refresh; None when every run shown is current."""
    from ..store import provenance

    if df is None or df.empty or "run_id" not in df or not experiment:
        return None
    metas = run_metadata(df, experiment)
    return provenance.banner(metas) if metas else None


_JUDGED: dict = {}


def judged(module, df: pd.DataFrame, notebook: str) -> list:
    """The notebook's verdicts on these rows, machine by machine. The verdict table and the recap show the same
    verdicts, so they are computed once: kept for the last rows judged, keyed by the rows' content (rows changed
    in between are judged afresh)."""
    from . import collect as verdict_collect
    from ..judge import runs as verdict_runs, verdicts

    key = (module.NAME, notebook, tuple(map(str, df.columns)), len(df),
           int(pd.util.hash_pandas_object(df, index=False).sum()) if len(df) else 0)
    if key not in _JUDGED:
        _JUDGED.clear()
        # Sibling runs (other current runs of the same code) are judged with these rows, as `mechsym verdicts` does.
        both = verdict_runs.with_siblings(module.NAME, df)
        _JUDGED[key] = tables.for_notebook(verdict_collect.machine_verdicts(module, both), notebook)
        _POOLED.clear()
        _POOLED[key] = pooled_text(module.NAME, df, both)
    return _JUDGED[key]


_POOLED: dict = {}


def pooled_text(name: str, shown: pd.DataFrame, pooled: pd.DataFrame) -> str:
    """Which stored runs the verdicts pool, machine by machine, computed from the rows judged: the run shown, its
    extensions (forks added by `--until-decided`) and the sibling runs (other current runs of the same code and
    preset) whose forks are judged with it; the tables above show the run shown and its extensions only."""
    from ..judge import analysis, runs as verdict_runs

    if shown.empty or "run_id" not in shown or "run_id" not in pooled:
        return ""
    lines = []
    for machine, sub in analysis.split(pooled):
        ids = sorted(set(sub["run_id"].astype(str)))
        metas = {m["run_id"]: m for m in verdict_runs.stored_runs(name, machine)}
        seen = set(shown.loc[shown["machine"].astype(str) == str(machine), "run_id"].astype(str)) \
            if "machine" in shown else set(shown["run_id"].astype(str))
        base = [r for r in ids if r in seen and not (metas.get(r) or {}).get("extends")]
        ext = [r for r in ids if r in seen and (metas.get(r) or {}).get("extends")]
        sib = [r for r in ids if r not in seen]
        code = lambda rs: ", ".join(f"`{r}`" for r in rs)   # noqa: E731
        text = f"{len(ids)} run{'s' if len(ids) != 1 else ''} on {machine_label(machine)}: {code(base)} (shown above)"
        if ext:
            text += f", its extension{'s' if len(ext) != 1 else ''} {code(ext)} (forks added by --until-decided)"
        if sib:
            text += (f", and {code(sib)} (other current run{'s' if len(sib) != 1 else ''} of the same code and "
                     "preset, judged with it; not in the tables above)")
        lines.append(text)
    return ("The verdicts below pool " + "; ".join(lines) + ".") if lines else ""


_REPLICATED: dict = {}


def _replicated(module, df: pd.DataFrame, notebook: str) -> list:
    """The notebook's verdicts with how many other stored runs agree (collect.replication): the matrix at the top
    and the verdict rows below show the same, so it is computed once for the last verdicts judged."""
    from . import collect as verdict_collect

    shown = judged(module, df, notebook)
    if _REPLICATED.get("of") is not shown:
        _REPLICATED.clear()
        _REPLICATED.update({"of": shown, "verdicts": verdict_collect.replication(module, module.NAME, df, shown)})
    return _REPLICATED["verdicts"]


def verdict_matrix(module, df: pd.DataFrame, notebook: str):
    """The page's answer, first: its verdicts as a claim x scope colour matrix (answer.matrix), one line a claim,
    details folded; a banner above it when a run shown is stale."""
    from IPython.display import HTML

    from . import answer

    warning = stale_banner(df, module.NAME)
    banner = f"<p><b>⚠ {html.escape(warning)}</b></p>" if warning else ""
    return HTML(banner + answer.matrix(_replicated(module, df, notebook)))


def forest(module, df: pd.DataFrame, notebook: str):
    """Each claim's primary estimate and interval against its threshold and the post's figure (answer.forest)."""
    from . import answer

    return answer.forest(answer.forest_rows(judged(module, df, notebook)))


def legend():
    """The vocabulary of the verdicts (primary, sub-row, per mode, planned looks, stand-in, ...)."""
    from IPython.display import HTML

    from . import answer

    return HTML(answer.legend())


def verdict_table(module, df: pd.DataFrame, notebook: str) -> None:
    """A notebook's verdict table: its claims judged on these rows (per machine, per fork, with intervals), each
    with how many complete stored runs of the same machine agree, coloured by outcome, its marks explained in the
    caption; then the modes section (modes_section) of these rows. Both are displayed, in that order."""
    from IPython.display import HTML, display

    shown = _replicated(module, df, notebook)
    styled = tables.styled(shown)
    if hasattr(styled, "data"):
        # the claim sentence once per claim (the matrix at the top has it too)
        data = styled.data
        data["claim"] = data["claim"].where(data["claim"] != data["claim"].shift(), "")
    pooled = next(iter(_POOLED.values()), "")
    if pooled:
        from IPython.display import Markdown
        display(Markdown(pooled))
    warning = stale_banner(df, module.NAME)
    if warning and hasattr(styled, "set_caption"):
        legend = getattr(styled, "caption", None)
        styled = styled.set_caption(f"⚠ {warning}" + (f". {legend}" if legend else ""))
    if warning:
        display(HTML(f"<p><b>⚠ {html.escape(warning)}</b></p>"))
    if hasattr(styled, "to_html"):
        display(HTML(f"<details><summary>every verdict row ({len(styled.data)} rows: primary, sub-rows, per mode; "
                     "<i>runs agreeing</i>: stored runs of these kernels on this machine, each judged alone, with the same "
                     f"outcome)</summary>{styled.to_html()}</details>"))
    else:
        display(styled)
    modes_section(df)


MODES_SHOWN = 8   # strips drawn; every bimodal cell stays in the tables


def modes_section(df: pd.DataFrame) -> None:
    """The cells whose forks form separated clusters (mechsym.judge.modes): a table with each mode's value and share, a strip
    per cell (forks coloured by mode, labelled with the recorded number that separates them, if one does), and every
    fork beside what the kernel recorded about it. Shown under every notebook's verdict table."""
    import matplotlib.pyplot as plt
    from IPython.display import HTML, Markdown, display

    from ..judge import modes
    from ..style import plots

    cells = modes.bimodal_cells(df)
    if not cells:
        display(Markdown("**Modes.** No cell's forks form separated clusters on the runs shown (a gap rule on each "
                         "cell's forks; Hartigan's dip test from 10 forks)."))
        return
    display(Markdown(
        f"**Modes.** In {len(cells)} cell{'s' if len(cells) != 1 else ''} the forks form two separated clusters: "
        "one median and one interval would describe neither, so a claim on such a cell is judged per mode in the "
        "table above (or left *inconclusive: bimodal*). Each mode's median and share of forks, and the number the "
        f"kernel recorded per fork that goes with the mode best (named only from |r| >= {modes.R_NAMED}; with few "
        "forks read its permutation p-value before the name):"))
    display(table(modes.table(cells)))
    fig = plots.modes_strips(cells[:MODES_SHOWN])
    display(fig)
    plt.close(fig)
    forks = modes.fork_table(cells)
    display(HTML(f"<details><summary>every fork of these cells, with what its kernel recorded ({len(forks)} forks)"
                 f"</summary>{table(forks).to_html()}</details>"))


def collapsed(df: pd.DataFrame, summary: pd.DataFrame | None = None, label: str = "the full table"):
    """A long table summarised: `summary` (or the first rows) shown, the full table in a collapsed block."""
    from IPython.display import HTML

    full = df if isinstance(df, pd.DataFrame) else pd.DataFrame(df)
    head = summary if summary is not None else full.head(10)
    page = table(head).to_html() + (f"<details><summary>{label} ({len(full)} rows)</summary>"
                                    f"{table(full).to_html()}</details>")
    return HTML(page)


def folded(shown, label: str):
    """A table (DataFrame or Styler) folded away in a <details> block named by `label`; anything else (a sentence
    that there is nothing to show) is returned as it is."""
    from IPython.display import HTML

    if isinstance(shown, pd.DataFrame):
        shown = table(shown)
    if not hasattr(shown, "to_html") or not hasattr(shown, "data"):
        return shown
    return HTML(f"<details><summary>{label} ({len(shown.data)} rows)</summary>{shown.to_html()}</details>")


def recap(module, df: pd.DataFrame, notebook: str):
    """The recap's first part, computed (so it stays true when re-run): per claim, how many of its verdicts (scope x
    protocol x machine) hold, do not hold, or stay inconclusive on the runs shown."""
    from collections import Counter

    from IPython.display import Markdown

    shown = judged(module, df, notebook)
    if not shown:
        return Markdown("No verdicts on these runs.")
    lines = []
    for claim in dict.fromkeys(v.claim for v in shown):
        counts = Counter(v.outcome for v in shown if v.claim == claim)
        n = sum(counts.values())
        parts = ", ".join(f"{k} {c} of {n}" for k, c in counts.most_common())
        lines.append(f"- *{claim.text}*: {parts}")
    return Markdown("On the runs shown, per claim (verdicts: scope x protocol):\n" + "\n".join(lines))
