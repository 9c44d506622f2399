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
# # 01 · Java Lock Implementations (2011-11-19), re-run
#
# Martin Thompson, [*Java Lock Implementations*](http://mechanical-sympathy.blogspot.com/2011/11/java-lock-implementations.html),
# Mechanical Sympathy blog, 19 November 2011 (copy in `shared/posts/2011-11-19-java-lock-implementations.md`).
#
# N threads increment one shared counter inside a lock, 500 million increments in all, on Oracle JDK 1.6.0_29:
# a JVM monitor (`synchronized`) with `-XX:-UseBiasedLocking` (CAS, "atomic" locking) and with `-XX:+UseBiasedLocking`,
# against `ReentrantLock`. One warm-up run as large as the measured one, new threads for every run.
#
# **The claims under test** (the post's figures are images; the numbers below are the ones its text gives):
#
# | # | claim | the post's figure |
# |---|---|---|
# | 1 | Biased locking, un-contended, is ~10% more expensive than atomic locking | ~10% |
# | 2 | Monitor locks quickly reach a throughput limit as contention grows | flat from 2 threads |
# | 3 | ReentrantLock gives the best un-contended performance | Figures 1-3 |
# | 4 | ReentrantLock scales significantly better under contention than `synchronized` | Figures 1-3 |
# | 5 | ReentrantLock dips at 2 contending threads | Figures 1-3 |
# | 6 | Sandy Bridge: slower atomics at low contention, stronger at high | Figures 1-3 |
#
# Four days later the author retracted claim 1 (notebook **02-biased-locking**): the lock he measured was never biased.
# This notebook re-runs the first post as it was run; notebook 02 shows why it misled.

# %% tags=["parameters"]
PRESET = "stored"   # "stored": render the committed results; "smoke" | "standard" | "full": run the sweep here now
MACHINE = None      # None: this machine (or the newest stored); a machine id; or "all"

# %%
from IPython.display import Markdown, display

from mechsym import nb, plots, reference, verdicts
from mechsym.experiments import locks as exp

plots.style()

# %% [markdown]
# ## This machine and its JDKs

# %%
nb.this_machine()

# %% [markdown]
# ## The original results
#
# The first post gives its results as three figures without numbers; what its text states, transcribed into
# `data/reference/2011-11-19-java-lock-implementations.csv`:

# %%
reference.load("2011-11-19-java-lock-implementations")[["table", "column", "metric", "value", "unit", "note"]]

# %% [markdown]
# The same harness with the second post's warm-up gave these tables (`data/reference/2011-11-22-biased-locking.csv`);
# apart from the biased 1-thread cell, the shape is what the first post's figures showed:

# %%
ref = reference.load("2011-11-22-biased-locking")
exp.reference_table(ref)

# %%
exp.plot_reference(ref);

# %% [markdown]
# ## This machine: the first post's experiment
#
# The first post's harness: a single warm-up run as large as the measured run, new threads for every run. Variants, by
# the JVM flags they get: `monitor-thin` (`-XX:-UseBiasedLocking`), `monitor-biased-delayed`
# (`-XX:+UseBiasedLocking` with JDK 6's default 4 s start-up delay, i.e. the first post's `+UseBiasedLocking`),
# `monitor-biased` (delay 0), `monitor-default` (this JDK's defaults), `reentrant`, and, not in the post, `atomic`
# (`AtomicLong`, no lock) and `stamped` (`StampedLock`). Several fresh JVMs (forks) per cell, several measured runs in each.

# %%
df = nb.results("locks", PRESET, MACHINE)
nb.machine_table(df, "locks")

# %%
for jdk in sorted(exp.measured(df)["jdk"].unique(), key=int):
    display(exp.wide_table(df, jdk, "single"))

# %%
exp.plot_scaling(df, "single", ["monitor-thin", "monitor-biased-delayed", "monitor-default", "reentrant", "atomic"], ref=ref);

# %% [markdown]
# Every dot is one measured run (fresh JVMs x runs per JVM); the line joins the medians. Dashed lines: the post's
# Nehalem numbers (2011-11-22 table), for scale. Cells a JDK cannot run (biased locking was removed in JDK 18) are named
# in the panel title, not drawn as zeros:

# %%
nb.unavailable(df)

# %% [markdown]
# Median, quartiles and range of every cell, in millions of ops/s (n = fresh JVMs x measured runs):

# %%
exp.summary(df)[lambda s: s["warmup_policy"] == "single"]

# %% [markdown]
# ## Verdicts

# %%
verdicts.styled(exp.notebook_verdicts(df, "01-lock-implementations"))

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
#   un-contended one: look at the spread of the dots, which is the scheduler's doing as much as the lock's.
# - **The hardware.** The posts ran on 4-8 core Nehalem, Westmere and Sandy Bridge machines, one Fedora 15 box each.
#   The machine above may have 2 vCPUs under a hypervisor: at 3+ threads, the threads then time-slice on the CPUs, so
#   "contention" there is partly the scheduler's.
# - **The harness.** Here the clock starts when all threads wait at the barrier (the post timed thread creation too),
#   each JVM does several measured runs and the counter is checked after each.
#
# ## Environment

# %%
nb.machine_table(df, "locks")
