/**
 * Single-producer single-consumer queues, as in "Single Producer Single
 * Consumer Queue Revisited: An empiricist tale - part I" (Nitsan Wakart,
 * 2013-07-15), and the harness that measures them ({@link mechsym.spsc.SpscThroughput})
 * and prints their field layout ({@link mechsym.spsc.SpscLayout}).
 *
 * <h2>The variants, by name ({@code --queue}, {@link mechsym.spsc.SpscQueue#NAMES})</h2>
 * Every variant runs the same algorithm (Martin Thompson's lock-free SPSC
 * array queue: a power-of-two ring, a mask instead of a modulo, each side
 * keeping a plain copy of the other side's index); they differ only in memory
 * layout.
 * <ul>
 *   <li>{@code O1} {@link mechsym.spsc.OriginalQueue}: the post's starting
 *       point. The four counters live in their own holder objects
 *       ({@code AtomicLong} or plain {@code long}, each followed by seven pad
 *       longs), so padding is on one side only and relies on where the heap
 *       puts the holders.</li>
 *   <li>{@code O2} {@link mechsym.spsc.OriginalPaddedDataQueue}: O1 with a
 *       padded data buffer (16 unused slots at each end).</li>
 *   <li>{@code I1} {@link mechsym.spsc.InlinedQueues.I1}: the counters inlined
 *       into the queue object, 64 bytes apart by class hierarchy.</li>
 *   <li>{@code I2} {@link mechsym.spsc.InlinedQueues.I2}: I1 with the padded
 *       data buffer.</li>
 *   <li>{@code I3} {@link mechsym.spsc.PaddedClassQueues.I3}: I1 with 64 bytes of
 *       padding before the cold fields ("padded class").</li>
 *   <li>{@code I4} {@link mechsym.spsc.PaddedClassQueues.I4}: I3 with the padded
 *       data buffer; the post's best.</li>
 *   <li>{@code jctools} {@link mechsym.spsc.JctoolsQueue}: JCTools 4.0.5
 *       {@code SpscArrayQueue}, not in the post; today's reference in the same
 *       harness.</li>
 * </ul>
 *
 * <h2>Names of fields</h2>
 * {@code tail} is the producer's index (the next slot it writes; written by
 * the producer only), {@code head} the consumer's index (written by the
 * consumer only). {@code headCache} is the producer's plain copy of
 * {@code head}, {@code tailCache} the consumer's plain copy of {@code tail}:
 * each side reads the other side's index only when its copy says full or
 * empty. {@code capacity}, {@code mask} and {@code buffer} are the cold fields,
 * written once in the constructor.
 *
 * <h2>Accesses, named as in JCTools</h2>
 * <ul>
 *   <li>{@code lv} / {@code sv}: load / store volatile;</li>
 *   <li>{@code so}: store ordered (a release store: {@code lazySet},
 *       {@code VarHandle.setRelease}, the post's {@code putOrderedLong});
 *       cheaper than {@code sv}, enough for a single writer;</li>
 *   <li>{@code lp} / {@code sp}: load / store plain.</li>
 * </ul>
 * The hot paths ({@code offer}, {@code poll}) write each access inline, not
 * through accessor methods: the bytecode the JIT compiles then has the shape of
 * the post's code, and no inlining budget goes to accessors. A trailing
 * comment on each line names the access with these prefixes
 * ({@code // lv head, sp headCache}).
 *
 * <h2>Padding by inheritance</h2>
 * HotSpot lays out a superclass's fields before its subclass's, so a chain of
 * abstract classes fixes the order of the fields of the one final class. Each
 * link is named for what it holds, from the object header down:
 * <pre>
 *   [PaddedClassL0Pad] -> ...ColdFields -> ...L1Pad -> ...TailField -> ...L2Pad -> ...HeadCacheField
 *       -> ...L3Pad -> ...HeadField -> ...L4Pad -> ...TailCacheField -> ...L5Pad -> I1 | I2 | I3 | I4
 * </pre>
 * with the prefix {@code Inlined} for I1 and I2 and {@code PaddedClass} for I3
 * and I4 (whose chain starts with {@code PaddedClassL0Pad}). A {@code ...Pad}
 * class holds padding only: fields named {@code p<n><k>} (and {@code p0i}),
 * with a running byte count in a comment; seven longs (56 bytes) beside one
 * 8-byte hot field put every hot field 64 bytes (one cache line) from the
 * next. tests/test_spsc_kernel.py checks that the pad classes hold nothing
 * else, and that on the running JVM the producer's and the consumer's fields
 * are at least 64 bytes apart ({@link mechsym.spsc.SpscLayout}
 * {@code --check=true}). Offsets themselves are not fixed: they move with the
 * object header (12 bytes with compressed class pointers, 8 with compact
 * object headers).
 *
 * <h2>Tests</h2>
 * tests/test_spsc_sanity.py runs one contract (FIFO order over many laps of
 * the ring, full at exactly the capacity, empty gives null) against every
 * variant the kernel lists; tests/test_spsc_kernel.py runs the harness at
 * smoke size and under stress (two threads on one CPU, a queue of two).
 */
package mechsym.spsc;
