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
# # 08 · Inter Thread Latency (2011-08-09), re-run
#
# Martin Thompson, [*Inter Thread Latency*](http://mechanical-sympathy.blogspot.com/2011/08/inter-thread-latency.html),
# Mechanical Sympathy blog, 9 August 2011 (copy in `shared/posts/2011-08-09-inter-thread-latency.md`).
#
# Two counters, each updated by its own thread: the ping thread waits until `s2` equals its value and increments
# `s1`; the pong thread waits until `s1` moves and increments `s2`. 500 million exchanges, busy spin, in Java
# (`volatile long`, the JIT adds a locked instruction after each write) and in C++ (`__sync_add_and_fetch`, a
# `LOCK XADD`), both under `taskset -c 2,4` on a 2.2 GHz Sandy Bridge laptop. ns/op = duration / (2 x iterations).
#
# **The claims under test:**
#
# | # | claim | the post's figure |
# |---|---|---|
# | 1 | Signalling between two threads costs less than 50 ns per exchange | Java 50 ns/op, C++ 45 ns/op |
# | 2 | Processing in series, 20-30 million exchanges per second | Java 19,688,810 ops/s, C++ 22,178,872 ops/s |
# | 3 | Java and C++ are about equal (C++ ~10% faster) | 50 vs 45 ns/op |

# %% tags=["parameters"]
PRESET = "stored"   # "stored": render the committed results; "smoke" | "standard" | "full": run the sweep here now
MACHINE = None      # None: this machine (or the newest stored); a machine id; or "all"

# %%
from IPython.display import display

from mechsym import nb, plots, reference, verdicts
from mechsym.experiments import signalling as exp

plots.style()

# %% [markdown]
# ## This machine and its JDKs

# %%
nb.this_machine()

# %% [markdown]
# The CPU placements, from this machine's topology. Each thread pins itself (Java: `taskset -p -c CPU` on its own
# thread id; C: `pthread_setaffinity_np`); the post's process-level `taskset -c 2,4` would pin nothing on a machine
# with two CPUs. Placements the machine lacks are named:

# %%
exp.placements_table()

# %% [markdown]
# ## The original results
#
# Transcribed into `data/reference/2011-08-09-inter-thread-latency.csv` (one run each; the post printed ns/op with
# integer division):

# %%
ref = reference.load(exp.REF_ITL)
exp.reference_itl_table(ref)

# %% [markdown]
# ## This machine
#
# `mechsym.signalling.VolatilePingPong` (Java, JDK 17 and 25) and `build/c/pingpong` (C, `gcc -O2`, GCC atomic
# builtins) run the same ping-pong with the same arguments and print the same CSV. Both keep `s1` and `s2` adjacent,
# as the post did, so they share a cache line. Several forks per cell, several measured runs per fork after warm-up
# runs; the post's 500 M exchanges are the `full` preset.

# %%
df = nb.results("signalling", PRESET, MACHINE)
nb.machine_table(df, "signalling")

# %% [markdown]
# Java against C, busy spin, per placement (median ns/op; Java / C below 1 means Java is faster):

# %%
exp.java_vs_c(df)

# %%
exp.plot_ns_per_op(df, ["volatile-spin", "c-spin", "volatile-yield", "c-yield"],
                   ref_lines={"post, Java: 50 ns": 50, "post, C++: 45 ns": 45},
                   title="Volatile ping-pong, Java vs C: ns per one-way signal");

# %% [markdown]
# Dots are runs, bars medians. With both threads on one CPU a busy spin can only progress when the scheduler
# pre-empts the spinning thread, once per time slice (milliseconds): those runs stop at their deadline and report the
# exchanges they completed. The yielding variants (`Thread.yield()`, `sched_yield()` in the wait loop) hand the CPU
# over at once instead:

# %%
exp.bounded_runs(df)

# %% [markdown]
# The post beside this machine (cross-core placement, the post's `taskset -c 2,4`):

# %%
exp.comparison_itl(df, ref)

# %% [markdown]
# Exchanges per second (the post's op/sec = 2 x exchanges / duration), median per placement:

# %%
exp.wide_table(df, ["volatile-spin", "c-spin"], metric="throughput")

# %% [markdown]
# ### Beyond the post: the tail and the timer
#
# Every 1000th round trip (ping -> pong -> ping) is timed on its own; with both threads on one CPU every exchange is.
# Percentiles are medians over runs; max is the largest seen. A mean of ~2 x ns/op can hide microsecond outliers
# (interrupts, the hypervisor taking the vCPU away).

# %%
exp.percentiles(df, ["volatile-spin", "c-spin"])

# %%
exp.plot_percentiles(df, ["volatile-spin", "c-spin"]);

# %% [markdown]
# Read the mean (the post's ns/op) against the median round trip: where ns/op is well above half the median round
# trip, the mean is carried by a few long stalls (a spinning thread that loses its CPU to another process or to the
# hypervisor stops the pair for a whole time slice: the max column) and by the back-to-back exchanges, which a sampled
# exchange, preceded by a timer call, does not have. The verdicts below judge the post's mean and say what the
# typical exchange costs.
#
# Each sampled round trip contains about one timer call; this is its cost here (`System.nanoTime()` and
# `clock_gettime(CLOCK_MONOTONIC)` called back to back a million times), and the smallest step the clock showed:

# %%
exp.timer_table(df)

# %% [markdown]
# Median, range and spread of every cell:

# %%
exp.summary(df)[lambda s: s["variant"] != "locked"]

# %% [markdown]
# ### Run to run
#
# One run is not the machine. Every stored run of the same preset on this machine, median ns/op per run (forks are
# interleaved in rounds within a run, so slow drift spreads over every cell; between runs an hour apart, a virtual
# machine's host may have moved or shared the vCPUs):

# %%
exp.run_to_run(df, ["volatile-spin", "c-spin"])

# %% [markdown]
# ## Verdicts

# %%
verdicts.styled(exp.notebook_verdicts(df, "08-inter-thread-latency"))

# %% [markdown]
# ## What changed since 2011
#
# - **The hardware.** The post measured two physical cores of one Sandy Bridge die sharing an L3 ring. A virtual
#   machine's two vCPUs may sit on cores of different core complexes (on AMD EPYC, separate L3 slices linked by the
#   Infinity Fabric), so one cache-line hand-off can cost several times the post's 45 ns, and the hypervisor adds its
#   own jitter; the round-trip percentiles show it.
# - **The JIT.** A volatile store on x86 is still a plain `mov` followed by a locked instruction (`lock addl $0` to the
#   stack), the "lock instruction" the post mentions; C's `__sync_add_and_fetch` is a `LOCK XADD` on the shared
#   line itself. Which one is faster depends on how the CPU handles a locked operation on a contended line.
# - **Where the vCPUs sit decides more than the language.** On a virtual machine "cross-core" names two guest CPUs;
#   the host decides which physical cores (or SMT siblings, or core complexes) back them, and may change it while
#   the sweep runs. When the dots of one cell form two clusters a few times apart, and the run-to-run table moves a
#   cell by several times between runs, that is the host, not Java or C: the fast cluster is the one to compare with
#   the post's bare-metal 45-50 ns.
# - **Java vs C is a close race, decided by noise.** The two kernels differ in one instruction per exchange; a run of
#   one is easily slower than a run of the other by more than that when the machine is shared. Compare the medians
#   *and* the spread above before reading the ratio.
# - **Spin-wait hints.** `Thread.onSpinWait()` (JDK 9) and x86 `PAUSE` did not exist in the post's Java; the kernels
#   take `--wait=pause` to try them (not part of the standard sweep).
#
# ## Environment

# %%
nb.machine_table(df, "signalling")
