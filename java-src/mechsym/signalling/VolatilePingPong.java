package mechsym.signalling;

import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;

import mechsym.common.Affinity;
import mechsym.common.Args;
import mechsym.common.BadArgument;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
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
 * longs; the ping thread waits until {@code s2} equals its value and then
 * increments {@code s1}; the pong thread waits until {@code s1} moves and then
 * increments {@code s2}. ns/op is the post's own definition,
 * duration / (2 x iterations), so one round trip is about 2 ns/op.
 *
 * <p>Waiting ({@code --wait}), by name:
 * <ul>
 *   <li>{@code spin}: the post's empty busy-spin loop.</li>
 *   <li>{@code pause}: {@code Thread.onSpinWait()} in the loop (JDK 9; a PAUSE
 *       instruction on x86). Not in the post.</li>
 *   <li>{@code yield}: {@code Thread.yield()} in the loop. Not in the post:
 *       with both threads on one CPU a busy spin can only progress when the
 *       scheduler preempts the spinner, once per time slice; yielding hands
 *       the CPU over at once.</li>
 * </ul>
 *
 * <p>Changes from the post's code, all deliberate: both sides run on threads
 * of their own that are reused for every run (warm-up runs first, marked
 * {@code warmup=true}); the clock starts when all threads have met at a
 * barrier; every value is checked to be echoed exactly once and in order (the
 * pong thread must see s1 = its value + 1, the ping thread must see s2 only
 * at value - 1 or value), and the counters must end at the iteration count,
 * else exit 3 with no number; every {@code --sample-every}-th round trip is
 * timed on its own (percentiles in the output, see {@link RoundTrips}); the
 * timer's own cost is reported; optional per-thread pinning ({@code --pin=a,b}:
 * ping on CPU a, pong on CPU b); a deadline ({@code --max-ms}) bounds every
 * run: checked at sampled exchanges and after every 4096 unsuccessful spins,
 * so the fast path is unchanged; a run that hits it reports how many
 * exchanges it completed ({@code exchanges}) and {@code deadline_hit=1}
 * instead of hanging (a pure spin with both threads on one CPU needs one time
 * slice per exchange).
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -cp build/mechsym.jar mechsym.signalling.VolatilePingPong --iterations=50000000 --pin=0,1
 * </pre>
 * prints CSV (pinning, iteration, warmup, metric, value, unit): per run
 * {@code duration} (ns), {@code ns_per_op} (ns/op), {@code throughput}
 * (ops/s), {@code exchanges}, {@code deadline_hit}, round-trip percentiles,
 * and once {@code timer_cost}. Across two cores expect tens of ns per op and
 * tens of millions of ops/s; with {@code --pin=0,0 --wait=spin} expect
 * milliseconds per op and {@code deadline_hit=1}.
 */
public final class VolatilePingPong {
    public static final List<String> WAITS = List.of("spin", "pause", "yield");
    /** Fault injection for the tests: {@code skip} makes the pong thread skip one value in the first run. */
    public static final List<String> INJECTS = List.of("none", "skip");
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
        return new String[] {"iterations=50000000", "runs=5", "warmup-runs=2", "wait=spin", "pin=",
                             "sample-every=1000", "max-ms=20000"};
    }

    public static String[] waits() {
        return WAITS.toArray(new String[0]);
    }

    public static void main(final String[] argv) {
        Kernels.main("VolatilePingPong", argv, VolatilePingPong::run);
    }

    private static void run(final Args args) throws Exception {
        final long iterations = args.longValue("iterations", 50_000_000L, 1, Long.MAX_VALUE / 4);
        final int runs = args.intValue("runs", 5, 1, 1_000_000);
        final int warmupRuns = args.intValue("warmup-runs", 2, 0, 1_000_000);
        final String wait = args.choice("wait", "spin", WAITS);
        final int[] pin = args.cpuList("pin");
        final long sampleEvery = args.longValue("sample-every", 1000, 0, Long.MAX_VALUE / 4);
        final long maxMs = args.longValue("max-ms", 20_000L, 1, 86_400_000L);
        final String inject = args.choice("inject", "none", INJECTS);
        args.finish();
        checkPin(pin);

        final Csv csv = new Csv("pinning");
        final List<String> extra = List.of(pin.length == 0 ? "none" : "thread");
        final Result[] results = measure(iterations, warmupRuns + runs, wait, pin, sampleEvery, maxMs,
            inject.equals("skip") ? iterations / 2 : -1);
        for (int i = 0; i < results.length; i++) {
            results[i].emit(csv, extra, i, i < warmupRuns);
        }
        RoundTrips.emitTimer(csv, extra);
        csv.flush(System.out);
    }

    static void checkPin(final int[] pin) {
        if (pin.length != 0 && pin.length != 2) {
            throw new BadArgument("--pin=" + join(pin) + ": give two CPU ids (first thread, second thread), e.g. --pin=0,1");
        }
        final String online = onlineCpus();
        for (final int c : pin) {
            if (c < 0 || !(online.isEmpty() || cpuListContains(online, c))) {
                throw new BadArgument("--pin=" + join(pin) + ": CPU " + c + " is not online (online CPUs: " + online + ")");
            }
        }
    }

    /** Pins the calling thread; a taskset failure becomes a one-line BadArgument. */
    static void pin(final int cpu) {
        try {
            Affinity.pinCurrentThread(cpu);
        } catch (BadArgument e) {
            throw new BadArgument(String.join("; ", e.getMessage().strip().split("\\R")));
        }
    }

    /** The content of /sys/devices/system/cpu/online (e.g. "0-1"), or "" when unreadable. */
    static String onlineCpus() {
        try {
            return java.nio.file.Files.readString(java.nio.file.Path.of("/sys/devices/system/cpu/online")).strip();
        } catch (java.io.IOException | RuntimeException e) {
            return "";
        }
    }

    static boolean cpuListContains(final String list, final int cpu) {
        for (final String part : list.split(",")) {
            final String p = part.strip();
            if (p.isEmpty()) {
                continue;
            }
            final int dash = p.indexOf('-');
            try {
                final int lo = Integer.parseInt(dash < 0 ? p : p.substring(0, dash));
                final int hi = dash < 0 ? lo : Integer.parseInt(p.substring(dash + 1));
                if (cpu >= lo && cpu <= hi) {
                    return true;
                }
            } catch (NumberFormatException e) {
                return true;   // cannot tell: let taskset decide
            }
        }
        return false;
    }

    static String join(final int[] a) {
        final StringBuilder sb = new StringBuilder();
        for (final int v : a) {
            sb.append(sb.length() == 0 ? "" : ",").append(v);
        }
        return sb.toString();
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

    /**
     * {@code runs} runs of {@code iterations} exchanges on the same two threads.
     * Throws {@link CheckFailed} when any value was lost, repeated or out of
     * order. Public so that the Python bench can call it in process (JPype).
     */
    public static Result[] measure(final long iterations, final int runs, final String wait, final int[] pin,
                                   final long sampleEvery, final long maxMs) throws InterruptedException {
        return measure(iterations, runs, wait, pin, sampleEvery, maxMs, -1);
    }

    /**
     * As {@link #measure(long, int, String, int[], long, long)}; with {@code skipAt >= 0} the pong thread of the
     * first run skips the value after {@code skipAt} (a fault, for the tests: the check must catch it).
     */
    public static Result[] measure(final long iterations, final int runs, final String wait, final int[] pin,
                                   final long sampleEvery, final long maxMs, final long skipAt)
            throws InterruptedException {
        if (iterations < 1) {
            throw new BadArgument("--iterations=" + iterations + ": must be at least 1");
        }
        if (!WAITS.contains(wait)) {
            throw new BadArgument("--wait=" + wait + ": allowed values are " + String.join(", ", WAITS));
        }
        checkPin(pin);
        final int mode = WAITS.indexOf(wait);
        final Result[] results = new Result[runs];
        for (int r = 0; r < runs; r++) {
            results[r] = new Result(iterations, sampleEvery);
        }
        final long[] pongMismatches = new long[1];
        final String[] pingFailure = new String[1];
        final CyclicBarrier start = new CyclicBarrier(2, () -> {
            s1 = 0L;
            s2 = 0L;
            stop = false;
        });
        final CyclicBarrier end = new CyclicBarrier(2);
        final Throwable[] failure = new Throwable[1];

        final Thread ping = new Thread(() -> {
            try {
                if (pin.length == 2) {
                    pin(pin[0]);
                }
                for (int r = 0; r < runs; r++) {
                    start.await();
                    final String bad = pingRun(results[r], mode, sampleEvery, maxMs);
                    if (bad != null && pingFailure[0] == null) {
                        pingFailure[0] = "run " + r + ": " + bad;
                    }
                    end.await();
                }
            } catch (InterruptedException | BrokenBarrierException | RuntimeException e) {
                fail(failure, e, start, end);
            }
        }, "ping");
        final Thread pong = new Thread(() -> {
            try {
                if (pin.length == 2) {
                    pin(pin[1]);
                }
                for (int r = 0; r < runs; r++) {
                    start.await();
                    pongMismatches[0] += pongRun(iterations, mode, r == 0 ? skipAt : -1);
                    end.await();
                    final long n = results[r].exchanges;
                    final long v1 = s1;
                    final long v2 = s2;
                    final boolean counters = results[r].deadlineHit
                        ? (v2 == n || v2 == n + 1) && (v1 == n + 1 || v1 == n)
                        : v1 == iterations && v2 == iterations && n == iterations;
                    if (!counters && pingFailure[0] == null) {
                        pingFailure[0] = "run " + r + ": counters s1=" + v1 + ", s2=" + v2 + " after " + n
                            + " completed exchanges of " + iterations;
                    }
                }
            } catch (InterruptedException | BrokenBarrierException | RuntimeException e) {
                fail(failure, e, start, end);
            }
        }, "pong");
        ping.setDaemon(true);
        pong.setDaemon(true);
        Threads.startJoinRethrow(failure, "signalling thread", ping, pong);
        CheckFailed.require(pingFailure[0] == null, pingFailure[0]);
        CheckFailed.require(pongMismatches[0] == 0,
            pongMismatches[0] + " values were not echoed in order (pong saw s1 skip or repeat)");
        return results;
    }

    /** Convenience for in-process callers: one unpinned busy-spin run; returns ns/op. */
    public static double nsPerOp(final long iterations) throws InterruptedException {
        return measure(iterations, 1, "spin", new int[0], 0, 60_000)[0].nsPerOp();
    }

    private static void fail(final Throwable[] failure, final Throwable e, final CyclicBarrier a, final CyclicBarrier b) {
        synchronized (failure) {
            if (failure[0] == null) {
                failure[0] = e;
            }
        }
        stop = true;
        a.reset();
        b.reset();
    }

    /** The ping side of one run; returns a description of an ordering fault, or null. */
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

    /**
     * The pong side of one run; returns how many values were not the expected next one. The
     * {@code value == skipAt} test (a predicted branch, never taken outside the tests) is the only addition
     * to the post's loop; the C kernel has the same one.
     */
    private static long pongRun(final long iterations, final int mode, final long skipAt) {
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
                ++s2;   // the injected fault: one value is never echoed
            }
            value = ++s2;
        }
        return mismatches;
    }
}
