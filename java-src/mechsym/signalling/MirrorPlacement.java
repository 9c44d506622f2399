package mechsym.signalling;

import java.lang.reflect.Field;

import sun.misc.Unsafe;

/**
 * Where objects are, read with Unsafe before the clock, so that a holder class can be loaded with its two adjacent
 * static longs on one 64-byte cache line.
 *
 * <p>The lesson: a class's statics live in its mirror, allocated when the class is loaded wherever the loading
 * thread's allocation pointer happens to be, and with the first counter at byte 56 the pair straddles two lines.
 * The pointer can be read (two probe objects: the next free byte follows them), what loading allocates before the
 * mirror can be measured on a twin class of the same shape loaded first, and the pointer moved by a filler object
 * when the holder's counter would land at byte 56. A TLAB refill in between defeats it; {@link CounterLine} reads
 * the placement again after the timed region and the run reports it.
 */
public final class MirrorPlacement {
    static final int LINE = 64;
    private static final Unsafe U = unsafe();
    private static final long BASE = U.arrayBaseOffset(Object[].class);
    private static final int SCALE = U.arrayIndexScale(Object[].class);
    /** How compressed references are decoded (the heap base is a multiple of 64, so it drops out), or -1. */
    static final int SHIFT = inferShift();

    private MirrorPlacement() {
    }

    /** {@link #SHIFT}, for the tests (read through JPype). */
    public static int shift() {
        return SHIFT;
    }

    private static Unsafe unsafe() {
        try {
            final Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return (Unsafe) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("no Unsafe", e);
        }
    }

    /** The address of {@code o} modulo the heap base (its low six bits are its byte in a cache line). */
    public static long address(final Object o) {
        final Object[] box = {o};
        return SCALE == 8 ? U.getLong(box, BASE) : (U.getInt(box, BASE) & 0xFFFF_FFFFL) << SHIFT;
    }

    /** The next free byte of the calling thread's allocation buffer: two probes, then as far again. */
    static long top() {
        final long a = address(new long[1]);
        final long b = address(new long[1]);
        return 2 * b - a;
    }

    static long staticOffset(final Class<?> holder, final String field) {
        try {
            return U.staticFieldOffset(holder.getDeclaredField(field));
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException(holder + " has no field " + field, e);
        }
    }

    private static int inferShift() {
        if (SCALE == 8) {
            return 0;
        }
        for (int i = 0; i < 8; i++) {
            final long[] a = new long[1];
            final long[] b = new long[1];
            final Object[] box = {a, b};
            final long d = (U.getInt(box, BASE + SCALE) & 0xFFFF_FFFFL) - (U.getInt(box, BASE) & 0xFFFF_FFFFL);
            if (d == 24 || d == 32) {
                return 0;   // unscaled: d is a long[1]'s size in bytes (24 with compressed class pointers, else 32)
            }
            if (d == 3 || d == 4) {
                return 3;   // the same sizes in 8-byte units
            }
            if (d == 2) {
                return 4;   // 16-byte object alignment
            }
        }
        return -1;   // unknown (or a refill between the two): no placement
    }
}
