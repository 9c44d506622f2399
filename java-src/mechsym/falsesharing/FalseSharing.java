package mechsym.falsesharing;

import java.util.List;
import java.util.concurrent.CountDownLatch;

import mechsym.common.Affinity;
import mechsym.common.Args;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.Defaults;
import mechsym.common.FirstFailure;
import mechsym.common.JitGc;
import mechsym.common.Kernels;
import mechsym.common.Threads;

/**
 * N threads, each writing its own volatile counter: false sharing when the counters share a cache line.
 *
 * <p>The claims under test ("False Sharing", 2011-07-30, and "False Sharing &amp;&amp; Java 7", 2011-08-13,
 * Martin Thompson): counters that share a 64-byte line make the threads slower as threads are added, while
 * padded counters scale near-linearly (500 M writes per thread, 1-4 threads on a 4-core Nehalem); Java 7
 * "eliminated or re-ordered the unused fields" of the first post's padding; a padded AtomicLong subclass whose
 * padding is read ("summed") is the reliable technique.
 *
 * <p>As in the listings: counter k lives in a static array filled before the run; thread k runs
 * {@code long i = N + 1; while (0 != --i) longs[k].value = i;}. Layouts ({@code --layout}, see {@link Layouts}):
 * {@code unpadded}, {@code padded-longs} (the first post), {@code padded-atomic} (the second post),
 * {@code inherited} (JCTools-style class chain), {@code contended} (needs {@code -XX:-RestrictContended}),
 * {@code array-stride} (one long[], counters a line apart). {@code --array-offset} places the {@code longs} array
 * in its cache line ({@link Placement}); each run records where it landed ({@code array_offset},
 * {@code array_shares_line}). ns/op = duration / N; throughput = threads x N / duration.
 *
 * <p>Protocols ({@code --protocol}): {@code post}, the listing's run once per JVM: fresh counters and threads,
 * the clock around starting and joining them, the loop compiled while it runs. Deliberate differences: N and
 * the thread count are arguments; each thread pins itself ({@code --pin}) and waits at a gate before the clock
 * starts, so thread creation and {@code taskset} are not timed (the listing's clock covered
 * {@code Thread.start}, well under a millisecond against seconds); the counters are checked after the clock.
 * {@code lab} (the default): the same run repeated in one JVM, warm-up runs first, then measured runs.
 *
 * <p>Checks after every run: each counter holds 1, the last value its loop writes; the padded AtomicLong's
 * padding sums to 7 (the listing's {@code sumPaddingToPreventOptimisation}). {@code --inject=short} (tests):
 * thread 0 of the first run runs a loop (chosen before the run) that stops two writes early: exit 3, no number.
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -cp build/mechsym.jar mechsym.falsesharing.FalseSharing --layout=unpadded --threads=2 --pin=0,1 \
 *        --iterations=50000000
 *   java -cp build/mechsym.jar mechsym.falsesharing.FalseSharing --layout=padded-atomic ... (same arguments)
 *   java -XX:-RestrictContended -cp build/mechsym.jar mechsym.falsesharing.FalseSharing --layout=contended ...
 * </pre>
 * Per run {@code duration} (ns), {@code ns_per_op}, {@code throughput}. With one thread all layouts alike; with
 * two threads on two cores the unpadded layout slower than the padded ones by what one cache line's trip between
 * the cores costs (clear on the post's Nehalem; on a 2-vCPU virtual machine it differs from JVM to JVM).
 */
public final class FalseSharing {
    public static final List<String> PROTOCOLS = List.of("lab", "post");
    /** Fault injection for the tests: {@code short} stops thread 0's loop two writes early in the first run. */
    public static final List<String> INJECTS = List.of("none", "short");
    private static final String NAME = "FalseSharing";

    private FalseSharing() {
    }

    /** The kernel's defaults, for the Python bench (read through JPype). */
    public static String[] defaults() {
        return Defaults.of(FalseSharing::run);
    }

    public static String[] layouts() {
        return Layouts.NAMES.toArray(new String[0]);
    }

    public static void main(final String[] argv) {
        Kernels.main(NAME, argv, FalseSharing::run);
    }

    private static void run(final Args args) throws Exception {
        final boolean post = args.choice("protocol", "lab", PROTOCOLS).equals("post");
        final String layout = args.choice("layout", "unpadded", Layouts.NAMES);
        final int threads = args.intValue("threads", 4, 1, 256);
        final long iterations = args.longValue("iterations", post ? 500_000_000L : 50_000_000L, 3,
                                               Long.MAX_VALUE / 4);
        final int runs = args.intValue("runs", post ? 1 : 5, 1, 1_000_000);
        final int warmupRuns = args.intValue("warmup-runs", post ? 0 : 1, 0, 1_000_000);
        final int[] pin = args.cpuList("pin");
        final boolean inject = args.choice("inject", "none", INJECTS).equals("short");
        final String offset = args.choice("array-offset", Placement.AS_ALLOCATED, Placement.CHOICES);
        args.finish();
        Affinity.checkPin("pin", pin, threads, "one per thread");

        final Layouts.Counters counters = Layouts.create(layout);
        final Placement placement = Placement.of(offset);
        final Csv csv = new Csv("pinning");
        final List<String> extra = List.of(Affinity.pinning(pin));
        final JitGc[] jitGc = JitGc.regions(warmupRuns + runs);
        for (int r = 0; r < warmupRuns + runs; r++) {
            final long duration = measure(counters, placement, threads, iterations, pin, inject && r == 0, jitGc[r]);
            check(counters, threads, r);
            final boolean warmup = r < warmupRuns;
            csv.row(extra, r, warmup, "duration", duration, "ns");
            jitGc[r].rows(csv, extra, r, warmup);
            if (placement.recorded()) {
                csv.row(extra, r, warmup, "array_offset", placement.arrayOffset(counters), "bytes");
                csv.row(extra, r, warmup, "array_shares_line", placement.sharesArrayLine(counters, layout, threads),
                        "bool");
            }
            csv.row(extra, r, warmup, "ns_per_op", (double) duration / iterations, "ns/op");
            csv.row(extra, r, warmup, "throughput", threads * (double) iterations * 1e9 / duration, "ops/s");
        }
        csv.flush(System.out);
    }

    /**
     * One run: fresh counters (placed as {@code --array-offset} asks), {@code threads} fresh threads (each pinned to its CPU first, when asked), the
     * clock from opening their start gate to the last join, with the JIT and GC time inside it. Returns the
     * duration in ns.
     */
    static long measure(final Layouts.Counters counters, final Placement placement, final int threads,
                        final long iterations, final int[] pin, final boolean injectShort, final JitGc jitGc)
            throws InterruptedException {
        placement.allocate(counters, threads);
        JitGc.open();   // after the counters are placed: its allocations would move them (once per JVM)
        final CountDownLatch ready = new CountDownLatch(threads);
        final CountDownLatch go = new CountDownLatch(1);
        final FirstFailure failure = new FirstFailure();
        final Thread[] workers = new Thread[threads];
        for (int k = 0; k < threads; k++) {
            final int index = k;
            workers[k] = Threads.worker("writer-" + k, Affinity.cpuOf(pin, k), failure, () -> {
                ready.countDown();
                go.await();
                if (injectShort && index == 0) {
                    stopShort(counters, index, iterations);
                } else {
                    counters.run(index, iterations);
                }
            }, ready::countDown);
            workers[k].start();
        }
        ready.await();
        jitGc.start();
        final long start = System.nanoTime();
        go.countDown();
        for (final Thread t : workers) {
            t.join();
        }
        final long duration = System.nanoTime() - start;
        jitGc.stop();
        failure.rethrow("writer thread");
        return duration;
    }

    /** The injected fault: the listing's loop through the plain setter, stopping two writes early. */
    private static void stopShort(final Layouts.Counters counters, final int index, final long iterations) {
        long i = iterations + 1;
        while (2 != --i) {
            counters.set(index, i);
        }
    }

    private static void check(final Layouts.Counters counters, final int threads, final int run) {
        for (int k = 0; k < threads; k++) {
            final long v = counters.get(k);
            CheckFailed.require(v == 1L, "run " + run + ": counter " + k + " ends at " + v
                                + ", not 1: its thread did not complete its writes");
        }
        counters.checkPadding();
    }
}
