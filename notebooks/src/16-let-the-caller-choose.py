# ---
# jupyter:
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 16 · Let The Caller Choose (2011-07-16), re-run
#
# Martin Thompson, [*Let The Caller Choose*](http://mechanical-sympathy.blogspot.com/2011/07/let-caller-choose.html),
# Mechanical Sympathy blog (copy in `shared/posts/`).
#
# `String[] values = str.split(" ")` allocates a new array inside the method on every call (and, since its size is
# unknown until the end, a temporary list first). The post prefers `str.split(values, " ")`: the caller passes in a
# collection it can reuse, and chooses which one (an `ArrayList`, a `HashSet` for distinct words). It argues this
# saves the CPU work, and that for arrays too large for the young generation the allocating idiom is much worse
# (old-generation allocation, compaction pauses). The post prints no benchmark and no numbers: here is one.
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
from mechsym.experiments import callerchoose as exp

plots.style()
NB = "16-let-the-caller-choose"

# %%
nb.table(tables.claims_table(exp.CLAIMS, NB))

# %% [markdown]
# ## The answer
#
# The verdicts on the runs shown, one line a claim (▶ opens the post's words, the reading and every verdict row);
# each claim's estimate and interval against its threshold and the post's figure; the words the verdicts use. The
# evidence follows, in the order the post told it.

# %%
df = nb.results("callerchoose", PRESET, MACHINE)

# %%
nb.verdict_matrix(exp, df, NB)

# %%
nb.forest(exp, df, NB);

# %%
nb.legend()

# %% [markdown]
# ## The original results
#
# The post has sentences, not numbers (`data/reference/2011-07-16-let-the-caller-choose.csv`):

# %%
ref = reference.load(exp.REFERENCE)
nb.table(exp.reference_table(ref))

# %% [markdown]
# ## Measured here
#
# `mechsym.callerchoose.SplitCost` splits one input over and over: `String.split(" ")` (the JDK's one-character fast
# path), or a split into a caller-supplied `ArrayList` or `HashSet`, cleared and reused. Every method still creates
# the word strings; only the result structure differs. Inputs of 8 words (the post's example sentence, "Some string that I may want to split"), 1,000
# words, and 4 million words, whose 16 MB result array is larger than the whole young generation the JVM is given
# (`-Xmx1g -Xmn8m`), with the G1 and Parallel collectors. Per run, outside the timed loop: ns per call, bytes the
# thread allocated per call (`ThreadMXBean.getThreadAllocatedBytes`), collections and GC time. Every result feeds a
# checksum, checked after the run. Each cell runs in several fresh JVMs (forks); the lab's figure is each fork's
# median run, the "post protocol" its first run after one warm-up run. The post has no benchmark, so that protocol
# is the lab's invention (a cold-ish single run, the way a reader would time it), not the post's.
#
# The large input measures more than the result array. Every idiom creates the 4 million word `String`s, about
# 192 MB a call of the ~257 MB `String.split` allocates (bytes per call in the table above), and with an 8 MB young
# generation those survive into the old generation as well: the large case times the promotion of the words in
# both idioms, with the 16 MB array (and the list behind it) as the difference. Each large run is one call.
#
# Not run: the post's third choice, "a LinkedList if memory is a scarce resource". The kernel offers a reused
# `ArrayList` and `HashSet` only; a reused `LinkedList` would still allocate a node per word each call.

# %%
nb.whose(df, "callerchoose")

# %% [markdown]
# ### The machine and JDK of the runs shown

# %%
nb.table(nb.machine_table(df, "callerchoose"))

# %%
nb.table(nb.unavailable(df))

# %% [markdown]
# ### The young generation, read from the JVM
#
# The committed Eden and Survivor spaces each collector's JVM had, beside the array `String.split` returns for each
# input:

# %%
nb.table(exp.young_table(df))

# %% [markdown]
# ### Speed, allocation, collections

# %%
nb.table(exp.comparison(df))

# %%
exp.plot_methods(df);

# %%
exp.plot_methods(df, "alloc_bytes_per_op");

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
# Dots are forks, bars medians. Every cell, median ns per call over the measured runs:

# %%
nb.collapsed(exp.summary(df), label="every cell")

# %% [markdown]
# ## What does JMH say?
#
# The same headline cells measured by JMH (`jmh-src/mechsym/jmh/CallerChoose.java`: every method at 10 and 1,000
# words, time per call and, with `-prof gc`, bytes per call), a harness that guards against dead code, constant
# folding and missing warm-up by construction. The post's protocol, the lab's and JMH's side by side from the stored
# runs, with lab/JMH and its interval; where the two harnesses differ by more than 10% the text below the table says
# so and what to check.

# %%
from mechsym.jmh import ratios as jmh

jmh.section(exp.NAME, MACHINE)

# %% [markdown]
# ## Verdicts
#
# Per collector, under the post's protocol and the lab's: the statistic per fork, its median over forks with a 95%
# bootstrap interval; *holds* or *does not hold* only when the whole interval is on one side of the threshold.

# %%
nb.verdict_table(exp, df, NB)

# %% [markdown]
# ## What changed since 2011
#
# - **Allocation got cheaper, GC pauses shorter.** Thread-local allocation buffers and escape analysis were there in
#   2011; what is new is G1 as the default (JDK 9), which puts any object larger than half a region ("humongous")
#   straight into the old generation, the post's large-array case. G1's eager reclaim of humongous objects at young
#   collections (JDK 8u60) covers primitive arrays only; the large result here is a `String[]`, an object array,
#   so it is not eagerly reclaimed and waits for a marking cycle. The GC columns above show what collections cost
#   here; a
#   multi-second compaction would show as GC ms per run.
# - **`String.split` has a fast path** for a one-character separator that is not a regex metacharacter (JDK 7): no
#   regex, but still an `ArrayList` grown as it goes and a copy into the returned array.
# - **The strings dominate** small splits: every idiom allocates one `String` (and its byte array) per word, so
#   the reused collection saves the array and the temporary list, not most of the bytes.
#
# ## Recap
#
# What held and what did not, computed from the verdicts above (so it stays true when the page is re-run):

# %%
nb.recap(exp, df, NB)

# %% [markdown]
# The lesson, where the verdicts above hold: an API that lets the caller supply (and reuse) the result structure
# allocates less per call, and the difference matters most for results larger than the young generation.
