# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 14 · 135 million messages a second between processes (2013-04-07), re-run
#
# Nitsan Wakart, *135 Million messages a second between processes in pure Java* ([April 2013 archive](http://psy-lob-saw.blogspot.com/2013/04/)),
# Psychosomatic, Lobotomy, Saw, 7 April 2013 (the second post in
# `shared/posts/2013-07-01-java-ping-buffet-and-2013-04-07-135m-messages-ipc.md`).
#
# The post takes Martin Thompson's single-producer single-consumer queue ("capable of delivering an amazing 130M
# messages per second" between two threads) off the heap: ints written straight into a memory-mapped file, the four
# counters (head, tail cache, tail, head cache) each aligned and alone on its cache line, read and written with
# `sun.misc.Unsafe` at raw addresses. Two processes that map the same file then share the queue. The post reports
# 135M messages/s between two processes on the same core (98M across cores, 25M across sockets), and, in one
# process, the off-heap queue well ahead of the in-heap one (220M against 130M across cores). It warns that
# unaligned counters are slow and not atomic.
#
# The kernel (`mechsym.ipc.IpcThroughput`, see its class comment) is written anew from the post's description; the
# post's own code is public ([nitsanw/QueueEvolution](https://github.com/nitsanw/QueueEvolution): the off-heap
# P1C1 queues and their perf tests) and is run beside the kernel in "Is this the post's code?" below, once measured;
# no fidelity figure is claimed before then. The original goes through `Queue<Integer>`; the kernel offers and
# polls ints. The claims under test, with the sentence each comes from and how its words are read:

# %% tags=["parameters"]
PRESET = "stored"   # "stored": render the committed results; "smoke" | "standard" | "full": run the sweep here now
MACHINE = None      # None: this machine (or the newest stored); a machine id; or "all"

# %%
from mechsym.view import nb
from mechsym.style import plots
from mechsym.store import reference
from mechsym.judge import tables
from mechsym.experiments import ipcqueue as exp

plots.style()
NB = "14-ipc-queue"

# %%
nb.table(tables.claims_table(exp.CLAIMS, NB))

# %% [markdown]
# ## The answer
#
# The verdicts on the runs shown, one line a claim (▶ opens the post's words, the reading and every verdict row);
# each claim's estimate and interval against its threshold and the post's figure; the words the verdicts use. The
# evidence follows, in the order the post told it.

# %%
df = nb.results("ipcqueue", PRESET, MACHINE)

# %%
nb.verdict_matrix(exp, df, NB)

# %%
nb.forest(exp, df, NB);

# %%
nb.legend()

# %% [markdown]
# ## What runs
#
# Four variants. The IPC kernel creates the queue file in a scratch directory under `$MECHSYM_SCRATCH`, maps it,
# and consumes; a second JVM (same `java`, same JVM options) maps the same file and produces. The file is deleted as
# soon as both have mapped it (a mapping outlives its name), so a killed run leaves nothing behind; the bench removes
# the run's scratch directory whatever happens. The producer sends 0, 1, 2, ... as ints; the consumer compares
# every int with the one the sequence puts there, OR-ing the bits that differ into one word (one instruction per
# message, no branch) that is checked after the timed region, so a lost, repeated, reordered or torn message fails
# the run and no number is kept (the post's own test compared each value in the loop). Each side busy-spins when the queue is full or empty, as the
# post's IPC test does (its `Thread.yield()` calls are commented out). The in-heap baseline is the lab's own copy of Martin Thompson's queue
# (`mechsym.spsc`, queue O1, notebook 05), run by its own kernel, which **yields** (`Thread.yield()`) when full or
# empty while the IPC variants spin: the comparisons against it mix the two waits, and the post's note 3 says the
# wait matters (`processes-yield`, the IPC queue with `--wait=yield`, measures how much). Under the post protocol the
# in-heap queue also runs 20 runs per JVM and its best is kept, so both sides of a ratio are best-of-20.
#
# JVM options: the post's `-XX:+UseCondCardMark -XX:CompileThreshold=100000`, passed as the post did. Under tiered
# compilation (the default since JDK 8) `-XX:CompileThreshold` does nothing: the flag is inert here, and it was
# probably inert for the post too unless its JVM ran with tiered compilation off.
#
# Sizes: the post protocol uses a capacity of 1 << 16 ints, as QueueEvolution did at the post's date (0ede180,
# 2013-03-26; the lab's harness keeps 32K from the earlier cc36e06); `full` sends the post's 50M messages a run,
# `standard` 10M. Not run here: the post's primitive in-heap queue (`P1C1QueueOriginalPrimitive`, its evidence
# that inlining, not going off heap, is the gain: 220M cross core, as fast as off heap), because the lab has no
# kernel for it, and its note 5 (queue size matters), because the sweep runs one capacity per protocol.

# %%
nb.table(exp.variants_table())

# %% [markdown]
# Each thread pins itself to one CPU (`taskset -p` on its own thread id). The post's "same core" was most likely two
# hardware threads of one core (the post does not say; its same-core figure beating cross core fits SMT siblings); a machine without SMT siblings cannot run it, and says so:

# %%
nb.table(exp.placements_table())

# %% [markdown]
# ## The original results
#
# Transcribed into `data/reference/2013-07-01-java-ping-buffet-and-2013-04-07-135m-messages-ipc.csv`. The post ran
# each configuration several times and quoted its best ("I got a variety of results ... I chose the best for the
# above summary"); its machine is not named.

# %%
ref = reference.load(exp.REFERENCE)
nb.table(exp.reference_table(ref))

# %% [markdown]
# ## Measured here

# %%
nb.whose(df, "ipcqueue")

# %% [markdown]
# ### The machine and JDK of the runs shown

# %%
nb.table(nb.machine_table(df, "ipcqueue"))

# %% [markdown]
# Every fresh JVM is one dot: under the post's protocol its best run (the kernel's `post` protocol: every run
# measured, none warmed up), under the lab's the median of its measured runs after two warm-up runs. Black bars are
# medians, red crosses the post's figure for the same variant and placement. The y axis is logarithmic.

# %%
exp.plot_throughput(df, ref);

# %% [markdown]
# The same, as numbers: the median over forks with its 95% bootstrap interval, and the range of the forks:

# %%
nb.table(exp.comparison(df, ref))

# %% [markdown]
# The ratios the claims judge (medians of the lab's forks; the verdicts below give their intervals):

# %%
nb.table(exp.ratios(df))

# %% [markdown]
# ### Alignment
#
# Each kernel checks, in both JVMs, that every counter sits where the layout puts it (address mod 64), and records
# it. The aligned layout is the post's: each counter 24 bytes into a line of its own (its drawing's "head....", its
# code's `CACHE_LINE_SIZE / 2 - 8`). The unaligned layout puts each counter 60 bytes into a 128-byte slot of its
# own: the 8-byte counter straddles two cache lines that no other counter uses, so what is measured is the
# straddle, not false sharing.

# %%
nb.table(exp.alignment_table(df))

# %% [markdown]
# ## Is this the post's code?
#
# Each row compares a kernel with the post's own code on one machine, as a commit of the lab reported it
# (`data/fidelity/`; how a row is measured: `data/fidelity/README.md`). The lab's rule: a kernel's `post` protocol
# lands within 0.9-1.1x of the listing. *reading* flags a ratio outside that band, or bounds that reach outside it;
# *today's kernel* says whether the kernel's code is still the one measured.
#
# The post's own code is QueueEvolution at 0ede180 (2013-03-26, the post's date): `IpcPerfTest p` and `IpcPerfTest c`,
# two JVMs sharing a `P1C1OffHeapQueue` in a memory-mapped file, capacity 1 << 16 and 50 M messages a run (the
# post's sizes; the standard preset's come from the later commit cc36e06), its producer printing ops/sec per run.
# `python -m mechsym.fidelity.originals build` copies it out of its git tree into a scratch directory outside the repository
# and compiles it with javac 17; `mechsym fidelity-run` runs it beside the kernel's post protocol at the same sizes,
# in alternating sets of fresh processes, and compares the median run. The original goes through `Queue<Integer>`
# (a boxed `Integer` per message, one cached instance); the kernel uses an int API.

# %%
from mechsym.fidelity import records as fidelity

fidelity.section(exp.NAME)

# %% [markdown]
# The post also says unaligned access "is not atomic". That is true of a counter that straddles two cache lines on
# x86, but this queue cannot show it: a torn read of a 64-bit counter split 4 + 4 bytes across two lines differs from
# a real value only when the upper half changes, once every 2^32 messages, and a run carries far fewer. The claim is
# therefore judged on speed only.
#
# Every cell's measured runs:

# %%
nb.collapsed(exp.summary(df))

# %% [markdown]
# ## What does JMH say?
#
# JMH cannot express this post's cells: the queue lives in a memory-mapped file between two processes, and JMH
# measures threads inside one JVM.

# %% [markdown]
# ## Verdicts
#
# Each claim under the post's protocol (best run per JVM) and the lab's (median of measured runs per JVM): the
# statistic per fork, its median over forks with a 95% bootstrap interval. *holds* or *does not hold* only when the
# whole interval is on one side of the threshold; otherwise *inconclusive*. *runs agreeing*: how many complete
# stored runs of this machine give the same outcome.

# %%
nb.verdict_table(exp, df, NB)

# %% [markdown]
# ## What changed since 2013
#
# - **Where the data lives, still.** The post's explanation of its in-process result, "data in-lining": the off-heap
#   queue hands over the int itself, the in-heap queue a reference to an object elsewhere, so the consumer takes a
#   second cache miss per message. Nothing in the JDK since has changed that for an `Object[]` queue (Valhalla's
#   value classes are not in JDK 17 or 25).
# - **`sun.misc.Unsafe` is on its way out.** The kernel uses it as the post did; JDK 23+ warns when its memory
#   methods are used (JEP 471) and later releases will remove them. The supported route today is the Foreign
#   Function & Memory API (`MemorySegment` over a mapped file, final in JDK 22) or `VarHandle`s on a
#   `MappedByteBuffer`, which refuse atomic access to a misaligned address outright instead of tearing.
# - **A virtual machine's two vCPUs.** "Cross core" here names two guest CPUs; the host decides which physical cores
#   back them, and whether they share an L3. The post's "same core", where the 135M was measured, most likely meant
#   SMT siblings (an assumption: the post does not name its machine); a 2-vCPU VM usually exposes none, so the
#   same-core claims (135M, IPC against in-heap, spin against yield) are not measurable here. IPC against in-heap
#   is judged same core on purpose: across cores the post's own figures (98M against 130M, 0.75x) would fail it.
# - **Spinning on two vCPUs.** The IPC loops busy-spin, as the post's IPC test did; with only two CPUs, a spinning
#   producer and consumer leave nothing for anyone else, and when the scheduler puts them on one CPU (the unpinned
#   cells) each waits for the other's time slice. The in-heap kernel yields instead (its own post's harness).
#
# ## Recap
#
# What held and what did not, computed from the verdicts above:

# %%
nb.recap(exp, df, NB)

# %% [markdown]
# What to take away, whatever the outcomes above: the protocol between the two sides of this queue is only loads
# and stores on shared cache lines, so the process boundary need not cost anything by itself once the counters are aligned
# and kept apart (compare processes with threads); the post's in-process gain came from inlining the data (ints, not
# references: compare threads with in-heap); and the post's figures are best runs, a ceiling, so read the forks'
# spread beside them.
