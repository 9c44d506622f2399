# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 10 · Single Writer Principle (2011-09-22) and Memory Barriers/Fences (2011-07-24), re-run
#
# Martin Thompson, [*Single Writer Principle*](http://mechanical-sympathy.blogspot.com/2011/09/single-writer-principle.html)
# and [*Memory Barriers/Fences*](http://mechanical-sympathy.blogspot.com/2011/07/memory-barriersfences.html),
# Mechanical Sympathy blog (copies in `shared/posts/`).
#
# The single-writer post argues that contention, not the instructions that manage it, limits scalability, and backs
# it with one table: a 64-bit counter incremented 500 million times on a 2.4 GHz Westmere, by one thread (300 ms),
# with a memory barrier, with CAS, with a lock, and by two threads contending through CAS or a lock (118,000 ms).
# The memory-barriers post explains what a store barrier (`sfence`), a load barrier (`lfence`) and a full barrier
# (`mfence`) do and that they "have a significant performance cost", without numbers: here they are measured.
#
# Neither post prints its code. The kernels write each row from its name (the Java kernel's class comment says
# how); the post's protocol here is the simplest program for the table, one cold timed run per fresh JVM. This
# machine has two vCPUs: the post's two threads fit, each pinned to its own CPU.
#
# The claims, with the sentence each comes from and how its words are read here:

# %% tags=["parameters"]
PRESET = "stored"   # "stored": render the committed results; "smoke" | "standard" | "full": run the sweep here now
MACHINE = None      # None: this machine (or the newest stored); a machine id; or "all"

# %%
from mechsym.view import nb
from mechsym.style import plots
from mechsym.store import reference
from mechsym.judge import tables
from mechsym.experiments import singlewriter as exp

plots.style()
NB = "10-single-writer"

# %%
nb.table(tables.claims_table(exp.CLAIMS, NB))

# %% [markdown]
# ## The answer
#
# The verdicts on the runs shown, one line a claim (▶ opens the post's words, the reading and every verdict row);
# each claim's estimate and interval against its threshold and the post's figure; the words the verdicts use. The
# evidence follows, in the order the post told it.

# %%
df = nb.results("singlewriter", PRESET, MACHINE)

# %%
nb.verdict_matrix(exp, df, NB)

# %%
nb.forest(exp, df, NB);

# %%
nb.legend()

# %% [markdown]
# ## The original results
#
# Transcribed into `data/reference/2011-09-22-single-writer-principle.csv`, with ns per increment (ms x 10^6 /
# 500 M) and each row's ratio to one thread. The memory-barriers post gives no numbers (its one figure is a
# diagram of a CPU's buffers and caches).

# %%
ref = reference.load(exp.REFERENCE)
nb.table(exp.reference_table(ref))

# %% [markdown]
# ## Measured here
#
# `mechsym.singlewriter.CounterCost` (Java, JDK 17 and 25) and `build/c/single_writer` (C, `gcc -O2`) run the same
# methods with the same arguments: `plain` (one thread), `barrier` (a `volatile long` in Java; a sequentially
# consistent store in C), `cas` (a compare-and-set loop), `lock` (`ReentrantLock`; a pthread mutex in C), with one
# thread or two. Each cell runs several fresh JVMs (forks); the lab's harness times several runs in each after a
# warm-up run, the post's protocol one cold run. The standard preset counts fewer increments than the post where
# 500 M would take seconds (lab: 10-100 M, 2 M with two threads; post protocol: the post's 500 M for one thread plain,
# 10 M for the others, since a cold run pays the JIT's warm-up once and a short one shows it); ms below are
# extrapolated to the post's 500 M from ns per increment; the `full` preset runs the post's 500 M everywhere.

# %%
nb.whose(df, "singlewriter")

# %% [markdown]
# ### The machine and JDKs of the runs shown

# %%
nb.table(nb.machine_table(df, "singlewriter"))

# %% [markdown]
# The cells this machine could not run (two threads need two cores), named rather than faked:

# %%
nb.table(nb.unavailable(df))

# %% [markdown]
# ### The table, then and now
#
# The post's ms beside this machine's (lab harness: the median over forks of each fork's median run), and each
# row's ratio to one thread:

# %%
nb.table(exp.comparison(df, ref))

# %% [markdown]
# The same under the post's protocol (one cold run per fresh JVM: the JIT compiles the loop while it runs):

# %%
nb.table(exp.comparison(df, ref, protocol="post"))

# %%
exp.plot_table(df, ref);

# %% [markdown]
# Dots are forks, bars medians, diamonds the post's numbers; the scale is logarithmic because the rows span three
# orders of magnitude. Every fork of every row under both protocols, with the median's 95% interval:

# %%
nb.table(exp.forks_table(df))

# %% [markdown]
# ### Why two threads with CAS are fast in some forks and slow in others
#
# Pinned or not, the two-thread CAS cell splits into fast and slow forks (lab harness, stored run of 2026-11-26:
# JDK 17 10.3-16.5 ns, C 10.3-20.5 ns per increment). A fork whose threads never met would cost a one-thread CAS (~5 ns) and count no failed CAS;
# a failure count above 0 says the two threads were at the counter at once. What else differs between the fast and
# the slow forks is how often the counter's cache line moves: the kernel
# counts each thread's failed CAS attempts (the other thread took the line between the read and the CAS), in a
# local beside the locked instruction, summed after the run. Where the line moves on nearly every increment, a fork
# is slow; where one core keeps it for runs of increments (the other waiting for it), fast. Below, every fork with
# its failures per increment and the rank correlation of the two (AtomicLong's notebook shows the same for its CAS
# loop). C counts no failures; its two modes are the same two regimes. The contention claims judge all forks, so
# a cell whose forks fall in two clusters is "inconclusive: bimodal", not averaged.

# %%
nb.table(exp.cas_forks_table(df))

# %% [markdown]
# ### Is "one thread" an increment? The folding check
#
# A loop that only increments a field is what a JIT loves to delete: C2 keeps the field in a register, stores it
# once after the loop, and replaces the loop by its result; gcc -O2 does the same with a plain global. That is
# `plain-foldable`, shown as a lesson, not a measurement. `plain` stores the counter after every increment with
# `VarHandle.setOpaque` (a plain `mov` on x86, but one the JIT may neither drop nor sink out of the loop: the job
# JMH's Blackhole does) and, in C, to a `volatile` global. Both run at 1x and 10x the increments: a loop that
# really increments takes 10x as long, a folded one does not.

# %%
nb.table(exp.folding_table(df))

# %% [markdown]
# ### The memory-barriers post: stores and fences
#
# One thread, one store per increment, then the fence named (Java: `VarHandle.releaseFence` / `acquireFence` /
# `fullFence`; C: the `sfence` / `lfence` / `mfence` instructions themselves). A release store (`setRelease`,
# `AtomicLong.lazySet`) is a plain `mov` on x86; gcc 12 makes a sequentially consistent store an `xchg`.

# %%
nb.table(exp.fences_table(df))

# %% [markdown]
# **Why is Java's full fence cheaper than its volatile store, when both are the same instruction?** For both, C2
# emits `lock addl $0x0,-0x40(%rsp)` (`MacroAssembler::membar(StoreLoad)`; the bytes `f0 83 44 24 c0 00`). JDK 17
# without the hsdis library still prints each compiled method's machine code as hex under
# `-XX:+UnlockDiagnosticVMOptions -XX:+PrintAssembly`; those bytes, decoded with
# `objdump -D -b binary -m i386:x86-64`, show what the two loops are (JDK 17.0.15 on the lab's machine):
#
# - `barrier` (`volatileValue++`): C2 unrolls the loop 8 times and keeps a `lock addl` after every one of the 8
#   stores, since the next increment loads the field again.
# - `fence-full` (the counter in a register, `setOpaque`, then `fullFence`): C2 unrolls the loop 4 times and emits
#   the 4 stores, then **one** `lock addl`: with no load between two stores, a StoreLoad barrier that another
#   follows orders nothing, and C2's matcher drops it (`Matcher::post_store_load_barrier`).
#
# So the full-fence row costs a quarter of a locked instruction per store, plus the store: in the table above,
# (volatile store's ns - a plain store's) / 4 + a plain store's is what it shows. The row measures what C2 makes of
# "a full fence after each store" in a loop, not the cost of one fence per store; the volatile row (and C's `xchg`,
# one locked instruction per store with no load in its loop) is that cost. C's `mfence` is a different instruction,
# slower than a locked one on this CPU.


# %%
exp.plot_fences(df);

# %% [markdown]
# ## Is this the post's code?
#
# Each row compares a kernel with the post's own code on one machine, as a commit of the lab reported it
# (`data/fidelity/`; how a row is measured: `data/fidelity/README.md`). The lab's rule: a kernel's `post` protocol
# lands within 0.9-1.1x of the listing. *reading* flags a ratio outside that band, or bounds that reach outside it;
# *today's kernel* says whether the kernel's code is still the one measured.
#
# The post prints no code: the kernel's `post` protocol was compared with the simplest program for its table,
# written outside the repository.

# %%
from mechsym.fidelity import records as fidelity

fidelity.section(exp.NAME)

# %% [markdown]
# Every cell: median ns per increment over the measured runs, range and spread (the first rows; every cell in the
# block):

# %%
nb.collapsed(exp.summary(df), label="every cell")

# %% [markdown]
# ## What does JMH say?
#
# The same headline cells measured by JMH (`jmh-src/mechsym/jmh/SingleWriter.java`: the post's table (plain, barrier,
# CAS, lock; CAS and lock at two threads) and the release store), a harness that guards against dead code, constant
# folding and missing warm-up by construction. The post's protocol, the lab's and JMH's side by side from the stored
# runs, with lab/JMH and its interval; where the two harnesses differ by more than 10% the text below the table says
# so and what to check.

# %%
from mechsym.jmh import ratios as jmh

jmh.section(exp.NAME, MACHINE)

# %% [markdown]
# ## Verdicts
#
# Per runtime (each JDK, C), the table's claims first under the post's protocol, then the lab's: the statistic per
# fork, its median over forks with a 95% bootstrap interval. *holds* or *does not hold* only when the whole
# interval is on one side of the threshold; otherwise *inconclusive*.

# %%
nb.verdict_table(exp, df, NB)

# %% [markdown]
# ## What changed since 2011
#
# - **Locked instructions got cheaper, uncontended.** The post's CAS cost ~27 cycles at 2.4 GHz (11.4 ns) and a
#   memory barrier ~22; on a current core a `lock cmpxchg` or `lock addl` on a line the core owns costs ~20 cycles
#   or less, so the one-thread rows moved closer to each other: the table's narrowest step (CAS over barrier,
#   1.21x in 2011) is the one a modern CPU may not show.
# - **Contention did not get cheaper, in cycles.** The post's "~100+ cycles" for a contended CAS is, in its own
#   table, 173 cycles per increment a thread makes (36 ns x 2 threads at 2.4 GHz); the claim
#   `contended-cas-cycles` counts the same here, at the clock recorded with the run. A contended lock, though, costs
#   a few volatile increments here (`lock-contention-orders`), not the post's 25.
# - **Where the line goes decides.** With two writers the cache line moves between cores on every increment;
#   on a virtual machine the two vCPUs may sit on different core complexes, and the hypervisor adds its own
#   stalls. The post's two locking threads park and wake each other (`LockSupport.park`: a futex, the kernel
#   arbitrating); here they mostly do not: the locked increments cost 21.6-24.9 ns each in the stored runs, far
#   below one park and wake-up (microseconds), so nearly every acquisition succeeds without waiting.
# - **The JIT folds the naive loop.** Today's C2 turns a plain `counter++` loop into its result: a one-thread
#   number from such a loop measures nothing (`plain-foldable`). The post's 300 ms (0.6 ns, ~1.4 cycles per
#   increment) is a loop that really ran.
# - **Java has names for the orderings now.** `VarHandle` (JDK 9) gives `setRelease` (the post's era: `lazySet`),
#   `setOpaque`, and explicit fences; on x86 only the full fence and the volatile store cost a locked instruction.
# - **Two vCPUs are enough for the post's two threads**, pinned each to its own CPU; a one-CPU machine names the
#   two-thread rows unavailable.
#
# ## Recap
#
# What held and what did not, computed from the verdicts above (so it stays true when the page is re-run):

# %%
nb.recap(exp, df, NB)

# %% [markdown]
# The lessons: a second writer, not the instruction, is what makes a counter expensive, which is the single writer
# principle; a barrier costs a locked instruction, an ordered store costs nothing extra on x86; and a benchmark of
# "one thread" must keep the compiler from computing the answer in closed form.
