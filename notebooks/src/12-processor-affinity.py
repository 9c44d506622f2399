# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 12 · Processor Affinity - Part 1 (2011-07-19), re-run
#
# Martin Thompson, [*Processor Affinity - Part 1*](http://mechanical-sympathy.blogspot.com/2011/07/processor-affinity-part-1.html),
# Mechanical Sympathy blog, 19 July 2011 (copy in `shared/posts/2011-07-19-processor-affinity-part-1.md`).
#
# Two JVMs exchange IP multicast over a dummy interface: a sender (20 million messages) and a receiver, each
# printing the messages it handled every second. Run unpinned, then each JVM under `taskset` on its own CPU. The
# post charts one typical run (Figure 1, an image with no numbers in its text) and sums it up: unpinned, "a step
# function of unpredictable performance"; pinned, "consistent throughput with no step pattern and always the
# greatest throughput".
#
# Here (`mechsym.affinity.MulticastRate`) each pair runs in a network namespace of its own (`unshare -n`, as root):
# loopback with multicast on and a 224.0.0.0/4 route, group 239.255.17.1, TTL 0, so nothing leaves it. Where the
# machine cannot make such a namespace (not root, no `unshare` or `ip`) the cells say why and nothing is measured.
# UDP may drop: lost and reordered datagrams are counted and shown, not hidden.

# %% tags=["parameters"]
PRESET = "stored"   # "stored": render the committed results; "smoke" | "standard" | "full": run the sweep here now
MACHINE = None      # None: this machine (or the newest stored); a machine id; or "all"

# %%
from mechsym.view import nb
from mechsym.style import plots
from mechsym.store import reference
from mechsym.judge import tables, verdicts
from mechsym.experiments import affinity as exp

plots.style()
NB = exp.NOTEBOOK

# %%
nb.table(tables.claims_table(exp.CLAIMS, NB))

# %% [markdown]
# ## The answer
#
# The verdicts on the runs shown, one line a claim (▶ opens the post's words, the reading and every verdict row);
# each claim's estimate and interval against its threshold and the post's figure; the words the verdicts use. The
# evidence follows, in the order the post told it.

# %%
df = nb.results(exp.NAME, PRESET, MACHINE)

# %%
nb.verdict_matrix(exp, df, NB)

# %%
nb.forest(exp, df, NB);

# %%
nb.legend()

# %% [markdown]
# ## The original results
#
# Transcribed into `data/reference/2011-07-19-processor-affinity-part-1.csv`: the post's command lines; its one
# figure has no numbers in the text, so there is nothing to compare a number with, only the shape.

# %%
ref = reference.load(exp.REFERENCE)
nb.table(exp.reference_table(ref))

# %% [markdown]
# ## Measured here
#
# Each fork is one pair of fresh JVMs: the receiver starts and joins the group, then the sender sends; pinned,
# the receiver runs under `taskset -c` on one CPU and the sender on another core (the post's `taskset -c 2` and
# `taskset -c 4`); unpinned, the scheduler decides.

# %%
nb.whose(df, exp.NAME)

# %%
nb.table(nb.machine_table(df, exp.NAME))

# %%
nb.table(nb.unavailable(df))

# %% [markdown]
# The post's Figure 1, re-drawn from this machine's runs: messages received each second, every fork a line.

# %%
exp.plot_seconds(df);

# %% [markdown]
# One protocol, one verdict per claim: every full second of the receiver after the first (the first holds both
# JVMs' start-up and JIT compilation, in either placement, and is no second of the steady rate the post describes),
# one number per fork. (An earlier version read the same runs twice, with and without the first second, as a
# "post" and a "lab" protocol: one data set cannot give two independent verdicts.) Per placement: the receiver's
# median rate per fork, and how much a run's seconds spread around their mean (the post's "step function"):

# %%
nb.table(exp.rate_table(df))

# %% [markdown]
# Every second of every fork, as numbers:

# %%
nb.table(exp.seconds_table(df))

# %% [markdown]
# ### A step in a pinned run
#
# The run of 2026-11-22 (`20261122T173021Z-standard-ec7637`, the commit before this protocol) had a pinned pair,
# fork 0, that ran at ~214k messages/s for four seconds, then stepped down to ~165k for the last six: the post's
# "step function", pinned. Its seconds, sender beside receiver, from the stored run (on the machine that measured it;
# empty when that run is not stored):

# %%
step = exp.step_trace("20261122T173021Z-standard-ec7637", "cross-core", 0, MACHINE)
nb.table(step)

# %%
step.attrs.get("noise", "no noise record for this fork")

# %% [markdown]
# What the data say: the receiver took what the sender sent, second by second (within 1-2%), so the step is the
# sender's own send rate, not the receiver falling behind or dropping. The bench's noise record for the run's two
# fork-0 pairs (it does not name their placement) shows no other process using the CPUs (0.04-0.05 CPU s over 16 s)
# and no steal. Nothing else was recorded per second (not the JVMs' CPU time, nor softirq time, where loopback
# multicast delivery runs), so **the step is unexplained**: a pinned sender slowed by a quarter for six seconds
# with the machine otherwise quiet. Pinning, here, did not make every run steady.

# %% [markdown]
# ## Is this the post's code?
#
# Each row compares a kernel with the post's own code on one machine, as a commit of the lab reported it
# (`data/fidelity/`; how a row is measured: `data/fidelity/README.md`). The lab's rule: a kernel's `post` protocol
# lands within 0.9-1.1x of the listing. *reading* flags a ratio outside that band, or bounds that reach outside it;
# *today's kernel* says whether the kernel's code is still the one measured.

# %%
from mechsym.fidelity import records as fidelity

fidelity.section(exp.NAME)

# %% [markdown]
# Sent, received, lost and reordered datagrams, summed over forks. UDP on loopback drops when the receiver's
# socket buffer is full; a receiver that got nothing fails its run.

# %%
nb.table(exp.loss_table(df))

# %% [markdown]
# ## What does JMH say?
#
# JMH cannot express this post's cells: they are a multicast pair, two JVMs exchanging IP multicast, timed by the
# receiver; JMH measures threads inside one JVM.

# %% [markdown]
# ## Verdicts
#
# Pinned against unpinned, one number per fork (pair of JVMs) with a 95% bootstrap interval over forks: *holds*
# or *does not hold* only when the whole interval is on one side of the threshold (see *read as* above).
# "Always the greatest throughput" needs pinned ahead by the smallest effect that matters, 5%; an interval wholly
# below 1.05x does not hold.

# %%
nb.verdict_table(exp, df, NB)

# %% [markdown]
# ## What changed since 2011
#
# - **A namespace instead of a dummy interface.** `modprobe dummy` needs the host's kernel modules; a private
#   network namespace gives the same isolation (no physical network, no other traffic) and disappears with the
#   run.
# - **Two vCPUs.** The post pinned to CPUs 2 and 4 of a machine with more cores than the two JVMs' threads. Here
#   the machine has two vCPUs for two JVMs, their JIT and GC threads, and the kernel's softirq work for loopback:
#   pinned, each JVM has one CPU to itself and its helpers; unpinned, the scheduler moves everything across both.
#   A virtual machine's vCPUs are themselves scheduled by the host, which no `taskset` inside the guest controls.
# - **Schedulers.** Linux's CFS (2.6.23, 2007) was young in 2011; the EEVDF scheduler replaced it in 6.6 (2023).
#   Both try to keep a thread on the CPU whose caches it warmed; the post's point is that trying is not pinning.
#
# ## Recap

# %%
nb.recap(exp, df, NB)

# %% [markdown]
# The lesson is the verdicts above and no more: whether pinning each JVM to its own CPU bought 5% more throughput,
# or steadier seconds, on this two-vCPU guest is what they say; and a pinned run can step down by a quarter with
# nothing recorded to say why (the trace above). Read the forks' lines and their spread, not one run.
