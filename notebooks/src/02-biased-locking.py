# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 02 · Biased Locking, OSR, and Benchmarking Fun (2011-11-22), re-run
#
# Martin Thompson, [*Biased Locking, OSR, and Benchmarking Fun*](http://mechanical-sympathy.blogspot.com/2011/11/biased-locking-osr-and-benchmarking-fun.html),
# Mechanical Sympathy blog, 22 November 2011 (copy in `shared/posts/2011-11-22-biased-locking-osr-and-benchmarking-fun.md`).
#
# Three days after *Java Lock Implementations* (notebook 01) concluded that biased locking costs ~10% un-contended,
# Dave Dice pointed out that HotSpot did not bias objects created in the first 4 s of a JVM's life, and Cliff Click
# that one long warm-up run gets on-stack-replaced (OSR) code. The post re-ran the test with **ten short warm-ups**
# and **`-XX:BiasedLockingStartupDelay=0`**, new threads for every run, and timed the one run after the warm-ups.
#
# **The claims under test**, from the lab's claim list (`mechsym.experiments.locks.CLAIMS`), with the post's numbers
# (from the weakest of its two tables, so the post's own data passes its own claim). One claim is the lab's reading:
# the post's "huge benefit" measured where the lock really stays biased (the same thread, no lock coarsening).

# %% tags=["parameters"]
PRESET = "stored"   # "stored": render the committed results; "smoke" | "standard" | "full": run the sweep here now
MACHINE = None      # None: this machine (or the newest stored); a machine id; or "all"

# %%
from mechsym.view import nb
from mechsym.style import plots
from mechsym.store import reference
from mechsym.judge import tables
from mechsym.judge.analysis import LAB, POST
from mechsym.experiments import locks as exp

plots.style()
NB = "02-biased-locking"

# %%
nb.table(tables.claims_table(exp.CLAIMS, NB))

# %% [markdown]
# ## The answer
#
# The verdicts on the runs shown, one line a claim (▶ opens the post's words, the reading and every verdict row);
# each claim's estimate and interval against its threshold and the post's figure; the words the verdicts use. The
# evidence follows, in the order the post told it.

# %%
df = nb.results("locks", PRESET, MACHINE)

# %%
nb.verdict_matrix(exp, df, NB)

# %%
nb.forest(exp, df, NB);

# %%
nb.legend()

# %% [markdown]
# ## The original results
#
# Both tables of the post, ops/s, transcribed in `data/reference/2011-11-22-biased-locking.csv`:

# %%
ref = reference.load(exp.REFERENCE_BIASED)
nb.table(exp.reference_table(ref))

# %%
exp.plot_reference(ref);

# %% [markdown]
# ## This machine: the second post's experiment (ten short warm-ups)
#
# Each fork (a fresh JVM) gives the first timed run after its ten short warm-ups, as the post timed it (**post
# protocol**); the medians over forks, in millions of ops/s:

# %%
nb.whose(df, "locks")

# %% [markdown]
# ### The machine and JDKs of the runs shown
#
# From the runs' own metadata (the machine that measured them, not necessarily the one rendering this page):

# %%
nb.table(nb.machine_table(df, "locks"))

# %%
nb.table(exp.scaling_table(df, "short", POST))

# %%
exp.plot_scaling(df, "short", ["monitor-thin", "monitor-biased", "monitor-default", "reentrant", "atomic", "stamped"], ref=ref);

# %% [markdown]
# ## Why the first post's conclusion was wrong, and what still hides the biased lock today
#
# One thread, the monitor variants, the harness changed one factor at a time:
#
# - **post's harness**: new threads for every run, the JIT's defaults (as both posts ran it);
# - **coarsening off**: `-XX:-EliminateLocks`, so C2 cannot take one lock for several unrolled loop iterations;
# - **same thread**: the same worker thread does every warm-up and measured run. On JDK 17 a lock biased to a thread
#   that has died is *revoked* when the next run's new thread takes it, not re-biased, so with the posts' harness only
#   the first run of each JVM can see a biased lock, and the post timed a run after ten others.
#
# `monitor-biased-delayed` is the first post's `+UseBiasedLocking` (JDK 6's 4 s start-up delay, the lock allocated at
# start-up); `monitor-biased` is the second post's (delay 0).

# %%
nb.table(exp.why_table(df, POST))

# %%
exp.plot_why(df);

# %% [markdown]
# ## One long warm-up or ten short ones (OSR)
#
# ops/s after ten short warm-ups divided by ops/s after one long one, per variant and thread count (1.0 = no
# difference), read both ways: the run each post timed (the first after the warm-up) and the lab's median of the
# runs in each JVM:

# %%
nb.table(exp.osr_table(df))

# %%
exp.plot_runs(df);

# %% [markdown]
# The two protocols disagree, and the difference is the lesson of the post's own title. Timed as the post timed it,
# the first run after one long warm-up most likely still executes the on-stack-replaced loop, and in the lab's stored
# runs every `synchronized` variant is then several times slower than after ten short warm-ups; `ReentrantLock` and `AtomicLong` are not affected. From the
# second run on the JIT has compiled the method normally and the two warm-ups give the same numbers, which is what a
# harness that takes the median of several runs sees. Avoiding OSR "does not make a material difference" only if one
# does not time the run right after the warm-up. The post's single long warm-up, for comparison:

# %%
exp.plot_scaling(df, "single", ["monitor-thin", "monitor-biased", "reentrant"]);

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
# ## What does JMH say?
#
# The same headline cells measured by JMH (`jmh-src/mechsym/jmh/Locks.java`: the biased, thin and default monitors at
# one thread (the flags on JMH's forks)), a harness that guards against dead code, constant folding and missing
# warm-up by construction. The post's protocol, the lab's and JMH's side by side from the stored runs, with lab/JMH
# and its interval; where the two harnesses differ by more than 10% the text below the table says so and what to
# check.

# %%
from mechsym.jmh import ratios as jmh

jmh.section(exp.NAME, MACHINE)

# %% [markdown]
# ## Verdicts
#
# Each claim judged per fork, with a 95% bootstrap interval over forks: *holds* or *does not hold* only when the whole
# interval is on one side of the threshold, else *inconclusive*. The post's protocol first, the lab's second.

# %%
nb.verdict_table(exp, df, NB)

# %% [markdown]
# ## What changed since 2011
#
# - **Biased locking is gone.** JDK 15 turned it off by default (JEP 374) because its revocation cost at safepoints
#   outweighed its gains for most modern code, and JDK 18 removed the flags; on JDK 25 the biased cells above read
#   "n/a". JDK 10 had already set `BiasedLockingStartupDelay` to 0, so the first post's trap no longer existed even
#   where biasing survived.
# - **Revocation on thread death.** JDK 17 revokes the bias of a lock whose owner thread has died rather than
#   re-biasing it: the posts' harness (new threads for every run) therefore measures a thin lock after the first run.
# - **Lock coarsening.** C2 merges the lock of consecutive unrolled iterations; with coarsening on, every un-contended
#   monitor variant measures about the same, and the bias makes no visible difference.
# - **OSR.** The first run after one long warm-up executes on-stack-replaced code in which the monitor is not
#   coarsened: it is the run both posts timed, and it is several times slower than every later run.
# - **The CPUs.** An un-contended CAS now costs roughly what the post's 10-20 cycles said; on a 2-vCPU virtual machine
#   the contended cells beyond 2 threads are time-sliced.
#
# ## Recap
#
# - With the post's harness on JDK 17 (new threads per run, coarsening on) biased and thin monitors measure the same:
#   the bias is revoked, or coarsened away. Where it survives (the same thread, coarsening off) it is, in the lab's
#   stored runs, still worth several times the thin lock (the table above gives the factor), and the 4 s start-up
#   delay still hides it from a lock allocated at start-up.
# - A biased lock + increment + unlock takes a few cycles at the run's recorded clock: within the post's "4-5 cycles"
#   on top of the critical section.
# - "Avoiding OSR makes no material difference" holds only for a harness that does not time the first run after the
#   warm-up; the post timed exactly that run.

# %% [markdown]
# Computed from this page's verdicts (so it stays true when the runs change):

# %%
nb.recap(exp, df, NB)
