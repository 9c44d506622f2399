# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 00 · Overview: every claim, then and now
#
# The Mechanical Sympathy posts (Martin Thompson, 2011; Nitsan Wakart, 2013) made claims about locks, signalling
# between threads, file I/O and queues on the hardware of their day. Each notebook of this lab re-runs one post and
# judges its claims: **holds**, **does not hold**, **inconclusive**, or **not measurable here** (with the reason).
# This page gathers every verdict in one table, grouped by post, with a link to the notebook that shows the evidence.
#
# How a verdict is made: a claim's statistic (a ratio, a latency, a share of runs) is computed per *fork*, a fresh
# JVM, which is the unit of replication; it carries a 95% bootstrap interval over the forks. A claim holds, or does
# not, only when the whole interval is on one side of the post's threshold (each threshold cites the post's sentence
# and states how its words are read); otherwise it is inconclusive, with a rough count of the forks that would
# likely decide it. Each claim is judged first the way its post measured it (*protocol* `post`: which run after
# which warm-up, the thread shape, the placement); where the lab's own harness answers differently, a second row
# (`lab`) shows it. *runs agreeing* counts the complete stored runs of the same machine that give the same outcome;
# a claim whose runs disagree is marked unstable.
#
# It runs nothing itself: it renders what is stored under `data/results/` (whatever `PRESET` says; with
# `make reports PRESET=standard` it is rendered last and shows the runs the other notebooks just made). The same
# verdicts come out of `mechsym verdicts` on a terminal. The posts' point was comparing hardware: with another
# machine's results imported (`mechsym bundle` there, `mechsym import ARCHIVE` here), the machines are compared side
# by side.

# %% tags=["parameters"]
PRESET = "stored"   # this notebook runs nothing: "stored" shows the most thorough stored runs; another preset prefers its runs
MACHINE = None      # None or "all": every stored machine side by side; a machine id: that machine only

# %%
from IPython.display import Markdown, display

from mechsym.view import nb, overview
from mechsym.style import plots

plots.style()

# %% [markdown]
# ## The answer
#
# Every claim's primary verdict (the post's protocol in the post's scope), one line a claim, one column per machine
# with stored results; then each claim's estimate against its threshold and the post's figure; then the words the
# verdicts use. Every verdict row, by notebook, is folded further down.

# %%
claims = overview.collect(MACHINE or "all", PRESET)
display(Markdown(overview.status_line(claims)))

# %%
overview.machines_claims(claims)

# %% [markdown]
# Then and now: per claim, today's estimate and its 95% interval (dot and whisker) divided by the claim's threshold,
# so that 1 is the threshold on every row (a grey band where the rule is a range); the open diamond is the post's own
# figure on the same scale. Colour is the verdict. A claim can hold far from the post's figure (it only asked for
# "at least 2x") or fail close to it.

# %%
overview.forest(claims);

# %%
nb.legend()

# %% [markdown]
# ## This machine
#
# The machine this page was rendered on (CPU, cores, sockets, SMT, kernel, and the JDKs the bench found):

# %%
nb.table(nb.this_machine())

# %% [markdown]
# What this machine can measure (`mechsym calibrate`; a short form opens every standard run): timer steps, the
# floors of a CAS, a cache-line round trip and a wake-up, and how many per-JVM regimes one small kernel shows,
# each with its spread, beside what the posts say of their machines. A claim that needs more than this machine has
# is "not measurable here", with the requirement and the value measured here.

# %%
nb.calibration_table()

# %% [markdown]
# Every machine with stored results (an imported machine appears here with the hardware its runs recorded):

# %%
nb.table(overview.machines_table())

# %% [markdown]
# ## Verdicts
#
# Verdicts per notebook (and per machine when several are stored): green holds, red does not hold, yellow
# inconclusive, grey not measurable here, light grey not run yet.

# %%
overview.plot_counts(claims);

# %% [markdown]
# ### Every claim, grouped by post
#
# *then*: the post's own figure; *now*: this bench's statistic on the machine named, as median [95% interval], forks
# (a claim checked per JDK, runtime or CPU placement has one row per scope, *where*, and per protocol). Each line
# opens to its notebook's verdict rows; the notebook link leads to the tables and plots behind each verdict.

# %%
overview.table(claims)

# %% [markdown]
# ### Then vs now, in numbers
#
# The ratios per experiment (within 2x: now / then between 0.5x and 2x); every claim's ratio in the collapsed
# block below the summary.

# %%
nb.collapsed(overview.ratio_table(claims), overview.ratio_summary(claims), label="every claim's ratio")

# %% [markdown]
# Claims without a post's figure in the forest plot above, and why (then and now must be the same quantity):

# %%
nb.folded(overview.left_out(claims), "claims without a then-vs-now figure, and why")

# %% [markdown]
# ## What does JMH say?
#
# Every headline cell with a stored JMH run (`mechsym run EXPERIMENT --protocol jmh --preset standard`): the lab's
# harness over JMH's, as lab/JMH with its 95% interval over forks. *comparable*: the whole interval within 0.9-1.1;
# *differ*: wholly outside, and the experiment's notebook lists what to check; *inconclusive*: neither.

# %%
from mechsym.jmh import ratios as jmh

nb.folded(jmh.overview(MACHINE), "lab/JMH per headline cell")

# %% [markdown]
# ## What changed since the posts
#
# The notebooks each end with what changed for their post. In short: biased locking is gone from the JDK (removed
# in JDK 18), the JIT coarsens and elides locks it can prove uncontended, and the CPUs have more cores, different
# cache-coherence costs and often run under a hypervisor with a few virtual CPUs; a 2-vCPU VM cannot show a
# cross-socket effect at all, which is why some claims are *not measurable here* until results from a bigger
# machine are imported.
#
# ## Recap
# Computed from the stored verdicts, so it stays true when results change: how many claims hold, do not hold or stay
# inconclusive per machine, and how far today's numbers are from the posts'. What to take away: the verdict, not the
# ratio, says whether a claim holds (a claim can hold far from 1x, or fail near it); an *inconclusive* verdict means
# the forks' interval straddles the threshold (more forks may decide it), not that the claim failed. Each notebook's
# own recap says which claims did what.

# %%
display(Markdown(overview.status_line(claims)))
nb.table(overview.ratio_summary(claims))

# %% [markdown]
# ## Environment

# %%
nb.table(nb.machine_table())
