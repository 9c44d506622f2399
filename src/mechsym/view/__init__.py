"""What pages show: every experiment's verdicts gathered and cached (collect, cache), what a notebook cell calls
(nb), the overview, the reports' index and the HTML reports, and what the lab writes when a notebook is saved
(lab).

Below mechsym.cli only."""
