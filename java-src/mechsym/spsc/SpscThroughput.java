package mechsym.spsc;

import java.util.ArrayList;
import java.util.List;

import mechsym.common.Args;
import mechsym.common.BadArgument;
import mechsym.common.Csv;
import mechsym.common.JitGc;
import mechsym.common.Defaults;
import mechsym.common.Kernels;
import mechsym.common.VmOptions;

/**
 * Throughput of a single-producer single-consumer queue, one run per JVM.
 *
 * <p>The claim ("Single Producer Single Consumer Queue Revisited: An empiricist tale - part I", Nitsan Wakart,
 * 2013-07-15): the same SPSC queue benchmark, run 30 times in fresh JVMs, gives half the throughput 20% of the
 * time when producer and consumer run on different cores, while each run is stable within itself; changing only
 * the memory layout moves that variance, and the JVM options move which layout wins.
 *
 * <p>Queues ({@code --queue}, see {@link SpscQueue}): {@code O1} the original, {@code O2} + padded data,
 * {@code I1} counters inlined into the queue, {@code I2} + padded data, {@code I3} + padded class, {@code I4} +
 * padded class and data; {@code jctools} (JCTools' SpscArrayQueue, not in the post).
 *
 * <p>Harnesses ({@code --protocol}): {@code post} ({@link PostHarness}) is the post's QueuePerfTest: a
 * {@code System.gc()}, then a new producer thread per iteration offering one constant value while the main
 * thread polls, each yielding when full or empty, counts checked after the clock; with {@code --queue-at=B} the
 * queue sits at byte B of its cache line in every iteration ({@link Placer}), which takes the post's layout draw
 * out of the comparison. {@code lab} ({@link LabHarness}, the default, which the bench sweeps) pins each thread
 * once and checks every value in order.
 *
 * <p>Deliberate differences from the post: {@code --ops}, the iteration counts and the capacity are arguments;
 * each row records where the queue and its array sat in their cache lines ({@code queue_line_offset},
 * {@code buffer_line_offset}, read with JOL after each GC) and the HotSpot options the post varied, as this JVM
 * set them. The post's O1 figure is a layout draw: where the GC leaves the queue decides it. Comparisons with the
 * post's code: {@code data/fidelity/spsc.csv}. {@code --inject=duplicate-one} (tests) offers the first value
 * twice through a wrapper loaded only then: the check fails, exit 3.
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -cp 'build/mechsym.jar:build/lib/*' mechsym.spsc.SpscThroughput --queue=O1 --pin=0,1
 *   java -cp 'build/mechsym.jar:build/lib/*' mechsym.spsc.SpscThroughput --protocol=post --queue-at=48
 * </pre>
 * {@code throughput} (ops/s) and {@code duration} (ns) for 20 iterations. The last 10 agree within a run; across
 * fresh JVMs the post saw O1 cross-core at half its best in 20% of runs, and I4 between 110M and 120M ops/s.
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
        // after the queue is built and placed: ManagementFactory's classes and objects would move it
        final JitGc[] jitGc = JitGc.regions(iterations);
        JitGc.open();

        final SpscQueue measuredQueue = duplicateOne ? new DuplicateFirst(queue) : queue;
        final long[] durations = protocol.equals("post")
            ? PostHarness.measurePost(measuredQueue, ops, iterations, placed, lines, placer, jitGc)
            : LabHarness.measure(measuredQueue, capacity, ops, iterations, pin, jitGc);

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
            jitGc[i].rows(csv, extra, i, warmup);
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
