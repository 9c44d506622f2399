# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 07 · Write Combining (2011-07-15), re-run
#
# Martin Thompson, [*Write Combining*](http://mechanical-sympathy.blogspot.com/2011/07/write-combining.html),
# Mechanical Sympathy blog, 15 July 2011 (copy in `shared/posts/2011-07-15-write-combining.md`).
#
# A store that misses the L1 cache waits for its cache line; meanwhile the CPU parks the written bytes in a
# cache-line-sized *write-combining* buffer, and later stores to the same line join them there. There are only a
# few such buffers ("on an Intel CPU you are only guaranteed to get 4"), so, says the post, a loop should not write
# to more than four distinct places at once. Its listing writes one byte into each of six 16 MB arrays per
# iteration, `Integer.MAX_VALUE` times (*SingleLoop*), against the same writes as two loops of three arrays each
# (*SplitLoop*), three times in one JVM; on a Core i7 860 the split loops took 7.3-9.0 s and the single loop 14 s.
#
# This page re-runs the listing's main on this machine in Java and in C (the C loops compiled by `gcc -O2`, so that
# the JIT and the hardware can be told apart), and then does what the post did not: writes N = 1..12 arrays in one
# loop, to find where this CPU stops keeping up with a loop's streams of writes. The claims under test, with the
# sentence each comes from and how its words are read:

# %% tags=["parameters"]
PRESET = "stored"   # "stored": render the committed results; "smoke" | "standard" | "full": run the sweep here now
MACHINE = None      # None: this machine (or the newest stored); a machine id; or "all"

# %%
from mechsym.view import nb
from mechsym.style import plots
from mechsym.store import reference
from mechsym.judge import tables
from mechsym.experiments import writecombining as exp

plots.style()
NB = "07-write-combining"

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
# The listing's output, transcribed into `data/reference/2011-07-15-write-combining.csv`; ns per store divides a
# duration by its 6 x (2^31 - 2) byte stores (the loop `while (--i != 0)` runs `ITERATIONS - 1` times):

# %%
ref = reference.load(exp.REFERENCE)
nb.table(exp.reference_table(ref))

# %%
exp.plot_reference(ref);

# %% [markdown]
# ## Measured here
#
# `mechsym.writecombining.WriteCombining` (Java) and `build/c/writecombining` (C) write the listing's loop with K
# stores in its body, `K = 1..12`, one method per K so that every loop body is straight-line code as in the
# listing (in Java on `static final` arrays, as the listing's, so that C2 drops the range checks), and check after
# every timed run that each array holds what the last iteration wrote. The *listing* cells run the listing's main
# (`--protocol=post`): SingleLoop then SplitLoop, three times per JVM, no warm-up, on every JDK and in C. The sweep
# cells (`--protocol=lab`) write N arrays in one loop (and, at six, the listing's two loops of 3), one configuration
# per fresh JVM, a warm-up run, then measured runs. The `full` preset uses the post's 2^31 iterations; `standard`
# uses 2^29 per loop for the listing and 2^26 for the sweep (every array is still written four times around).

# %%
nb.whose(df, exp.NAME)

# %% [markdown]
# ### The machine and JDKs of the runs shown

# %%
nb.table(nb.machine_table(df, exp.NAME))

# %% [markdown]
# ### The listing, then and now
#
# ns per store of each case (per fork: its first repetition, the code the post's own run measured; the median over
# forks), and SingleLoop / SplitLoop with its 95% interval over forks:

# %%
nb.table(exp.listing_table(df, ref))

# %%
exp.plot_listing(df, ref);

# %% [markdown]
# Every repetition apart, median over forks. The first runs while the JIT compiles the loops (the post's run did
# too); where a later repetition steps away from it, the JIT has recompiled a loop (the lab saw SplitLoop step up
# in its third repetition on JDK 17): that recompiled shape is a finding of this JDK, shown here and not judged.
# The arrays are read back in full only after the last repetition, so no repetition starts from the cache state a
# 96 MB check left behind:

# %%
nb.table(exp.repetitions(df))

# %% [markdown]
# ### Which code each repetition ran
#
# The verdicts read each JVM's first repetition, the code the post's own run measured: the loops start interpreted
# and are entered mid-loop through OSR compilations, C1 then C2. One more fork of the listing per JDK (variant
# `listing-jit`, never judged) logs every compilation and invalidation of the kernel's methods
# (`-Xlog:jit+compilation=debug`, the unified-logging form of `-XX:+PrintCompilation`), and the kernel records the
# JVM's uptime just before and just after each timed run (outside its clock), so each event lands in the repetition
# it happened in. Bands: the timed runs, labelled with their repetition and ns per store. Marks: where the JIT starts
# compiling `loop6` (SingleLoop) or `splitLoop` (SplitLoop): filled, the whole method, entered at its next call;
# hollow, an OSR entry at a loop's bytecode index (`@2` the first loop, `@41` SplitLoop's second); a cross where
# compiled code is made not entrant. Colour: C1 or C2. A compilation is logged as it starts and installed some
# milliseconds later.

# %%
exp.plot_jit_timeline(df);

# %% [markdown]
# Per timed run of that fork: its ns per store, the compilations of its loop started before it and still entrant
# (what a call could enter), and the events during it. A repetition that enters a whole-method C2 compilation
# started during the one before runs a recompiled shape, not the code of the first repetition: where its time steps
# away from the first, that step is a labelled finding of this JDK's JIT, not a verdict on the post (the verdicts
# below read the first repetition). Every event of the two loops is in the block below the table.

# %%
nb.collapsed(exp.jit_events_table(df), exp.jit_runs_table(df), label="every compilation event of loop6 and splitLoop")

# %% [markdown]
# ### Beyond the post: how many arrays can one loop write?
#
# One loop of N arrays, N = 1..12, each array written the same number of times. A loop of 3 is the yardstick: it is
# what the listing's SplitLoop runs twice. Where this CPU runs out of buffers (or of prefetch streams) for the lines
# a loop is filling, its cost per store rises above a loop of 3's; the lower panels show that ratio against the
# claims' threshold, and the SplitLoop at six arrays sits beside the one loop of six.

# %%
exp.plot_sweep(df);

# %%
nb.table(exp.sweep_table(df))

# %% [markdown]
# ### The post's protocol and the lab's
#
# SingleLoop / SplitLoop at six arrays, one number per fork: *post* reads the listing's main (a JVM's first
# repetition, cold); *lab* reads the sweep's six-array cells, one loop and loops of 3 in
# separate JVMs, the median of each JVM's warmed-up runs:

# %%
nb.table(exp.forks_table(df))

# %% [markdown]
# The post never ran the sweep; its reading of it here is the first, cold run of each JVM (how the listing's first
# repetition ran), beside the lab's median of the warmed-up runs (one loop of N over one loop of 3, per store):

# %%
nb.table(exp.protocols_table(df))

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
# Median, range and spread of every cell (measured runs; the first rows, every cell in the block below):

# %%
nb.collapsed(exp.summary(df), label="every cell")

# %% [markdown]
# ## What does JMH say?
#
# The same headline cells measured by JMH (`jmh-src/mechsym/jmh/WriteCombining.java`: six arrays in one loop and in
# two loops of three), a harness that guards against dead code, constant folding and missing warm-up by construction.
# The post's protocol, the lab's and JMH's side by side from the stored runs, with lab/JMH and its interval; where the
# two harnesses differ by more than 10% the text below the table says so and what to check.

# %%
from mechsym.jmh import ratios as jmh

jmh.section(exp.NAME, MACHINE)

# %% [markdown]
# ## Verdicts
#
# Per runtime (each JDK, C), first under the post's protocol, then the lab's: the statistic per fork, its median over
# forks with a 95% bootstrap interval. *holds* or *does not hold* only when the whole interval is on one side of the
# threshold (see *read as* in the claims table); otherwise *inconclusive*. The knee (`four-buffers`) is a whole number
# of arrays, not a quantity with an interval: each round of forks (fork i of every sweep cell) gives its own knee,
# the verdict shows the modal knee, its share of the rounds and every round's, and decides only when at least 80% of
# the rounds put it on one side of the 4-6 band.

# %%
nb.verdict_table(exp, df, NB)

# %% [markdown]
# ## What changed since 2011
#
# - **More buffers.** The post's Nehalem (Core i7 860) had 10 line fill buffers per core, shared by loads and stores
#   that miss the L1; "4 guaranteed" echoes older Intel optimisation advice. Later Intel cores have more (12 on
#   Skylake), and AMD's Zen cores, like the EPYC this lab runs on, track their L1 misses in buffers of their own. The
#   N at which one loop stops keeping up, in the sweep above, is this CPU's answer, not a constant.
# - **Stronger prefetchers.** Each array is written as one descending stream of bytes; the L2 streamer tracks many
#   such streams and fetches their lines ahead of the stores, so how many streams a loop can have in flight is as
#   much the prefetcher's limit as the buffers'.
# - **The JIT against C.** The Java loops are the listing's, on `static final` arrays and mask, so C2 proves every
#   index in bounds and drops the range checks (with the arrays passed as arguments it kept one per store, and the
#   loops ran twice as slow here: these loops are limited by instructions as much as by memory). Like gcc, C2
#   neither vectorises nor fuses the loops (the index `i & mask` is not an affine induction). Where Java and C agree
#   in the sweep, the hardware decides; where they differ, the generated code does.
# - **A shared machine.** A virtual machine's vCPU shares its core's L2 and the socket's L3 and memory bandwidth with
#   other guests: every point is a distribution over forks, not one run.
#
# ## Recap
#
# What held and what did not, computed from the verdicts above (so it stays true when the page is re-run):

# %%
nb.recap(exp, df, NB)

# %% [markdown]
# The lessons: the split loops do the same stores plus a second loop's overhead, so whatever they win is the memory
# system's doing, and whatever they lose is that overhead; read the listing's ratio with its interval over fresh
# JVMs, and read the sweep for where this CPU stops keeping up with one loop's streams, which is a property of the
# core (its buffers and prefetchers), not a rule of four.
