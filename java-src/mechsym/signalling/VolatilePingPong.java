package mechsym.signalling;

import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import mechsym.common.Affinity;
import mechsym.common.Args;
import mechsym.common.BadArgument;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.Defaults;
import mechsym.common.JitGc;
import mechsym.common.Kernels;


/**
 * Two threads play ping-pong on two volatile counters.
 *
 * <p>The claim ("Inter Thread Latency", 2011-08-09, Martin Thompson): signalling between two threads through a
 * volatile write costs the exchange of one cache line between cores, under 50 ns per exchange, 20-30 million
 * exchanges per second, and Java is about as fast as C++ with GCC atomics (50 vs 45 ns/op on a 2.2 GHz Sandy
 * Bridge, {@code taskset -c 2,4}; the C side is {@code c-src/pingpong.c}). As in the post: {@code s1} and
 * {@code s2} are adjacent static volatile longs; ping waits for {@code s2} to equal its value, then increments
 * {@code s1}; pong waits for {@code s1} to move, then increments {@code s2}; ns/op = duration / (2 x
 * iterations).
 *
 * <p>Protocols ({@code --protocol}):
 * <ul>
 *   <li>{@code post}: the listing. Ping on the main thread,
 *       {@code while (s1 < N) { while (s2 != value) {} value = ++s1; }}; pong on a daemon thread,
 *       {@code while (true)}, so one run per JVM. The clock spans the ping loop, JIT warm-up included, as in the
 *       post; the counters are checked after it. Deliberate differences: N is an argument; with pinning the
 *       clock starts once the pong has pinned itself; a watchdog ({@code --max-ms}) ends a run that cannot
 *       finish (exit 3 when the counters are out of step, else 1).</li>
 *   <li>{@code lab} (the default): both sides on threads reused for every run, warm-up runs first, the clock
 *       started at a barrier; the pong's loop ends at N ({@code while (value < N)}, which alone makes the
 *       exchange faster and steadier here); every value is checked in the loop to be echoed once and in order (no
 *       cost showed in an A/B, commit 44ac982); every {@code --sample-every}-th round trip is timed
 *       ({@link RoundTrips}); {@code --max-ms} bounds a run ({@code deadline_hit=1}); {@code --wait} may be
 *       {@code spin} (the post), {@code pause} or {@code yield}.</li>
 * </ul>
 * {@code --pin=a,b} pins ping to CPU a and pong to CPU b before the clock. Comparisons with the listing:
 * {@code data/fidelity/signalling.csv}. {@code --inject=skip} (tests): in the first run the pong echoes a value
 * never sent (a loop copy chosen before the run): exit 3.
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -cp build/mechsym.jar mechsym.signalling.VolatilePingPong --iterations=50000000 --pin=0,1
 *   java -cp build/mechsym.jar mechsym.signalling.VolatilePingPong --protocol=post --iterations=50000000
 * </pre>
 * Per run {@code duration}, {@code ns_per_op}, {@code throughput}, {@code exchanges}, {@code deadline_hit},
 * round-trip percentiles, and where the counters sat ({@code counter_line_offset}, {@code counters_share_line}:
 * {@link CounterLine}; a run whose counters straddle two lines timed two lines, not the post's one). Across two
 * cores: tens of ns per op; with {@code --pin=0,0} (lab) milliseconds per op and {@code deadline_hit=1}.
 */
public final class VolatilePingPong {
    public static final List<String> PROTOCOLS = List.of("lab", "post");
    public static final List<String> WAITS = List.of("spin", "pause", "yield");
    /** Fault injection for the tests: {@code skip} makes the pong thread jump one value in the first run. */
    public static final List<String> INJECTS = List.of("none", "skip");
    static final String NAME = "VolatilePingPong";
    private static final int SPIN = 0;
    static final int PAUSE = 1;
    static final int YIELD = 2;
    /** Unsuccessful spins between two looks at the clock (deadline, stop flag). */
    static final int CHECK_SPINS = 4096;

    public static volatile long s1;
    public static volatile long s2;

    /**
     * The post protocol's counters: the listing's three statics in its order, in a class of their own and apart
     * from the lab's pair (the post's pong spins on them until the JVM exits), loaded by
     * {@link VolatilePostHarness#placePost} where the two share a cache line.
     *
     * <p>The lesson: where a static sits inside its class's mirror can set how fast a loop over it runs. The
     * listing's {@code ITERATIONS} constant is a field too, so its {@code s1} and {@code s2} sit at bytes 0x78 and
     * 0x80 of the mirror on JDK 17. On a 2-vCPU EPYC (JDK 17, 4 M exchanges, fresh JVMs alternating, medians) the
     * listing ran at 25.9 ns/op; with its counters in a nested class, at 0x70 and 0x78, at 34.8; with one long
     * before them there (0x78, 0x80) at 25.5; with two (0x80, 0x88) at 30.2. The loops' instructions were the same
     * but for 8-bit against 32-bit displacements; which of the two, the code's bytes or the data's place, sets the
     * speed is not settled. This holder without {@link #LEADING} ran at 0.80-0.85 of the listing; with it, beside
     * the listing: {@code data/fidelity/signalling.csv}.
     */
    static final class Post {
        /** Unused: it takes the mirror's first static slot, as the listing's {@code ITERATIONS} does. */
        static final long LEADING = 0L;
        static volatile long s1;
        static volatile long s2;

        private Post() {
        }
    }

    /**
     * Two classes of {@link Post}'s shape and name length, loaded just before it
     * ({@link VolatilePostHarness#placePost}): the first load of the three allocates more than the others, so the
     * second tells where Post's mirror will land.
     */
    static final class Pre1 {
        static final long LEADING = 0L;
        static volatile long s1;
        static volatile long s2;

        private Pre1() {
        }
    }

    /** See {@link Pre1}. */
    static final class Pre2 {
        static final long LEADING = 0L;
        static volatile long s1;
        static volatile long s2;

        private Pre2() {
        }
    }

    /** The filler {@link VolatilePostHarness#placePost} may allocate, kept alive here (never read). */
    static Object filler;

    static volatile boolean stop;
    /** The post protocol's ping loop has ended (set after the timed region). */
    static volatile boolean pingDone;
    /** The post protocol ran in this JVM (its pong thread spins on until the JVM exits). */
    static final AtomicBoolean POST_RAN = new AtomicBoolean();

    private VolatilePingPong() {
    }

    /** The kernel's defaults, for the Python bench (read through JPype). */
    public static String[] defaults() {
        return Defaults.of(VolatilePingPong::run);
    }

    public static String[] waits() {
        return WAITS.toArray(new String[0]);
    }

    public static String[] protocols() {
        return PROTOCOLS.toArray(new String[0]);
    }

    public static void main(final String[] argv) {
        Kernels.main(NAME, argv, VolatilePingPong::run);
    }

    private static void run(final Args args) throws Exception {
        final String protocol = args.choice("protocol", "lab", PROTOCOLS);
        final boolean post = protocol.equals("post");
        final long iterations = args.longValue("iterations", 50_000_000L, 1, Long.MAX_VALUE / 4);
        final int runs = args.intValue("runs", post ? 1 : 5, 1, 1_000_000);
        final int warmupRuns = args.intValue("warmup-runs", post ? 0 : 2, 0, 1_000_000);
        final String wait = args.choice("wait", "spin", WAITS);
        final int[] pin = args.cpuList("pin");
        final long sampleEvery = args.longValue("sample-every", post ? 0 : 1000, 0, Long.MAX_VALUE / 4);
        final long maxMs = args.longValue("max-ms", post ? 600_000L : 20_000L, 1, 86_400_000L);
        final String inject = args.choice("inject", "none", INJECTS);
        args.finish();
        Affinity.checkPin("pin", pin, 2, "ping thread, pong thread");
        if (post) {
            requirePostArguments(wait, sampleEvery);
            if (runs + warmupRuns != 1) {
                throw new BadArgument("--runs=" + runs + " --warmup-runs=" + warmupRuns + ": the post protocol makes "
                    + "one run per JVM, as the listing (its pong thread spins until the JVM exits); give --runs=1 "
                    + "--warmup-runs=0 or use --protocol=lab");
            }
        }

        JitGc.open();
        final Csv csv = new Csv("pinning");
        final List<String> extra = List.of(Affinity.pinning(pin));
        final boolean skip = inject.equals("skip");
        final RunResult[] results = post
            ? new RunResult[] {measurePost(iterations, pin, maxMs, skip)}
            : measure(iterations, warmupRuns + runs, wait, pin, sampleEvery, maxMs, skip);
        final CounterLine counters = counterLine(post ? Post.class : VolatilePingPong.class, results);
        for (int i = 0; i < results.length; i++) {
            results[i].counters = counters;
            results[i].emit(csv, extra, i, i < warmupRuns);
        }
        RoundTrips.emitTimer(csv, extra);
        csv.flush(System.out);
    }

    /**
     * Where s1 and s2 were during the runs, read after them ({@link CounterLine}); not read when a collection ran
     * in a timed run or while reading (it may have moved them).
     */
    private static CounterLine counterLine(final Class<?> holder, final RunResult[] results) {
        final JitGc reading = new JitGc();
        reading.start();
        final CounterLine line = CounterLine.of(holder, "s1", "s2");
        reading.stop();
        long collections = reading.gcCount();
        for (final RunResult r : results) {
            collections += r.jitGc.gcCount();
        }
        return collections == 0 ? line : CounterLine.NOT_READ;
    }

    static void requirePostArguments(final String wait, final long sampleEvery) {
        if (!wait.equals("spin")) {
            throw new BadArgument("--wait=" + wait + ": the post protocol busy-spins, as the listing; "
                                  + "pause and yield are lab variants (--protocol=lab)");
        }
        if (sampleEvery != 0) {
            throw new BadArgument("--sample-every=" + sampleEvery + ": the post protocol times whole runs only, as "
                                  + "the listing; give 0 or use --protocol=lab");
        }
    }

    // ------------------------------------------- the protocols' harnesses (public: JPype)

    /** The post protocol's one run per JVM: {@link VolatilePostHarness#measurePost}. */
    public static RunResult measurePost(final long iterations, final int[] pin, final long maxMs, final boolean skip)
            throws InterruptedException {
        return VolatilePostHarness.measurePost(iterations, pin, maxMs, skip);
    }

    /**
     * {@code runs} runs of {@code iterations} exchanges on the same two threads.
     * Throws {@link CheckFailed} when any value was lost, repeated or out of
     * order. Public so that the Python bench can call it in process (JPype).
     */
    public static RunResult[] measure(final long iterations, final int runs, final String wait, final int[] pin,
                                   final long sampleEvery, final long maxMs) throws InterruptedException {
        return measure(iterations, runs, wait, pin, sampleEvery, maxMs, false);
    }

    /**
     * As {@link #measure(long, int, String, int[], long, long)}; with {@code skip} the pong thread of the first
     * run jumps one value (the injected fault, for the tests: the check must catch it). The lab harness:
     * {@link VolatileLabHarness#measure}.
     */
    public static RunResult[] measure(final long iterations, final int runs, final String wait, final int[] pin,
                                   final long sampleEvery, final long maxMs, final boolean skip)
            throws InterruptedException {
        return VolatileLabHarness.measure(iterations, runs, wait, pin, sampleEvery, maxMs, skip);
    }

    /** Convenience for in-process callers: one unpinned busy-spin run; returns ns/op. */
    public static double nsPerOp(final long iterations) throws InterruptedException {
        return measure(iterations, 1, "spin", new int[0], 0, 60_000)[0].nsPerOp();
    }
}
