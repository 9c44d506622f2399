package mechsym.signalling;

import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import mechsym.common.Affinity;
import mechsym.common.Args;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.Defaults;
import mechsym.common.JitGc;
import mechsym.common.Kernels;


/**
 * Two threads hand control back and forth through one lock and two
 * condition variables.
 *
 * <p>The claim ("Locks &amp; Condition Variables - Latency Impact", 2011-11-05, Martin Thompson): signalling
 * through a {@code ReentrantLock} and two {@code Condition}s costs about three orders of magnitude more than
 * through volatile counters ({@link VolatilePingPong}): 2,023 ns/op pinned on a 2.8 GHz Nehalem, 8,489
 * unpinned, because the kernel must arbitrate the lock and wake the waiting thread. As in the post: the sender
 * sets {@code sendValue = i}, signals {@code sendCondition} and waits on {@code echoCondition} for the echo of
 * {@code i}; the echo thread waits for {@code sendValue == i}, sets {@code echoValue = i} and signals back;
 * all statics; ns/op = duration / (2 x iterations).
 *
 * <p>Protocols ({@code --protocol}):
 * <ul>
 *   <li>{@code post}: the listing. Two fresh threads per run, the post's {@code while (value != i) await()}
 *       loops, the clock on the calling thread from starting them to joining both; checks after it. Deliberate
 *       differences: the threads are created (and pinned) before the clock and released by a latch, so thread
 *       creation is not timed; several runs per JVM; every {@code --max-ms} the joining thread looks at the
 *       values: asleep in a state no healthy run passes through is exit 3, a run in step that did not move is
 *       given up (exit 1).</li>
 *   <li>{@code lab} (the default): threads reused across runs, warm-up runs first, the clock started at a
 *       barrier; loops {@code while (value < i)} and then a check that exactly {@code i} arrived (no cost showed
 *       in an A/B, commit 44ac982); sampled round trips ({@link RoundTrips}).</li>
 * </ul>
 * {@code --pin=a,b}: sender on CPU a, echo on CPU b. No fidelity measurement against the listing exists yet
 * ({@code data/fidelity/}). {@code --inject=skip} (tests): in the first run the echo thread echoes a value never
 * sent: exit 3, in either protocol.
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -cp build/mechsym.jar mechsym.signalling.LockedSignalling --iterations=1000000 --pin=0,1
 *   java -cp build/mechsym.jar mechsym.signalling.LockedSignalling --protocol=post --iterations=1000000
 * </pre>
 * Per run {@code duration}, {@code ns_per_op}, {@code throughput}, {@code exchanges}. The post saw ~2 µs per
 * op pinned on bare metal; on a VM a wake-up across vCPUs can cost tens of µs, and {@code --pin=0,0} can then
 * be the fastest placement.
 */
public final class LockedSignalling {
    public static final List<String> PROTOCOLS = VolatilePingPong.PROTOCOLS;
    public static final List<String> INJECTS = VolatilePingPong.INJECTS;

    static final ReentrantLock LOCK = new ReentrantLock();
    static final Condition SEND_CONDITION = LOCK.newCondition();
    static final Condition ECHO_CONDITION = LOCK.newCondition();

    static long sendValue = -1L;
    static long echoValue = -1L;

    private LockedSignalling() {
    }

    /** The kernel's defaults, for the Python bench (read through JPype). */
    public static String[] defaults() {
        return Defaults.of(LockedSignalling::run);
    }

    public static String[] protocols() {
        return PROTOCOLS.toArray(new String[0]);
    }

    public static void main(final String[] argv) {
        Kernels.main("LockedSignalling", argv, LockedSignalling::run);
    }

    private static void run(final Args args) throws Exception {
        final String protocol = args.choice("protocol", "lab", PROTOCOLS);
        final boolean post = protocol.equals("post");
        final long iterations = args.longValue("iterations", 1_000_000L, 1, Long.MAX_VALUE / 4);
        final int runs = args.intValue("runs", 5, 1, 1_000_000);
        final int warmupRuns = args.intValue("warmup-runs", 1, 0, 1_000_000);
        final int[] pin = args.cpuList("pin");
        final long sampleEvery = args.longValue("sample-every", post ? 0 : 100, 0, Long.MAX_VALUE / 4);
        final long maxMs = args.longValue("max-ms", 600_000L, 1, 86_400_000L);
        final String inject = args.choice("inject", "none", INJECTS);
        args.finish();
        Affinity.checkPin("pin", pin, 2, "sender thread, echo thread");
        if (post) {
            VolatilePingPong.requirePostArguments("spin", sampleEvery);
        }

        JitGc.open();
        final Csv csv = new Csv("pinning");
        final List<String> extra = List.of(Affinity.pinning(pin));
        final boolean skip = inject.equals("skip");
        final RunResult[] results = post
            ? measurePost(iterations, warmupRuns + runs, pin, maxMs, skip)
            : measure(iterations, warmupRuns + runs, pin, sampleEvery, maxMs, skip);
        for (int i = 0; i < results.length; i++) {
            results[i].emit(csv, extra, i, i < warmupRuns);
        }
        RoundTrips.emitTimer(csv, extra);
        csv.flush(System.out);
    }

    // ------------------------------------------- the protocols' harnesses (public: JPype)

    /** {@code runs} runs of the listing's loops: {@link LockedPostHarness#measurePost}. */
    public static RunResult[] measurePost(final long iterations, final int runs, final int[] pin,
                                                        final long maxMs, final boolean skip)
            throws InterruptedException {
        return LockedPostHarness.measurePost(iterations, runs, pin, maxMs, skip);
    }

    /**
     * {@code runs} runs of {@code iterations} exchanges on the same two threads.
     * Throws {@link CheckFailed} when a value was not echoed exactly and in
     * order. Public so that the Python bench can call it in process (JPype).
     */
    public static RunResult[] measure(final long iterations, final int runs, final int[] pin,
                                                    final long sampleEvery) throws InterruptedException {
        return measure(iterations, runs, pin, sampleEvery, 600_000L, false);
    }

    /**
     * As above; with {@code skip} the echo thread of the first run echoes a wrong value once (for the tests). The
     * lab harness: {@link LockedLabHarness#measure}.
     */
    public static RunResult[] measure(final long iterations, final int runs, final int[] pin,
                                                    final long sampleEvery, final long maxMs, final boolean skip)
            throws InterruptedException {
        return LockedLabHarness.measure(iterations, runs, pin, sampleEvery, maxMs, skip);
    }

    /** Convenience for in-process callers: one unpinned run; returns ns/op. */
    public static double nsPerOp(final long iterations) throws InterruptedException {
        return measure(iterations, 1, new int[0], 0)[0].nsPerOp();
    }
}
