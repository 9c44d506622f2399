package mechsym.spsc;

import java.util.ArrayList;
import java.util.List;

import mechsym.common.Args;
import mechsym.common.BadArgument;
import mechsym.common.Csv;
import mechsym.common.Defaults;
import mechsym.common.Kernels;
import mechsym.common.VmOptions;

/**
 * Throughput of a single-producer single-consumer queue, one run per JVM.
 *
 * <p>The claim under test ("Single Producer Single Consumer Queue Revisited:
 * An empiricist tale - part I", Nitsan Wakart, 2013-07-15): the same SPSC
 * queue benchmark, run 30 times in fresh JVMs, gives half the throughput 20%
 * of the time when producer and consumer run on different cores, while each
 * run is stable within itself; changing only the memory layout (counters
 * inlined into the queue object, padding before the cold fields, a padded data
 * buffer) moves that variance, and the JVM options move which layout wins.
 *
 * <p>Queues, by name ({@code --queue}, see {@link SpscQueue}): {@code O1}
 * original, {@code O2} original + padded data, {@code I1} inlined counters,
 * {@code I2} inlined counters + padded data, {@code I3} inlined counters +
 * padded class, {@code I4} inlined counters + padded class + padded data,
 * {@code jctools} (JCTools 4.0.5 SpscArrayQueue; not in the post).
 *
 * <p>The harness, as the post describes it: the producer offers {@code --ops}
 * values, the consumer polls them; each spins with {@code Thread.yield()}
 * when the queue is full (producer) or empty (consumer). One run does
 * {@code --iterations} (20) iterations and the post's summary is the mean
 * throughput of the last {@code --measured} (10); the first ones are printed
 * with {@code warmup=true}. The clock starts when the producer passes the start
 * barrier (the post's producer took the start time) and stops when the
 * consumer has taken the last value. Throughput is ops x 1e9 / ns, in ops/s.
 *
 * <p>Two harnesses ({@code --protocol}). {@code post} has the structure of
 * the post's code (its QueuePerfTest): a {@code System.gc()} before each
 * iteration, then the clock starts, a new producer thread is started and
 * offers one constant value {@code --ops} times while the main thread polls
 * them, and the clock stops when the producer has been joined; no check
 * inside the loops, the counts checked after the clock (see
 * {@link #measurePost}); no thread is pinned (the post placed the whole JVM
 * with taskset). {@code lab} (the default) is the lab's harness, which the
 * bench's sweep runs. The post harness is not swept yet.
 *
 * <p>Beside the post's code compiled as published (outside the repository),
 * alternating fresh JVMs of JDK 17 on a 2-vCPU VM, O1 under the post harness
 * ran 2.6x faster under G1 (JDK 17's default collector) while O1's counters
 * were declared as their padded subclass; 1.13x under ParallelGC. The cause
 * was where {@code System.gc()} leaves O1's objects. The post's code declares
 * its counters {@code AtomicLong}, so the verifier loads the padded subclass
 * before the queue is built and {@code tail} lands right after the queue
 * object; padded after its value only, that value then shares a cache line
 * with the queue's own fields (read on every poll) whenever the queue starts
 * late in its line. Declared as the subclass, the subclass loaded at the first
 * {@code new} and its class data landed between the two. Medians of 5 fresh
 * JVMs each (iterations 10-19): the post's code 208M ops/s with the queue at
 * byte 48 of its line, 410M with it at byte 24 (the same code, only more
 * classes loaded before its first GC); the kernel with the subclass
 * declared, 559M ({@code tail} 528 bytes from the queue); with
 * {@code AtomicLong} declared, 267M. O1 and O2 now declare
 * {@code AtomicLong}, as the post's code; with both queues at byte 40, 8
 * alternating pairs gave the post's code 128-226M (median 195M) and this
 * kernel 231-251M (median 240M), 1.2x. A later change to this harness's
 * set-up moved the kernel's queue to byte 0 after the GC: 558M, 2.6x again
 * (8 sets). With the holders padded as the post's code pads them (six longs
 * after the value, 72-byte objects, where the kernel had seven) it lands at
 * byte 40 again; 8 alternating sets in rotating order gave the post's code
 * 187-249M (median 215M) and this kernel 109-262M (median 236M): 1.10x
 * [0.98, 1.25]. The post's O1 figure is a layout draw, not a property of the
 * queue: each row records where the queue and its array sat in their cache
 * lines ({@code queue_line_offset}, {@code buffer_line_offset}, read after
 * each iteration's GC here). {@code --queue-at=B} (post harness only) takes
 * the draw out: the queue sits at byte B of its line in every iteration
 * (see {@link Placer}), so that the kernel and the post's code can be
 * compared at one place. The post's code ends at byte 48 on JDK 17 here (in
 * 116 of 117 JVMs looked at, one at byte 56; its counters at the same
 * distances from the queue as this kernel's, +40, +112, +552 and +624 bytes,
 * its array right after them at +696, where this kernel's placed array starts
 * at +3,096); with {@code --queue-at=48}, this kernel ran 1.08-1.27x the
 * post's code in six runs of 10-14 alternating sets, with queue and counters
 * placed alike. The rest was in what C2 made of the two loops. Written as
 * static methods taking the queue as a parameter, with {@code long} counts,
 * the loops kept the queue in a register; the post's producer is a
 * {@code Runnable} that reads the queue from its field, and its {@code int}
 * count leaves no register for {@code this}, so each offer reloads
 * {@code this} from the stack, then the queue, then checks the queue's class;
 * its consumer casts each value to {@code Integer} (its queue is generic).
 * The producer's shape alone changed nothing (1.19x beside the old kernel's
 * 1.20x, 14 sets); with its {@code int} count as well, 1.10x beside 1.23x;
 * with the consumer's {@code int} count and cast too, 1.07x [0.98, 1.10] (12
 * sets). With all of them (see {@link PostProducer} and {@code consumePost};
 * PrintAssembly shows the same instructions as the post's loops), 14
 * alternating sets gave a median of 231M ops/s for the post's code and 231M
 * for this kernel, 1.02x per set [0.93, 1.06] (the post's code against
 * itself: 1.00x [0.94, 1.12]). Left where it fell, the kernel's queue now
 * starts at byte 32 (235-303M, 3 JVMs) or 56 (232-239M, 2 JVMs).
 *
 * <p>The lab harness's changes from the post's, all deliberate: both threads live for the
 * whole run and meet at a barrier before each iteration (the post started a
 * new producer thread per iteration), so each thread is pinned once
 * ({@code --pin=P,C}: producer to CPU P, consumer to CPU C, through taskset on
 * its own Linux thread id); the values are {@code capacity + 1} distinct
 * preallocated objects sent in a fixed cycle (the post sent one constant
 * object), and the consumer checks every value it takes against the expected
 * one, so a lost, duplicated, reordered or overwritten element fails the run
 * (an overwrite by k laps shifts the cycle by k, never a multiple of
 * capacity + 1); after each iteration the queue must be empty. A failed check
 * exits with code 3 and prints no number. The kernel also records, per run,
 * where the queue object and its buffer start within a 64-byte cache line
 * (from JOL's {@code addressOf}; -1 when JOL cannot tell), and the values of
 * the HotSpot options the post varied, as this JVM actually set them. A
 * thread that cannot be pinned at run time (taskset refused; the CPU ids
 * themselves are checked up front) is an error of the run, exit code 1.
 *
 * <p>Test-only fault injection: {@code --inject=duplicate-one} puts the first
 * value of the first iteration into the queue twice (through a wrapper class
 * that is loaded only then), so the consumer's check must fail: exit code 3,
 * nothing on stdout.
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -cp 'build/mechsym.jar:build/lib/*' mechsym.spsc.SpscThroughput --queue=O1 --pin=0,1
 * </pre>
 * prints CSV rows (iteration, warmup, metric, value, unit) with
 * {@code throughput} in ops/s and {@code duration} in ns for 20 iterations.
 * Within one run the last 10 iterations agree closely; across fresh JVMs the
 * post saw O1 cross-core at ~half its best in 20% of runs, and I4 between 110M
 * and 120M ops/s.
 */
public final class SpscThroughput {
    public static final List<String> QUEUES = SpscQueue.NAMES;
    private static final String[] HOTSPOT_OPTIONS = {"UseCondCardMark", "CompileThreshold", "TieredCompilation", "UseNUMA"};
    /** Test-only fault injection (see class comment). */
    public static final List<String> INJECTS = List.of("none", "duplicate-one");
    /** The harnesses ({@code --protocol}): the post's structure, or the lab's (the default). */
    public static final List<String> PROTOCOLS = List.of("lab", "post");
    /** Where {@code --queue-at} may put the queue object: a byte of its cache line an object can start at. */
    public static final List<String> PLACEMENTS = List.of("any", "0", "8", "16", "24", "32", "40", "48", "56");
    /** The one value the post's producer offered, again and again. */
    static final Integer POST_VALUE = Integer.valueOf(777);

    private SpscThroughput() {
    }

    /** The kernel's defaults, for the Python bench (read through JPype). */
    public static String[] defaults() {
        return Defaults.of(SpscThroughput::run);
    }

    public static String[] queues() {
        return QUEUES.toArray(new String[0]);
    }

    public static void main(final String[] argv) {
        Kernels.main("SpscThroughput", argv, SpscThroughput::run);
    }

    private static void run(final Args args) throws Exception {
        final String name = args.choice("queue", "O1", QUEUES);
        final long ops = args.longValue("ops", 50_000_000L, 1, Long.MAX_VALUE / 4);
        final int iterations = args.intValue("iterations", 20, 1, 100_000);
        final int measured = args.intValue("measured", 10, 1, 100_000);
        final int capacity = args.intValue("capacity", 32 * 1024, 2, 1 << 28);
        final int[] pin = args.cpuPair("pin", "producer, consumer");
        final boolean duplicateOne = args.choice("inject", "none", INJECTS).equals("duplicate-one");
        final String protocol = args.choice("protocol", "lab", PROTOCOLS);
        final String at = args.choice("queue-at", "any", PLACEMENTS);
        args.finish();
        if (measured > iterations) {
            throw new BadArgument("--measured=" + measured + ": must be at most --iterations=" + iterations);
        }
        if (protocol.equals("post") && pin.length != 0) {
            throw new BadArgument("--pin=" + pin[0] + "," + pin[1] + ": the post protocol pins no thread (it starts a "
                                  + "new producer every iteration, as the post did); place the JVM with taskset");
        }
        if (!at.equals("any") && !protocol.equals("post")) {
            throw new BadArgument("--queue-at=" + at + ": placing the queue needs --protocol=post (its full GC before "
                                  + "each iteration settles the heap; the lab harness builds the queue once and lets "
                                  + "it lie where it fell)");
        }
        if (protocol.equals("post")) {
            postCount(ops);   // refused here, before any work starts
        }
        final Placer placer = at.equals("any") ? null : new Placer(Integer.parseInt(at));   // before the queue
        final SpscQueue queue = SpscQueue.create(name, capacity);
        // where the queue object and its array sit in their cache lines, per iteration: the post harness's
        // System.gc() moves them; the lab harness allocates nothing, so they stay where they were built
        final Object[] placed = {queue, Addresses.buffer(queue)};
        final long[][] lines = new long[iterations][];
        java.util.Arrays.fill(lines, lineOffsets(placed));

        final SpscQueue measuredQueue = duplicateOne ? new DuplicateFirst(queue) : queue;
        final long[] durations = protocol.equals("post")
            ? PostHarness.measurePost(measuredQueue, ops, iterations, placed, lines, placer)
            : LabHarness.measure(measuredQueue, capacity, ops, iterations, pin);

        final Csv csv = new Csv("queue", "protocol", "pinning", "producer_cpu", "consumer_cpu", "vm_cond_card_mark",
                                "vm_compile_threshold", "vm_tiered_compilation", "vm_numa",
                                "queue_line_offset", "buffer_line_offset");
        final List<String> fixed = List.of(name, protocol, pin.length == 0 ? "none" : "thread",
            pin.length == 0 ? "any" : Integer.toString(pin[0]), pin.length == 0 ? "any" : Integer.toString(pin[1]),
            VmOptions.value(HOTSPOT_OPTIONS[0]), VmOptions.value(HOTSPOT_OPTIONS[1]), VmOptions.value(HOTSPOT_OPTIONS[2]),
            VmOptions.value(HOTSPOT_OPTIONS[3]));
        for (int i = 0; i < iterations; i++) {
            final boolean warmup = i < iterations - measured;
            final List<String> extra = new ArrayList<>(fixed);
            extra.add(Long.toString(lines[i][0]));
            extra.add(Long.toString(lines[i][1]));
            csv.row(extra, i, warmup, "duration", durations[i], "ns");
            csv.row(extra, i, warmup, "throughput", ops * 1e9 / durations[i], "ops/s");
        }
        csv.flush(System.out);
    }

    /** Where each object sits in its cache line (byte 0-63; -1 without JOL). */
    static long[] lineOffsets(final Object[] objects) {
        final long[] out = new long[objects.length];
        for (int k = 0; k < objects.length; k++) {
            out[k] = Addresses.lineOffset(objects[k]);
        }
        return out;
    }

    /** {@code --ops} as the post harness counts it: an {@code int}, as the post's code did; else BadArgument. */
    static int postCount(final long ops) {
        if (ops > Integer.MAX_VALUE) {
            throw new BadArgument("--ops=" + ops + ": the post protocol counts in an int, as the post's code did; at "
                                  + "most " + Integer.MAX_VALUE);
        }
        return (int) ops;
    }

    /**
     * The test-only fault ({@code --inject=duplicate-one}): the first value
     * offered goes into the queue twice, so the consumer sees it again where
     * it expects the next one (or, with {@code --ops=1}, finds the queue not
     * empty at the end). A separate class, loaded only in a fault run, so the
     * measured runs' call sites never see it.
     */
    private static final class DuplicateFirst implements SpscQueue {
        private final SpscQueue queue;
        private boolean duplicated;

        DuplicateFirst(final SpscQueue queue) {
            this.queue = queue;
        }

        @Override
        public boolean offer(final Object e) {
            if (!queue.offer(e)) {
                return false;
            }
            if (!duplicated) {
                duplicated = true;
                queue.offer(e); // the queue held one value of at least two slots: this fits
            }
            return true;
        }

        @Override
        public Object poll() {
            return queue.poll();
        }
    }
}
