package mechsym.jmh;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

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
 * One shared counter, incremented by 1 or 2 threads: XADD against a CAS loop (notebook 09).
 *
 * <p>The claim ("Adventures with AtomicLong", 2011-09-11, Martin Thompson): on JDK 6/7,
 * {@code AtomicLong.incrementAndGet} was a CAS loop (get, compareAndSet, retry), and under contention it
 * lost to a single {@code LOCK XADD}, which the post showed in C; JDK 8 made incrementAndGet an XADD
 * intrinsic. The post timed threads x 500M increments with a hand-written loop per thread.
 *
 * <p>Variants, by the kernel's names ({@code mechsym.atomic.AtomicIncrement --variant}):
 * {@code atomic-increment} ({@code incrementAndGet}, an XADD today), {@code cas-loop} (the JDK 6/7 loop written
 * out), and, not in the post, {@code varhandle-add} ({@code VarHandle.getAndAdd}), {@code long-adder}
 * ({@code LongAdder.increment}, striped cells), {@code synchronized} (++ under a monitor, for scale).
 * Threads: one by default; {@code -t 2} for two threads on the one counter ({@code Scope.Benchmark}).
 *
 * <p>How to run this and what you should see:
 * <pre>
 *   java -cp 'build/jmh.jar:build/jmh-lib/*:build/lib/*' org.openjdk.jmh.Main 'mechsym.jmh.AtomicLongIncrement' \
 *        -f 5 -t 2 -p variant=atomic-increment,cas-loop
 * </pre>
 * One thread: XADD and the CAS loop about equal (an uncontended CAS does not fail). Two threads: both an order
 * of magnitude slower than one; the CAS loop slower than XADD by its failed attempts.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class AtomicLongIncrement {
    public static final List<String> VARIANTS = List.of("atomic-increment", "cas-loop", "varhandle-add",
                                                        "long-adder", "synchronized");
    private static final VarHandle VALUE;

    static {
        try {
            VALUE = MethodHandles.lookup().findVarHandle(AtomicLongIncrement.class, "value", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Param({"atomic-increment", "cas-loop", "varhandle-add", "long-adder", "synchronized"})
    public String variant;

    private final AtomicLong atomic = new AtomicLong();
    private final LongAdder adder = new LongAdder();
    private final Object monitor = new Object();
    private volatile long value;
    private long locked;
    private int which;

    @Setup
    public void setUp() {
        which = VARIANTS.indexOf(variant);
        if (which < 0) {
            throw new IllegalArgumentException("variant '" + variant + "': allowed values are " + String.join(", ", VARIANTS));
        }
    }

    /** One increment; its result goes to JMH's blackhole. {@code which} is constant within a fork. */
    @Benchmark
    @Threads(1)
    public long increment() {
        switch (which) {
            case 0:
                return atomic.incrementAndGet();
            case 1:
                long v;
                do {
                    v = atomic.get();
                } while (!atomic.compareAndSet(v, v + 1));
                return v + 1;
            case 2:
                return (long) VALUE.getAndAdd(this, 1L) + 1;
            case 3:
                adder.increment();
                return 0L;
            default:
                synchronized (monitor) {
                    return ++locked;
                }
        }
    }
}
