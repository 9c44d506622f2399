package mechsym.jmh;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * False sharing: two threads, each writing its own volatile counter, per counter layout (notebook 06).
 *
 * <p>The claim ("False Sharing", 2011-07-29, and "False Sharing && Java 7", 2011-08-13, Martin Thompson):
 * counters next to each other share a cache line, and two threads writing "their own" counter then run
 * several times slower than when each counter has a line of its own; padding (six longs after the value,
 * or an AtomicLong subclass with six volatile longs summed so that Java 7 cannot drop them) restores it.
 * The posts timed N threads over 500M writes each with the counters in one array of objects.
 *
 * <p>The shape is JMH's own {@code JMHSample_22_FalseSharing}: a group of two threads, {@link #first} and
 * {@link #second}, each storing into its own counter of a pair held in a group-scoped state; {@link #alone}
 * is one thread writing one counter of the same layout, the baseline. Layouts, by the kernel's names
 * ({@code mechsym.falsesharing.FalseSharing --layout}):
 * <ul>
 *   <li>{@code unpadded}: the first post's VolatileLong with its padding commented out.</li>
 *   <li>{@code padded-longs}: the first post's padding, six unused longs after the value.</li>
 *   <li>{@code padded-atomic}: the second post's PaddedAtomicLong, an AtomicLong with six volatile longs.</li>
 *   <li>{@code inherited}: padding by inheritance (JCTools' way): seven longs, the value, seven longs.</li>
 *   <li>{@code array-stride}: one long[], counter k at element 8(k+1), 64 bytes apart.</li>
 * </ul>
 * Left out: the kernel's {@code contended} ({@code @jdk.internal.vm.annotation.Contended}), which the kernel
 * defines as class-file bytes at run time because javac refuses {@code --add-exports} with {@code --release}.
 * Each pair is allocated in the trial's set-up, the two objects one after the other (so, unpadded, in one
 * line of a thread-local allocation buffer); a GC may move them, as it may in the kernel.
 *
 * <p>How to run this and what you should see:
 * <pre>
 *   java -cp 'build/jmh.jar:build/jmh-lib/*:build/lib/*' org.openjdk.jmh.Main 'mechsym.jmh.FalseSharing' -f 5
 * </pre>
 * {@code pair} with {@code unpadded}: each thread's writes several times slower than {@code alone}; with every
 * padded layout, {@code pair}'s per-thread rate close to {@code alone}'s (on two CPUs of different cores).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class FalseSharing {
    public static final List<String> LAYOUTS = List.of("unpadded", "padded-longs", "padded-atomic", "inherited",
                                                       "array-stride");

    @State(Scope.Group)
    public static class Counters {
        @Param({"unpadded", "padded-longs", "padded-atomic", "inherited", "array-stride"})
        public String layout;

        Pair pair;

        @Setup
        public void setUp() {
            switch (layout) {
                case "unpadded": pair = new UnpaddedPair(); break;
                case "padded-longs": pair = new PaddedLongsPair(); break;
                case "padded-atomic": pair = new PaddedAtomicPair(); break;
                case "inherited": pair = new InheritedPair(); break;
                case "array-stride": pair = new ArrayStridePair(); break;
                default: throw new IllegalArgumentException("layout '" + layout + "': allowed values are "
                                                            + String.join(", ", LAYOUTS));
            }
        }
    }

    /** Each writing thread's own running value: a plain field of a thread-scoped state, never shared. */
    @State(Scope.Thread)
    public static class Local {
        long value;
    }

    @Benchmark
    @Group("pair")
    @GroupThreads(1)
    public void first(final Counters c, final Local local) {
        c.pair.store0(++local.value);
    }

    @Benchmark
    @Group("pair")
    @GroupThreads(1)
    public void second(final Counters c, final Local local) {
        c.pair.store1(++local.value);
    }

    /** The baseline: one thread, one counter of the same layout, nobody else writing the line. */
    @Benchmark
    @Group("alone")
    @GroupThreads(1)
    public void alone(final Counters c, final Local local) {
        c.pair.store0(++local.value);
    }

    /** Two counters in one layout; a volatile store into each. One implementation per fork: inlined. */
    abstract static class Pair {
        abstract void store0(long v);

        abstract void store1(long v);
    }

    static final class VolatileLong {
        volatile long value;
    }

    static final class UnpaddedPair extends Pair {
        private final VolatileLong a = new VolatileLong();
        private final VolatileLong b = new VolatileLong();

        void store0(final long v) {
            a.value = v;
        }

        void store1(final long v) {
            b.value = v;
        }
    }

    static final class PaddedVolatileLong {
        volatile long value;
        long p1, p2, p3, p4, p5, p6;
    }

    static final class PaddedLongsPair extends Pair {
        private final PaddedVolatileLong a = new PaddedVolatileLong();
        private final PaddedVolatileLong b = new PaddedVolatileLong();

        void store0(final long v) {
            a.value = v;
        }

        void store1(final long v) {
            b.value = v;
        }
    }

    /** The second post's PaddedAtomicLong: the padding is summed (never called here) so it cannot be dropped. */
    static final class PaddedAtomicLong extends AtomicLong {
        private static final long serialVersionUID = 1L;
        public volatile long p1, p2, p3, p4, p5, p6 = 7L;

        long sumPaddingToPreventOptimisation() {
            return p1 + p2 + p3 + p4 + p5 + p6;
        }
    }

    static final class PaddedAtomicPair extends Pair {
        private final PaddedAtomicLong a = new PaddedAtomicLong();
        private final PaddedAtomicLong b = new PaddedAtomicLong();

        void store0(final long v) {
            a.set(v);
        }

        void store1(final long v) {
            b.set(v);
        }
    }

    static class LhsPad {
        long p01, p02, p03, p04, p05, p06, p07;
    }

    static class ValueField extends LhsPad {
        volatile long value;
    }

    static final class InheritedLong extends ValueField {
        long p11, p12, p13, p14, p15, p16, p17;
    }

    static final class InheritedPair extends Pair {
        private final InheritedLong a = new InheritedLong();
        private final InheritedLong b = new InheritedLong();

        void store0(final long v) {
            a.value = v;
        }

        void store1(final long v) {
            b.value = v;
        }
    }

    static final class ArrayStridePair extends Pair {
        private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
        /** longs per 64-byte line: counter k at element STRIDE(k + 1), a line from the header and each other. */
        private static final int STRIDE = 8;
        private final long[] longs = new long[STRIDE * 3];

        void store0(final long v) {
            LONGS.setVolatile(longs, STRIDE, v);
        }

        void store1(final long v) {
            LONGS.setVolatile(longs, 2 * STRIDE, v);
        }
    }
}
