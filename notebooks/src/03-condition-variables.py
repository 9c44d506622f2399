# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 03 · Locks & Condition Variables - Latency Impact (2011-11-05), re-run
#
# Martin Thompson, [*Locks & Condition Variables - Latency Impact*](http://mechanical-sympathy.blogspot.com/2011/11/locks-condition-variables-latency.html),
# Mechanical Sympathy blog, 5 November 2011 (copy in `shared/posts/2011-11-05-locks-condition-variables-latency-impact.md`).
#
# Two threads hand control back and forth 10 million times. Instead of the two volatile counters of
# *Inter Thread Latency* (2011-08-09, notebook **08**), they use one `ReentrantLock` and two `Condition`s: the
# sender sets `sendValue = i` and signals under the lock, then waits on the echo condition until `echoValue == i`;
# the echo thread does the mirror image. The post reports ns/op = duration / (2 x iterations), i.e. the one-way
# signal, on Windows 7 and Linux, pinned (`taskset -c 2,4`, `start /AFFINITY 0x14`) and unpinned.
#
# The claims under test, with the post's sentence each comes from and how its words are read here, are in the
# table below (rendered from the experiment's claims, so it cannot drift from what is judged).

# %% tags=["parameters"]
PRESET = "stored"   # "stored": render the committed results; "smoke" | "standard" | "full": run the sweep here now
MACHINE = None      # None: this machine (or the newest stored); a machine id; or "all"

# %%
from IPython.display import display

from mechsym.view import nb
from mechsym.style import plots
from mechsym.store import reference
from mechsym.judge import tables
from mechsym.experiments import signalling as exp

plots.style()
NB = "03-condition-variables"

# %%
nb.table(tables.claims_table(exp.CLAIMS, NB))

# %% [markdown]
# ## The answer
#
# The verdicts on the runs shown, one line a claim (▶ opens the post's words, the reading and every verdict row);
# each claim's estimate and interval against its threshold and the post's figure; the words the verdicts use. The
# evidence follows, in the order the post told it.

# %%
df = nb.results("signalling", PRESET, MACHINE)

# %%
nb.verdict_matrix(exp, df, NB)

# %%
nb.forest(exp, df, NB);

# %%
nb.legend()

# %% [markdown]
# ## CPU placements
#
# The CPU placements of the sweep, from the topology of the machine rendering this page. Each thread pins *itself* inside the kernel
# (`--pin=a,b`: the Java thread runs `taskset -p -c CPU` on its own Linux thread id); a process-level
# `taskset -c 0,1` on a 2-CPU machine would pin nothing. A placement the machine lacks is named, not faked:

# %%
nb.table(exp.placements_table())

# %% [markdown]
# ## The original results
#
# Oracle JDK 1.6.0, 10,000,000 exchanges, one run each ("a typical set of results ... in the middle of the range"),
# transcribed into `data/reference/2011-11-05-locks-condition-variables.csv`:

# %%
ref = reference.load(exp.REFERENCE)
nb.table(exp.reference_cv_table(ref))

# %%
exp.plot_reference_cv(ref);

# %% [markdown]
# ## Measured here
#
# The post's kernel (`mechsym.signalling.LockedSignalling`) and, in the same sweep, the volatile busy-spin ping-pong of
# the 2011-08-09 post (`mechsym.signalling.VolatilePingPong`), so that claim 1 compares two numbers measured side by
# side. Every cell runs in several fresh JVMs (forks), several measured runs in each after a warm-up run; both JDKs.
# The clock starts when both threads meet at a barrier. Beside them, the cells the post itself ran (pinned and
# unpinned) run again with the kernel's `post` protocol, the listing's structure: two fresh threads, timed from their
# start to their join, one cold run per JVM.

# %%
nb.whose(df, "signalling")

# %% [markdown]
# ### The machine and JDKs of the runs shown
#
# From the runs' own metadata (the machine that measured them, not necessarily the one rendering this page):

# %%
nb.table(nb.machine_table(df, "signalling"))

# %% [markdown]
# Median ns/op (one-way signal) per placement:

# %%
nb.table(exp.wide_table(df, ["locked", "volatile-spin", "volatile-yield"]))

# %%
exp.plot_ns_per_op(df, ["locked", "volatile-spin", "volatile-yield"],
                   ref_lines={"post, Linux Nehalem pinned: 2,023 ns": 2023, "post, Linux Nehalem unpinned: 8,489 ns": 8489,
                              "2011-08-09 volatile: 50 ns": 50},
                   title="Lock + conditions vs volatile ping-pong: ns per one-way signal");

# %% [markdown]
# Every dot is one measured run of the lab's harness; the bar is the median. A busy spin with both threads on **one** CPU only moves when
# the scheduler pre-empts the spinner, once per time slice: those runs are bounded by a deadline and report the
# exchanges they completed (milliseconds per op). The yielding variant gives the CPU up at once. The lock does not
# need either: a waiting thread sleeps in the kernel.

# %%
nb.table(exp.bounded_runs(df))

# %% [markdown]
# The post's Linux numbers beside this machine's:

# %%
nb.table(exp.comparison_cv(df, ref))

# %% [markdown]
# ### The post's protocol and the lab's
#
# The post ran its listing once per JVM: start the two threads, time the 10 million exchanges once, print, exit.
# Nothing was warmed up, and the threads were new. The lab's harness keeps its threads, runs a warm-up run and
# then several measured runs in each fresh JVM and takes their median. Each verdict below is judged both ways:
# *post* reads the first, cold run of each JVM (from the kernels' `post` protocol where the sweep ran it, else the
# first run of the lab's kernel), *lab* the median of the measured runs. One number per fork (fresh JVM) each, with
# the 95% interval over forks:

# %%
nb.table(exp.forks_table(df, ["locked", "volatile-spin"], placement=["cross-core", "unpinned"]))

# %%
exp.plot_sorted_runs(df, ["locked", "volatile-spin"]);

# %% [markdown]
# Where the two protocols give different outcomes (the same machine, the same sweep):

# %%
nb.table(exp.protocols_table(df, NB))

# %% [markdown]
# Where a row appears above, the machine and the exchanges are the same; only which run was timed differs (a
# fresh JVM's first, cold run, as the post timed it, or the median of warmed-up runs): the harness, not the
# machine, decided the verdict. The lock's microseconds are decided by the wake-up path, so its cold and warm runs
# agree within their spread; the volatile side's tens of nanoseconds move with where the two threads happened to
# land.
#
# ### Beyond the post: the tail
#
# The mean hides the distribution. Every 10th round trip of the lock kernel (every 1000th of the volatile one) is
# timed on its own; the percentiles below are medians over runs (max: the largest seen). A round trip is two
# one-way signals, so its median should be about 2 x ns/op.

# %%
nb.table(exp.percentiles(df, ["locked", "volatile-spin"]))

# %%
exp.plot_percentiles(df, ["locked", "volatile-spin"]);

# %% [markdown]
# The floor: what one timer call costs here (each sampled round trip includes about one):

# %%
nb.table(exp.timer_table(df))

# %% [markdown]
# Median, range and spread of every cell (the lab's measured runs; the first rows, every cell in the block below):

# %%
nb.collapsed(exp.summary(df), label="every cell")

# %% [markdown]
# ### Run to run
#
# One run is not the machine. Every stored run of the same preset on this machine, side by side, median ns/op per
# run (forks are interleaved round-robin within a run, so slow drift spreads over every cell; between runs an hour
# apart, a virtual machine's host may have moved or shared the vCPUs):

# %%
nb.table(exp.run_to_run(df, ["locked", "volatile-spin"]))

# %% [markdown]
# ## Is this the post's code?
#
# Each row compares a kernel with the post's own code on one machine, as a commit of the lab reported it
# (`data/fidelity/`; how a row is measured: `data/fidelity/README.md`). The lab's rule: a kernel's `post` protocol
# lands within 0.9-1.1x of the listing. *reading* flags a ratio outside that band, or bounds that reach outside it;
# *today's kernel* says whether the kernel's code is still the one measured.

# %%
from mechsym.fidelity import records as fidelity

fidelity.section(exp.NAME, ["mechsym.signalling.LockedSignalling"])

# %% [markdown]
# ## What does JMH say?
#
# The same headline cells measured by JMH (`jmh-src/mechsym/jmh/LockedPingPong.java`: the post's lock and two
# conditions as a ping/pong `@Group`; `PingPong.java`: the volatile ping-pong, busy spin and yield), a harness that
# guards against dead code, constant folding and missing warm-up by construction. The post's protocol, the lab's and
# JMH's side by side from the stored runs, with lab/JMH and its interval; where the two harnesses differ by more than
# 10% the table says why (data/jmh/explanations.csv), or says UNEXPLAINED.

# %%
from mechsym.jmh import ratios as jmh

jmh.section(exp.NAME, MACHINE)

# %% [markdown]
# ## Verdicts
#
# Per JDK, first under the post's protocol, then the lab's: the statistic per fork, its median over forks with a 95%
# bootstrap interval, and the forks' own numbers. *holds* or *does not hold* only when the whole interval is on one
# side of the threshold (see *read as* in the claims table); otherwise *inconclusive*. *runs agreeing*: how many
# complete stored runs of this machine give the same outcome (unstable: some hold, others do not; the runs are side
# by side above).

# %%
nb.verdict_table(exp, df, NB)

# %% [markdown]
# ## What changed since 2011
#
# - **"Three orders of magnitude" was never the posts' own ratio.** 2,023 ns/op against the 2011-08-09 post's 50 ns/op
#   is ~40x, 10^1.6; three orders would be 10^2.5 = 316x or more, which the post's own numbers fail. The claim is
#   read as "orders of magnitude" at all, at least 10x, so that the post's own figures pass it. Here both sides are
#   measured in one sweep, so the ratio is this machine's; on a virtual machine it comes out far larger than the
#   post's, because the lock's wake-up, not the volatile exchange, got slower.
# - **Virtual CPUs.** On a hypervisor a thread parked on the *other* vCPU is woken by an inter-processor interrupt
#   that the host must deliver, often to a vCPU that halted and left the physical CPU: a `signal()` across vCPUs can
#   cost tens of microseconds, far more than on the posts' bare-metal Nehalem. Where the tables above show `same-cpu`
#   far below `cross-core`, that is why: with both threads on one CPU the wake-up is a local context switch. An
#   unpinned pair gets the same only when the scheduler keeps it together (Linux's wake-affine placement puts a woken
#   thread near its waker); when it does not, `unpinned` lands beside `cross-core`, as it did in the runs reviewed
#   for issue 52 (27.68 against 27.90 µs). This is the post's scheduler point turned around: placement still
#   dominates, but which placement wins depends on what a wake-up costs, so claims 2 and 3 are about the 2011
#   hardware as much as about locks.
# - **The ratio to volatile signalling** is measured in the same sweep; the busy-spin side is sensitive to anything
#   else running on the machine (a spinning thread that loses its vCPU stalls the pair for a time slice), which is
#   why its spread is shown and its round-trip percentiles are kept.
# - **The JDK.** `ReentrantLock` and `Condition` are still built on `AbstractQueuedSynchronizer` and park with
#   `LockSupport.park` (a futex on Linux); JDK 17 and 25 share the AQS rewritten in JDK 14, whose first queued thread
#   spins briefly before it parks. JDK 1.6's AQS parked at once.
# - **Linux.** The scheduler is no longer the 2.6.38 CFS of Fedora 15; wake-affine placement tends to put a woken
#   thread next to its waker, which helps this ping-pong when the threads are unpinned.
#
# ## Recap
#
# What held and what did not, computed from the verdicts above (so it stays true when the page is re-run):

# %%
nb.recap(exp, df, NB)

# %% [markdown]
# The lesson: a lock + condition hand-off is decided by what a wake-up costs on the machine (a futex wake, and on a
# virtual machine an interrupt the host must deliver), not by the lock; compare it with volatile signalling measured
# side by side, not with a number from another machine, and read placement claims as claims about the hardware.
