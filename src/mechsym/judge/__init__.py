"""Judging one experiment's claims from its rows: statistics over forks, estimates with intervals, modes of bimodal
cells, claims, rules and verdicts, the runs a verdict rests on, and `--until-decided` (decide, plan).

Imports mechsym.run, mechsym.store, mechsym.style and mechsym.machine below it."""
