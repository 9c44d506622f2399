package mechsym.disruptor;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;

import com.lmax.disruptor.BatchEventProcessor;
import com.lmax.disruptor.BatchEventProcessorBuilder;
import com.lmax.disruptor.BlockingWaitStrategy;
import com.lmax.disruptor.BusySpinWaitStrategy;
import com.lmax.disruptor.EventHandler;
import com.lmax.disruptor.RingBuffer;
import com.lmax.disruptor.WaitStrategy;
import com.lmax.disruptor.YieldingWaitStrategy;

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
import mechsym.spsc.SpscQueue;

/**
 * One publisher, one event processor: events per second through the LMAX Disruptor's RingBuffer against queues,
 * in one harness.
 *
 * <p>The claim ("Disruptor 2.0 Released", Martin Thompson, 2011-08-27): "For most use cases it is now an order of
 * magnitude better than queue based approaches. On Sandybridge processors I've seen over 50 million events
 * processed per second." The post has no listing; its numbers came from the Disruptor's 1P1C throughput test
 * (UniCast1P1CPerfTest: a 32K RingBuffer with the yielding wait strategy against an ArrayBlockingQueue of the
 * same size, 300 M events a pass, three passes per JVM, timed in ms from the first publish until the processor
 * has seen the last event). The Disruptor here is 4.0.0 from Maven Central (pom.xml).
 *
 * <p>Channels ({@code --channel}): {@code disruptor-busy-spin}, {@code disruptor-yielding},
 * {@code disruptor-blocking} (a single-producer RingBuffer of preallocated events, one BatchEventProcessor, that
 * wait strategy; the publisher claims a slot, writes the sequence number, publishes); {@code abq}
 * ({@code ArrayBlockingQueue} put and take, the post's comparison); {@code jctools} (JCTools' SpscArrayQueue) and
 * {@code lab-O1} (notebook 05's queue), through {@link mechsym.spsc.SpscQueue}, spinning with
 * {@code onSpinWait} while full or empty: not in the post.
 *
 * <p>The consumer checks every event in order, in its loop but branch-free (xor/or into one word, read after
 * the runs): a RingBuffer event must carry the next number, a queue element must be the next of a cycle of 64
 * preallocated objects (the perf test boxed {@code Long.valueOf(i)} per event; here no run allocates, so the queue
 * is measured, not the allocator). Out of order: exit 3, no number; a loss of a multiple of 64 elements leaves the
 * consumer short and the run ends at {@code --max-ms}, no number. After the last run the consumer took exactly
 * runs x events and the channel is empty. The check's cost, A/B against a copy without it:
 * {@code data/fidelity/disruptor.csv} (no cost shows; the noise cannot prove it under 2%).
 *
 * <p>Protocols: {@code post}, the perf test's structure: no warm-up, {@code --runs} (3) passes in one JVM, each
 * timed in ms ({@code currentTimeMillis}); {@code lab}: warm-up runs, then measured runs, timed with
 * {@code nanoTime} in the same places. Both: publisher and consumer threads live for every run; {@code --pin=P,C}
 * pins them before the first run; a run not finished after {@code --max-ms} ends the JVM (exit 1, no number).
 * {@code --inject=skip} (tests): the publisher sends i + 1 for the middle event of the first run: exit 3, every time.
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -cp 'build/mechsym.jar:build/lib/*' mechsym.disruptor.DisruptorThroughput \
 *        --channel=disruptor-busy-spin --events=20000000 --pin=0,1
 * </pre>
 * {@code duration} (ns), JIT and GC time ({@link JitGc}) and {@code throughput} (events/s) per run: tens of
 * millions of events/s for the RingBuffer and the SPSC queues across two cores, a few million for the ABQ.
 */
public final class DisruptorThroughput {
    public static final List<String> CHANNELS = List.of("disruptor-busy-spin", "disruptor-yielding",
                                                        "disruptor-blocking", "abq", "jctools", "lab-O1");
    public static final List<String> PROTOCOLS = List.of("lab", "post");
    /** Fault injection for the tests (see class comment). */
    public static final List<String> INJECTS = List.of("none", "skip");
    private static final String NAME = "DisruptorThroughput";

    private DisruptorThroughput() {
    }

    /** The kernel's defaults, for the Python bench (read through JPype). */
    public static String[] defaults() {
        return Defaults.of(DisruptorThroughput::run);
    }

    public static String[] channels() {
        return CHANNELS.toArray(new String[0]);
    }

    public static void main(final String[] argv) {
        Kernels.main(NAME, argv, DisruptorThroughput::run);
    }

    private static void run(final Args args) throws Exception {
        final String channel = args.choice("channel", "disruptor-busy-spin", CHANNELS);
        final boolean post = args.choice("protocol", "lab", PROTOCOLS).equals("post");
        final long events = args.longValue("events", post ? 300_000_000L : 20_000_000L, 1, Long.MAX_VALUE / 1024);
        final int runs = args.intValue("runs", post ? 3 : 5, 1, 1000);
        final int warmupRuns = args.intValue("warmup-runs", post ? 0 : 1, 0, 1000);
        final int size = args.intValue("size", 32 * 1024, 4, 1 << 26);
        final int[] pin = args.cpuPair("pin", "publisher, consumer");
        final long maxMs = args.longValue("max-ms", 600_000L, 1, 86_400_000L);
        final boolean skip = args.choice("inject", "none", INJECTS).equals("skip");
        args.finish();
        if (Integer.bitCount(size) != 1) {
            throw new BadArgument("--size=" + size + ": must be a power of two >= 4");
        }
        if (post && warmupRuns != 0) {
            throw new BadArgument("--warmup-runs=" + warmupRuns + ": the post protocol warms nothing up, as the "
                                  + "perf test; give 0 or use --protocol=lab");
        }
        final int total = warmupRuns + runs;
        final Tally tally = new Tally(events);
        final Channel ch = Channel.create(channel, size, tally);
        final JitGc[] jitGc = JitGc.regions(total);
        JitGc.open();
        final long[] durations = measure(skip ? new SkipOne(ch, events / 2) : ch, tally, events, total, post, pin,
                                         maxMs, jitGc);
        final long taken = tally.count;
        CheckFailed.require(taken == events * total, "the consumer took " + taken + " events, expected "
                            + events * total);
        tally.requireInOrder();
        ch.requireEmpty();

        final Csv csv = new Csv("channel", "pinning");
        final List<String> extra = List.of(channel, Affinity.pinning(pin));
        for (int r = 0; r < total; r++) {
            final boolean warmup = r < warmupRuns;
            csv.row(extra, r, warmup, "duration", durations[r], "ns");
            jitGc[r].rows(csv, extra, r, warmup);
            csv.row(extra, r, warmup, "throughput", events * 1e9 / durations[r], "ops/s");
        }
        csv.flush(System.out);
    }

    /**
     * {@code runs} runs of {@code events} events from a publisher thread to the
     * channel's consumer thread; the nanoseconds of each (whole milliseconds
     * with the post's clock), and the JIT and GC time inside each run's clock in {@code jitGc[r]}.
     */
    private static long[] measure(final Channel ch, final Tally tally, final long events, final int runs,
                                 final boolean post, final int[] pin, final long maxMs, final JitGc[] jitGc)
            throws InterruptedException {
        final long[] durations = new long[runs];
        final FirstFailure failure = new FirstFailure();
        final Thread watchdog = new Thread(() -> {
            try {
                Thread.sleep(maxMs);
            } catch (InterruptedException e) {
                return;
            }
            System.err.println(NAME + ": error: the runs did not finish within --max-ms=" + maxMs);
            Runtime.getRuntime().halt(1);
        }, "watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        final Runnable stop = () -> {
            tally.abort = true;
            ch.halt();
        };
        final Thread consumer = Threads.worker("consumer", Affinity.cpuOf(pin, 1), failure,
                                               () -> ch.consume(events * runs), stop);
        final Thread publisher = Threads.worker("publisher", Affinity.cpuOf(pin, 0), failure, () -> {
            for (int r = 0; r < runs && !tally.abort; r++) {
                jitGc[r].start();
                final long t0 = post ? System.currentTimeMillis() : System.nanoTime();
                publish(ch, r * events, events);
                while (tally.runsDone <= r && !tally.abort) {
                    Thread.onSpinWait();
                }
                durations[r] = post ? (System.currentTimeMillis() - t0) * 1_000_000L : System.nanoTime() - t0;
                jitGc[r].stop();
            }
            ch.halt();
        }, stop);
        Threads.startJoinRethrow(failure, "the run", publisher, consumer);
        watchdog.interrupt();
        for (int r = 0; r < runs; r++) {
            if (durations[r] <= 0) {
                throw new IllegalStateException("run " + r + " took under one clock tick (" + (post ? "ms" : "ns")
                                                + "): give more --events");
            }
        }
        return durations;
    }

    private static void publish(final Channel ch, final long first, final long events) throws InterruptedException {
        for (long i = first, end = first + events; i < end; i++) {
            ch.send(i);
        }
    }

    /** A way from the publisher thread to the consumer thread. */
    abstract static class Channel {
        final Tally tally;

        Channel(final Tally tally) {
            this.tally = tally;
        }

        static Channel create(final String name, final int size, final Tally tally) {
            switch (name) {
                case "disruptor-busy-spin": return new Ring(new BusySpinWaitStrategy(), size, tally);
                case "disruptor-yielding": return new Ring(new YieldingWaitStrategy(), size, tally);
                case "disruptor-blocking": return new Ring(new BlockingWaitStrategy(), size, tally);
                case "abq": return new Blocking(size, tally);
                case "jctools": return new Spsc(SpscQueue.create("jctools", size), tally);
                case "lab-O1": return new Spsc(SpscQueue.create("O1", size), tally);
                default: throw new BadArgument("--channel=" + name + ": allowed values are " + String.join(", ", CHANNELS));
            }
        }

        /** Publisher thread: event number i. */
        abstract void send(long i) throws InterruptedException;

        /** Consumer thread: take and check {@code total} events (or until halted). */
        abstract void consume(long total) throws InterruptedException;

        /** Stop the consumer after its last event, or on a failure. */
        void halt() {
        }

        /** After the runs: nothing may be left in the channel. */
        abstract void requireEmpty();
    }

    /** A preallocated event: the publisher writes its number, the processor reads it. */
    static final class LongEvent {
        long number;
    }

    /** The Disruptor: a single-producer RingBuffer and one BatchEventProcessor. */
    static final class Ring extends Channel implements EventHandler<LongEvent> {
        private final RingBuffer<LongEvent> ring;
        private final BatchEventProcessor<LongEvent> processor;

        Ring(final WaitStrategy wait, final int size, final Tally tally) {
            super(tally);
            ring = RingBuffer.createSingleProducer(LongEvent::new, size, wait);
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
            tally.take(event.number);
        }

        @Override
        void consume(final long total) {
            processor.run();
        }

        @Override
        void halt() {
            processor.halt();
        }

        @Override
        void requireEmpty() {
            final long left = ring.getCursor() - processor.getSequence().get();
            CheckFailed.require(left == 0, left + " published events were never processed");
        }
    }

    /** ArrayBlockingQueue with put and take, as the post's queue. */
    static final class Blocking extends Channel {
        private final ArrayBlockingQueue<Object> queue;

        Blocking(final int size, final Tally tally) {
            super(tally);
            queue = new ArrayBlockingQueue<>(size);
        }

        @Override
        void send(final long i) throws InterruptedException {
            queue.put(tally.value(i));
        }

        @Override
        void consume(final long total) throws InterruptedException {
            for (long k = 0; k < total && !tally.abort; k++) {
                tally.takeRef(queue.take());
            }
        }

        @Override
        void requireEmpty() {
            CheckFailed.require(queue.isEmpty(), queue.size() + " elements left in the queue after the last run");
        }
    }

    /** A lock-free SPSC queue (JCTools', the lab's), busy-spinning while full or empty. */
    static final class Spsc extends Channel {
        private final SpscQueue queue;

        Spsc(final SpscQueue queue, final Tally tally) {
            super(tally);
            this.queue = queue;
        }

        @Override
        void send(final long i) {
            final Object v = tally.value(i);
            while (!queue.offer(v)) {
                if (tally.abort) {
                    return;
                }
                Thread.onSpinWait();
            }
        }

        @Override
        void consume(final long total) {
            for (long k = 0; k < total; k++) {
                Object e;
                while ((e = queue.poll()) == null) {
                    if (tally.abort) {
                        return;
                    }
                    Thread.onSpinWait();
                }
                tally.takeRef(e);
            }
        }

        @Override
        void requireEmpty() {
            CheckFailed.require(queue.poll() == null, "an element was left in the queue after the last run");
        }
    }

    /** The test-only fault: number i + 1 sent in place of event {@code at}; loaded only with --inject=skip. */
    static final class SkipOne extends Channel {
        private final Channel channel;
        private final long at;

        SkipOne(final Channel channel, final long at) {
            super(channel.tally);
            this.channel = channel;
            this.at = at;
        }

        @Override
        void send(final long i) throws InterruptedException {
            channel.send(i == at ? i + 1 : i);
        }

        @Override
        void consume(final long total) throws InterruptedException {
            channel.consume(total);
        }

        @Override
        void halt() {
            channel.halt();
        }

        @Override
        void requireEmpty() {
            channel.requireEmpty();
        }
    }
}
