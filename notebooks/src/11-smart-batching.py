# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 11 · Smart Batching (2011-10-19), re-run
#
# Martin Thompson, [*Smart Batching*](http://mechanical-sympathy.blogspot.com/2011/10/smart-batching.html),
# Mechanical Sympathy blog (copy in `shared/posts/`).
#
# "How often have we all heard that batching will increase latency?" The post's answer: not when the batch is
# whatever has queued up while the device was busy. Producers hand their messages to a queue; one batcher thread
# waits until something is there, drains the queue into a buffer the size of a packet, and writes it; while it
# writes, the next burst queues up. Its worked example, a burst of 10 messages and a device that takes 100 µs per
# synchronous write, is a thought experiment: serial writers queue on a lock (average 500 µs, worst 1,000 µs,
# 10 packets), the batcher sends the burst in one or two packets (150 µs, 200 µs). It adds that with batching
# "latency stays constant until the underlying device is saturated", a bathtub instead of a J-curve.
#
# Here the device is simulated (a timed wait of 100 µs per write, whatever the CPU) and the example is run: bursts
# of 1, 5 and 10 messages from as many producer threads, serial (a `ReentrantLock` around the device) against
# the post's `NetworkBatcher` loop on a `ConcurrentLinkedQueue`, then a load sweep. This machine has 2 vCPUs: a
# burst of 10 producers outnumbers them five to one, which the numbers below show.
#
# The claims, with the sentence each comes from and how its words are read here:

# %% tags=["parameters"]
PRESET = "stored"   # "stored": render the committed results; "smoke" | "standard" | "full": run the sweep here now
MACHINE = None      # None: this machine (or the newest stored); a machine id; or "all"

# %%
from mechsym import nb, plots, reference, verdicts
from mechsym.experiments import batching as exp

plots.style()
NB = "11-smart-batching"

# %%
nb.table(verdicts.claims_table(exp.CLAIMS, NB))

# %% [markdown]
# ## The original results
#
# The post's table, transcribed into `data/reference/2011-10-19-smart-batching.csv` (with its assumptions: 100 µs
# per write, a burst of 10, the 1,500-byte Ethernet MTU as the buffer). Its load profile is a sentence, and its one
# figure a diagram: no numbers for either.

# %%
ref = reference.load(exp.REFERENCE)
nb.table(exp.reference_table(ref))

# %% [markdown]
# ## Measured here
#
# `mechsym.batching.SmartBatching` (its class comment says exactly what it does). Message *i* is due at a scheduled
# time; its producer thread parks until then and either takes the lock and writes a packet holding its one message
# (**serial**) or offers it to the queue (**batching**: the batcher waits by `Thread.yield()`, polls until the
# queue is empty, sends the buffer whenever the next 100-byte message would not fit in 1,500 bytes, then sends the
# rest). A message's latency runs from its due time to the end of the write that carried it, so time a producer
# spends blocked, or waking up late, counts. After each run the kernel checks that the device read every message
# exactly once.
#
# Two protocols: the **post's** is its worked example, one burst against an idle device, in a JVM that has already
# handled a few bursts (20 in standard), one number per fresh JVM; the **lab's** is the median over several runs of
# 100 bursts each (3 ms apart, so each meets an idle device). Every cell runs in several fresh JVMs (forks).

# %%
df = nb.results("batching", PRESET, MACHINE)
nb.whose(df, "batching")

# %% [markdown]
# ### The machine and JDK of the runs shown

# %%
nb.table(nb.machine_table(df, "batching"))

# %%
nb.table(nb.unavailable(df))

# %% [markdown]
# ### The worked example, then and now
#
# A burst of 10, the post's numbers beside this machine's (the lab's harness: the median over forks):

# %%
nb.table(exp.comparison(df, ref))

# %% [markdown]
# The same under the post's protocol (one burst per fresh JVM):

# %%
nb.table(exp.comparison(df, ref, protocol="post"))

# %%
exp.plot_bursts(df, ref);

# %% [markdown]
# Dots are forks, bars medians, diamonds the post's numbers for the burst of 10. A burst of one message is the
# uncontended case: both ways it costs one write. Every burst size under both protocols:

# %%
nb.table(exp.bursts_table(df))

# %% [markdown]
# ### What the simulation costs on this machine
#
# The device waits 100 µs per write by spinning on `System.nanoTime()` (it holds a CPU, as a synchronous write that
# polls for its acknowledgement does); parked instead (`LockSupport.parkNanos`) it frees the CPU but wakes up late
# by the kernel's timer slack. The producers park until their messages are due, and wake up late too: with 10 of
# them and a writer on 2 vCPUs, they queue for a CPU as well as for the device. That lateness is part of every
# latency above (it is what a real system's threads pay), and is shown here so it is not mistaken for the device:

# %%
nb.table(exp.harness_table(df))

# %% [markdown]
# ### Load: serial's J-curve, batching's bathtub
#
# Bursts of 10, closer and closer together. Load is the serial device's utilisation (1 = a burst of 10 every
# millisecond, 10,000 messages/s: the most one-message writes can carry); batching packs up to 15 messages into a
# write, so its device saturates at load 15. Serial runs up to 1.1 (beyond that its queue only grows); batching
# goes on to 20.

# %%
exp.plot_load(df);

# %%
nb.table(exp.load_table(df))

# %% [markdown]
# ## Is this the post's code?
#
# Each row compares a kernel with the post's own code on one machine, as a commit of the lab reported it
# (`data/fidelity/`; how a row is measured: `data/fidelity/README.md`). The lab's rule: a kernel's `post` protocol
# lands within 0.9-1.1x of the listing. *reading* flags a ratio outside that band, or bounds that reach outside it;
# *today's kernel* says whether the kernel's code is still the one measured.

# %%
from mechsym import fidelity

fidelity.section(exp.NAME)

# %% [markdown]
# Every cell: median average latency over the measured runs, range, runs and forks (the first rows; all in the
# block):

# %%
nb.collapsed(exp.summary(df), label="every cell")

# %% [markdown]
# ## What does JMH say?
#
# JMH cannot express this post's cells: smart batching is a producer thread, a consumer thread and a simulated device
# latency in one pipeline, measured end to end over a run, not a call JMH can repeat.

# %% [markdown]
# ## Verdicts
#
# The worked example's claims under the post's protocol, then the lab's; the load claims with the lab's harness
# (the post states them in words only). The statistic per fork, its median over forks with a 95% bootstrap
# interval: *holds* or *does not hold* only when the whole interval is on one side of the threshold.

# %%
nb.verdict_table(exp, df, NB)

# %% [markdown]
# ## What changed since 2011
#
# - **Nothing in the algorithm.** Batching what has queued while the device was busy, with no timeout, is still how
#   the Disruptor's `BatchEventProcessor` works (its `endOfBatch` flag, as the post shows); Linux's `io_uring`
#   submits whatever has queued in one system call. The post's table is arithmetic, not a measurement: compare its
#   shape with the numbers above, not its microseconds.
# - **The threads are the cost now, not the device.** In 2011 the post's ten producers would have had a core
#   each on a big server; here ten producers and a writer share 2 vCPUs, so waking a burst's producers takes tens to
#   hundreds of µs (the harness table), and serial's lock hand-off wakes the next waiter each time (a futex, the
#   kernel scheduling). Batching suffers less: its producers only offer and go back to sleep, and one thread writes.
# - **Timed waits are coarse on a VM.** `parkNanos(100 µs)` returns tens of µs late (timer slack, the hypervisor),
#   so the simulated device spins by default; the parked device is shown beside it.
# - **Bounded queues.** The post's `ConcurrentLinkedQueue` gives no back pressure (it says so); the Disruptor's ring
#   buffer, JCTools' MPSC queues and `ArrayBlockingQueue` are bounded. With this sweep's loads the queue never
#   holds more than a few bursts.
#
# ## Recap
#
# What held and what did not, computed from the verdicts above (so it stays true when the page is re-run):

# %%
nb.recap(exp, df, NB)

# %% [markdown]
# The lesson stands: when many threads share a device that takes a fixed time per operation, one writer that sends
# whatever has queued up gives lower and steadier latency than a lock around the device, and sends fewer, fuller
# packets; the cost moved from the device to waking the threads.
