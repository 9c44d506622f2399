# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 01 · Java Lock Implementations (2011-11-19), re-run
#
# Martin Thompson, [*Java Lock Implementations*](http://mechanical-sympathy.blogspot.com/2011/11/java-lock-implementations.html),
# Mechanical Sympathy blog, 19 November 2011 (copy in `shared/posts/2011-11-19-java-lock-implementations.md`).
#
# N threads increment one shared counter inside a lock, 500 million increments in all, on Oracle JDK 1.6.0_29:
# a JVM monitor (`synchronized`) with `-XX:-UseBiasedLocking` (CAS, "atomic" locking) and with `-XX:+UseBiasedLocking`,
# against `ReentrantLock`. One warm-up run as large as the measured one, new threads for every run, and the one run
# after the warm-up timed.
#
# **The claims under test**, from the lab's claim list (`mechsym.experiments.locks.CLAIMS`): the post's sentence, how
# it is read, and the post's own figure. The first post's figures are images without numbers; where a claim needs
# numbers they come from the second post's tables (the same harness with ten short warm-ups), and from each the
# weakest of its two CPUs, so the post's own data passes its own claim. Four days later the author retracted the first
# claim (notebook **02-biased-locking**): the lock he measured was never biased.

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
NB = "01-lock-implementations"

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
# The first post gives its results as three figures without numbers; what its text states, transcribed into
# `data/reference/2011-11-19-java-lock-implementations.csv`:

# %%
nb.table(reference.load(exp.REFERENCE)[["table", "column", "metric", "value", "unit", "note"]])

# %% [markdown]
# The same harness with the second post's warm-up gave these tables (`data/reference/2011-11-22-biased-locking.csv`);
# apart from the biased 1-thread cell, the shape is what the first post's figures showed:

# %%
ref = reference.load(exp.REFERENCE_BIASED)
nb.table(exp.reference_table(ref))

# %%
exp.plot_reference(ref);

# %% [markdown]
# ## This machine: the first post's experiment
#
# The first post's harness: a single warm-up run as large as the measured run, new threads for every run. Variants, by
# the JVM flags they get: `monitor-thin` (`-XX:-UseBiasedLocking`), `monitor-biased-delayed`
# (`-XX:+UseBiasedLocking` with JDK 6's default 4 s start-up delay, i.e. the first post's `+UseBiasedLocking`),
# `monitor-biased` (delay 0), `monitor-default` (this JDK's defaults), `reentrant`, and, not in the post, `atomic`
# (`AtomicLong`, no lock) and `stamped` (`StampedLock`). Several fresh JVMs (forks) per cell and several measured runs
# in each; the post timed only the first run after the warm-up, so that is the number each fork gives below
# (**post protocol**), unless a table says **lab protocol** (the median of the fork's measured runs).

# %%
nb.whose(df, "locks")

# %% [markdown]
# ### The machine and JDKs of the runs shown
#
# From the runs' own metadata (the machine that measured them, not necessarily the one rendering this page):

# %%
nb.table(nb.machine_table(df, "locks"))

# %%
nb.table(exp.scaling_table(df, "single", POST))

# %%
exp.plot_scaling(df, "single", ["monitor-thin", "monitor-biased-delayed", "monitor-default", "reentrant", "atomic"], ref=ref);

# %% [markdown]
# Every dot is one fork (a fresh JVM): its first timed run after the warm-up; the line joins the medians. Dashed
# lines: the post's Nehalem numbers (2011-11-22 table), for scale. Cells a JDK cannot run (biased locking was removed
# in JDK 18) are named in the panel title, not drawn as zeros:

# %%
nb.table(exp.unavailable(df))

# %% [markdown]
# ## Which run the post timed
#
# The post timed one run: the first after its single long warm-up. Here each JVM goes on to time more runs, and on
# today's JDKs the first one is different: in the lab's stored runs every `synchronized` variant runs slower in the
# first run than from the second run on (by how much depends on the JDK and the variant: 1.58x for monitor-default on
# JDK 25; the table below), while `ReentrantLock`, `AtomicLong` and `StampedLock` do not change.
# The first run's speed is what the monitors give with lock coarsening turned off (notebook 02), so the code it runs
# most likely does not coarsen the lock: the loop compiled on the stack during the long warm-up (OSR), which the
# first measured run enters again; from the second run on, the normally compiled method takes the lock once for
# several unrolled iterations. One thread, the post's harness:

# %%
exp.plot_runs(df);

# %%
nb.table(exp.protocol_table(df))

# %% [markdown]
# So the same forks answer the first post's questions two ways. In the lab's stored runs, under the post's protocol
# (the first run) the monitors are slow at one thread, yet `ReentrantLock` does not come out ahead of them at 3
# threads (the table above: 60.2M ops/s against 92.1M for monitor-thin and 178.6M for monitor-default); under the
# lab's (the median of the runs) the coarsened monitors beat `ReentrantLock` at every thread count. Both rows are in
# the verdict table: how far the monitors lead depends on which compiled code the timed run happens to execute,
# not only on the locks. The lab's medians, for comparison:

# %%
nb.table(exp.scaling_table(df, "single", LAB))

# %% [markdown]
# Median, quartiles and range of every measured run of every cell, in millions of ops/s (n = forks x runs); one
# thread shown, every thread count in the collapsed block:

# %%
summary = exp.summary(df, policy="single")
nb.collapsed(summary, summary[summary["threads"].astype(str) == "1"], label="every thread count")

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
# The same headline cells measured by JMH (`jmh-src/mechsym/jmh/Locks.java`: the uncontended and two-thread increments
# of every lock), a harness that guards against dead code, constant folding and missing warm-up by construction. The
# post's protocol, the lab's and JMH's side by side from the stored runs, with lab/JMH and its interval; where the two
# harnesses differ by more than 10% the text below the table says so and what to check.

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
# - **The JDK.** Biased locking was disabled by default in JDK 15, deprecated with it, and removed in JDK 18: on
#   JDK 25 only the default monitor exists. `synchronized` on a modern HotSpot is the thin (CAS) lock of claim 1, and
#   contended monitors spin adaptively before parking.
# - **The JIT.** C2 *coarsens* locks: the `synchronized` block of an unrolled loop is taken once for several
#   iterations (`-XX:+EliminateLocks`, on by default). One thread through a monitor then measures mostly the loop,
#   which is why an un-contended monitor can beat `ReentrantLock` and even `AtomicLong`; notebook 02 turns
#   coarsening off to see the lock itself. Under contention the same coarsening lets one thread keep the monitor for
#   a long burst of iterations while the others wait, so a "contended" monitor can run nearly as fast as an
#   un-contended one. On-stack-replaced code, which the post's one timed run after one long warm-up executes, does not
#   get that treatment: hence the two protocols' different answers above.
# - **The atomic instruction.** An uncontended `lock xadd` (`AtomicLong.incrementAndGet`) costs about what the post
#   said of Nehalem, 10-20 cycles, loop included, at the CPU clock recorded with the run.
# - **The hardware.** The posts ran on 4-8 core Nehalem, Westmere and Sandy Bridge machines, one Fedora 15 box each.
#   The machine above may have 2 vCPUs under a hypervisor: at 3+ threads, the threads then time-slice on the CPUs, so
#   "contention" there is partly the scheduler's.
# - **The harness.** Here the clock starts when all threads wait at the barrier (the post timed thread creation too),
#   each JVM does several measured runs and the counter is checked after each.
#
# ## Recap
#
# - Biased locking's "10% cost" was the first post's artefact (notebook 02); in the lab's stored runs the first post's
#   two monitors measure close to each other on JDK 17 (the verdict table gives the difference and its interval), and
#   JDK 18+ has no biased locking at all.
# - Whether `ReentrantLock` beats `synchronized` depends on which run is timed: the post's single timed run after one
#   long warm-up executes code in which the monitor is slow; later runs coarsen the monitor, and in the lab's stored
#   runs it then wins at every thread count (the lab-protocol table above gives the margins).
# - An atomic increment costs the 10-20 cycles the post gave for Nehalem and later, at the clock recorded with the run.

# %% [markdown]
# Computed from this page's verdicts (so it stays true when the runs change):

# %%
nb.recap(exp, df, NB)
