package mechsym.signalling;

import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import mechsym.common.Args;
import mechsym.common.BadArgument;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.Kernels;
import mechsym.common.Threads;

/**
 * Two threads hand control back and forth through one lock and two
 * condition variables.
 *
 * <p>The claim under test ("Locks &amp; Condition Variables - Latency Impact",
 * 2011-11-05, Martin Thompson): signalling through a {@code ReentrantLock}
 * and two {@code Condition}s costs about three orders of magnitude more than
 * signalling through volatile counters ({@link VolatilePingPong}): 2,023 ns/op
 * pinned ({@code taskset -c 2,4}) on a 2.8 GHz Nehalem under Linux, several
 * times more unpinned (8,489 ns/op; 16,808 on a 2.0 GHz Sandy Bridge), because
 * the kernel must arbitrate the lock and wake the waiting thread. The one-way
 * latency is microseconds, like a network hop.
 *
 * <p>As in the post: the sender sets {@code sendValue = i} and signals
 * {@code sendCondition} under the lock, then waits under the lock on
 * {@code echoCondition} until {@code echoValue == i}; the echo thread waits on
 * {@code sendCondition} until {@code sendValue == i}, then sets
 * {@code echoValue = i} and signals {@code echoCondition}. ns/op is the post's
 * definition, duration / (2 x iterations).
 *
 * <p>Changes from the post's code, all deliberate: the two threads are reused
 * for every run (warm-up runs first, marked {@code warmup=true}) and the clock
 * starts when they meet at a barrier, not before thread creation; the wait
 * loops are {@code while (value < i)} instead of {@code != i} and each side
 * then checks that it saw exactly {@code i}, so a lost, repeated or reordered
 * value is reported (exit 3, no number) instead of hanging; every
 * {@code --sample-every}-th round trip is timed on its own (percentiles, see
 * {@link RoundTrips}); the timer's own cost is reported; optional per-thread
 * pinning ({@code --pin=a,b}: sender on CPU a, echo on CPU b). No deadline is
 * needed: a waiting thread sleeps, so even two threads on one CPU make
 * progress on every signal.
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -cp build/mechsym.jar mechsym.signalling.LockedSignalling --iterations=1000000 --pin=0,1
 * </pre>
 * prints CSV (pinning, iteration, warmup, metric, value, unit): per run
 * {@code duration} (ns), {@code ns_per_op} (ns/op), {@code throughput}
 * (ops/s), {@code exchanges}, round-trip percentiles, and once
 * {@code timer_cost}. The post saw ~2 µs per op pinned on bare metal; on a
 * virtual machine a wake-up across vCPUs can cost tens of µs, and both threads
 * on one CPU ({@code --pin=0,0}) can then be the fastest placement.
 */
public final class LockedSignalling {
    private static final ReentrantLock LOCK = new ReentrantLock();
    private static final Condition SEND_CONDITION = LOCK.newCondition();
    private static final Condition ECHO_CONDITION = LOCK.newCondition();

    private static long sendValue = -1L;
    private static long echoValue = -1L;

    private LockedSignalling() {
    }

    /** The kernel's defaults, for the Python bench (read through JPype). */
    public static String[] defaults() {
        return new String[] {"iterations=1000000", "runs=5", "warmup-runs=1", "pin=", "sample-every=100"};
    }

    public static void main(final String[] argv) {
        Kernels.main("LockedSignalling", argv, LockedSignalling::run);
    }

    private static void run(final Args args) throws Exception {
        final long iterations = args.longValue("iterations", 1_000_000L, 1, Long.MAX_VALUE / 4);
        final int runs = args.intValue("runs", 5, 1, 1_000_000);
        final int warmupRuns = args.intValue("warmup-runs", 1, 0, 1_000_000);
        final int[] pin = args.cpuList("pin");
        final long sampleEvery = args.longValue("sample-every", 100, 0, Long.MAX_VALUE / 4);
        final String inject = args.choice("inject", "none", VolatilePingPong.INJECTS);
        args.finish();
        VolatilePingPong.checkPin(pin);

        final Csv csv = new Csv("pinning");
        final List<String> extra = List.of(pin.length == 0 ? "none" : "thread");
        final VolatilePingPong.Result[] results = measure(iterations, warmupRuns + runs, pin, sampleEvery,
            inject.equals("skip") ? iterations / 2 : -1);
        for (int i = 0; i < results.length; i++) {
            results[i].emit(csv, extra, i, i < warmupRuns);
        }
        RoundTrips.emitTimer(csv, extra);
        csv.flush(System.out);
    }

    /**
     * {@code runs} runs of {@code iterations} exchanges on the same two threads.
     * Throws {@link CheckFailed} when a value was not echoed exactly and in
     * order. Public so that the Python bench can call it in process (JPype).
     */
    public static VolatilePingPong.Result[] measure(final long iterations, final int runs, final int[] pin,
                                                    final long sampleEvery) throws InterruptedException {
        return measure(iterations, runs, pin, sampleEvery, -1);
    }

    /** As above; with {@code skipAt >= 0} the echo thread of the first run echoes a wrong value once (for the tests). */
    public static VolatilePingPong.Result[] measure(final long iterations, final int runs, final int[] pin,
                                                    final long sampleEvery, final long skipAt)
            throws InterruptedException {
        if (iterations < 1) {
            throw new BadArgument("--iterations=" + iterations + ": must be at least 1");
        }
        VolatilePingPong.checkPin(pin);
        final VolatilePingPong.Result[] results = new VolatilePingPong.Result[runs];
        for (int r = 0; r < runs; r++) {
            results[r] = new VolatilePingPong.Result(iterations, sampleEvery);
        }
        final String[] bad = new String[2];
        final CyclicBarrier start = new CyclicBarrier(2, () -> {
            sendValue = -1L;
            echoValue = -1L;
        });
        final CyclicBarrier end = new CyclicBarrier(2);
        final Throwable[] failure = new Throwable[1];

        final Thread sender = new Thread(() -> {
            try {
                if (pin.length == 2) {
                    VolatilePingPong.pin(pin[0]);
                }
                for (int r = 0; r < runs; r++) {
                    start.await();
                    final String b = send(results[r], sampleEvery);
                    if (b != null && bad[0] == null) {
                        bad[0] = "run " + r + ": " + b;
                    }
                    end.await();
                }
            } catch (InterruptedException | BrokenBarrierException | RuntimeException e) {
                fail(failure, e, start, end);
            }
        }, "send");
        final Thread echo = new Thread(() -> {
            try {
                if (pin.length == 2) {
                    VolatilePingPong.pin(pin[1]);
                }
                for (int r = 0; r < runs; r++) {
                    start.await();
                    final String b = echo(iterations, r == 0 ? skipAt : -1);
                    if (b != null && bad[1] == null) {
                        bad[1] = "run " + r + ": " + b;
                    }
                    end.await();
                }
            } catch (InterruptedException | BrokenBarrierException | RuntimeException e) {
                fail(failure, e, start, end);
            }
        }, "echo");
        sender.setDaemon(true);
        echo.setDaemon(true);
        Threads.startJoinRethrow(failure, "signalling thread", sender, echo);
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

    private static void fail(final Throwable[] failure, final Throwable e, final CyclicBarrier a, final CyclicBarrier b) {
        synchronized (failure) {
            if (failure[0] == null) {
                failure[0] = e;
            }
        }
        a.reset();
        b.reset();
    }

    /** The sending side of one run; returns a description of an ordering fault, or null. */
    private static String send(final VolatilePingPong.Result result, final long sampleEvery)
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

    /** The echo side of one run; returns a description of an ordering fault, or null. */
    private static String echo(final long iterations, final long skipAt) throws InterruptedException {
        for (long i = 0; i < iterations; i++) {
            LOCK.lock();
            try {
                while (sendValue < i) {
                    SEND_CONDITION.await();
                }
                if (sendValue != i) {
                    final long received = sendValue;
                    echoValue = Long.MAX_VALUE;   // releases the sender
                    ECHO_CONDITION.signal();
                    return "expected " + i + ", received " + received;
                }
            } finally {
                LOCK.unlock();
            }

            LOCK.lock();
            try {
                echoValue = i == skipAt ? i + 1 : i;   // i + 1 only for the injected fault
                ECHO_CONDITION.signal();
            } finally {
                LOCK.unlock();
            }
        }
        return null;
    }
}
