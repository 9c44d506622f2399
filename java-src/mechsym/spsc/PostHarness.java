package mechsym.spsc;

import mechsym.common.CheckFailed;
import mechsym.common.FirstFailure;
import mechsym.common.JitGc;

/**
 * The post's harness of {@link SpscThroughput} ({@code --protocol=post}):
 * the structure of the post's QueuePerfTest, its loops as the post's code
 * shaped them (a {@code Runnable} producer holding the queue in a field, an
 * {@code int} count, the consumer casting each value to {@code Integer}), so
 * that C2 compiles the same loops. Loaded only after the queue is built (a
 * class's mirror lives on the heap, and what lives before the queue decides
 * where the GC leaves it); the constant value offered is allocated by
 * {@link SpscThroughput}'s static initializer for the same reason.
 */
public final class PostHarness {
    private PostHarness() {
    }

    /**
     * The post's harness, its structure as the post's code had it: per
     * iteration a full GC ({@code System.gc()}, outside the clock), then the
     * clock starts, a new producer thread is started and offers {@code ops}
     * times one constant value, while this (the main) thread polls them,
     * each side calling {@code Thread.yield()} when the queue is full or
     * empty; the clock stops once the producer has been joined. Nothing is
     * checked inside the loops: after the clock stops, the last value taken
     * must be the one offered and the queue must be empty (a value offered
     * twice is left over; a lost one leaves the consumer waiting, for the
     * bench's timeout to end the run). Returns the nanoseconds of each
     * iteration; {@code lines[i]} gets where each of {@code placed} (the queue
     * and its array) sat in its cache line during iteration i (read after the
     * GC, before the clock; -1 without JOL).
     */
    public static long[] measurePost(final SpscQueue queue, final long ops, final int iterations,
                                     final Object[] placed, final long[][] lines) throws InterruptedException {
        JitGc.open();
        return measurePost(queue, ops, iterations, placed, lines, null, JitGc.regions(iterations));
    }

    /**
     * As {@link #measurePost(SpscQueue, long, int, Object[], long[][])}; with a {@code placer}, after each
     * iteration's GC the queue ({@code placed[0]}) is moved, outside the clock, to where the placer puts it;
     * {@code jitGc[i]} gets the JIT and GC time inside iteration i's clock.
     */
    static long[] measurePost(final SpscQueue queue, final long ops, final int iterations, final Object[] placed,
                              final long[][] lines, final Placer placer, final JitGc[] jitGc)
            throws InterruptedException {
        final int count = SpscThroughput.postCount(ops);
        final long[] durations = new long[iterations];
        final FirstFailure failure = new FirstFailure();
        for (int i = 0; i < iterations; i++) {
            System.gc();
            if (placer != null) {
                placer.settle(placed[0], i);
            }
            lines[i] = SpscThroughput.lineOffsets(placed);
            jitGc[i].start();
            final long start = System.nanoTime();
            final Thread producer = new Thread(new PostProducer(queue, count), "spsc-producer");
            producer.setUncaughtExceptionHandler((t, e) -> failure.record(e));
            producer.start();
            final Object last = consumePost(queue, count);
            producer.join();
            durations[i] = System.nanoTime() - start;
            jitGc[i].stop();
            failure.rethrow("spsc producer");
            CheckFailed.require(last == SpscThroughput.POST_VALUE, "iteration " + i + ": the last value taken was "
                                + last + ", not the one offered");
            CheckFailed.require(queue.poll() == null, "iteration " + i + ": the queue still held a value after all "
                                + ops + " were taken");
            CheckFailed.require(durations[i] > 0, "iteration " + i + ": non-positive duration " + durations[i] + " ns");
        }
        return durations;
    }

    /**
     * The post's producer, shaped as its code had it: a {@code Runnable} that
     * holds the queue in a field and offers one constant value, counting down
     * an {@code int}, with {@code Thread.yield()} while the queue is full. The
     * shape is what C2 compiles: the queue is read from the field and its
     * class checked on every offer, as in the post's code
     * ({@code data/fidelity/spsc.csv} gives what other shapes ran). A failure
     * reaches the harness through the thread's uncaught exception handler, so
     * that {@code run()} holds the loop only.
     */
    static final class PostProducer implements Runnable {
        private final SpscQueue queue;
        private final int ops;

        PostProducer(final SpscQueue queue, final int ops) {
            this.queue = queue;
            this.ops = ops;
        }

        @Override
        public void run() {
            int i = ops;
            do {
                while (!queue.offer(SpscThroughput.POST_VALUE)) {
                    Thread.yield();
                }
            } while (0 != --i);
        }
    }

    /**
     * The post's consumer loop: {@code Thread.yield()} while the queue is
     * empty, an {@code int} count, and each value taken cast to
     * {@code Integer} as the post's generic queue made its code do; returns
     * the last value taken.
     */
    private static Object consumePost(final SpscQueue q, final int ops) {
        Integer result;
        int i = ops;
        do {
            while (null == (result = (Integer) q.poll())) {
                Thread.yield();
            }
        } while (0 != --i);
        return result;
    }
}
