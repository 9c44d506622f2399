package mechsym.falsesharing;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import mechsym.common.BadArgument;
import mechsym.common.CheckFailed;

/**
 * The counter layouts of the false-sharing kernel, each named by what it does.
 * Every layout keeps its counters in a static, non-final array that is filled
 * afresh before each run (the listing's static initialiser), and writes them
 * with the listing's loop: {@code long i = N + 1; while (0 != --i) longs[k].value = i;}.
 * Each layout has its own copy of that loop, so each is compiled for one
 * receiver type, as the listing's was.
 */
final class Layouts {
    static final List<String> NAMES = List.of("unpadded", "padded-longs", "padded-atomic", "inherited", "contended",
                                              "array-stride");
    /** longs per 64-byte cache line: the array layout's stride. */
    static final int STRIDE = 8;

    private Layouts() {
    }

    /** The counters of one layout: allocate, the listing's loop, and plain access for checks and faults. */
    interface Counters {
        void allocate(int threads);

        void run(int index, long iterations);

        void set(int index, long value);

        long get(int index);

        /** The object that holds counter {@code index} (for JOL's addresses). */
        Object holder(int index);

        /** The array of references every thread reads on every write ({@code longs}), or null when there is none. */
        default Object references() {
            return null;
        }

        /** Throws {@link CheckFailed} when a layout's own invariant (its padding) does not hold. */
        default void checkPadding() {
        }
    }

    static Counters create(final String name) {
        switch (name) {
            case "unpadded": return new Unpadded();
            case "padded-longs": return new PaddedLongs();
            case "padded-atomic": return new PaddedAtomic();
            case "inherited": return new Inherited();
            case "contended": return new Contended();
            case "array-stride": return new ArrayStride();
            default: throw new BadArgument("--layout=" + name + ": allowed values are " + String.join(", ", NAMES));
        }
    }

    // ------------------------------------------------------------------ unpadded: the first post with "// comment out" done

    /** The first post's VolatileLong with its padding commented out: 8 bytes of value after the header. */
    public static final class VolatileLong {
        public volatile long value = 0L;
    }

    static final class Unpadded implements Counters {
        static VolatileLong[] longs;

        public void allocate(final int threads) {
            longs = new VolatileLong[threads];
            for (int i = 0; i < threads; i++) {
                longs[i] = new VolatileLong();
            }
        }

        public void run(final int arrayIndex, final long iterations) {
            long i = iterations + 1;
            while (0 != --i) {
                longs[arrayIndex].value = i;
            }
        }

        public void set(final int index, final long value) {
            longs[index].value = value;
        }

        public long get(final int index) {
            return longs[index].value;
        }

        public Object holder(final int index) {
            return longs[index];
        }

        @Override
        public Object references() {
            return longs;
        }
    }

    // ------------------------------------------------------------------ padded-longs: the first post (2011-07-30)

    /** The first post's VolatileLong: the value, then six unused longs (never read, as in the listing). */
    public static final class PaddedVolatileLong {
        public volatile long value = 0L;
        public long p1, p2, p3, p4, p5, p6;
    }

    static final class PaddedLongs implements Counters {
        static PaddedVolatileLong[] longs;

        public void allocate(final int threads) {
            longs = new PaddedVolatileLong[threads];
            for (int i = 0; i < threads; i++) {
                longs[i] = new PaddedVolatileLong();
            }
        }

        public void run(final int arrayIndex, final long iterations) {
            long i = iterations + 1;
            while (0 != --i) {
                longs[arrayIndex].value = i;
            }
        }

        public void set(final int index, final long value) {
            longs[index].value = value;
        }

        public long get(final int index) {
            return longs[index].value;
        }

        public Object holder(final int index) {
            return longs[index];
        }

        @Override
        public Object references() {
            return longs;
        }
    }

    // ------------------------------------------------------------------ padded-atomic: the second post (2011-08-13)

    /** The second post's PaddedAtomicLong: AtomicLong's value, then six volatile longs (p6 = 7). */
    public static class PaddedAtomicLong extends AtomicLong {
        private static final long serialVersionUID = 1L;
        public volatile long p1, p2, p3, p4, p5, p6 = 7L;
    }

    static final class PaddedAtomic implements Counters {
        static PaddedAtomicLong[] longs;

        public void allocate(final int threads) {
            longs = new PaddedAtomicLong[threads];
            for (int i = 0; i < threads; i++) {
                longs[i] = new PaddedAtomicLong();
            }
        }

        public void run(final int arrayIndex, final long iterations) {
            long i = iterations + 1;
            while (0 != --i) {
                longs[arrayIndex].set(i);
            }
        }

        public void set(final int index, final long value) {
            longs[index].set(value);
        }

        public long get(final int index) {
            return longs[index].get();
        }

        public Object holder(final int index) {
            return longs[index];
        }

        @Override
        public Object references() {
            return longs;
        }

        /** The listing's sumPaddingToPreventOptimisation: the padding is read, so it cannot be dropped. */
        static long sumPaddingToPreventOptimisation(final int index) {
            final PaddedAtomicLong v = longs[index];
            return v.p1 + v.p2 + v.p3 + v.p4 + v.p5 + v.p6;
        }

        @Override
        public void checkPadding() {
            for (int k = 0; k < longs.length; k++) {
                final long sum = sumPaddingToPreventOptimisation(k);
                CheckFailed.require(sum == 7L, "padded-atomic counter " + k + ": padding sums to " + sum + ", not 7");
            }
        }
    }

    // ------------------------------------------------------------------ inherited: JCTools-style class chain

    /** Step 1: 7 longs of padding, inherited first, so they sit before the value (12-byte header + 4 + 56 = 72). */
    abstract static class InheritedL1Pad {
        long p01, p02, p03, p04, p05, p06, p07;
    }

    /** Step 2: the value, after the L1 pad (bytes 72..80 with a 12-byte header). */
    abstract static class InheritedValueField extends InheritedL1Pad {
        volatile long value;
    }

    /** Step 3: 7 more longs after the value (80..136): a superclass's fields always come before a subclass's. */
    static final class InheritedLong extends InheritedValueField {
        long p11, p12, p13, p14, p15, p16, p17;
    }

    static final class Inherited implements Counters {
        static InheritedLong[] longs;

        public void allocate(final int threads) {
            longs = new InheritedLong[threads];
            for (int i = 0; i < threads; i++) {
                longs[i] = new InheritedLong();
            }
        }

        public void run(final int arrayIndex, final long iterations) {
            long i = iterations + 1;
            while (0 != --i) {
                longs[arrayIndex].value = i;
            }
        }

        public void set(final int index, final long value) {
            longs[index].value = value;
        }

        public long get(final int index) {
            return longs[index].value;
        }

        public Object holder(final int index) {
            return longs[index];
        }

        @Override
        public Object references() {
            return longs;
        }
    }

    // ------------------------------------------------------------------ contended: @Contended (JDK 8+)

    /**
     * A class holding {@code @jdk.internal.vm.annotation.Contended public volatile long value}, defined at run
     * time ({@link ContendedClass}): javac cannot name that annotation under {@code --release 17}. HotSpot pads
     * the field (128 bytes each side) only when {@code -XX:-RestrictContended} is given.
     */
    static final class Contended implements Counters {
        static final Class<?> TYPE = ContendedClass.define();
        private static final VarHandle VALUE;
        /** The constructor as a method handle: unlike reflection, a call allocates nothing but the counter. */
        private static final MethodHandle NEW;

        static {
            try {
                VALUE = MethodHandles.lookup().findVarHandle(TYPE, "value", long.class);
                NEW = MethodHandles.lookup().findConstructor(TYPE, MethodType.methodType(void.class));
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("ContendedLong: " + e, e);
            }
        }

        static Object[] longs;

        public void allocate(final int threads) {
            longs = new Object[threads];
            for (int i = 0; i < threads; i++) {
                try {
                    longs[i] = NEW.invoke();
                } catch (Throwable e) {
                    throw new IllegalStateException("new ContendedLong: " + e, e);
                }
            }
        }

        public void run(final int arrayIndex, final long iterations) {
            long i = iterations + 1;
            while (0 != --i) {
                VALUE.setVolatile(longs[arrayIndex], i);
            }
        }

        public void set(final int index, final long value) {
            VALUE.setVolatile(longs[index], value);
        }

        public long get(final int index) {
            return (long) VALUE.getVolatile(longs[index]);
        }

        public Object holder(final int index) {
            return longs[index];
        }

        @Override
        public Object references() {
            return longs;
        }
    }

    // ------------------------------------------------------------------ array-stride: one long[], a line apart

    /** One long[] written with volatile stores (a VarHandle): counter k at element (k + 1) x 8, 64 bytes apart. */
    static final class ArrayStride implements Counters {
        private static final VarHandle ELEMENT = MethodHandles.arrayElementVarHandle(long[].class);
        static long[] longs;

        public void allocate(final int threads) {
            longs = new long[(threads + 1) * STRIDE];
        }

        public void run(final int arrayIndex, final long iterations) {
            long i = iterations + 1;
            while (0 != --i) {
                ELEMENT.setVolatile(longs, (arrayIndex + 1) * STRIDE, i);
            }
        }

        public void set(final int index, final long value) {
            ELEMENT.setVolatile(longs, (index + 1) * STRIDE, value);
        }

        public long get(final int index) {
            return (long) ELEMENT.getVolatile(longs, (index + 1) * STRIDE);
        }

        public Object holder(final int index) {
            return longs;
        }
    }
}
