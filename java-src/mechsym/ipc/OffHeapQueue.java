package mechsym.ipc;

import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.MappedByteBuffer;
import java.util.List;

import sun.misc.Unsafe;

import mechsym.common.BadArgument;

/**
 * A single-producer single-consumer queue of ints in off-heap memory, laid out
 * as the post draws it: four cache lines of counters, each counter alone in
 * its line, then the buffer; accessed through {@code sun.misc.Unsafe} at raw
 * addresses, as the post did ("steal the address", {@code putOrderedLong},
 * {@code getLongVolatile}). The memory is a {@link MappedByteBuffer}, so two
 * processes that map the same file share the queue.
 *
 * <pre>
 *   line 0  head       (consumer's index: written by the consumer only)
 *   line 1  tailCache  (consumer's plain copy of tail)
 *   line 2  tail       (producer's index: written by the producer only)
 *   line 3  headCache  (producer's plain copy of head)
 *   line 4+ buffer     (capacity x 4-byte ints; capacity a power of two)
 *   then    control    (one line: the run handshake between the two sides; not in the post)
 * </pre>
 *
 * Layouts ({@code --layout}): {@code aligned}, each counter 24 bytes into its
 * line (address mod 64 = 24: the post's drawing, "head...." in the fourth
 * 8-byte slot, and its code, {@code CACHE_LINE_SIZE / 2 - 8}); {@code unaligned}, each counter
 * {@value #UNALIGNED_OFFSET} bytes into a 128-byte slot of its own, so the
 * 8-byte counter straddles two cache lines that no other counter uses (the
 * case the post warns about: not atomic, slow). The buffer is aligned in both.
 */
final class OffHeapQueue {
    static final List<String> LAYOUTS = List.of("aligned", "unaligned");
    static final int LINE = 64;
    static final int ALIGNED_OFFSET = LINE / 2 - 8;
    static final int UNALIGNED_OFFSET = 60;
    static final long EMPTY = -1L;
    static final Unsafe UNSAFE = unsafe();
    private static final long ADDRESS = addressOffset();

    final long headAddr;
    final long tailCacheAddr;
    final long tailAddr;
    final long headCacheAddr;
    final long bufferAddr;
    final long controlAddr;
    private final long mask;
    private final int capacity;

    /** The queue over {@code buffer} (a mapping at least {@link #bytes} long), starting at its first aligned line. */
    OffHeapQueue(final MappedByteBuffer buffer, final int capacity, final String layout) {
        final long base = address(buffer);
        final long start = (base + LINE - 1) & -LINE;
        final boolean aligned = layout.equals("aligned");
        final int slot = aligned ? LINE : 2 * LINE;
        final int offset = aligned ? ALIGNED_OFFSET : UNALIGNED_OFFSET;
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.headAddr = start + offset;
        this.tailCacheAddr = start + slot + offset;
        this.tailAddr = start + 2L * slot + offset;
        this.headCacheAddr = start + 3L * slot + offset;
        this.bufferAddr = start + 4L * slot;
        this.controlAddr = bufferAddr + 4L * capacity;
    }

    /** Bytes of mapping the queue needs: the post's recipe (4 lines + 4 x capacity + 1 spare line), + the control line. */
    static long bytes(final int capacity, final String layout) {
        final int slot = layout.equals("aligned") ? LINE : 2 * LINE;
        return 4L * slot + 4L * capacity + LINE + LINE;
    }

    static void checkCapacity(final int capacity) {
        if (capacity < 2 || Integer.bitCount(capacity) != 1) {
            throw new BadArgument("--capacity=" + capacity + ": must be a power of two >= 2");
        }
    }

    /** Adds v; false when full. Producer only. */
    boolean offer(final int v) {
        final long t = UNSAFE.getLongVolatile(null, tailAddr);       // lv tail (own index, as the post's getTail)
        final long wrap = t - capacity;
        if (UNSAFE.getLong(headCacheAddr) <= wrap) {                 // lp headCache
            final long h = UNSAFE.getLongVolatile(null, headAddr);   // lv head
            UNSAFE.putLong(headCacheAddr, h);                        // sp headCache
            if (h <= wrap) {
                return false;
            }
        }
        UNSAFE.putInt(bufferAddr + ((t & mask) << 2), v);            // sp buffer[t]
        UNSAFE.putOrderedLong(null, tailAddr, t + 1);                // so tail
        return true;
    }

    /** Removes the oldest int (zero-extended), or {@link #EMPTY}. Consumer only. */
    long poll() {
        final long h = UNSAFE.getLongVolatile(null, headAddr);       // lv head (own index, as the post's getHead)
        if (h >= UNSAFE.getLong(tailCacheAddr)) {                    // lp tailCache
            final long t = UNSAFE.getLongVolatile(null, tailAddr);   // lv tail
            UNSAFE.putLong(tailCacheAddr, t);                        // sp tailCache
            if (h >= t) {
                return EMPTY;
            }
        }
        final int v = UNSAFE.getInt(bufferAddr + ((h & mask) << 2)); // lp buffer[h]
        UNSAFE.putOrderedLong(null, headAddr, h + 1);                // so head
        return v & 0xFFFF_FFFFL;
    }

    /** How many ints are in the queue (either side, outside the timed loops). */
    long size() {
        return UNSAFE.getLongVolatile(null, tailAddr) - UNSAFE.getLongVolatile(null, headAddr);
    }

    long getVolatile(final long addr) {
        return UNSAFE.getLongVolatile(null, addr);
    }

    void putVolatile(final long addr, final long v) {
        UNSAFE.putLongVolatile(null, addr, v);
    }

    /** Where a counter sits in its cache line: its address mod 64. */
    static long lineOffset(final long addr) {
        return addr & (LINE - 1);
    }

    /** The native address of a direct buffer, read from {@code java.nio.Buffer.address} (the post's "steal the address"). */
    static long address(final Buffer buffer) {
        return UNSAFE.getLong(buffer, ADDRESS);
    }

    private static Unsafe unsafe() {
        try {
            final Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return (Unsafe) f.get(null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("sun.misc.Unsafe is not available: " + e, e);
        }
    }

    private static long addressOffset() {
        try {
            return UNSAFE.objectFieldOffset(Buffer.class.getDeclaredField("address"));
        } catch (NoSuchFieldException e) {
            throw new IllegalStateException("java.nio.Buffer has no field 'address' on this JDK", e);
        }
    }
}
