"""reports/index.html: every rendered notebook, linked, with its verdict counts.

A plain, self-contained page (inline CSS, no scripts, nothing fetched): it
opens from a file manager, a web server or a copied folder alike. The counts
come from the same source as the notebooks' verdict tables, `mechsym
verdicts` and 00-overview: each experiment's verdicts() over the stored
results (mechsym.view.collect.collect).
"""

from __future__ import annotations

import html
import json
from datetime import datetime, timezone
from pathlib import Path

from .. import __version__, repo_root
from ..store import files as fsio, runs as store
from ..machine.identity import git_commit

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 2rem auto; max-width: 72rem;
       padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
p.sub { color: #555; margin-top: 0; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0 2rem; }
th, td { border-bottom: 1px solid #ddd; padding: 0.45rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f4f4f4; font-weight: 600; }
td.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.holds { color: #1b6e1b; } .fails { color: #a31515; } .inconclusive { color: #8a6d00; } .na { color: #666; }
.notrun { color: #999; }
.error { color: #b35900; font-weight: 600; }
.bar { display: flex; height: 0.7rem; width: 12rem; background: #f1f1f1; border-radius: 2px; overflow: hidden; }
.bar span { display: block; height: 100%; }
small { color: #666; }
"""
CLASSES = {"holds": "holds", "does not hold": "fails", "inconclusive": "inconclusive", "not measurable here": "na",
           "not run yet": "notrun", "error": "error"}


def _title(stem: str) -> str:
    """The notebook's first heading, else its file name."""
    nb = repo_root() / "notebooks" / f"{stem}.ipynb"
    try:
        for cell in json.loads(nb.read_text()).get("cells", []):
            if cell.get("cell_type") == "markdown":
                for line in "".join(cell.get("source", "")).splitlines():
                    if line.startswith("# "):
                        return line[2:].strip()
    except (OSError, json.JSONDecodeError):
        pass
    return stem


def stale_runs(claims) -> list[str]:
    """One line per run behind these verdicts that the checkout's kernels did not make: which run, of which
    experiment, and why (judge.runs.run_codes), e.g. 'stale: run R (locks) measured with older kernels (commit C);
    its verdicts stand under a banner and never vote until re-run (make refresh)'."""
    import pandas as pd

    from ..judge.runs import run_codes

    code = claims["code"].fillna("").astype(str)
    old = claims[(code != "") & (code != "current")]
    out = []
    for name, sub in old.groupby("experiment", sort=False):
        ids = sorted({r for x in sub["run"].astype(str) for r in x.split(",") if r})
        for run, state in run_codes(name, pd.DataFrame({"run_id": ids})).items():
            if state != "current":
                kind, _, why = state.partition(": ")
                out.append(f"{kind}: run {run} ({name}) {why}; its verdicts are shown under a banner and never vote "
                           "until it is re-run (make refresh)")
    return out


def write_index(out_dir, written, machine: str | None = None, preset: str | None = None,
                failed: dict[str, str] | None = None, with_code: bool = False) -> Path:
    """Write out_dir/index.html linking the HTML pages in `written`; returns its path.

    failed: notebook stem -> why it could not be rendered (listed, not linked)."""
    from .overview import COLOURS, STATUSES
    from .collect import ERROR, NOT_RUN, bh_line, collect, primaries

    out_dir = Path(out_dir)
    pages = [Path(p) for p in written if Path(p).suffix == ".html" and Path(p).name != "index.html"]
    stems = [p.stem for p in pages] + sorted(failed or {})
    try:
        claims = collect("all" if machine in (None, "") else machine, preset)
        problem = ""
    except Exception as e:  # the index still links the pages
        claims, problem = None, f"verdicts could not be collected: {html.escape(str(e))}"
    machines = list(dict.fromkeys(claims["machine"])) if claims is not None and len(claims) else []

    rows = []
    for stem in sorted(set(stems), key=lambda s: (not s.startswith("00-"), s)):
        page = next((p for p in pages if p.stem == stem), None)
        name = html.escape(_title(stem))
        cell = f'<a href="{html.escape(page.name)}">{name}</a>' if page else f"{name}"
        cell += f"<br><small>{html.escape(stem)}</small>"
        if claims is not None and "code" in claims and not stem.startswith("00-"):
            for line in stale_runs(claims[claims["notebook"] == stem]):
                cell += f'<br><span class="error">{html.escape(line)}</span>'
        if failed and stem in failed:
            cell += f'<br><span class="error">not rendered: {html.escape(failed[stem])}</span>'
        if claims is None:
            counts_cells = [f'<td colspan="{len(STATUSES) + 1}">{problem}</td>']
        else:
            mine = primaries(claims if stem.startswith("00-") else claims[claims["notebook"] == stem])
            counts_cells = []
            for s in STATUSES:
                n = int((mine["outcome"] == s).sum())
                counts_cells.append(f'<td class="n {CLASSES[s]}">{n if n else ""}</td>')
            bar = "".join(f'<span style="width:{100 * int((mine["outcome"] == s).sum()) / max(1, len(mine)):.1f}%;'
                          f'background:{COLOURS[s]}" title="{s}"></span>' for s in STATUSES)
            counts_cells.append(f'<td><div class="bar">{bar}</div></td>' if len(mine) else "<td><small>no claims</small></td>")
        rows.append(f"<tr><td>{cell}</td>{''.join(counts_cells)}</tr>")

    head = "".join(f'<th class="{CLASSES[s]}">{html.escape(s)}</th>' for s in STATUSES)
    if claims is not None and len(claims) and (claims["outcome"] == NOT_RUN).all():
        note = "No results stored yet: every claim is <em>not run yet</em>."
    elif claims is not None and (claims["outcome"] == ERROR).any():
        note = '<span class="error">Some verdicts failed to compute: see 00-overview.</span>'
    else:
        note = ""
    where = ", ".join(html.escape(m) for m in machines) or html.escape(store.machine_id())
    if claims is not None and len(claims) and "bh" in claims:
        note += " " + " ".join(html.escape(bh_line(claims[claims["machine"] == m])) for m in machines)
    stamp = datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    page = f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mechsym-lab reports</title>
<style>{STYLE}</style>
</head>
<body>
<h1>mechsym-lab: the Mechanical Sympathy experiments, re-run</h1>
<p class="sub">Each page re-runs one post and judges its claims on the machine that ran it.
Claims counted from stored results, each once by its primary verdict (the post's protocol in the post's scope; the
other scopes and the lab's harness are sub-rows on the pages) ({'preset ' + html.escape(preset) + ', ' if preset and preset != 'stored' else ''}machine{'s' if len(machines) > 1 else ''}: {where}).
{note}</p>
<table>
<thead><tr><th>notebook</th>{head}<th></th></tr></thead>
<tbody>
{chr(10).join(rows)}
</tbody>
</table>
<p><small>Built {stamp} by mechsym {__version__} (git {html.escape(git_commit()[:19])}).
Every page is self-contained: figures are embedded, nothing is fetched from the network.
{'The pages show the code of every cell.' if with_code else 'The pages leave the code out: <code>mechsym reports --with-code</code> (or <code>make reports WITH_CODE=1</code>) keeps it.'}</small></p>
</body>
</html>
"""
    path = out_dir / "index.html"
    fsio.replace_whole(path, page, "page")
    return path
