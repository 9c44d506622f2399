package mechsym.jmh;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * The cost of contention: one 64-bit counter, incremented plainly, with an ordered store, a volatile store,
 * a CAS or under a lock (notebook 10).
 *
 * <p>The claim ("Single Writer Principle", 2011-09-22, Martin Thompson): one thread incrementing a counter
 * 500M times takes ~300 ms; with a memory barrier (a volatile store) ~4.7 s; with a CAS ~5.7 s; with a lock
 * ~10 s; two threads with a CAS ~30 s and with a lock ~224 s. One writer and no contention is the fast path.
 *
 * <p>Methods, by the kernel's names ({@code mechsym.singlewriter.CounterCost --method}):
 * <ul>
 *   <li>{@code plain}: an opaque store of the incremented value (a store the JIT must do, not fold);</li>
 *   <li>{@code release}: an ordered store ({@code setRelease}, the old {@code lazySet});</li>
 *   <li>{@code barrier}: {@code ++} on a volatile field (the post's "memory barrier");</li>
 *   <li>{@code cas}: a CAS loop on an AtomicLong;</li>
 *   <li>{@code lock}: {@code ++} under a {@code ReentrantLock}.</li>
 * </ul>
 * One increment per call; JMH's loop is the post's loop. Threads: one by default; {@code -t 2} for the post's
 * two-thread rows, which are meaningful for {@code cas} and {@code lock} only (the others lose updates).
 *
 * <p>How to run this and what you should see:
 * <pre>
 *   java -cp 'build/jmh.jar:build/jmh-lib/*:build/lib/*' org.openjdk.jmh.Main 'mechsym.jmh.SingleWriter' -f 5
 * </pre>
 * {@code plain} and {@code release} at about one increment per cycle; {@code barrier}, {@code cas} and
 * {@code lock} an order of magnitude slower (each a locked instruction or a full fence on x86); with
 * {@code -t 2}, {@code cas} and {@code lock} another order slower.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class SingleWriter {
    public static final List<String> METHODS = List.of("plain", "release", "barrier", "cas", "lock");
    private static final VarHandle VALUE;

    static {
        try {
            VALUE = MethodHandles.lookup().findVarHandle(SingleWriter.class, "value", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Param({"plain", "release", "barrier", "cas", "lock"})
    public String method;

    private long value;
    private volatile long volatileValue;
    private final AtomicLong atomic = new AtomicLong();
    private final ReentrantLock lock = new ReentrantLock();
    private int which;

    @Setup
    public void setUp() {
        which = METHODS.indexOf(method);
        if (which < 0) {
            throw new IllegalArgumentException("method '" + method + "': allowed values are " + String.join(", ", METHODS));
        }
    }

    /** One increment by the chosen method; the new value goes to JMH's blackhole. */
    @Benchmark
    @Threads(1)
    public long increment() {
        switch (which) {
            case 0: {
                final long c = (long) VALUE.getOpaque(this) + 1;
                VALUE.setOpaque(this, c);
                return c;
            }
            case 1: {
                final long c = (long) VALUE.getOpaque(this) + 1;
                VALUE.setRelease(this, c);
                return c;
            }
            case 2:
                return ++volatileValue;
            case 3: {
                long v;
                do {
                    v = atomic.get();
                } while (!atomic.compareAndSet(v, v + 1));
                return v + 1;
            }
            default:
                lock.lock();
                try {
                    return ++value;
                } finally {
                    lock.unlock();
                }
        }
    }
}
