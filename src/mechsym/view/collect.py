"""Every claim of every experiment judged from the stored results, machine by machine: the verdict table behind
notebooks/00-overview, each notebook's verdicts, `mechsym verdicts` and reports/index.html (see overview.py for
its tables and figures).

The one source is each experiment module's CLAIMS and verdicts(df), applied to the stored results, machine by
machine. An experiment without stored results lists its claims as "not run yet" (not an error); an experiment
whose verdict function fails lists them as "error" with the reason, so one broken module never hides the others.

Which stored runs are judged together (siblings, extensions) and what a verdict rests on are verdict_runs.py's;
the cache that keeps each experiment's rows between calls is verdict_cache.py's.
"""

from __future__ import annotations

import contextlib
import dataclasses

import pandas as pd

from .. import MechsymError, experiments
from ..judge import analysis, comparisons, requirements, stats, tables, runs as verdict_runs
from ..machine import calibration
from ..store import runs as store
from . import cache as verdict_cache
from ..judge import verdicts as verdicts_mod
from ..judge.verdicts import Verdict

NOT_RUN = "not run yet"
ERROR = "error"
COLUMNS = ["experiment", "machine", "post", "notebook", "id", "scope", "protocol", "claim", "then", "now", "outcome",
           "why", "how tested", "then_value", "now_value", "low", "high", "forks", "runs_agree", "runs_total",
           "unstable", "run", "code", "source", "primary", "p_value", "near", "fact", "bh", "basis"]
BH_Q = 0.05   # the false-discovery rate of the multiplicity line (Benjamini-Hochberg over decisive primary claims)


def _row(name: str, machine: str, claim, outcome: str, now: str = "", why: str = "", v: Verdict | None = None) -> dict:
    return {"experiment": name, "machine": machine, "post": claim.post, "notebook": claim.notebook, "id": claim.id,
            "scope": v.scope_text if v else "", "protocol": v.protocol if v else "", "claim": claim.text,
            "then": claim.then, "now": now, "outcome": outcome, "why": why, "how tested": claim.test,
            "then_value": v.then_value if v else None, "now_value": v.now_value if v else None,
            "low": v.low if v else None, "high": v.high if v else None, "forks": v.forks if v else 0,
            "runs_agree": v.runs_agree if v else None, "runs_total": v.runs_total if v else None,
            "unstable": bool(v.unstable) if v else False, "run": v.run_id if v else "",
            "code": "", "source": getattr(claim, "source", "post"),
            # a claim with no verdict (not run yet, error) is its own primary row
            "primary": bool(v.primary) if v else True, "p_value": v.p_value if v else None,
            "near": bool(v.near) if v else False, "fact": bool(v.fact) if v else False, "bh": None, "basis": ""}


def _load(name: str, machine: str | None, preset: str | None) -> pd.DataFrame:
    """Stored rows; a preset other than "stored" prefers that preset's newest run (what a
    `make reports PRESET=...` just ran), falling back to the most thorough stored. With the run shown, the other
    current runs of the same kernels and preset (the run level: see verdict_runs.sibling_runs) and every run's
    extensions."""
    df = pd.DataFrame()
    if preset and preset != "stored":
        df = store.load(name, machine, preset=preset)
    if df.empty:
        df = store.load(name, machine)
    return verdict_runs.with_siblings(name, df)


def machine_verdicts(module, df: pd.DataFrame) -> list[Verdict]:
    """module.verdicts(df) machine by machine, each verdict tagged with its machine and run.

    A run's extensions (`mechsym run --until-decided`) are judged with it: their forks pooled with its forks (the
    extension's rows carry its run id for the tables; here they count as the run's own). The verdicts that were open
    when the extension was made are judged at the level its looks spent (stats.spent_level), the others at 95%.
    Two or more runs (not extensions of each other): forks nested in runs (stats.nested_runs)."""
    if df.empty:
        return []
    from ..run import harness

    out = []
    for machine, sub in analysis.split(df):
        ids = sorted(sub["run_id"].astype(str).unique()) if "run_id" in sub else []
        run = ",".join(ids)
        metas = {m["run_id"]: m for m in verdict_runs.stored_runs(str(module.NAME), machine)} if len(ids) > 1 else {}
        base_of, records = verdict_runs.extended(metas, ids)
        if base_of:
            sub = sub.assign(run_id=sub["run_id"].astype(str).replace(base_of))
        # a post run that mostly timed the JIT or GC does not vote, nor does one whose counters straddled two lines
        sub, left_out, split = harness.voting(sub)
        note = (f"{left_out} post-protocol run{'s' if left_out != 1 else ''} left out: more than 5% of the timed run "
                "in JIT compilation or GC") if left_out else ""
        nested = len(set(ids) - set(base_of)) >= 2
        with stats.nested_runs() if nested else contextlib.nullcontext():
            judged = module.verdicts(sub)
            spent = [r for r in records if r.get("level") and r.get("open")]
            if spent:
                level = max(float(r["level"]) for r in spent)
                keys = {tuple(k) for r in spent for k in r["open"]}
                with stats.at_level(level):
                    again = {v.key[:3]: v for v in module.verdicts(sub)}
                looks = max(int(r.get("looks", 0)) for r in spent)
                said = (f"judged at {100 * level:.4g}%: the error split over the {looks} planned looks at its forks "
                        "(--until-decided)")
                judged = [dataclasses.replace(again[v.key[:3]], why="; ".join(
                    x for x in (again[v.key[:3]].why, said) if x))
                          if v.key[:3] in keys and v.key[:3] in again else v for v in judged]
        mine = [dataclasses.replace(v, machine=machine or v.machine, run_id=run,
                                    why="; ".join(x for x in (v.why, note if v.protocol == "post" else "",
                                                              _split_note(v, split)) if x))
                for v in judged]
        mine = (tables.replicate(mine, _each_run(module, sub, [r for r in ids if r not in base_of], machine))
                if nested else tables.one_run(mine))
        # what this machine can measure: each claim's requirements against its newest stored calibration
        out += verdicts_mod.mark_primary(requirements.apply(mine, _calibration(module, machine, ids)))
    return out


def _calibration(module, machine: str | None, ids: list[str]):
    """The machine's newest stored calibration; without one, the topology its runs' machine record gives."""
    if not machine:
        return None
    cal = calibration.load(machine)
    if cal is None:
        record = next((m.get("machine") for m in verdict_runs.stored_runs(str(module.NAME), machine)
                       if m.get("run_id") in ids and isinstance(m.get("machine"), dict)), None)
        cal = calibration.from_record(machine, record)
    return cal


def _each_run(module, sub: pd.DataFrame, bases: list[str], machine: str) -> list[list[Verdict]]:
    """The runs judged together, each judged alone (with its extensions, at 95%): for "runs agreeing" and the
    unstable mark (tables.replicate). One run's verdicts are the run's own and are not judged again."""
    out = []
    for r in bases:
        one = sub[sub["run_id"].astype(str) == r].reset_index(drop=True)
        out.append([dataclasses.replace(v, run_id=r, machine=machine or v.machine) for v in module.verdicts(one)])
    return out


def _split_note(v: Verdict, split: pd.DataFrame) -> str:
    """'N runs left out: ...' for the runs of ``split`` (harness.split_runs) that the verdict's protocol, JDK or
    runtime and claim (Claim.variants) could have read; '' when none."""
    if split.empty:
        return ""
    hit = pd.Series(True, index=split.index)
    if v.claim.variants and "variant" in split:
        hit &= split["variant"].isin(v.claim.variants)
    if "protocol" in split:
        hit &= split["protocol"].fillna("lab").replace("", "lab").astype(str) == v.protocol
    if "jdk" in split and "jdk" in v.scope:
        hit &= split["jdk"].astype(str) == str(v.scope["jdk"])
    if "jdk" in split and "runtime" in v.scope:
        hit &= split["jdk"].map(analysis.runtime_label) == v.scope["runtime"]
    n = int(hit.sum())
    return (f"{n} run{'s' if n != 1 else ''} left out: the two counters straddled two cache lines (the post times "
            "one)") if n else ""


def jmh_subrows(module, name: str, verdicts: list[Verdict], preset: str | None) -> list[Verdict]:
    """JMH's sub-rows of the headline claims (jmh_claims.claim_rows), machine by machine for the machines judged,
    from the stored JMH run of the same preset (else the most thorough stored). Never primary: JMH stands beside the
    post's protocol, never in its place. None when the experiment has no JMH comparison or no stored JMH run."""
    from ..jmh import claims as jmh_claims, views as jmh_views

    if name not in jmh_views.SPECS:
        return []
    out = []
    for machine in sorted({v.machine for v in verdicts if v.machine}):
        chosen = preset if preset and preset != "stored" and jmh_views.run_ids(name, machine, preset=preset) else None
        out += [dataclasses.replace(v, machine=machine, primary=False)
                for v in jmh_claims.claim_rows(module.CLAIMS, machine, preset=chosen)]
    return out


def replication(module, name: str, df: pd.DataFrame, main: list[Verdict], busy: bool = False) -> list[Verdict]:
    """The main verdicts with how many OTHER complete stored runs of the same machine and preset agree.

    Only runs made by the same kernels vote (the same kernel fingerprint as the run judged: mechsym.store.provenance), each
    quiet (unless busy=True) and with at least verdict_runs.MIN_FORKS forks; the run being judged never counts
    itself. Each voting run is judged on its own."""
    from ..store import provenance

    if df.empty or "run_id" not in df:
        return main
    per_run: list[list[Verdict]] = []
    for machine, sub in analysis.split(df):
        shown = set(sub["run_id"].astype(str))
        metas = verdict_runs.stored_runs(name, machine)
        judged = [m for m in metas if m["run_id"] in shown]
        presets = {m.get("preset") for m in judged}
        prints = {provenance.run_fingerprint(m)[0] for m in judged}
        if None in prints or not judged:
            continue  # the code behind the run judged is not known: no run can be said to repeat it
        metas = [m for m in metas if m["run_id"] not in shown and m.get("preset") in presets and not m.get("extends")
                 and not store.is_jmh_run(m)
                 and (busy or verdict_runs.quiet(m)) and provenance.run_fingerprint(m)[0] in prints]
        if not metas:
            continue
        rows = store.load(name, machine, latest=False)
        for meta in metas:
            one = rows[rows["run_id"].astype(str) == meta["run_id"]] if len(rows) else rows
            if not len(one) or ("fork" in one and one["fork"].nunique() < verdict_runs.MIN_FORKS):
                continue
            try:
                per_run.append(machine_verdicts(module, one.reset_index(drop=True)))
            except Exception:  # an old run the current analysis cannot read does not vote
                continue
    return tables.replicate(main, per_run) if per_run else main


def collect(machine: str | None = None, preset: str | None = None, names: list[str] | None = None,
            replicate: bool = True) -> pd.DataFrame:
    """One row per verdict: every claim of every experiment (or of `names`).

    machine: None (per experiment this machine, else the newest stored), a machine id, or "all"
    (every stored machine; claims of an experiment a machine has not run are "not run yet" there).
    replicate: judge every complete stored run of the same preset too, and count how many agree."""
    if machine not in (None, "", "all") and machine not in store.machines():
        have = ", ".join(store.machines()) or "none"
        raise MechsymError(f"machine '{machine}': no stored results (stored machines: {have}, or 'all')")
    all_machines = store.machines() if machine == "all" else []
    rows = []
    for name in names or experiments.names():
        try:
            module = experiments.get(name)
            claims = list(module.CLAIMS)
        except MechsymError:
            raise
        except Exception as e:  # a module being written: say so, keep the others
            rows.append({**{c: "" for c in COLUMNS}, "experiment": name, "outcome": ERROR,
                         "claim": f"experiment module '{name}' failed to load", "why": _one_line(e)})
            continue
        key = verdict_cache.cache_key(name, machine, preset, replicate, module)
        seed = stats.current_seed()
        slot = (f"{name}-{machine or 'default'}-{preset or 'stored'}-{'r' if replicate else 'n'}"
                + (f"-seed{seed}" if seed != stats.SEED else ""))
        cached = verdict_cache.cache_read(slot, key)
        if cached is not None:
            rows += cached
            continue
        first = len(rows)
        try:
            df = _load(name, machine, preset)
            verdicts = machine_verdicts(module, df)
            if replicate:
                verdicts = replication(module, name, df, verdicts)
            verdicts += jmh_subrows(module, name, verdicts, preset)
        except MechsymError:
            raise
        except Exception as e:
            here = machine if machine not in (None, "", "all") else store.machine_id()
            rows += [_row(name, here, c, ERROR, why=f"verdicts({name}) failed: {_one_line(e)}") for c in claims]
            continue
        judged = sorted({v.machine for v in verdicts})
        codes = verdict_runs.run_codes(name, df)
        bases: dict[tuple, str] = {}
        jmh_ids = {r for v in verdicts if v.protocol == "jmh" for r in str(v.run_id).split(",") if r}
        if jmh_ids:
            codes.update(verdict_runs.run_codes(name, pd.DataFrame({"run_id": sorted(jmh_ids)})))
        for v in verdicts:
            row = _row(name, v.machine, v.claim, v.outcome, v.now, v.why, v)
            row["code"] = "; ".join(dict.fromkeys(codes.get(r, "") for r in str(v.run_id).split(",") if r))
            row["basis"] = bases.setdefault((v.machine, v.run_id), verdict_runs.basis(name, v.machine, v.run_id))
            rows.append(row)
        if machine == "all":
            missing = [m for m in all_machines if m not in judged] or ([] if judged else [store.machine_id()])
        elif not verdicts:
            missing = [machine or store.default_machine(name) or store.machine_id()]
        else:
            missing = []
        for m in missing:
            rows += [_row(name, m, c, NOT_RUN, why=f"no stored results of {name} for {m}: "
                                              f"`mechsym run {name}` or `mechsym import`") for c in claims]
        if not any(r.get("outcome") == ERROR for r in rows[first:]):   # an error is judged again next time
            verdict_cache.cache_write(slot, key, rows[first:])
    out = multiplicity(pd.DataFrame(rows, columns=COLUMNS))
    order = {c.id: i for name in (names or experiments.names()) for i, c in enumerate(claims_of(name))}
    out["_order"] = out["id"].map(order).fillna(len(order))
    out = out.sort_values(["post", "notebook", "_order", "scope", "protocol", "machine"], kind="stable")
    return out.drop(columns="_order").reset_index(drop=True)


CSV_COLUMNS = ["machine", "id", "primary", "scope", "protocol", "outcome", "now_value", "low", "high", "forks",
               "runs_agree", "runs_total", "unstable", "then_value", "p_value", "near", "fact", "bh", "notebook", "run",
               "basis", "code", "why"]


def csv_frame(claims: pd.DataFrame) -> pd.DataFrame:
    """`mechsym verdicts --format csv`: claim id, primary (the claim's one primary verdict; the others are its
    sub-rows), scope, protocol, outcome, now (median), its interval, forks, runs agreeing / runs stored, unstable,
    then, the decision's p-value, near its threshold, a fact (no interval), survives Benjamini-Hochberg, and what the
    verdict rests on (basis: one run, runs nested, forks added until decided)."""
    return claims[CSV_COLUMNS].rename(columns={"id": "claim", "now_value": "now", "then_value": "then",
                                               "runs_agree": "runs agreeing", "runs_total": "runs stored",
                                               "bh": "survives bh"})


# ---------------------------------------------------------------- the claim as the unit

DECISIVE = verdicts_mod.DECISIVE


def primaries(claims: pd.DataFrame) -> pd.DataFrame:
    """One row per claim and machine: its primary verdict (or its only row: not run yet, error)."""
    if claims.empty:
        return claims
    return claims[claims["primary"].fillna(False).astype(bool)]


def multiplicity(claims: pd.DataFrame, q: float = BH_Q) -> pd.DataFrame:
    """The rows with `bh` set on each decisive primary verdict that has a p-value: True when it survives
    Benjamini-Hochberg at false-discovery rate q among the decisive primary claims of its machine, else False.
    Facts (no chance involved), the lab's own readings (source "lab": never counted among the post's) and other rows
    keep None."""
    out = claims.copy()
    out["bh"] = out["bh"].astype(object)
    if out.empty:
        return out
    p = pd.to_numeric(out["p_value"], errors="coerce")
    pick = out["primary"].fillna(False).astype(bool) & out["outcome"].isin(DECISIVE) & p.notna() \
        & ~out["fact"].fillna(False).astype(bool)
    if "source" in out:
        pick &= out["source"].fillna("post").astype(str) != "lab"
    for _, idx in out[pick].groupby("machine").groups.items():
        keep = comparisons.benjamini_hochberg(p[idx].to_numpy(), q)
        for i, k in zip(idx, keep):
            out.at[i, "bh"] = bool(k)
    return out


def claim_counts(claims: pd.DataFrame) -> dict[str, int]:
    """{outcome: number of claims} over the primary rows (one per claim and machine), in the order of OUTCOMES."""
    prim = primaries(claims)
    n = prim["outcome"].value_counts().to_dict() if len(prim) else {}
    order = [*verdicts_mod.OUTCOMES, NOT_RUN, ERROR]
    return {o: int(n[o]) for o in order if n.get(o)}


def bh_line(claims: pd.DataFrame, q: float = BH_Q) -> str:
    """How many decisive primary claims survive Benjamini-Hochberg at q, and how many false decisions chance would
    give: at most q of the survivors (BH's guarantee), and, uncorrected, 5% of the judged claims if every one sat on
    its threshold (each decision is a 95% interval's)."""
    prim = primaries(claims)
    if prim.empty:
        return ""
    decisive = prim[prim["outcome"].isin(DECISIVE)]
    facts = int(decisive["fact"].fillna(False).astype(bool).sum())
    tested = decisive[decisive["bh"].notna()]
    survive = int(tested["bh"].astype(bool).sum())
    judged = int(prim["outcome"].isin([*DECISIVE, verdicts_mod.INCONCLUSIVE]).sum())
    text = (f"Multiplicity: {survive} of {len(tested)} decisive primary claims survive Benjamini-Hochberg at "
            f"q = {q:g} (at most ~{q * survive:.1f} of them false discoveries)")
    if facts:
        text += f"; {facts} more are facts (no chance involved)"
    if len(tested) > survive:
        text += f"; {len(tested) - survive} do not survive and are marked"
    return text + (f". Uncorrected, chance alone would decide about {0.05 * judged:.1f} of the {judged} judged "
                   "primary claims if every one sat on its threshold.")


def agreement(row) -> str:
    total = row.get("runs_total")
    if total is None or pd.isna(total) or not total:
        return ""
    text = f"{int(row['runs_agree'])} of {int(total)} runs"
    return text + " (unstable)" if row.get("unstable") else text


def claims_of(name: str) -> list:
    """An experiment's CLAIMS, or none when its module does not load."""
    try:
        return list(experiments.get(name).CLAIMS)
    except Exception:
        return []


def _one_line(e: Exception) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"[:300]
