package mechsym.common;

import java.lang.management.CompilationMXBean;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;

/**
 * The JIT compilation and GC time spent inside one timed region, read as JMH's {@code -prof comp} and
 * {@code -prof gc} read them: {@link CompilationMXBean#getTotalCompilationTime()} and the sum of
 * {@link GarbageCollectorMXBean#getCollectionTime()} / {@code getCollectionCount()}, each read just before the
 * clock starts ({@link #start()}) and just after it stops ({@link #stop()}), never inside the timed loop. A run
 * with a large share of either measured the JIT or the collector, not the code (mechsym.harness flags it).
 *
 * <p>Rows ({@link #rows}): {@code jit_ms} (ms; the compiler threads' summed time, so on a machine with several
 * compiler threads it can exceed the run's wall time; left out when the VM does not time its compilers),
 * {@code gc_ms} (ms) and {@code gc_count} (count), with the same keys as the run's timed metric. Only the
 * pausing collectors count: a bean named "... Concurrent ..." or "... Cycles" (G1's concurrent cycle on JDK
 * 20+, ZGC's and Shenandoah's cycles) times work done beside the application threads, not a pause of them.
 * The beans report whole milliseconds: a run of a few milliseconds reads 0 or 1.
 *
 * <p>{@link #open()} obtains the beans once per JVM (ManagementFactory loads classes and allocates: a kernel whose
 * numbers depend on where its objects land calls it after placing them, before its first timed region); after
 * that, {@code start} and {@code stop} read native counters into this object's long fields and allocate nothing.
 */
public final class JitGc {
    public static final String JIT_MS = "jit_ms";
    public static final String GC_MS = "gc_ms";
    public static final String GC_COUNT = "gc_count";

    private static CompilationMXBean compiler;   // null: this VM does not time its compilers
    private static volatile GarbageCollectorMXBean[] collectors;   // written last by open()

    private long jitBefore;
    private long gcMsBefore;
    private long gcCountBefore;
    private long jitAfter;
    private long gcMsAfter;
    private long gcCountAfter;
    private boolean started;
    private boolean stopped;

    /** A region not yet timed; cheap (no MXBean is touched). */
    public JitGc() {
    }

    /** {@code n} regions, one per timed run, allocated before the first run. */
    public static JitGc[] regions(final int n) {
        final JitGc[] out = new JitGc[n];
        for (int i = 0; i < n; i++) {
            out[i] = new JitGc();
        }
        return out;
    }

    /**
     * Obtains the beans (once per JVM; later calls return at once) and reads each counter once, so that the
     * first timed region does not pay for linking the native methods behind them.
     */
    public static synchronized void open() {
        if (collectors != null) {
            return;
        }
        final CompilationMXBean c = ManagementFactory.getCompilationMXBean();
        compiler = c != null && c.isCompilationTimeMonitoringSupported() ? c : null;
        final List<GarbageCollectorMXBean> pausing = new ArrayList<>();
        for (final GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            final String name = gc.getName();
            if (!name.contains("Concurrent") && !name.endsWith("Cycles")) {
                pausing.add(gc);
            }
            gc.getCollectionTime();   // every counter read once: the first read links its native method
            gc.getCollectionCount();
        }
        if (compiler != null) {
            compiler.getTotalCompilationTime();
        }
        collectors = pausing.toArray(new GarbageCollectorMXBean[0]);
    }

    /**
     * Reads the counters; call it just before the clock starts. Start and stop may run on different threads (a
     * producer starts the clock, a consumer stops it): each writes its own fields, and the differences are taken
     * where the rows are written, after the threads were joined.
     */
    public void start() {
        if (collectors == null) {
            throw new IllegalStateException("JitGc.open() was not called before the first timed region");
        }
        jitBefore = jit();
        gcMsBefore = gcTime();
        gcCountBefore = gcCountNow();
        started = true;
        stopped = false;
    }

    /** Reads the counters again; call it just after the clock stops. */
    public void stop() {
        jitAfter = jit();
        gcMsAfter = gcTime();
        gcCountAfter = gcCountNow();
        stopped = true;
    }

    private void requireTimed() {
        if (!started || !stopped) {
            throw new IllegalStateException("JitGc: the region was not started and stopped");
        }
    }

    /** ms of JIT compilation in the region, -1 when the VM does not time its compilers. */
    public long jitMs() {
        requireTimed();
        return jitBefore < 0 ? -1 : jitAfter - jitBefore;
    }

    public long gcMs() {
        requireTimed();
        return gcMsAfter - gcMsBefore;
    }

    public long gcCount() {
        requireTimed();
        return gcCountAfter - gcCountBefore;
    }

    /** The region's rows, under the same keys as the run's timed metric. */
    public void rows(final Csv csv, final List<String> extra, final int iteration, final boolean warmup) {
        rows(csv, extra, iteration, warmup, "");
    }

    /**
     * The rows of one of several timed phases of a run, named {@code <phase>_jit_ms} ... beside the phase's
     * {@code <phase>_duration} (SequentialIo's write and read).
     */
    public void rows(final Csv csv, final List<String> extra, final int iteration, final boolean warmup,
                     final String phase) {
        final String p = phase.isEmpty() ? "" : phase + "_";
        if (jitMs() >= 0) {
            csv.row(extra, iteration, warmup, p + JIT_MS, jitMs(), "ms");
        }
        csv.row(extra, iteration, warmup, p + GC_MS, gcMs(), "ms");
        csv.row(extra, iteration, warmup, p + GC_COUNT, gcCount(), "count");
    }

    private static long jit() {
        return compiler == null ? -1 : compiler.getTotalCompilationTime();
    }

    private static long gcTime() {
        long sum = 0;
        for (final GarbageCollectorMXBean gc : collectors) {
            sum += Math.max(0, gc.getCollectionTime());   // -1: this collector does not report it
        }
        return sum;
    }

    private static long gcCountNow() {
        long sum = 0;
        for (final GarbageCollectorMXBean gc : collectors) {
            sum += Math.max(0, gc.getCollectionCount());
        }
        return sum;
    }
}
