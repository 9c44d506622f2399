package mechsym.spsc;

import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import mechsym.common.CheckFailed;
import mechsym.common.FirstFailure;
import mechsym.common.JitGc;
import mechsym.common.Threads;

/**
 * The lab's harness of {@link SpscThroughput} ({@code --protocol=lab}, the
 * one the bench sweeps). Its changes from the post's, all deliberate: both
 * threads live for the whole run and meet at a barrier before each iteration
 * (the post started a new producer per iteration), so each is pinned once
 * ({@code --pin=P,C}); the values are {@code capacity + 1} distinct objects
 * sent in a fixed cycle (the post sent one constant), and the consumer checks
 * every value against the expected one, so a lost, duplicated, reordered or
 * overwritten element fails the run (an overwrite by k laps shifts the cycle
 * by k, never a multiple of capacity + 1); after each iteration, and once
 * more after the run, the queue must be empty. The clock starts when the
 * producer passes the barrier and stops when the consumer has taken the last
 * value.
 */
public final class LabHarness {
    private LabHarness() {
    }

    /** What the producer and consumer threads share for one run. */
    private static final class Shared {
        final SpscQueue queue;
        final Object[] values;
        final long ops;
        final long[] start;
        final long[] end;
        final JitGc[] jitGc;
        final FirstFailure failure = new FirstFailure();
        volatile boolean abort;

        Shared(final SpscQueue queue, final Object[] values, final long ops, final JitGc[] jitGc) {
            this.queue = queue;
            this.values = values;
            this.ops = ops;
            this.start = new long[jitGc.length];
            this.end = new long[jitGc.length];
            this.jitGc = jitGc;
        }

        /** A failed check: recorded (first one wins) and both threads told to stop. */
        void fail(final String why) {
            failure.record(new CheckFailed(why));
            abort = true;
        }
    }

    /**
     * One run: {@code iterations} x ({@code ops} values through {@code queue}).
     * Returns the nanoseconds of each iteration; throws {@link CheckFailed} when
     * a value arrived out of order, twice or not at all. Public so that tests
     * can call it in process through JPype.
     */
    public static long[] measure(final SpscQueue queue, final int capacity, final long ops, final int iterations,
                                 final int[] pin) throws InterruptedException {
        JitGc.open();
        return measure(queue, capacity, ops, iterations, pin, JitGc.regions(iterations));
    }

    /**
     * As above, with the JIT and GC time inside iteration i's clock in {@code jitGc[i]} (read by the producer as
     * it starts the clock, by the consumer as it stops it).
     */
    static long[] measure(final SpscQueue queue, final int capacity, final long ops, final int iterations,
                          final int[] pin, final JitGc[] jitGc) throws InterruptedException {
        if (jitGc.length != iterations) {
            throw new IllegalArgumentException(jitGc.length + " JIT/GC regions for " + iterations + " iterations");
        }
        final Object[] values = new Object[capacity + 1];
        for (int i = 0; i < values.length; i++) {
            values[i] = Long.valueOf(1_000_000L + i);
        }
        final Shared s = new Shared(queue, values, ops, jitGc);
        final CyclicBarrier barrier = new CyclicBarrier(2);
        final Runnable stop = () -> {
            s.abort = true;
            release(barrier);
        };
        final Thread producer = Threads.worker("spsc-producer", pin.length == 2 ? pin[0] : -1, s.failure,
                                               () -> body(s, barrier, true), stop);
        final Thread consumer = Threads.worker("spsc-consumer", pin.length == 2 ? pin[1] : -1, s.failure,
                                               () -> body(s, barrier, false), stop);
        Threads.startJoinRethrow(s.failure, "spsc thread", producer, consumer);
        // The consumer's check after each iteration can run before a faulty producer's extra offer lands; with one
        // value per iteration that extra then passes as the next iteration's value, and only the last iteration's
        // value is left over. Both threads have ended: the queue must be empty now.
        CheckFailed.require(queue.poll() == null, "the queue still held a value after the last iteration");
        final long[] durations = new long[iterations];
        for (int i = 0; i < iterations; i++) {
            durations[i] = s.end[i] - s.start[i];
            CheckFailed.require(durations[i] > 0, "iteration " + i + ": non-positive duration " + durations[i] + " ns");
        }
        return durations;
    }

    /** Convenience for in-process callers: a new queue by name, no pinning. */
    public static long[] measure(final String name, final int capacity, final long ops, final int iterations)
            throws InterruptedException {
        return measure(SpscQueue.create(name, capacity), capacity, ops, iterations, new int[0]);
    }

    /**
     * One thread's side of the run, after it has been pinned: meet the other at
     * the barrier, then produce (clock started) or consume (clock stopped, the
     * queue checked empty), once per iteration. A failed check is recorded in
     * {@code s} and stops both threads at their next barrier; an exception is
     * recorded by {@link Threads#worker}, which then runs {@code stop}.
     */
    private static void body(final Shared s, final CyclicBarrier barrier, final boolean isProducer)
            throws InterruptedException, BrokenBarrierException {
        for (int i = 0; i < s.start.length; i++) {
            barrier.await();
            if (s.abort) {
                return;
            }
            if (isProducer) {
                s.jitGc[i].start();
                s.start[i] = System.nanoTime();
                produce(s);
            } else {
                consume(s, i);
                s.end[i] = System.nanoTime();
                s.jitGc[i].stop();
                if (!s.abort && s.queue.poll() != null) {
                    s.fail("iteration " + i + ": the queue still held a value after all " + s.ops + " were taken");
                }
            }
        }
    }

    /**
     * After a failure, arrive at the barrier once more instead of resetting it:
     * the other thread, wherever it is, reaches its next barrier, sees
     * {@code abort} and returns (a reset could miss a thread that arrives later
     * and leave it waiting forever).
     */
    private static void release(final CyclicBarrier barrier) {
        try {
            barrier.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
            // the other thread has already gone
        }
    }

    private static void produce(final Shared s) {
        final SpscQueue q = s.queue;
        final Object[] values = s.values;
        final int n = values.length;
        int j = 0;
        for (long i = s.ops; i != 0; i--) {
            final Object v = values[j];
            if (++j == n) {
                j = 0;
            }
            while (!q.offer(v)) {
                if (s.abort) {
                    return;
                }
                Thread.yield();
            }
        }
    }

    private static void consume(final Shared s, final int iteration) {
        final SpscQueue q = s.queue;
        final Object[] values = s.values;
        final int n = values.length;
        int j = 0;
        for (long i = 0; i != s.ops; i++) {
            Object e;
            while ((e = q.poll()) == null) {
                if (s.abort) {
                    return;
                }
                Thread.yield();
            }
            if (e != values[j]) {
                s.fail("iteration " + iteration + ": value " + i + " was " + e + ", expected " + values[j]
                       + " (lost, duplicated or reordered)");
                return;
            }
            if (++j == n) {
                j = 0;
            }
        }
    }
}
