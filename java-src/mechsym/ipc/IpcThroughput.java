package mechsym.ipc;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import mechsym.common.Args;
import mechsym.common.BadArgument;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.FirstFailure;
import mechsym.common.JitGc;
import mechsym.common.Kernels;
import mechsym.common.Threads;

/**
 * Messages per second through an off-heap SPSC queue in a memory-mapped file,
 * between two processes (two JVMs) or two threads of one process.
 *
 * <p>The claim under test ("135 Million messages a second between processes in pure Java", Nitsan Wakart,
 * 2013-04-07): Martin Thompson's SPSC queue, moved off heap into a memory-mapped file with its counters
 * aligned and each on its own cache line ({@link OffHeapQueue}), carries ints between two processes at the
 * in-heap queue's 130M messages/s (135M same core, 98M across cores); the same queue in one process is faster
 * still; unaligned counters are slow and not atomic.
 *
 * <p>Written from the post's description (it has no listing): this JVM creates the file (under {@code --dir},
 * default {@code $MECHSYM_SCRATCH}), maps it and consumes; the producer is a second JVM
 * ({@code --transport=processes}, same java and JVM options) or a thread of this one
 * ({@code --transport=threads}). It sends 0, 1, 2, ... as ints; each side busy-spins when the queue is full or
 * empty ({@code --wait=spin}, the post's IPC test) or yields ({@code --wait=yield}, which the post found
 * better on one core, worse across cores). One run = {@code --messages} ints, timed by the consumer from its
 * release (a flag in the control line) to the last int taken. The consumer ORs each int's difference from the
 * expected one into one word ({@code diff |= v ^ expected}: no branch), checked after the clock: a lost,
 * repeated, reordered or torn message fails the run (exit 3, no number). The file is deleted once both sides
 * have mapped it, and by a shutdown hook (exit, Ctrl-C, SIGTERM) that also kills the producer JVM, which ends
 * itself when this JVM is gone.
 *
 * <p>Protocols: {@code post}, repeated runs in one JVM, each printing ops/sec, none marked warm-up (the post
 * quotes its best); {@code lab}, {@code --warmup-runs} runs marked warm-up, then {@code --runs} measured runs.
 * Both keep the same threads for every run (the post started a new producer thread per run in process).
 *
 * <p>Test-only faults ({@code --inject}): {@code lose-one}, the producer skips one value in the middle of
 * every run (exit 3); {@code producer-exit}, the producer's process halts half-way through the first run: the
 * consumer must say so (exit 1), not hang.
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -cp 'build/mechsym.jar:build/lib/*' mechsym.ipc.IpcThroughput --transport=processes --pin=0,1
 * </pre>
 * {@code throughput} (ops/s) and {@code duration} (ns) per run (with threads also JIT/GC time, {@link JitGc}),
 * and each counter's address mod 64 (24 aligned, 60 unaligned). The post saw 98M ops/s between processes
 * across cores, 220M between threads.
 */
public final class IpcThroughput {
    static final List<String> ROLES = List.of("consumer", "producer");
    static final List<String> TRANSPORTS = List.of("processes", "threads");
    static final List<String> PROTOCOLS = List.of("lab", "post");
    static final List<String> FAULTS = List.of("none", "lose-one", "producer-exit");
    static final List<String> WAITS = List.of("spin", "yield");

    /** The transports ({@code --transport}), for the Python bench (read through JPype). */
    public static String[] transports() {
        return TRANSPORTS.toArray(new String[0]);
    }
    static final String SCRATCH_ENV = "MECHSYM_SCRATCH";
    static final long MARGIN = 1 << 20;  // bytes of room kept free beside the queue file
    // the control line, after the buffer: offsets of its fields
    static final int ATTACHED = 0;  // 1 once the producer has mapped the file
    static final int GO = 8;        // the run the consumer has released, 1-based
    static final int ABORT = 16;    // 1 when either side failed
    static final int CHECK_EVERY = 1024;  // idle spins between two looks at the abort flag and the peer

    private IpcThroughput() {
    }

    public static void main(final String[] argv) {
        Kernels.main("IpcThroughput", argv, IpcThroughput::run);
    }

    /** What both sides read from the arguments. */
    static final class Plan {
        String layout;
        long messages;
        int runs;
        int warmupRuns;
        int capacity;
        String fault;
        boolean yield;

        int total() {
            return warmupRuns + runs;
        }
    }

    private static void run(final Args args) throws Exception {
        final String role = args.choice("role", "consumer", ROLES);
        final Plan p = new Plan();
        p.layout = args.choice("layout", "aligned", OffHeapQueue.LAYOUTS);
        p.messages = args.longValue("messages", 10_000_000L, 1, 1L << 40);
        p.capacity = args.intValue("capacity", 32 * 1024, 2, 1 << 26);
        OffHeapQueue.checkCapacity(p.capacity);
        p.fault = args.choice("inject", "none", FAULTS);
        p.yield = args.choice("wait", "spin", WAITS).equals("yield");
        if (role.equals("producer")) {
            p.runs = args.intValue("runs", 1, 1, 100_000);
            p.warmupRuns = 0;
            final Path file = Path.of(args.string("file", ""));
            final int[] pin = args.cpuList("pin");
            final long parent = args.longValue("parent", 0, 1, Long.MAX_VALUE);
            args.finish();
            if (pin.length > 1) {
                throw new BadArgument("--pin=" + Args.join(pin) + ": give one CPU id (the producer's) or none");
            }
            Producer.produceInChild(p, file, pin.length == 0 ? -1 : pin[0], parent);
            return;
        }
        final String transport = args.choice("transport", "processes", TRANSPORTS);
        final String protocol = args.choice("protocol", "lab", PROTOCOLS);
        p.runs = args.intValue("runs", 5, 1, 100_000);
        p.warmupRuns = args.intValue("warmup-runs", protocol.equals("post") ? 0 : 2, 0, 100_000);
        final int[] pin = args.cpuPair("pin", "producer, consumer");
        final String env = System.getenv(SCRATCH_ENV);
        final String tmp = env == null || env.isEmpty() ? System.getProperty("java.io.tmpdir") : env;
        final Path dir = Path.of(args.string("dir", tmp));
        args.finish();
        if (protocol.equals("post") && p.warmupRuns != 0) {
            throw new BadArgument("--warmup-runs=" + p.warmupRuns + ": the post protocol marks no run as warm-up; give 0");
        }
        if (p.fault.equals("producer-exit") && transport.equals("threads")) {
            throw new BadArgument("--inject=producer-exit: needs --transport=processes (it halts the producer's JVM)");
        }
        checkRoom(dir, OffHeapQueue.bytes(p.capacity, p.layout));
        new Consumer(p, transport, dir, pin).run(protocol);
    }

    /** One line and no run when the directory is missing or cannot take the file (plus a margin). */
    static void checkRoom(final Path dir, final long bytes) {
        if (!Files.isDirectory(dir)) {
            throw new BadArgument("--dir=" + dir + ": not a directory (the queue file goes there; default $"
                                  + SCRATCH_ENV + ")");
        }
        final long free;
        try {
            free = Files.getFileStore(dir).getUsableSpace();
        } catch (IOException e) {
            throw new BadArgument("--dir=" + dir + ": cannot read its file system (" + e.getMessage() + ")");
        }
        if (free < bytes + MARGIN) {
            throw new BadArgument("--dir=" + dir + ": no room for the queue file: " + free + " bytes free, it needs "
                                  + (bytes + MARGIN) + " (" + bytes + " + a margin of " + MARGIN + ")");
        }
    }

    /** The consuming side: owns the file, the clock, the checks and the CSV. */
    private static final class Consumer {
        final Plan p;
        final String transport;
        final Path file;
        final int[] pin;
        final FirstFailure failure = new FirstFailure();
        volatile Process child;
        OffHeapQueue q;
        JitGc[] jitGc;   // null with --transport=processes

        Consumer(final Plan p, final String transport, final Path dir, final int[] pin) {
            this.p = p;
            this.transport = transport;
            this.pin = pin;
            this.file = dir.resolve("ipcqueue-" + ProcessHandle.current().pid() + "-"
                                    + Long.toHexString(System.nanoTime()) + ".queue");
        }

        void run(final String protocol) throws Exception {
            final Thread cleanup = new Thread(this::cleanUp, "ipc-cleanup");
            Runtime.getRuntime().addShutdownHook(cleanup);
            try {
                final long bytes = OffHeapQueue.bytes(p.capacity, p.layout);
                try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                    raf.setLength(bytes);
                    q = new OffHeapQueue(raf.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, bytes), p.capacity,
                                         p.layout);
                }
                final long[] offsets = checkAlignment(q, p.layout);
                final long[] durations = new long[p.total()];
                final long[] diffs = new long[p.total()];  // per run: the bits in which a received int differed
                // JIT and GC time inside each run's clock: with threads only (a producer JVM compiles on its own)
                if (transport.equals("threads")) {
                    jitGc = JitGc.regions(p.total());
                    JitGc.open();
                }
                final Thread consumer = Threads.worker("ipc-consumer", pin.length == 2 ? pin[1] : -1, failure,
                                                       () -> consume(durations, diffs), this::abort);
                if (transport.equals("threads")) {
                    Files.delete(file);
                    final Thread producer = Threads.worker("ipc-producer", pin.length == 2 ? pin[0] : -1, failure,
                                                           () -> Producer.produce(q, p, () -> consumerAlive(consumer)), this::abort);
                    Threads.startJoinRethrow(failure, "ipc threads", producer, consumer);
                } else {
                    startChild();
                    awaitAttached();
                    Files.delete(file);
                    Threads.startJoinRethrow(failure, "ipc consumer", consumer);
                    awaitChildExit();
                }
                CheckFailed.require(q.size() == 0, "the queue still held " + q.size() + " ints after every run");
                for (int r = 0; r < p.total(); r++) {
                    CheckFailed.require(diffs[r] == 0, "run " + r + ": of the " + p.messages + " ints received, at "
                        + "least one differed from the sequence sent (bits " + Long.toHexString(diffs[r])
                        + "): a message was lost, repeated, reordered or torn");
                    CheckFailed.require(durations[r] > 0, "run " + r + ": non-positive duration " + durations[r] + " ns");
                }
                print(protocol, offsets, durations);
            } finally {
                cleanUp();
                try {
                    Runtime.getRuntime().removeShutdownHook(cleanup);
                } catch (IllegalStateException e) {
                    // already shutting down: the hook runs
                }
            }
        }

        void print(final String protocol, final long[] offsets, final long[] durations) {
            final Csv csv = new Csv("transport", "layout", "protocol", "wait", "pinning", "producer_cpu", "consumer_cpu",
                                    "head_line_offset", "tail_cache_line_offset", "tail_line_offset",
                                    "head_cache_line_offset", "buffer_line_offset");
            final List<String> extra = new ArrayList<>(List.of(transport, p.layout, protocol, p.yield ? "yield" : "spin",
                pin.length == 0 ? "none" : "thread", pin.length == 0 ? "any" : Integer.toString(pin[0]),
                pin.length == 0 ? "any" : Integer.toString(pin[1])));
            for (final long o : offsets) {
                extra.add(Long.toString(o));
            }
            for (int r = 0; r < durations.length; r++) {
                final boolean warmup = r < p.warmupRuns;
                csv.row(extra, r, warmup, "throughput", p.messages * 1e9 / durations[r], "ops/s");
                csv.row(extra, r, warmup, "duration", durations[r], "ns");
                if (jitGc != null) {
                    jitGc[r].rows(csv, extra, r, warmup);
                }
            }
            csv.flush(System.out);
        }

        void startChild() throws IOException {
            final List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), IpcThroughput.class.getName(),
                               "--role=producer", "--file=" + file, "--layout=" + p.layout, "--messages=" + p.messages,
                               "--runs=" + p.total(), "--capacity=" + p.capacity, "--inject=" + p.fault,
                               "--wait=" + (p.yield ? "yield" : "spin"),
                               "--parent=" + ProcessHandle.current().pid(),
                               "--pin=" + (pin.length == 2 ? Integer.toString(pin[0]) : "")));
            child = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        }

        void awaitAttached() throws InterruptedException {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (q.getVolatile(q.controlAddr + ATTACHED) != 1) {
                if (!child.isAlive()) {
                    throw new IllegalStateException("the producer JVM exited with code " + child.exitValue()
                                                    + " before mapping the queue file (its stderr is above)");
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the producer JVM did not map the queue file within 120 s");
                }
                Thread.sleep(1);
            }
        }

        void awaitChildExit() throws InterruptedException {
            if (!child.waitFor(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the producer JVM did not exit within 60 s of the last run");
            }
            if (child.exitValue() != 0) {
                throw new IllegalStateException("the producer JVM exited with code " + child.exitValue());
            }
        }

        boolean producerAlive() {
            return child == null ? true : child.isAlive();
        }

        void abort() {
            if (q != null) {
                q.putVolatile(q.controlAddr + ABORT, 1);
            }
        }

        /** The file gone and the producer JVM ended: on every way out, including the shutdown hook. */
        void cleanUp() {
            final Process c = child;
            if (c != null && c.isAlive()) {
                c.destroyForcibly();
            }
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                System.err.println("IpcThroughput: could not delete " + file + ": " + e.getMessage());
            }
        }

        /** The consumer thread: release each run, time it, compare every int with the sequence's. */
        void consume(final long[] durations, final long[] diffs) {
            final OffHeapQueue queue = q;
            final long n = p.messages;
            final JitGc[] regions = jitGc;
            for (int r = 0; r < durations.length; r++) {
                if (regions != null) {
                    regions[r].start();
                }
                queue.putVolatile(queue.controlAddr + GO, r + 1);
                final long start = System.nanoTime();
                final long base = r * n;
                long diff = 0;
                for (long i = 0; i < n; i++) {
                    long v;
                    int spins = 0;
                    while ((v = queue.poll()) == OffHeapQueue.EMPTY) {
                        if (++spins % CHECK_EVERY == 0) {
                            checkPeer(r);
                        }
                        if (p.yield) {
                            Thread.yield();
                        }
                    }
                    diff |= v ^ ((int) (base + i) & 0xFFFF_FFFFL);
                }
                durations[r] = System.nanoTime() - start;
                if (regions != null) {
                    regions[r].stop();
                }
                diffs[r] = diff;
            }
        }

        void checkPeer(final int run) {
            if (q.getVolatile(q.controlAddr + ABORT) != 0) {
                throw new IllegalStateException("run " + run + ": the producer failed (its message is above)");
            }
            if (!producerAlive()) {
                throw new IllegalStateException("run " + run + ": the producer JVM exited with code "
                                                + child.exitValue() + " before sending every message");
            }
        }

        boolean consumerAlive(final Thread consumer) {
            return consumer.isAlive() || consumer.getState() == Thread.State.NEW;
        }
    }

    /** Each counter's and the buffer's address mod 64, checked against the layout. */
    static long[] checkAlignment(final OffHeapQueue q, final String layout) {
        final long want = layout.equals("aligned") ? OffHeapQueue.ALIGNED_OFFSET : OffHeapQueue.UNALIGNED_OFFSET;
        final String[] names = {"head", "tailCache", "tail", "headCache"};
        final long[] addrs = {q.headAddr, q.tailCacheAddr, q.tailAddr, q.headCacheAddr, q.bufferAddr};
        final long[] out = new long[addrs.length];
        for (int i = 0; i < addrs.length; i++) {
            out[i] = OffHeapQueue.lineOffset(addrs[i]);
            final long expect = i < names.length ? want : 0;
            CheckFailed.require(out[i] == expect, (i < names.length ? names[i] : "buffer") + " at address mod 64 = "
                                + out[i] + ", the " + layout + " layout puts it at " + expect);
        }
        return out;
    }

    @FunctionalInterface
    interface Alive {
        boolean alive();
    }
}
