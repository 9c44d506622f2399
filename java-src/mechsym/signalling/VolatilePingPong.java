package mechsym.signalling;

import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;

import mechsym.common.Affinity;
import mechsym.common.Args;
import mechsym.common.BadArgument;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.FirstFailure;
import mechsym.common.Kernels;
import mechsym.common.Threads;

/**
 * Two threads play ping-pong on two volatile counters.
 *
 * <p>The claim under test ("Inter Thread Latency", 2011-08-09, Martin
 * Thompson): signalling a change between two threads through a volatile write
 * costs the exchange of one cache line between cores, under 50 ns per
 * exchange, 20-30 million exchanges per second; Java is about as fast as C++
 * with GCC atomics (50 vs 45 ns/op on a 2.2 GHz Sandy Bridge laptop,
 * {@code taskset -c 2,4}). The 2011-11-05 post compares its lock and
 * condition variable version ({@link LockedSignalling}) against this one.
 *
 * <p>As in the post: {@code s1} and {@code s2} are adjacent static volatile
 * longs; the ping side waits until {@code s2} equals its value and then
 * increments {@code s1}; the pong side waits until {@code s1} moves and then
 * increments {@code s2}. ns/op is the post's own definition,
 * duration / (2 x iterations), so one round trip is about 2 ns/op.
 *
 * <p>Protocols ({@code --protocol}), by name:
 * <ul>
 *   <li>{@code post}: the listing's structure. The ping loop runs on the
 *       thread that called {@code main}, as the post's did, shaped as the
 *       post's: {@code while (s1 < N) { while (s2 != value) {} value = ++s1; }},
 *       with nothing else in it; the pong runs on a daemon thread started
 *       before the clock, {@code while (value == s1) {} value = ++s2;}. The
 *       clock runs from just before the ping loop to just after it, so the
 *       loop's own JIT warm-up (interpreter, then an on-stack replacement) is
 *       inside the first run, as it was in the post. Every check runs after the
 *       timed region: both counters must end at N. Busy spin only, no samples.
 *       Deliberate differences from the listing: the pong's {@code while (true)}
 *       is {@code while (value < N)} (so that the thread ends and a run can
 *       be repeated in one JVM; what it does to the speed is measured below); the
 *       clock starts once the pong thread is running (and pinned, when asked),
 *       not right after {@code Thread.start()}; several runs per JVM are
 *       allowed ({@code --runs}), each with a fresh pong thread; {@code N} is
 *       an argument, not a {@code static final}; a watchdog thread, blocked
 *       until the pong thread ends or {@code --max-ms} passes (default 10
 *       minutes with this protocol, a guard against a hang), catches a run
 *       that cannot finish (see fault injection below), since the listing's
 *       loops have no way out: exit 3 when the counters are out of step, else
 *       1 (a run too slow to finish, e.g. both threads on one CPU).
 *       The pong's end condition was measured beside the listing compiled as
 *       published (outside the repository), fresh JVMs in rotating order,
 *       JDK 17, unpinned, 10^8 exchanges: this kernel ran 1.15x as fast as
 *       the listing [1.10, 1.20] (22.6 against 26.0 ns/op, 12 sets; an A/A
 *       of the listing gave 1.01 [0.91, 1.03]), and the listing with only its
 *       {@code while (true)} made {@code while (value < N)} ran 23.3 ns/op
 *       against its own 26.4 (6 sets): that condition is the difference. The
 *       listing's {@code while (true)} put here instead (a pong that spins
 *       until the JVM exits, one run per JVM; with the clock started right
 *       after {@code Thread.start()} too, or not) ran at 31-36 ns/op in 7 of
 *       8 sets of each of two runs (the eighth 151 and 209), while the listing
 *       beside it ran at a median of 26 in the first (24-40) and 37 in the
 *       second (25-49): no closer, and the listing's own mode moved more than
 *       the difference, so the kernel keeps its own.</li>
 *   <li>{@code lab} (the default): both sides on threads of their own, reused
 *       for every run (warm-up runs first, marked {@code warmup=true}); the
 *       clock starts when both have met at a barrier; every value is checked
 *       in the loop to be echoed exactly once and in order (the pong must see
 *       s1 = its value + 1; the ping must see s2 only at value - 1 or value:
 *       both tests sit on values the loop has just read, and the ping's only
 *       while it waits; an A/B with and without them, alternating in one JVM
 *       on the same threads and counters, 45 pairs: median ratio 1.000, range
 *       0.90-1.05), and the counters must end at the iteration count;
 *       every {@code --sample-every}-th round trip is timed on its own
 *       (percentiles, see {@link RoundTrips}); the timer's own cost is
 *       reported; a deadline ({@code --max-ms}) bounds every run: checked at
 *       sampled exchanges and after every 4096 unsuccessful spins, so the fast
 *       path is unchanged; a run that hits it reports how many exchanges it
 *       completed ({@code exchanges}) and {@code deadline_hit=1} instead of
 *       hanging (a pure spin with both threads on one CPU needs one time slice
 *       per exchange). Waiting ({@code --wait}) may also be:
 *       <ul>
 *         <li>{@code pause}: {@code Thread.onSpinWait()} in the loop (JDK 9; a
 *             PAUSE instruction on x86). Not in the post.</li>
 *         <li>{@code yield}: {@code Thread.yield()} in the loop. Not in the
 *             post: with both threads on one CPU a busy spin can only progress
 *             when the scheduler preempts the spinner, once per time slice;
 *             yielding hands the CPU over at once.</li>
 *       </ul></li>
 * </ul>
 * Both protocols: optional per-thread pinning ({@code --pin=a,b}: ping on CPU
 * a, pong on CPU b), done before the clock starts.
 *
 * <p>Fault injection, for the tests ({@code --inject=skip}): in the first run
 * the pong thread runs a copy of its loop in which, at the middle value, it
 * stores s2 = value + 2 in one volatile write (a value echoed that was never
 * sent). The ping can never read the value it waits for, whatever the
 * interleaving (there is no intermediate value to catch), so the run cannot
 * finish in step: {@code lab}'s ping sees s2 neither at value - 1 nor at value;
 * {@code post}'s watchdog finds s1 short of N when the pong thread has run
 * ahead to its end (or the final counters wrong). Exit 3 and no number, every
 * time. The measured loops never contain the injection: the faulty copy is
 * chosen before the run.
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -cp build/mechsym.jar mechsym.signalling.VolatilePingPong --iterations=50000000 --pin=0,1
 *   java -cp build/mechsym.jar mechsym.signalling.VolatilePingPong --protocol=post --iterations=50000000 \
 *        --runs=1 --warmup-runs=0
 * </pre>
 * prints CSV (pinning, iteration, warmup, metric, value, unit): per run
 * {@code duration} (ns), {@code ns_per_op} (ns/op), {@code throughput}
 * (ops/s), {@code exchanges}, {@code deadline_hit}, round-trip percentiles
 * ({@code round_trip_samples} is 0 with {@code post}), and once
 * {@code timer_cost}. Across two cores expect tens of ns per op and tens of
 * millions of ops/s; with {@code --pin=0,0 --wait=spin} expect milliseconds
 * per op and {@code deadline_hit=1} (lab only: the post's loop cannot be
 * bounded).
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

    private static volatile boolean stop;

    private VolatilePingPong() {
    }

    /** The kernel's defaults, for the Python bench (read through JPype). */
    public static String[] defaults() {
        return new String[] {"protocol=lab", "iterations=50000000", "runs=5", "warmup-runs=2", "wait=spin", "pin=",
                             "sample-every=1000", "max-ms=20000"};
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
        final int runs = args.intValue("runs", 5, 1, 1_000_000);
        final int warmupRuns = args.intValue("warmup-runs", 2, 0, 1_000_000);
        final String wait = args.choice("wait", "spin", WAITS);
        final int[] pin = args.cpuList("pin");
        final long sampleEvery = args.longValue("sample-every", post ? 0 : 1000, 0, Long.MAX_VALUE / 4);
        final long maxMs = args.longValue("max-ms", post ? 600_000L : 20_000L, 1, 86_400_000L);
        final String inject = args.choice("inject", "none", INJECTS);
        args.finish();
        Affinity.checkPin("pin", pin, 2, "ping thread, pong thread");
        if (post) {
            requirePostArguments(wait, sampleEvery);
        }

        final Csv csv = new Csv("pinning");
        final List<String> extra = List.of(Affinity.pinning(pin));
        final boolean skip = inject.equals("skip");
        final Result[] results = post
            ? measurePost(iterations, warmupRuns + runs, pin, maxMs, skip)
            : measure(iterations, warmupRuns + runs, wait, pin, sampleEvery, maxMs, skip);
        for (int i = 0; i < results.length; i++) {
            results[i].emit(csv, extra, i, i < warmupRuns);
        }
        RoundTrips.emitTimer(csv, extra);
        csv.flush(System.out);
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

    /** One run's numbers. */
    public static final class Result {
        public final long iterations;
        public long exchanges;
        public long duration;
        public boolean deadlineHit;
        final RoundTrips roundTrips;

        Result(final long iterations, final long sampleEvery) {
            this.iterations = iterations;
            this.roundTrips = new RoundTrips(iterations, sampleEvery);
        }

        public double nsPerOp() {
            return exchanges == 0 ? Double.NaN : (double) duration / (2.0 * exchanges);
        }

        void emit(final Csv csv, final List<String> extra, final int iteration, final boolean warmup) {
            csv.row(extra, iteration, warmup, "duration", duration, "ns");
            csv.row(extra, iteration, warmup, "exchanges", exchanges, "count");
            csv.row(extra, iteration, warmup, "deadline_hit", deadlineHit ? 1 : 0, "bool");
            if (exchanges > 0) {
                csv.row(extra, iteration, warmup, "ns_per_op", nsPerOp(), "ns/op");
                csv.row(extra, iteration, warmup, "throughput", 2.0 * exchanges * 1e9 / duration, "ops/s");
            }
            roundTrips.emit(csv, extra, iteration, warmup);
        }
    }

    // ------------------------------------------------------------------ post

    /**
     * {@code runs} runs of the listing's loops: the ping on the calling thread,
     * the pong on a fresh daemon thread per run. Throws {@link CheckFailed} when
     * the counters did not end at {@code iterations}; a run that cannot finish
     * ends the JVM from the watchdog (exit 3 when the counters show a value
     * echoed out of step, else 1). The calling thread is pinned to
     * {@code pin[0]} for good when pinning is asked for.
     */
    public static Result[] measurePost(final long iterations, final int runs, final int[] pin, final long maxMs,
                                       final boolean skip) throws InterruptedException {
        Affinity.checkPin("pin", pin, 2, "ping thread, pong thread");
        if (pin.length == 2) {
            Affinity.pinCurrentThread(pin[0]);
        }
        final Result[] results = new Result[runs];
        for (int r = 0; r < runs; r++) {
            results[r] = postRun(r, iterations, Affinity.cpuOf(pin, 1), maxMs, skip && r == 0);
        }
        return results;
    }

    private static Result postRun(final int run, final long iterations, final int pongCpu, final long maxMs,
                                  final boolean skip) throws InterruptedException {
        s1 = 0L;
        s2 = 0L;
        final FirstFailure failure = new FirstFailure();
        final CountDownLatch ready = new CountDownLatch(1);
        final long skipAt = iterations / 2;
        final Thread pong = Threads.worker("pong", pongCpu, failure, () -> {
            ready.countDown();
            if (skip) {
                postPongSkipping(iterations, skipAt);
            } else {
                postPong(iterations);
            }
        }, ready::countDown);
        pong.setDaemon(true);
        final Thread watchdog = new Thread(() -> watch(run, pong, failure, iterations, maxMs), "watchdog");
        watchdog.setDaemon(true);
        pong.start();
        ready.await();
        failure.rethrow("pong thread");   // it could not be pinned
        watchdog.start();

        final long duration = postPing(iterations);   // the timed region

        watchdog.join();
        failure.rethrow("pong thread");
        final long v1 = s1;
        final long v2 = s2;
        CheckFailed.require(v1 == iterations && v2 == iterations,
            "run " + run + ": counters s1=" + v1 + ", s2=" + v2 + " after " + iterations + " exchanges");
        final Result result = new Result(iterations, 0);
        result.duration = duration;
        result.exchanges = iterations;
        return result;
    }

    /** The listing's ping loop, on the calling thread; returns its duration in ns. */
    private static long postPing(final long iterations) {
        final long start = System.nanoTime();
        long value = s1;
        while (s1 < iterations) {
            while (s2 != value) {
                // busy spin
            }
            value = ++s1;
        }
        return System.nanoTime() - start;
    }

    /** The listing's pong loop; it ends once it has echoed the last value. */
    private static void postPong(final long iterations) {
        long value = s2;
        while (value < iterations) {
            while (value == s1) {
                // busy spin
            }
            value = ++s2;
        }
    }

    /** {@link #postPong} with the injected fault: at {@code skipAt} s2 jumps by two in one write. */
    private static void postPongSkipping(final long iterations, final long skipAt) {
        long value = s2;
        while (value < iterations) {
            while (value == s1) {
                // busy spin
            }
            if (value == skipAt) {
                value += 2;
                s2 = value;
            } else {
                value = ++s2;
            }
        }
    }

    /**
     * The watchdog of one post run: blocked until the pong thread ends (or
     * {@code maxMs} passes), so it costs the timed loop nothing. A healthy pong
     * ends only after it saw s1 reach {@code iterations}; if s1 is short of it,
     * the pong ran ahead and the ping will wait forever for a value that never
     * comes, so the JVM is ended here: no number, one line, exit 3.
     */
    private static void watch(final int run, final Thread pong, final FirstFailure failure, final long iterations,
                              final long maxMs) {
        try {
            pong.join(maxMs);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        final long v1 = s1;
        final long v2 = s2;
        if (failure.failed()) {
            if (v1 != iterations) {
                die(1, "error", "pong thread failed: " + Kernels.oneLine(String.valueOf(failure.get())));
            }
            return;   // the ping has finished: the main thread rethrows the failure
        }
        if (pong.isAlive()) {
            if (v2 > v1 || v1 - v2 > 1) {
                die(3, "CHECK FAILED", "run " + run + ": s1=" + v1 + ", s2=" + v2 + " after --max-ms=" + maxMs
                    + ": the exchange is out of step");
            }
            die(1, "error", "run " + run + " did not finish within --max-ms=" + maxMs + " (s1=" + v1 + " of "
                + iterations + "): the post's loop has no deadline; --protocol=lab bounds a run");
        }
        if (v1 != iterations) {
            die(3, "CHECK FAILED", "run " + run + ": the pong thread finished at s2=" + v2 + " while s1=" + v1
                + ": it echoed values that were never sent");
        }
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
    public static Result[] measure(final long iterations, final int runs, final String wait, final int[] pin,
                                   final long sampleEvery, final long maxMs) throws InterruptedException {
        return measure(iterations, runs, wait, pin, sampleEvery, maxMs, false);
    }

    /**
     * As {@link #measure(long, int, String, int[], long, long)}; with {@code skip} the pong thread of the first
     * run jumps one value (the injected fault, for the tests: the check must catch it).
     */
    public static Result[] measure(final long iterations, final int runs, final String wait, final int[] pin,
                                   final long sampleEvery, final long maxMs, final boolean skip)
            throws InterruptedException {
        if (iterations < 1) {
            throw new BadArgument("--iterations=" + iterations + ": must be at least 1");
        }
        if (!WAITS.contains(wait)) {
            throw new BadArgument("--wait=" + wait + ": allowed values are " + String.join(", ", WAITS));
        }
        Affinity.checkPin("pin", pin, 2, "ping thread, pong thread");
        final int mode = WAITS.indexOf(wait);
        final Result[] results = new Result[runs];
        for (int r = 0; r < runs; r++) {
            results[r] = new Result(iterations, sampleEvery);
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
                final String bad = pingRun(results[r], mode, sampleEvery, maxMs);
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
    private static String pingRun(final Result result, final int mode, final long sampleEvery, final long maxMs) {
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
