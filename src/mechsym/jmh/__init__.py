"""JMH as a second opinion, as the verdicts and pages use it: which JMH cells pair with which lab cells (views), a
claim's JMH sub-rows (claims) and the "What does JMH say?" sections (ratios). Running JMH forks is mechsym.run.jmh.

Above mechsym.experiments (its claims name experiments' cells), independent of mechsym.fidelity."""
