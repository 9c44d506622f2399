# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 09 · Adventures with AtomicLong (2011-09-11), re-run
#
# Martin Thompson, [*Adventures with AtomicLong*](http://mechanical-sympathy.blogspot.com/2011/09/adventures-with-atomiclong.html),
# Mechanical Sympathy blog, 11 September 2011 (copy in `shared/posts/2011-09-11-adventures-with-atomiclong.md`), with
# the CAS remark of *Disruptor 2.0 Released* (2011-08-27).
#
# N threads increment one shared counter until it reaches 500 million. In 2011 `AtomicLong.incrementAndGet()` was a
# compare-and-swap loop (`LOCK CMPXCHG`): read, try to swap in value + 1, retry when another thread got there first.
# The post compared it, in Java and in C++ (GCC atomic builtins), with `LOCK XADD` (fetch-and-add: one instruction
# that cannot fail) and `LOCK ADD`, on Nehalem and Sandy Bridge, and found that XADD levels out with threads while
# CAS keeps degrading. Today's JDKs compile `incrementAndGet()` to XADD, the fix the post asked Oracle for; the
# post's CAS loop is kept here as a variant written out (`get()` + `compareAndSet()`), and `LongAdder` (JDK 8),
# which stripes the counter over cells, is shown beside them as today's answer to a contended counter.
#
# The post's two figures are images without numbers: nothing is transcribed from them. What the text says in numbers
# (XADD levels near 100 M ops/s on Nehalem and 20 M on Sandy Bridge at 3+ threads; CAS ~2-10x slower than XADD) is in
# the reference table below. The claims under test, with the sentence each comes from and how its words are read:

# %% tags=["parameters"]
PRESET = "stored"   # "stored": render the committed results; "smoke" | "standard" | "full": run the sweep here now
MACHINE = None      # None: this machine (or the newest stored); a machine id; or "all"

# %%
from mechsym.view import nb
from mechsym.style import plots
from mechsym.store import reference
from mechsym.judge import tables
from mechsym.experiments import atomiclong as exp

plots.style()
NB = "09-atomic-long"

# %%
nb.table(tables.claims_table(exp.CLAIMS, NB))

# %% [markdown]
# ## The answer
#
# The verdicts on the runs shown, one line a claim (▶ opens the post's words, the reading and every verdict row);
# each claim's estimate and interval against its threshold and the post's figure; the words the verdicts use. The
# evidence follows, in the order the post told it.

# %%
df = nb.results("atomiclong", PRESET, MACHINE)

# %%
nb.verdict_matrix(exp, df, NB)

# %%
nb.forest(exp, df, NB);

# %%
nb.legend()

# %% [markdown]
# ## The original results
#
# Transcribed into `data/reference/2011-09-11-adventures-with-atomiclong.csv`: every number the text gives, and a row
# for each figure saying that it is an image with none.

# %%
ref = reference.load(exp.REFERENCE)
nb.table(exp.reference_table(ref))

# %% [markdown]
# ## Measured here
#
# `mechsym.atomic.AtomicIncrement` (Java, JDK 17 and 25) and `build/c/atomic_counter` (C, `gcc -O2`: `lock xaddq`,
# `lock addq $1` and `lock cmpxchgq`, as `gcc -S` shows) take the same arguments and print the same CSV. Threads go
# from 1 to max(4, 2 x CPUs), unpinned as in the post. Each cell runs in several fresh processes (forks): the lab's
# harness starts the threads before the clock, runs a warm-up run and several measured runs; beside it, the variants
# the post ran are re-run with the kernels' `post` protocol, the listing's timing: one cold run per process, the
# threads' creation, start and join inside the clock. After every run the counter must equal the sum of the threads'
# own increment counts (else the fork stores no number). The post's 500 M increments are the `full` preset.

# %%
nb.whose(df, "atomiclong")

# %% [markdown]
# ### The machine and JDKs of the runs shown
#
# From the runs' own metadata. How many CPUs there are decides what can be judged: with more threads than CPUs the
# threads take turns (time-sliced) instead of contending for the counter's cache line at the same moment.

# %%
nb.table(nb.machine_table(df, "atomiclong"))

# %% [markdown]
# ### ns per increment against threads, one panel per primitive
#
# Java and C side by side in each panel: the lock-prefixed instructions cost what the hardware makes them cost, and
# the panels show whether a language adds anything. One dot per fork (the median of its measured runs), the bar the
# median over forks; the grey band marks thread counts above the machine's CPUs.

# %%
exp.plot_primitives(df);

# %% [markdown]
# The same as a table (median over forks of ns per increment, the lab's harness), shaped like the post's figures:

# %%
nb.table(exp.wide_table(df))

# %% [markdown]
# The post's comparisons as ratios: CAS over XADD (the post's figure 2), ADD over XADD in C ("similar"), and
# AtomicLong over LongAdder in Java (not in the post):

# %%
nb.table(exp.ratios(df))

# %% [markdown]
# XADD with every CPU incrementing, beside the levels the post names for 3+ concurrent threads (a 2-CPU virtual
# machine is not a 4-core desktop: compare orders of magnitude, not digits):

# %%
nb.table(exp.comparison(df, ref))

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
# ### The post's protocol and the lab's
#
# The listing ran once per JVM, cold, and timed the threads' creation and start with the increments. Each fork's
# number under both protocols, for the variants the post ran:

# %%
exp.plot_protocols(df);

# %%
nb.collapsed(exp.summary(df), label="every cell, both protocols")

# %% [markdown]
# ## What does JMH say?
#
# The same headline cells measured by JMH (`jmh-src/mechsym/jmh/AtomicLongIncrement.java`: every Java variant at two
# threads, XADD and the CAS loop at one), a harness that guards against dead code, constant folding and missing
# warm-up by construction. The post's protocol, the lab's and JMH's side by side from the stored runs, with lab/JMH
# and its interval; where the two harnesses differ by more than 10% the text below the table says so and what to
# check.

# %%
from mechsym.jmh import ratios as jmh

jmh.section(exp.NAME, MACHINE)

# %% [markdown]
# ## Verdicts
#
# Per runtime (each JDK, C) and thread count, under the post's protocol and then the lab's: the statistic per fork,
# its median over forks with a 95% bootstrap interval, and the forks' own numbers. *holds* or *does not hold* only
# when the whole interval is on one side of the threshold; otherwise *inconclusive*. The claims about 3 and more
# *concurrent* threads need at least 4 CPUs: below that they are *not measurable here*, with the reason.

# %%
nb.verdict_table(exp, df, NB)

# %% [markdown]
# ## What changed since 2011
#
# - **`incrementAndGet` is XADD now.** JDK 8 made `AtomicLong.getAndAdd`/`incrementAndGet` intrinsics that HotSpot
#   compiles to `LOCK XADD` on x86 (the "bug" the post says Oracle accepted); the CAS loop survives here only as the
#   `cas-loop` variant, written out as JDK 6/7 had it. `VarHandle.getAndAdd` (JDK 9) is the same instruction.
# - **`LongAdder` (JDK 8).** A counter that many threads increment but few read need not be one cache line: LongAdder
#   gives contending threads their own cells and sums them on read, so increments stop fighting over one line.
# - **The hardware.** The post's point was that Sandy Bridge made lock-prefixed instructions under contention several
#   times slower than Nehalem. Today's cores differ again, and a virtual machine's vCPUs may sit on one core complex
#   or on two: one contended cache-line hand-off can cost a few ns or a hundred. The same hand-off measured another
#   way is notebook 08's busy-spin ping-pong, in C with `__sync_add_and_fetch` and in Java with a volatile store,
#   per placement: there, pinned cross-core, the two primitives cost about the same per exchange, and only an
#   unpinned C pair (in one run) took several times longer, so where the two threads sit matters more than which
#   instruction hands the line over. The panels above show the counter's side of it.
# - **Few CPUs.** The post's "3+ threads" ran on 4-core desktops. On a 2-CPU machine three or four threads take turns:
#   the cost per increment there says how the scheduler and the lock-free loops interact, not how the cache
#   coherence protocol scales, and the claims about it are left *not measurable here* rather than judged on it.
#
# ## Recap
#
# What held and what did not, computed from the verdicts above (so it stays true when the page is re-run):

# %%
nb.recap(exp, df, NB)

# %% [markdown]
# The lessons: a fetch-and-add cannot fail, a CAS loop can, and under contention the retries are the difference the
# ratio table shows; the cure the post asked for shipped (XADD intrinsics), and the better cure for a hot counter is
# not to share one cache line (LongAdder). Read the panels per primitive, Java beside C, before reading any ratio.
