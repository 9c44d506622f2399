package mechsym.signalling;

import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import mechsym.common.Affinity;
import mechsym.common.Args;
import mechsym.common.BadArgument;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.Defaults;
import mechsym.common.FirstFailure;
import mechsym.common.JitGc;
import mechsym.common.Kernels;
import mechsym.common.Threads;

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
    private static final String NAME = "VolatilePingPong";
    private static final int SPIN = 0;
    private static final int PAUSE = 1;
    private static final int YIELD = 2;
    /** Unsuccessful spins between two looks at the clock (deadline, stop flag). */
    private static final int CHECK_SPINS = 4096;

    public static volatile long s1;
    public static volatile long s2;

    /**
     * The post protocol's counters: the listing's three statics in its order, in a class of their own and apart
     * from the lab's pair (the post's pong spins on them until the JVM exits), loaded by {@link #placePost} where
     * the two share a cache line.
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
     * Two classes of {@link Post}'s shape and name length, loaded just before it ({@link #placePost}): the first
     * load of the three allocates more than the others, so the second tells where Post's mirror will land.
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

    /** The filler {@link #placePost} may allocate, kept alive here (never read). */
    private static Object filler;

    private static volatile boolean stop;
    /** The post protocol's ping loop has ended (set after the timed region). */
    private static volatile boolean pingDone;
    /** The post protocol ran in this JVM (its pong thread spins on until the JVM exits). */
    private static final AtomicBoolean POST_RAN = new AtomicBoolean();

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

    // ------------------------------------------------------------------ post

    /**
     * The one run of the listing's loops a JVM can make: the ping on the
     * calling thread, the pong on a daemon thread that spins until the JVM
     * exits, as the post's. Throws {@link CheckFailed} when the counters did
     * not end at {@code iterations}; a run that cannot finish ends the JVM from
     * the watchdog (exit 3 when the counters show a value echoed out of step,
     * else 1). The calling thread is pinned to {@code pin[0]} for good when
     * pinning is asked for.
     */
    public static RunResult measurePost(final long iterations, final int[] pin, final long maxMs, final boolean skip)
            throws InterruptedException {
        Affinity.checkPin("pin", pin, 2, "ping thread, pong thread");
        JitGc.open();
        if (!POST_RAN.compareAndSet(false, true)) {
            throw new IllegalStateException("the post protocol makes one run per JVM: its pong thread from the last "
                + "run is still spinning on s1");
        }
        if (pin.length == 2) {
            Affinity.pinCurrentThread(pin[0]);
        }
        placePost();
        Post.s1 = 0L;
        Post.s2 = 0L;
        final JitGc jitGc = new JitGc();   // read outside postPing, which stays the listing's loop
        final FirstFailure failure = new FirstFailure();
        final CountDownLatch ready = new CountDownLatch(1);
        final CountDownLatch over = new CountDownLatch(1);   // the ping loop ended, or the pong thread did
        final long skipAt = iterations / 2;
        final int pongCpu = Affinity.cpuOf(pin, 1);
        final Thread pong = Threads.worker("pong", pongCpu, failure, () -> {
            ready.countDown();
            if (skip) {
                postPongSkipping(iterations, skipAt);
                over.countDown();
            } else {
                postPong();
            }
        }, () -> {
            ready.countDown();
            over.countDown();
        });
        pong.setDaemon(true);
        final Thread watchdog = new Thread(() -> watch(pong, over, failure, iterations, maxMs), "watchdog");
        watchdog.setDaemon(true);
        if (pongCpu >= 0) {
            pong.start();
            ready.await();   // pinning (a taskset process) is not timed
            failure.rethrow("pong thread");   // it could not be pinned
            watchdog.start();
        } else {
            watchdog.start();
            pong.start();   // and the clock starts at once, as the listing's
        }

        jitGc.start();
        final long duration = postPing(iterations);   // the timed region
        jitGc.stop();

        pingDone = true;
        over.countDown();
        watchdog.join();
        failure.rethrow("pong thread");
        final long v1 = Post.s1;
        final long v2 = awaitLastEcho(iterations, maxMs);
        CheckFailed.require(v1 == iterations && v2 == iterations,
            "counters s1=" + v1 + ", s2=" + v2 + " after " + iterations + " exchanges");
        final RunResult result = new RunResult(iterations, 0, jitGc);
        result.duration = duration;
        result.exchanges = iterations;
        return result;
    }

    /**
     * Loads {@link Post} with its counters on one line ({@link MirrorPlacement}): Pre1, then Pre2 to learn how far
     * past the allocation pointer loading puts a mirror's s1, then a filler when Post's s1 would land at byte 56,
     * then Post. Before the clock: reads, three class loads and small allocations. Where the counters sat is read
     * again after the run ({@link CounterLine}); a TLAB refill in between can still put them on two lines.
     */
    private static void placePost() {
        if (MirrorPlacement.SHIFT < 0) {
            return;   // the heap's references cannot be read here: Post is loaded where it falls
        }
        MirrorPlacement.address(Pre1.class);   // loaded here
        final long t0 = MirrorPlacement.top();
        final Class<?> pre2 = Pre2.class;   // loaded here
        final long lead = MirrorPlacement.address(pre2) - t0 + MirrorPlacement.staticOffset(pre2, "s1");
        final long t1 = MirrorPlacement.top();
        if (((t1 + lead) & (MirrorPlacement.LINE - 1)) == MirrorPlacement.LINE - 8) {
            filler = new long[1];
        }
        MirrorPlacement.address(Post.class);   // loaded here, after the filler
    }

    /** The listing's ping loop, on the calling thread; returns its duration in ns. */
    private static long postPing(final long iterations) {
        final long start = System.nanoTime();
        long value = Post.s1;
        while (Post.s1 < iterations) {
            while (Post.s2 != value) {
                // busy spin
            }
            value = ++Post.s1;
        }
        return System.nanoTime() - start;
    }

    /** The listing's pong loop: it never ends (the thread is a daemon, gone when the JVM exits). */
    private static void postPong() {
        long value = Post.s2;
        while (true) {
            while (value == Post.s1) {
                // busy spin
            }
            value = ++Post.s2;
        }
    }

    /**
     * After the timed region: the ping's loop ends once it has sent N, without waiting for the echo, so s2 may
     * still be N - 1 for a moment; returns s2 once it has reached N (or has gone past it), or after {@code maxMs}.
     */
    private static long awaitLastEcho(final long iterations, final long maxMs) {
        final long deadline = System.nanoTime() + maxMs * 1_000_000L;
        long v2 = Post.s2;
        while (v2 < iterations && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
            v2 = Post.s2;
        }
        return v2;
    }

    /** {@link #postPong} with the injected fault: at {@code skipAt} s2 jumps by two in one write. */
    private static void postPongSkipping(final long iterations, final long skipAt) {
        long value = Post.s2;
        while (value < iterations) {
            while (value == Post.s1) {
                // busy spin
            }
            if (value == skipAt) {
                value += 2;
                Post.s2 = value;
            } else {
                value = ++Post.s2;
            }
        }
    }

    /**
     * The watchdog of the post run: blocked until the ping loop ends, the pong
     * thread ends (only the injected fault's pong or a failed one ever does) or
     * {@code maxMs} passes, so it costs the timed loop nothing. If the pong
     * ended with s1 short of N, it ran ahead, and the ping would wait forever
     * for a value that never comes, so the JVM is ended here: no number, one
     * line, exit 3.
     */
    private static void watch(final Thread pong, final CountDownLatch over, final FirstFailure failure,
                              final long iterations, final long maxMs) {
        try {
            over.await(maxMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (pingDone) {
            return;   // the main thread checks the counters
        }
        final long v1 = Post.s1;
        final long v2 = Post.s2;
        if (failure.failed()) {
            die(1, "error", "pong thread failed: " + Kernels.oneLine(String.valueOf(failure.get())));
        }
        if (pong.isAlive()) {
            if (v2 > v1 || v1 - v2 > 1) {
                die(3, "CHECK FAILED", "s1=" + v1 + ", s2=" + v2 + " after --max-ms=" + maxMs
                    + ": the exchange is out of step");
            }
            die(1, "error", "the run did not finish within --max-ms=" + maxMs + " (s1=" + v1 + " of "
                + iterations + "): the post's loop has no deadline; --protocol=lab bounds a run");
        }
        die(3, "CHECK FAILED", "the pong thread finished at s2=" + v2 + " while s1=" + v1
            + ": it echoed values that were never sent");
    }

    /** Ends the JVM from a helper thread while the main thread is stuck in the listing's loop: one line, no number. */
    private static void die(final int code, final String kind, final String message) {
        System.err.println(NAME + ": " + kind + ": " + message);
        System.err.flush();
        System.exit(code);
    }

    // ------------------------------------------------------------------- lab

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
     * run jumps one value (the injected fault, for the tests: the check must catch it).
     */
    public static RunResult[] measure(final long iterations, final int runs, final String wait, final int[] pin,
                                   final long sampleEvery, final long maxMs, final boolean skip)
            throws InterruptedException {
        if (iterations < 1) {
            throw new BadArgument("--iterations=" + iterations + ": must be at least 1");
        }
        if (!WAITS.contains(wait)) {
            throw new BadArgument("--wait=" + wait + ": allowed values are " + String.join(", ", WAITS));
        }
        Affinity.checkPin("pin", pin, 2, "ping thread, pong thread");
        JitGc.open();
        final int mode = WAITS.indexOf(wait);
        final RunResult[] results = new RunResult[runs];
        for (int r = 0; r < runs; r++) {
            results[r] = new RunResult(iterations, sampleEvery);
        }
        final long[] pongMismatches = new long[1];
        final String[] orderFailure = new String[1];
        final CyclicBarrier start = new CyclicBarrier(2, () -> {
            s1 = 0L;
            s2 = 0L;
            stop = false;
        });
        final CyclicBarrier end = new CyclicBarrier(2);
        final FirstFailure failure = new FirstFailure();
        final Runnable release = () -> {
            stop = true;
            start.reset();
            end.reset();
        };

        final Thread ping = Threads.worker("ping", Affinity.cpuOf(pin, 0), failure, () -> {
            for (int r = 0; r < runs; r++) {
                start.await();
                results[r].jitGc.start();
                final String bad = pingRun(results[r], mode, sampleEvery, maxMs);
                results[r].jitGc.stop();
                if (bad != null && orderFailure[0] == null) {
                    orderFailure[0] = "run " + r + ": " + bad;
                }
                end.await();
            }
        }, release);
        final Thread pong = Threads.worker("pong", Affinity.cpuOf(pin, 1), failure, () -> {
            final long skipAt = iterations / 2;
            for (int r = 0; r < runs; r++) {
                start.await();
                pongMismatches[0] += skip && r == 0
                    ? pongRunSkipping(iterations, mode, skipAt)
                    : pongRun(iterations, mode);
                end.await();
                final long n = results[r].exchanges;
                final long v1 = s1;
                final long v2 = s2;
                final boolean counters = results[r].deadlineHit
                    ? (v2 == n || v2 == n + 1) && (v1 == n + 1 || v1 == n)
                    : v1 == iterations && v2 == iterations && n == iterations;
                if (!counters && orderFailure[0] == null) {
                    orderFailure[0] = "run " + r + ": counters s1=" + v1 + ", s2=" + v2 + " after " + n
                        + " completed exchanges of " + iterations;
                }
            }
        }, release);
        ping.setDaemon(true);
        pong.setDaemon(true);
        Threads.startJoinRethrow(failure, "signalling thread", ping, pong);
        CheckFailed.require(orderFailure[0] == null, orderFailure[0]);
        CheckFailed.require(pongMismatches[0] == 0,
            pongMismatches[0] + " values were not echoed in order (pong saw s1 skip or repeat)");
        return results;
    }

    /** Convenience for in-process callers: one unpinned busy-spin run; returns ns/op. */
    public static double nsPerOp(final long iterations) throws InterruptedException {
        return measure(iterations, 1, "spin", new int[0], 0, 60_000)[0].nsPerOp();
    }

    /** The ping side of one lab run; returns a description of an ordering fault, or null. */
    private static String pingRun(final RunResult result, final int mode, final long sampleEvery, final long maxMs) {
        final long iterations = result.iterations;
        final RoundTrips samples = result.roundTrips;
        samples.reset();
        long countdown = sampleEvery > 0 ? 1 : Long.MAX_VALUE;
        final long begin = System.nanoTime();
        final long deadline = begin + maxMs * 1_000_000L;
        long value = 0;
        long exchanges = 0;
        String bad = null;
        outer:
        for (long i = 0; i < iterations; i++) {
            long t0 = 0;
            final boolean sample = --countdown == 0;
            if (sample) {
                countdown = sampleEvery;
                t0 = System.nanoTime();
                if (t0 - deadline > 0) {
                    result.deadlineHit = true;
                    break;
                }
            }
            final long previous = value;
            value = ++s1;
            long seen;
            int spins = 0;
            while ((seen = s2) != value) {
                if (seen != previous) {
                    bad = "ping expected s2 = " + previous + " or " + value + ", saw " + seen;
                    break outer;
                }
                if (mode == PAUSE) {
                    Thread.onSpinWait();
                } else if (mode == YIELD) {
                    Thread.yield();
                }
                if (++spins == CHECK_SPINS) {
                    spins = 0;
                    if (System.nanoTime() - deadline > 0) {
                        result.deadlineHit = true;
                        break outer;
                    }
                }
            }
            if (sample) {
                samples.record(System.nanoTime() - t0);
            }
            exchanges++;
        }
        result.duration = System.nanoTime() - begin;
        result.exchanges = exchanges;
        stop = true;
        return bad;
    }

    /** The pong side of one lab run; returns how many values were not the expected next one. */
    private static long pongRun(final long iterations, final int mode) {
        long value = 0;
        long mismatches = 0;
        while (value < iterations) {
            long seen;
            int spins = 0;
            while ((seen = s1) == value) {
                if (mode == PAUSE) {
                    Thread.onSpinWait();
                } else if (mode == YIELD) {
                    Thread.yield();
                }
                if (++spins == CHECK_SPINS) {
                    spins = 0;
                    if (stop) {
                        return mismatches;
                    }
                }
            }
            if (seen != value + 1) {
                mismatches++;
            }
            value = ++s2;
        }
        return mismatches;
    }

    /** {@link #pongRun} with the injected fault: at {@code skipAt} s2 jumps by two in one write. */
    private static long pongRunSkipping(final long iterations, final int mode, final long skipAt) {
        long value = 0;
        long mismatches = 0;
        while (value < iterations) {
            long seen;
            int spins = 0;
            while ((seen = s1) == value) {
                if (mode == PAUSE) {
                    Thread.onSpinWait();
                } else if (mode == YIELD) {
                    Thread.yield();
                }
                if (++spins == CHECK_SPINS) {
                    spins = 0;
                    if (stop) {
                        return mismatches;
                    }
                }
            }
            if (seen != value + 1) {
                mismatches++;
            }
            if (value == skipAt) {
                value += 2;
                s2 = value;
            } else {
                value = ++s2;
            }
        }
        return mismatches;
    }
}
