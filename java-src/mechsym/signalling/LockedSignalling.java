package mechsym.signalling;

import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

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

    private static final ReentrantLock LOCK = new ReentrantLock();
    private static final Condition SEND_CONDITION = LOCK.newCondition();
    private static final Condition ECHO_CONDITION = LOCK.newCondition();

    private static long sendValue = -1L;
    private static long echoValue = -1L;

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

    // ------------------------------------------------------------------ post

    /**
     * {@code runs} runs of the listing's loops, two fresh threads each, timed on
     * the calling thread from their start to their join. Throws
     * {@link CheckFailed} when a run's values did not end at
     * {@code iterations - 1} or the run stalled with the echo out of step.
     */
    public static RunResult[] measurePost(final long iterations, final int runs, final int[] pin,
                                                        final long maxMs, final boolean skip)
            throws InterruptedException {
        Affinity.checkPin("pin", pin, 2, "sender thread, echo thread");
        JitGc.open();
        final RunResult[] results = new RunResult[runs];
        for (int r = 0; r < runs; r++) {
            results[r] = postRun(r, iterations, pin, maxMs, skip && r == 0);
        }
        return results;
    }

    private static RunResult postRun(final int run, final long iterations, final int[] pin,
                                                   final long maxMs, final boolean skip) throws InterruptedException {
        LOCK.lock();
        try {
            sendValue = -1L;
            echoValue = -1L;
        } finally {
            LOCK.unlock();
        }
        final JitGc jitGc = new JitGc();
        final FirstFailure failure = new FirstFailure();
        final CountDownLatch ready = new CountDownLatch(2);
        final CountDownLatch go = new CountDownLatch(1);
        final long skipAt = iterations / 2;
        final Thread sendThread = Threads.worker("send", Affinity.cpuOf(pin, 0), failure, () -> {
            ready.countDown();
            go.await();
            postSend(iterations);
        }, ready::countDown);
        final Thread echoThread = Threads.worker("echo", Affinity.cpuOf(pin, 1), failure, () -> {
            ready.countDown();
            go.await();
            if (skip) {
                postEchoSkipping(iterations, skipAt);
            } else {
                postEcho(iterations);
            }
        }, ready::countDown);
        sendThread.setDaemon(true);
        echoThread.setDaemon(true);
        echoThread.start();
        sendThread.start();
        ready.await();
        failure.rethrow("signalling thread");   // one could not be pinned

        jitGc.start();
        final long start = System.nanoTime();   // the timed region: start, run, join, as the post's main
        go.countDown();
        joinWhileProgressing(run, sendThread, maxMs, failure);
        joinWhileProgressing(run, echoThread, maxMs, failure);
        final long duration = System.nanoTime() - start;
        jitGc.stop();

        failure.rethrow("signalling thread");
        CheckFailed.require(sendValue == iterations - 1 && echoValue == iterations - 1, "run " + run + ": sendValue="
            + sendValue + ", echoValue=" + echoValue + " after " + iterations + " exchanges");
        final RunResult result = new RunResult(iterations, 0, jitGc);
        result.duration = duration;
        result.exchanges = iterations;
        return result;
    }

    /**
     * Joins {@code t}; every {@code maxMs} it is still running, looks at the values under the lock (the only
     * time anything but the two threads touches them, and never in a run shorter than {@code maxMs}): out of
     * step is a {@link CheckFailed} (with the post's loops a value echoed that was never sent leaves both
     * threads waiting for good, in a state no healthy run passes through); in step but not moved since the last
     * look is a stalled run (an error); otherwise it waits on.
     */
    private static void joinWhileProgressing(final int run, final Thread t, final long maxMs,
                                             final FirstFailure failure) throws InterruptedException {
        long lastSent = Long.MIN_VALUE;
        while (true) {
            t.join(maxMs);
            if (!t.isAlive()) {
                return;
            }
            failure.rethrow("signalling thread");
            final long sent;
            final long echoed;
            LOCK.lock();
            try {
                sent = sendValue;
                echoed = echoValue;
            } finally {
                LOCK.unlock();
            }
            CheckFailed.require(echoed == sent || echoed == sent - 1, "run " + run + ": sent " + sent + ", echo was "
                + echoed + ": the exchange is out of step");
            if (sent == lastSent) {
                throw new IllegalStateException("run " + run + " made no progress for --max-ms=" + maxMs + " (sent "
                    + sent + ", echo " + echoed + ")");
            }
            lastSent = sent;
        }
    }

    /** The listing's sender loop. */
    private static void postSend(final long iterations) throws InterruptedException {
        for (long i = 0; i < iterations; i++) {
            LOCK.lock();
            try {
                sendValue = i;
                SEND_CONDITION.signal();
            } finally {
                LOCK.unlock();
            }

            LOCK.lock();
            try {
                while (echoValue != i) {
                    ECHO_CONDITION.await();
                }
            } finally {
                LOCK.unlock();
            }
        }
    }

    /** The listing's echo loop. */
    private static void postEcho(final long iterations) throws InterruptedException {
        for (long i = 0; i < iterations; i++) {
            LOCK.lock();
            try {
                while (sendValue != i) {
                    SEND_CONDITION.await();
                }
            } finally {
                LOCK.unlock();
            }

            LOCK.lock();
            try {
                echoValue = i;
                ECHO_CONDITION.signal();
            } finally {
                LOCK.unlock();
            }
        }
    }

    /** {@link #postEcho} with the injected fault: at {@code skipAt} it echoes {@code skipAt + 1}. */
    private static void postEchoSkipping(final long iterations, final long skipAt) throws InterruptedException {
        for (long i = 0; i < iterations; i++) {
            LOCK.lock();
            try {
                while (sendValue != i) {
                    SEND_CONDITION.await();
                }
            } finally {
                LOCK.unlock();
            }

            LOCK.lock();
            try {
                echoValue = i == skipAt ? i + 1 : i;
                ECHO_CONDITION.signal();
            } finally {
                LOCK.unlock();
            }
        }
    }

    // ------------------------------------------------------------------- lab

    /**
     * {@code runs} runs of {@code iterations} exchanges on the same two threads.
     * Throws {@link CheckFailed} when a value was not echoed exactly and in
     * order. Public so that the Python bench can call it in process (JPype).
     */
    public static RunResult[] measure(final long iterations, final int runs, final int[] pin,
                                                    final long sampleEvery) throws InterruptedException {
        return measure(iterations, runs, pin, sampleEvery, 600_000L, false);
    }

    /** As above; with {@code skip} the echo thread of the first run echoes a wrong value once (for the tests). */
    public static RunResult[] measure(final long iterations, final int runs, final int[] pin,
                                                    final long sampleEvery, final long maxMs, final boolean skip)
            throws InterruptedException {
        if (iterations < 1) {
            throw new BadArgument("--iterations=" + iterations + ": must be at least 1");
        }
        Affinity.checkPin("pin", pin, 2, "sender thread, echo thread");
        JitGc.open();
        final RunResult[] results = new RunResult[runs];
        for (int r = 0; r < runs; r++) {
            results[r] = new RunResult(iterations, sampleEvery);
        }
        final String[] bad = new String[2];
        final CyclicBarrier start = new CyclicBarrier(2, () -> {
            sendValue = -1L;
            echoValue = -1L;
        });
        final CyclicBarrier end = new CyclicBarrier(2);
        final FirstFailure failure = new FirstFailure();
        final Runnable release = () -> {
            start.reset();
            end.reset();
        };
        final long skipAt = iterations / 2;

        final Thread sender = Threads.worker("send", Affinity.cpuOf(pin, 0), failure, () -> {
            for (int r = 0; r < runs; r++) {
                start.await();
                results[r].jitGc.start();
                final String b = send(results[r], sampleEvery);
                results[r].jitGc.stop();
                if (b != null && bad[0] == null) {
                    bad[0] = "run " + r + ": " + b;
                }
                end.await();
            }
        }, release);
        final Thread echo = Threads.worker("echo", Affinity.cpuOf(pin, 1), failure, () -> {
            for (int r = 0; r < runs; r++) {
                start.await();
                final String b = skip && r == 0 ? echoSkipping(iterations, skipAt) : echo(iterations);
                if (b != null && bad[1] == null) {
                    bad[1] = "run " + r + ": " + b;
                }
                end.await();
            }
        }, release);
        sender.setDaemon(true);
        echo.setDaemon(true);
        sender.start();
        echo.start();
        final long limitMs = maxMs > Long.MAX_VALUE / runs ? Long.MAX_VALUE : maxMs * runs;
        final long begin = System.nanoTime();
        sender.join(limitMs);
        final long left = limitMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin);
        if (left > 0) {
            echo.join(left);
        }
        if (sender.isAlive() || echo.isAlive()) {
            failure.rethrow("signalling thread");
            throw new IllegalStateException(runs + " runs did not finish within " + runs + " x --max-ms=" + maxMs);
        }
        failure.rethrow("signalling thread");
        CheckFailed.require(bad[0] == null, "sender: " + bad[0]);
        CheckFailed.require(bad[1] == null, "echo: " + bad[1]);
        for (int r = 0; r < runs; r++) {
            CheckFailed.require(results[r].exchanges == iterations,
                "run " + r + ": " + results[r].exchanges + " exchanges completed of " + iterations);
        }
        return results;
    }

    /** Convenience for in-process callers: one unpinned run; returns ns/op. */
    public static double nsPerOp(final long iterations) throws InterruptedException {
        return measure(iterations, 1, new int[0], 0)[0].nsPerOp();
    }

    /** The sending side of one lab run; returns a description of an ordering fault, or null. */
    private static String send(final RunResult result, final long sampleEvery)
            throws InterruptedException {
        final long iterations = result.iterations;
        final RoundTrips samples = result.roundTrips;
        samples.reset();
        long countdown = sampleEvery > 0 ? 1 : Long.MAX_VALUE;
        final long begin = System.nanoTime();
        long exchanges = 0;
        String bad = null;
        for (long i = 0; i < iterations; i++) {
            long t0 = 0;
            final boolean sample = --countdown == 0;
            if (sample) {
                countdown = sampleEvery;
                t0 = System.nanoTime();
            }
            LOCK.lock();
            try {
                sendValue = i;
                SEND_CONDITION.signal();
            } finally {
                LOCK.unlock();
            }

            LOCK.lock();
            try {
                while (echoValue < i) {
                    ECHO_CONDITION.await();
                }
                if (echoValue != i) {
                    bad = "sent " + i + ", echo was " + echoValue;
                }
            } finally {
                LOCK.unlock();
            }
            if (bad != null) {
                break;
            }
            if (sample) {
                samples.record(System.nanoTime() - t0);
            }
            exchanges++;
        }
        result.duration = System.nanoTime() - begin;
        result.exchanges = exchanges;
        if (bad != null) {
            LOCK.lock();
            try {
                sendValue = Long.MAX_VALUE;   // releases the echo thread
                SEND_CONDITION.signal();
            } finally {
                LOCK.unlock();
            }
        }
        return bad;
    }

    /** The echo side of one lab run; returns a description of an ordering fault, or null. */
    private static String echo(final long iterations) throws InterruptedException {
        for (long i = 0; i < iterations; i++) {
            LOCK.lock();
            try {
                while (sendValue < i) {
                    SEND_CONDITION.await();
                }
                if (sendValue != i) {
                    return outOfStep(i);
                }
            } finally {
                LOCK.unlock();
            }

            LOCK.lock();
            try {
                echoValue = i;
                ECHO_CONDITION.signal();
            } finally {
                LOCK.unlock();
            }
        }
        return null;
    }

    /** {@link #echo} with the injected fault: at {@code skipAt} it echoes {@code skipAt + 1}. */
    private static String echoSkipping(final long iterations, final long skipAt) throws InterruptedException {
        for (long i = 0; i < iterations; i++) {
            LOCK.lock();
            try {
                while (sendValue < i) {
                    SEND_CONDITION.await();
                }
                if (sendValue != i) {
                    return outOfStep(i);
                }
            } finally {
                LOCK.unlock();
            }

            LOCK.lock();
            try {
                echoValue = i == skipAt ? i + 1 : i;
                ECHO_CONDITION.signal();
            } finally {
                LOCK.unlock();
            }
        }
        return null;
    }

    /** Called under the lock when the sender's value is not the one expected; releases the sender. */
    private static String outOfStep(final long expected) {
        final long received = sendValue;
        echoValue = Long.MAX_VALUE;
        ECHO_CONDITION.signal();
        return "expected " + expected + ", received " + received;
    }
}
