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
# # 02 · Biased Locking, OSR, and Benchmarking Fun (2011-11-22), re-run
#
# Martin Thompson, [*Biased Locking, OSR, and Benchmarking Fun*](http://mechanical-sympathy.blogspot.com/2011/11/biased-locking-osr-and-benchmarking-fun.html),
# Mechanical Sympathy blog, 22 November 2011 (copy in `shared/posts/2011-11-22-biased-locking-osr-and-benchmarking-fun.md`).
#
# Three days after *Java Lock Implementations* (notebook 01) concluded that biased locking costs ~10% un-contended,
# Dave Dice pointed out that HotSpot did not bias objects created in the first 4 s of a JVM's life, and Cliff Click
# that one long warm-up run gets on-stack-replaced (OSR) code. The post re-ran the test with **ten short warm-ups**
# and **`-XX:BiasedLockingStartupDelay=0`**:
#
# | # | claim | the post's figure |
# |---|---|---|
# | 1 | Biased locking has a huge benefit un-contended | 450,950,969 vs 53,283,461 ops/s = 8.5x (Nehalem); 396,511,324 vs 34,500,407 = 11.5x (Sandy Bridge) |
# | 2 | Un-contended and not revoked, biased locking adds only 4-5 cycles | 4-5 cycles |
# | 3 | `-XX:BiasedLockingStartupDelay=0` is needed for micro-benchmarks | the 4 s delay hid biasing in the first post |
# | 4 | Avoiding OSR makes no material difference here | — |
# | 5 | ReentrantLock scales better than `synchronized` under contention, except at 2 threads | tables below |
#
# **The lesson of the pair**, tested below with data from both warm-up policies: the first post's lock was allocated
# at start-up, inside the 4 s window, so it was never biased; its "biased" numbers were thin-lock numbers plus the
# bias machinery's bookkeeping.

# %% tags=["parameters"]
PRESET = "stored"   # "stored": render the committed results; "smoke" | "standard" | "full": run the sweep here now
MACHINE = None      # None: this machine (or the newest stored); a machine id; or "all"

# %%
from IPython.display import display

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
# Both tables of the post, ops/s, transcribed in `data/reference/2011-11-22-biased-locking.csv`:

# %%
ref = reference.load("2011-11-22-biased-locking")
exp.reference_table(ref)

# %%
exp.plot_reference(ref);

# %% [markdown]
# ## This machine: the second post's experiment (ten short warm-ups)

# %%
df = nb.results("locks", PRESET, MACHINE)
for jdk in sorted(exp.measured(df)["jdk"].unique(), key=int):
    display(exp.wide_table(df, jdk, "short"))

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
#   the first run of each JVM can see a biased lock.
#
# `monitor-biased-delayed` is the first post's `+UseBiasedLocking` (JDK 6's 4 s start-up delay, the lock allocated at
# start-up); `monitor-biased` is the second post's (delay 0).

# %%
exp.why_table(df)

# %%
exp.plot_why(df);

# %% [markdown]
# ## One long warm-up or ten short ones (OSR)
#
# Median ops/s with ten short warm-ups divided by the median with one long warm-up, per variant and thread count
# (1.0 = no difference):

# %%
exp.policy_ratio(df)

# %%
exp.plot_scaling(df, "single", ["monitor-thin", "monitor-biased", "reentrant"]);

# %% [markdown]
# ## Verdicts

# %%
verdicts.styled(exp.notebook_verdicts(df, "02-biased-locking"))

# %% [markdown]
# ## What changed since 2011
#
# - **Biased locking is gone.** JDK 15 turned it off by default (JEP 374) because its revocation cost at safepoints
#   outweighed its gains for most modern code, and JDK 18 removed the flags; on JDK 25 the biased cells above read
#   "not available". JDK 10 had already set `BiasedLockingStartupDelay` to 0, so the first post's trap no longer
#   existed even where biasing survived.
# - **Revocation on thread death.** JDK 17 revokes the bias of a lock whose owner thread has died rather than
#   re-biasing it: the posts' harness (new threads for every run) therefore measures a thin lock after the first run.
# - **Lock coarsening.** C2 merges the lock of consecutive unrolled iterations; with coarsening on, every un-contended
#   monitor variant measures about the same, and the bias makes no visible difference.
# - **The CPUs.** An un-contended CAS now costs roughly what the post's 10-20 cycles said; on a 2-vCPU virtual machine
#   the contended cells beyond 2 threads are time-sliced.
#
# ## Environment

# %%
nb.machine_table(df, "locks")
