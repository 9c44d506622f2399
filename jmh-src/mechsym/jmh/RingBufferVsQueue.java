package mechsym.jmh;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

import com.lmax.disruptor.BatchEventProcessor;
import com.lmax.disruptor.BatchEventProcessorBuilder;
import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.WaitStrategy;
import com.lmax.disruptor.YieldingWaitStrategy;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import mechsym.spsc.SpscQueue;

/**
 * One publisher, one event processor: events per second through the Disruptor's RingBuffer and through queues
 * (notebook 17).
 *
 * <p>The claim ("Disruptor 2.0 Released", Martin Thompson, 2011-08-27): "For most use cases it is now an order of
 * magnitude better than queue based approaches. On Sandybridge processors I've seen over 50 million events
 * processed per second." Its numbers came from the Disruptor's 1P1C perf test (a 32K RingBuffer, yielding wait
 * strategy, against an ArrayBlockingQueue of the same size). The lab's kernel is
 * {@code mechsym.disruptor.DisruptorThroughput}, whose channel names and classes this benchmark shares.
 *
 * <p>The kernel's shape, driven by JMH's one thread: the benchmark thread is the publisher; it publishes
 * {@link #EVENTS} events and then waits until the consumer thread (started in {@code @Setup}, one per trial) has
 * taken the last of them, so one invocation is {@link #EVENTS} events handed over and processed
 * ({@code @OperationsPerInvocation}), and the score is events per second, the kernel's {@code throughput}. The
 * tail wait is one hand-over per 100,000 events. Channels ({@code channel}), by the kernel's names:
 * {@code disruptor-busy-spin}, {@code disruptor-yielding} (a single-producer RingBuffer of preallocated events
 * and one {@code BatchEventProcessor} with that wait strategy; the publisher claims a slot, writes the number,
 * publishes); {@code abq} ({@code ArrayBlockingQueue} put and take, the post's queue); {@code jctools} and
 * {@code lab-O1} (the kernel's SPSC queues through {@link SpscQueue}, busy spin with {@code onSpinWait}). Size
 * 32768, the standard sweep's.
 *
 * <p>Results kept alive and checked, as the kernel: the consumer folds every event's number into
 * {@code bad |= number ^ expected} (queues: the element's identity against a cycle of 64 preallocated objects);
 * {@code @TearDown} throws when any event arrived out of order or the consumer died, so JMH fails the run
 * ({@code -foe true}) and no number is stored.
 *
 * <p>How to run this and what you should see:
 * <pre>
 *   taskset -c 0,1 java -cp 'build/jmh.jar:build/jmh-lib/*:build/lib/*:build/mechsym.jar' \
 *       org.openjdk.jmh.Main 'mechsym.jmh.RingBufferVsQueue' -f 5
 * </pre>
 * Tens of millions of events per second for the RingBuffer and the SPSC queues across two cores, a few million
 * for {@code abq}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class RingBufferVsQueue {
    public static final List<String> CHANNELS = List.of("disruptor-busy-spin", "disruptor-yielding", "abq",
                                                        "jctools", "lab-O1");
    public static final int EVENTS = 100_000;
    public static final int SIZE = 32 * 1024;
    static final int CYCLE = 64;

    @Param({"disruptor-busy-spin", "disruptor-yielding", "abq", "jctools", "lab-O1"})
    public String channel;

    private final Object[] values = new Object[CYCLE];
    private Consumer consumer;
    private long published;

    @Setup(Level.Trial)
    public void setUp() {
        if (!CHANNELS.contains(channel)) {
            throw new IllegalArgumentException("channel '" + channel + "': allowed values are "
                                               + String.join(", ", CHANNELS));
        }
        for (int k = 0; k < CYCLE; k++) {
            values[k] = Long.valueOf(k);
        }
        switch (channel) {
            case "disruptor-busy-spin": consumer = new Ring(new BusySpinWaitStrategy()); break;
            case "disruptor-yielding": consumer = new Ring(new YieldingWaitStrategy()); break;
            case "abq": consumer = new Blocking(values); break;
            case "jctools": consumer = new Spsc(SpscQueue.create("jctools", SIZE), values); break;
            default: consumer = new Spsc(SpscQueue.create("O1", SIZE), values); break;
        }
        consumer.thread.setDaemon(true);
        consumer.thread.start();
    }

    /** Publishes EVENTS events, then waits until the consumer has taken the last one; returns the events sent. */
    @Benchmark
    @OperationsPerInvocation(EVENTS)
    public long publish() throws InterruptedException {
        final Consumer c = consumer;
        final long end = published + EVENTS;
        for (long i = published; i < end; i++) {
            c.send(i);
        }
        published = end;
        while (c.batches * (long) EVENTS < end) {
            if (c.failure != null) {
                throw new IllegalStateException("the consumer thread failed", c.failure);
            }
            Thread.onSpinWait();
        }
        return end;
    }

    @TearDown(Level.Trial)
    public void check() throws InterruptedException {
        consumer.halt();
        consumer.thread.join(10_000);
        if (consumer.failure != null) {
            throw new IllegalStateException("the consumer thread failed", consumer.failure);
        }
        if (consumer.bad != 0 || consumer.count != published) {
            throw new IllegalStateException("the consumer took " + consumer.count + " events of " + published
                                            + (consumer.bad != 0 ? ", some out of order" : ", in order"));
        }
    }

    /** The consumer's side: its thread, the check, batches of EVENTS counted as they complete. */
    abstract static class Consumer {
        final Thread thread = new Thread(this::consume, "consumer");
        long count;
        long bad;
        volatile long batches;
        volatile Throwable failure;
        volatile boolean halted;

        abstract void send(long i) throws InterruptedException;

        abstract void run() throws InterruptedException;

        void halt() {
            halted = true;
        }

        private void consume() {
            try {
                run();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Throwable t) {
                failure = t;
            }
        }

        final void take(final long number) {
            bad |= number ^ count;
            advance();
        }

        final void takeRef(final Object e, final Object[] values) {
            bad |= e == values[(int) count & (CYCLE - 1)] ? 0 : 1;
            advance();
        }

        private void advance() {
            if (++count % EVENTS == 0) {
                batches = batches + 1;
            }
        }
    }

    /** A preallocated event: the publisher writes its number, the processor reads it. */
    static final class LongEvent {
        long number;
    }

    /** The Disruptor: a single-producer RingBuffer and one BatchEventProcessor on the consumer thread. Deliberately
     * the same set-up as the kernel's (DisruptorThroughput): the Disruptor's documented single-producer wiring,
     * repeated so that this benchmark reads on its own, as a JMH sample does. */
    static final class Ring extends Consumer implements EventHandler<LongEvent> {
        private final RingBuffer<LongEvent> ring;
        private final BatchEventProcessor<LongEvent> processor;

        Ring(final WaitStrategy wait) {
            ring = RingBuffer.createSingleProducer(LongEvent::new, SIZE, wait);
            processor = new BatchEventProcessorBuilder().build(ring, ring.newBarrier(), this);
            ring.addGatingSequences(processor.getSequence());
        }

        @Override
        void send(final long i) {
            final long seq = ring.next();
            ring.get(seq).number = i;
            ring.publish(seq);
        }

        @Override
        public void onEvent(final LongEvent event, final long sequence, final boolean endOfBatch) {
            take(event.number);
        }

        @Override
        void run() {
            processor.run();
        }

        @Override
        void halt() {
            super.halt();
            processor.halt();
        }
    }

    /** ArrayBlockingQueue with put and take, as the post's queue. */
    static final class Blocking extends Consumer {
        private final ArrayBlockingQueue<Object> queue = new ArrayBlockingQueue<>(SIZE);
        private final Object[] values;

        Blocking(final Object[] values) {
            this.values = values;
        }

        @Override
        void send(final long i) throws InterruptedException {
            queue.put(values[(int) i & (CYCLE - 1)]);
        }

        @Override
        void run() throws InterruptedException {
            while (true) {
                takeRef(queue.take(), values);   // halt() interrupts the take that waits after the last event
            }
        }

        @Override
        void halt() {
            super.halt();
            thread.interrupt();
        }
    }

    /** A lock-free SPSC queue (JCTools', the lab's O1), busy-spinning while full or empty. */
    static final class Spsc extends Consumer {
        private final SpscQueue queue;
        private final Object[] values;

        Spsc(final SpscQueue queue, final Object[] values) {
            this.queue = queue;
            this.values = values;
        }

        @Override
        void send(final long i) {
            final Object v = values[(int) i & (CYCLE - 1)];
            while (!queue.offer(v)) {
                Thread.onSpinWait();
            }
        }

        @Override
        void run() {
            while (true) {
                final Object e = queue.poll();
                if (e != null) {
                    takeRef(e, values);
                } else if (halted) {
                    return;
                } else {
                    Thread.onSpinWait();
                }
            }
        }
    }
}
