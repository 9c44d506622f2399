# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 06 · False Sharing (2011-07-30) and False Sharing && Java 7 (2011-08-13), re-run
#
# Martin Thompson, [*False Sharing*](http://mechanical-sympathy.blogspot.com/2011/07/false-sharing.html) and
# [*False Sharing && Java 7*](http://mechanical-sympathy.blogspot.com/2011/08/false-sharing-java-7.html),
# Mechanical Sympathy blog, 30 July and 13 August 2011 (copies in `shared/posts/`).
#
# N threads each write their own `volatile long` counter 500 million times. When the counters share a 64-byte
# cache line, each write takes the line away from the other cores: *false sharing*, "the silent performance killer".
# The first post pads each counter with six unused longs after the value and shows (Figure 2, an image without
# numbers) the unpadded runs slowing down as threads are added on a 4-core Nehalem while the padded ones scale
# near-linearly. Two weeks later the second post reports that Java 7 "eliminated or re-ordered the unused fields",
# and that an `AtomicLong` subclass whose padding is read (summed) is the reliable technique.
#
# The claims under test, each with the post's sentence and how its words are read here:

# %% tags=["parameters"]
PRESET = "stored"   # "stored": render the committed results; "smoke" | "standard" | "full": run the sweep here now
MACHINE = None      # None: this machine (or the newest stored); a machine id; or "all"

# %%
from IPython.display import Markdown, display

from mechsym.view import nb
from mechsym.style import plots
from mechsym.store import reference
from mechsym.judge import tables
from mechsym.experiments import falsesharing as exp

plots.style()
NB = "06-false-sharing"

# %%
nb.table(tables.claims_table(exp.CLAIMS, NB))

# %% [markdown]
# ## The answer
#
# The verdicts on the runs shown, one line a claim (▶ opens the post's words, the reading and every verdict row);
# each claim's estimate and interval against its threshold and the post's figure; the words the verdicts use. The
# evidence follows, in the order the post told it.

# %%
df = nb.results("falsesharing", PRESET, MACHINE)

# %%
nb.verdict_matrix(exp, df, NB)

# %%
nb.forest(exp, df, NB);

# %%
nb.legend()

# %% [markdown]
# ## The layouts
#
# Each counter layout is named by what it does. The first three are the posts' own listings; the others are the
# techniques that came later (padding by inheritance as JCTools does it, JDK 8's `@Contended`, one array with a
# line between counters). `@Contended` lives in a package `java.base` does not export, and javac refuses
# `--add-exports` with the Makefile's `--release 17`, so the kernel defines that one small class at run time from
# its bytes; HotSpot honours the annotation outside the JDK only with `-XX:-RestrictContended`.

# %%
nb.table(exp.layouts_table())

# %% [markdown]
# ## CPU placements
#
# Each thread pins itself to its own CPU (`taskset -p -c CPU` on its own thread id) before the clock starts. The
# posts ran unpinned; the post's protocol here runs unpinned too. From the topology of the machine rendering this
# page (placements it lacks are named):

# %%
nb.table(exp.placements_table())

# %% [markdown]
# ## The original results
#
# Neither post prints a number for its results: the first post's Figure 2 is an image, the second says only
# "similar performance results". What the text gives is transcribed in
# `data/reference/2011-07-30-false-sharing.csv` and `data/reference/2011-08-13-false-sharing-java-7.csv`:

# %%
nb.table(exp.reference_table(reference.load(exp.REFERENCE), reference.load(exp.REFERENCE_JAVA7)))

# %% [markdown]
# ## Measured here
#
# `mechsym.falsesharing.FalseSharing` runs the listing's loop (`long i = N + 1; while (0 != --i) longs[k].value = i;`)
# on N fresh threads, one layout per JVM; its `post` protocol is the listing's run once per JVM, cold and unpinned;
# its `lab` protocol repeats the run after a warm-up run with one thread per core. Every run checks each counter
# after the clock stops (a run that fails stores no number). `mechsym.falsesharing.CounterLayout` reads each layout
# with JOL in fresh JVMs. The post's 500 M writes per thread are the `full` preset.

# %%
nb.whose(df, "falsesharing")

# %% [markdown]
# ### The machine and JDKs of the runs shown

# %%
nb.table(nb.machine_table(df, "falsesharing"))

# %% [markdown]
# ### Does the JVM keep the padding?
#
# The second post's claim, read directly: JOL's field offsets of each layout on each JDK, and, for four counters
# allocated exactly as the kernel allocates them, the smallest distance between two threads' counters (median and
# range over fresh JVMs) and whether two of them landed in one 64-byte line:

# %%
nb.table(exp.layout_table(df))

# %%
exp.plot_layout_gaps(df);

# %% [markdown]
# The last-but-one column is a second way to share a line, in the listings themselves: each thread reads
# `longs[k]` (the array of references) on every write, and the array is allocated just before counter 0. Padding
# *after* the value, as both posts pad, leaves counter 0 free to sit in the array's line; padding before it
# (inheritance, `@Contended`) or no array at all (the strided `long[]`) cannot. Whether it happens depends on where
# the allocator puts the array in its 64-byte line: it differs from program to program and JVM to JVM (the first
# post: "we cannot be sure where the VolatileLongs will be laid out in memory").

# %% [markdown]
# The first post's `VolatileLong`, field by field (offsets in bytes, per JDK): the six unused longs are all there,
# after the value, in declaration order:

# %%
nb.table(exp.offsets(df, "padded-longs"))

# %% [markdown]
# ### Duration against threads
#
# The first post's Figure 2, re-drawn: each thread does the same number of writes, so a layout without false
# sharing keeps the duration flat as threads are added (linear scale-up), and one with false sharing climbs. This
# machine has the CPUs shown in the machine table; beyond them (shaded) threads are time-sliced and the duration
# grows for every layout, which says nothing about false sharing.

# %%
exp.plot_scaling(df);

# %% [markdown]
# Median duration per layout and thread count (the lab's harness, one thread per core), and N threads over one:

# %%
nb.table(exp.scaling_table(df))

# %% [markdown]
# The same with the post's protocol (one cold run per fresh JVM, unpinned), for the posts' three listings:

# %%
nb.table(exp.scaling_table(df, protocol="post"))

# %% [markdown]
# Writes per second over all threads (the lab's harness):

# %%
nb.table(exp.throughput_table(df))

# %% [markdown]
# ### Every fork at 2 threads, both protocols
#
# One number per fresh JVM: the post's protocol reads its one cold run, the lab's the median of its measured runs.
# The median over forks carries a 95% bootstrap interval:

# %%
nb.table(exp.forks_table(df))

# %% [markdown]
# ### Where the array lands: a finding of the lab's harness
#
# The padded layouts' times turn on the accident described under the layouts: whether counter 0 shares a line with
# the `longs` array that both threads read on every write. The posts' listings leave it to the allocator, and so
# does the post's protocol here (`--array-offset=as-allocated`): the post's claims are judged at the post's own
# placement. The lab's harness instead places the array at a random byte of its line in every run (a small filler
# allocated just before it, `--array-offset=random`), so its forks sample every placement alike. Every run records
# where the array landed; split by it (2 threads, both protocols):

# %%
nb.table(exp.array_line_table(df))

# %% [markdown]
# The same runs in sentences, each beside one thread's median under the same protocol (near 1x: the two threads'
# writes do not interfere; well above it: they do):

# %%
display(Markdown(exp.findings(df)))

# %% [markdown]
# ### Placements
#
# Two threads on each placement (the lab's harness). On one CPU the threads take turns on one core's cache, so no
# line moves between cores: false sharing needs two cores writing at once, and the ratio below shows whether it
# appears here:

# %%
nb.table(exp.placement_table(df))

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
# ### L1D misses
#
# Where `perf stat` can count L1D load misses, they are recorded per write beside the duration (the whole JVM is
# counted, start-up included). A virtual machine without a PMU cannot count them; those cells say so:

# %%
nb.table(exp.l1d_table(df))

# %% [markdown]
# ## What does JMH say?
#
# The same headline cells measured by JMH (`jmh-src/mechsym/jmh/FalseSharing.java`: every layout at two threads (a
# `@Group` of two writers, as `JMHSample_22_FalseSharing`), and the first post's two at one), a harness that guards
# against dead code, constant folding and missing warm-up by construction. The post's protocol, the lab's and JMH's
# side by side from the stored runs, with lab/JMH and its interval; where the two harnesses differ by more than 10%
# the text below the table says so and what to check.

# %%
from mechsym.jmh import ratios as jmh

jmh.section(exp.NAME, MACHINE)

# %% [markdown]
# ## Verdicts
#
# Per JDK, the timing claims first under the post's protocol (one cold run per JVM, unpinned), then the lab's
# (median of measured runs, one thread per core): the statistic per fork, its median over forks with a 95% bootstrap
# interval. *holds* or *does not hold* only when the whole interval is on one side of the threshold; otherwise
# *inconclusive*. The post's 4 threads on 4 cores cannot be reproduced on a machine with fewer CPUs: that scope is
# *not measurable here*, with the reason. The layout claim reads JOL, which has no protocol.

# %%
nb.verdict_table(exp, df, NB)

# %% [markdown]
# ## What changed since 2011
#
# - **Field layout.** HotSpot never drops unused fields; what it does is order them. Since JDK 15 (JDK-8237767) the
#   field layout fills gaps left by the header and by superclasses, but longs of one class still follow one another,
#   so the first post's six longs after the value stay where they were declared: JOL shows them on JDK 17 and 25.
#   What the padding does not give is protection *before* the value: a counter at offset 16 shares its line with
#   whatever the allocator put just before the object: the previous counter's padding, which nobody writes, or, for
#   counter 0, the `longs` array that every thread reads on every write.
# - **Compressed class pointers** (a 12-byte header on 64-bit JVMs, the default since JDK 6u23) and, in JDK 24+,
#   compact object headers (`-XX:+UseCompactObjectHeaders`, 8 bytes) move every offset: padding counted in fields
#   is only as good as the header under it.
# - **`@Contended`** (JDK 8, JEP 142) is the intrinsic the second post asked Oracle for: 128 bytes each side of the
#   field. It is reserved to the JDK unless `-XX:-RestrictContended` is given, and its package has not been exported
#   since JDK 9; libraries (JCTools, Agrona) pad by inheritance instead, which no field ordering can undo.
# - **The machine.** A 2-vCPU virtual machine runs at most two threads at once: the post's 3 and 4 threads on 4
#   cores cannot be reproduced here, and the host decides which physical cores back the two vCPUs (the machine
#   table says whether this one reports SMT siblings). Where a padded layout slows down from 1 to 2 threads, JOL
#   puts its counters a line or more apart, so the two counters do not share a line; the array-line finding above
#   splits those runs by the one line they can still share, counter 0 with the `longs` array every thread reads: the
#   runs with it off that line measure what is left once that accident is removed.
#
# ## Recap
#
# What held and what did not, computed from the verdicts above:

# %%
nb.recap(exp, df, NB)

# %% [markdown]
# The lessons: whether two counters share a line is a fact JOL can read, per JVM, before anything is timed; the
# first post's six longs are kept, after the value, by the JDKs measured here, so the second post's Java 7 scare is
# a question to check on each JVM rather than a rule; padding by inheritance, `@Contended` and a strided array
# separate the counters without relying on field order; and what the separation buys in time depends on the
# machine: read the forks and their intervals above, not one run.
