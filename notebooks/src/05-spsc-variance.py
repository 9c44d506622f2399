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
# # 05 · SPSC queue run-to-run variance (2013-07-15), re-run
#
# Nitsan Wakart, *Single Producer Single Consumer Queue Revisited: An empiricist tale - part I*, Psychosomatic,
# Lobotomy, Saw blog, 15 July 2013 ([July 2013 archive](http://psy-lob-saw.blogspot.com/2013/07/); copy in
# `shared/posts/2013-07-15-spsc-queue-revisited-variance.md`).
#
# The post takes Martin Thompson's lock-free single-producer single-consumer array queue (**O1**: power-of-two
# capacity and a mask, `lazySet` of head and tail, a cached copy of the other side's counter, counters in padded
# holder objects) and changes only its memory layout: counters inlined into the queue object through a class
# hierarchy of padding (**I1**), padding before the cold fields capacity/mask/buffer (**I3**), and a padded data
# buffer with 16 unused slots on each end (**I4** = I3 + padded data; **O2** = O1 + padded data; **I2** = I1 + padded
# data). The benchmark: a producer offers N values, a consumer polls them, both `Thread.yield()` when the queue is
# full/empty; a run does 20 iterations and its summary is the mean of the last 10; 30 runs (fresh JVMs) per cell,
# sorted and plotted. Dual-socket Xeon, CentOS 6, Oracle JDK 1.7u17, options
# `-XX:+UseNUMA -XX:+UseCondCardMark -XX:CompileThreshold=100000`, then three other option sets.
#
# **The claims under test** (the post's figures are images; the numbers below are the ones its text gives):
#
# | # | claim | the post's figure |
# |---|---|---|
# | 1 | O1 across cores is bimodal: half the performance 20% of the time; each run is stable within itself | 20% of 30 runs |
# | 2 | Inlining the counters (I1) helps on the same core, hurts across cores | +3% same core; worse cross core |
# | 3 | Padded class + padded data (I4) removes most of the variance | "very little variance remains" |
# | 4 | I4 is ~10% faster than O1 | +10% same core, +10% average cross core |
# | 5 | Even so I4 moves between 110M and 120M ops/s | 110M-120M |
# | 6 | With `-XX:+UseCondCardMark` alone, I1 has the best cross-core average | 133M ops/s |
# | 7 | Adding `-XX:CompileThreshold=100000` makes I1 "rubbish" cross core | figure |
# | 8 | The JVM options reorder the winners | figures |
#
# "SC" in the post is producer and consumer on the same core, which on a hyper-threaded Xeon most likely means two
# hardware threads of one core; "CC" two cores of one socket.

# %% tags=["parameters"]
PRESET = "stored"   # "stored": render the committed results; "smoke" | "standard" | "full": run the sweep here now
MACHINE = None      # None: this machine (or the newest stored); a machine id; or "all"

# %%
from IPython.display import Markdown, display

from mechsym import nb, plots, reference, verdicts
from mechsym.experiments import spsc as exp

plots.style()

# %% [markdown]
# ## This machine and its JDKs

# %%
nb.this_machine()

# %% [markdown]
# ## The original results
#
# The post's results are sorted-run figures without tables; what its text states, transcribed into
# `data/reference/2013-07-15-spsc-queue-variance.csv` (placement `same-core` is the post's SC):

# %%
ref = reference.load(exp.REFERENCE)
ref[~ref["metric"].isin(["offset", "instance_size"])][["table", "variant", "placement", "options", "metric", "value", "unit", "note"]]

# %% [markdown]
# ## This machine: the sweep
#
# Every variant x placement x JVM option set x JDK, each run a fresh JVM (20 iterations of N values, the run's
# summary = mean throughput of the last 10). Placements: **same-cpu** (producer and consumer pinned to one logical
# CPU), **cross-core** (two CPUs on different cores); SMT siblings and cross-socket where the machine has them. Each
# thread pins itself (`taskset -p` on its own Linux thread id) and the process runs under `taskset -c` with the
# placement's CPUs: on a 2-CPU machine `taskset -c 0,1` alone would pin nothing. Option sets:

# %%
import pandas as pd

pd.DataFrame([(k, " ".join(f) or "(none)", d) for k, (f, d) in exp.OPTION_SETS.items()],
             columns=["option set", "JVM flags", "what it stands for"]).set_index("option set")

# %% [markdown]
# `-XX:CompileThreshold` is ignored while tiered compilation is on (the default since JDK 8; the `java` manual:
# "This option is ignored when tiered compilation is enabled"), so on JDK 17/25 `condcard-ct` and `post` differ from
# `condcard` only by `UseNUMA`. JDK 7u17 ran the server compiler without tiers, so `post-notiered` is the post's
# option set as it actually acted, and it is this notebook's **main set** (the post's first four figures).
# The `standard` preset (about 11 minutes here) runs the post's 30 JVMs in each main-set cell of the lowest JDK but
# only 4 in every other cell, 2M values per iteration (the post does not give its N), every option set on the lowest
# JDK and only `none` and the main set on newer JDKs, and leaves out I2: with 4 runs, the other cells show medians
# and rough spread, not variance. `full` is the post's protocol (30 runs everywhere, 50M values, I2 too).

# %%
df = nb.results("spsc", PRESET, MACHINE)
nb.machine_table(df, "spsc")

# %% [markdown]
# Cells this machine cannot run, stored with the reason (never faked):

# %%
exp.unavailable_cells(df)

# %% [markdown]
# What each option set really set inside the JVM (the kernel reads the HotSpot options back). `UseNUMA` stays
# `false` on a machine with a single NUMA node: the JVM turns it off.

# %%
exp.vm_options_table(df)

# %% [markdown]
# ## The layouts, as JOL reads them
#
# The post checked its layouts with java-object-layout. Here JOL 0.17 (`mechsym.spsc.SpscLayout`) reads every
# variant's field offsets on each JDK: the smallest gap between two hot counters, between a producer-written and a
# consumer-written field, and where the first cold field sits (bytes). O1/O2 keep their counters in separate holder
# objects, padded on one side only, so they have no gap rows. If JOL cannot read a layout the row says so
# (`jol_unavailable`).

# %%
exp.layout_checks(df)

# %% [markdown]
# The post's two tables beside this machine's:

# %%
exp.layout_vs_post(df, ref)

# %% [markdown]
# Every non-padding field (JCTools packs `producerIndex` and `producerLimit` together on purpose: both are written by
# the producer only):

# %%
exp.layout_table(df)

# %% [markdown]
# ## Sorted runs, the post's figure
#
# Each point is one run (fresh JVM): its summary, the mean throughput of its measured iterations. Runs are sorted, so
# a flat line is a stable variant and a step is a bimodal one. Main option set, lowest JDK:

# %%
exp.plot_sorted_runs(df, options=exp.MAIN_OPTIONS);

# %% [markdown]
# The same on every other JDK that ran the main set:

# %%
jdks = sorted(exp.run_summaries(df)["jdk"].unique(), key=int)
for j in jdks[1:]:
    exp.plot_sorted_runs(df, jdk=j, options=exp.MAIN_OPTIONS)

# %% [markdown]
# ## Variance, cell by cell
#
# Per cell: runs, median / min / max run summary (M ops/s), coefficient of variation across runs, max/min, the share
# of runs below half (and below 0.6 of) the median, and the median within-run CV (iteration to iteration inside one
# JVM; the post found runs "very stable within a given run"). Main set first:

# %%
exp.variance_display(df, options=exp.MAIN_OPTIONS)

# %% [markdown]
# Every other cell:

# %%
exp.variance_display(df)

# %% [markdown]
# ## Do the JVM options reorder the winners?
#
# Sorted runs for every option set (rows) and placement (columns) of the lowest JDK, then the post's variants ranked by
# median run summary in each cell:

# %%
exp.plot_sorted_grid(df);

# %%
exp.winners_table(df)

# %% [markdown]
# ## Beyond the post: JCTools
#
# JCTools' `SpscArrayQueue` (4.0.5) grew out of this series of posts: padding by class hierarchy as in I3, a padded
# buffer, and a producer that looks ahead at the buffer's slots instead of reading the consumer's index. Same harness,
# same cells; the fastest of the post's variants (by median) against it:

# %%
exp.jctools_table(df)

# %% [markdown]
# ## Beyond the post: where did the queue land?
#
# The post blamed the variance on memory layout between objects. The kernel records, per run, where the queue object
# and its buffer started within a 64-byte cache line (JOL `addressOf`, before the first iteration). Runs of the main
# set grouped by those offsets (median run summary):

# %%
exp.alignment_table(df)

# %% [markdown]
# ## Verdicts

# %%
verdicts.styled(exp.verdicts(df))

# %% [markdown]
# ## What changed since 2013
#
# - **The hardware.** The post ran on a dual-socket Xeon with hyper-threading; its "same core" was most likely two
#   hardware threads of one core sharing an L1. The machine above may be a 2-vCPU virtual machine with neither SMT
#   siblings nor a second socket: "same CPU" here is one logical CPU time-sliced between producer and consumer
#   (every `Thread.yield()` is a context switch that hands over a whole queue's worth of work), and "cross core" goes
#   through whatever the hypervisor maps the vCPUs to, with other guests' noise in between. That noise also shows up
#   inside a run (the within-run CV), which the post's quiet machine did not have.
# - **The JDK.** Tiered compilation is the default since JDK 8, so `-XX:CompileThreshold` does nothing unless tiers are
#   turned off; `UseNUMA` is off on one NUMA node; since JDK 15 HotSpot lays out fields with a new algorithm that
#   lets a subclass fill its superclass's gaps (I3 fills the 4-byte gap after the header itself so the cold fields
#   cannot move into it: the JOL tables above show the post's offsets exactly). `@Contended` (JDK 8,
#   `jdk.internal.vm.annotation` since 9) now does the class padding, but the post's point stands: nothing pads an
#   array's elements.
# - **The harness.** Both threads here live for a whole run and meet at a barrier before each iteration (the post
#   started a new producer thread per iteration), each thread is pinned once, and the consumer checks every value
#   against the expected one (the post sent one constant object). The N per iteration is smaller than the post's
#   (not stated there) in the standard preset.
#
# ## Environment

# %%
nb.machine_table(df, "spsc")
