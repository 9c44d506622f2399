package mechsym.spsc;

import java.util.concurrent.atomic.AtomicLong;

/**
 * O1, the queue the post starts from (Martin Thompson's lock-free SPSC array
 * queue, as the post summarises it): capacity a power of two and a mask
 * instead of a modulo; the producer's {@code tail} and the consumer's
 * {@code head} are {@link AtomicLong}s written with {@code lazySet} (an
 * ordered store, no full fence); each side keeps a plain cached copy of the
 * other side's counter ({@code headCache} for the producer, {@code tailCache}
 * for the consumer) and reads the other side's volatile counter only when the
 * cache says full/empty; the four counters live in separate holder objects
 * padded with six longs after the value, as the post's code padded them
 * ({@code PaddedLong}: the value and six plain longs; {@code PaddedAtomicLong}:
 * {@code AtomicLong}'s value and six volatile longs, the last set to 7), so
 * padding is on one side only and the holders rely on being allocated next to
 * each other (the post's first complaint); {@code offer} refuses null, as the
 * post's code did.
 *
 * <p>{@code tail} and {@code head} are declared {@code AtomicLong}, as the
 * post's code declared them, not as their padded subclass: that decides where
 * they land. Verifying this class checks that a {@code PaddedAtomicLong} is an
 * {@code AtomicLong}, which loads the subclass before the first queue is
 * built, so nothing is allocated between the queue object and {@code tail}
 * ({@code tail}'s value then shares a cache line with the queue's own fields
 * whenever the queue starts late in its line: see {@link SpscThroughput}).
 * Declared as the subclass, the subclass loads at the first {@code new}, its
 * class data lands between the two, and the queue runs up to twice as fast
 * as the post's code did. The holders' sizes decide it too: padded with seven
 * longs (80-byte holders, not the post's 72), this kernel's queue landed at
 * byte 0 of its line after the GC and ran 2.6x the post's code; padded as the
 * post's code, it lands at byte 40, as the post's code's queue does.
 */
public final class OriginalQueue implements SpscQueue {
    /** A plain long followed by 48 bytes of padding (a 72-byte object), as the post's code. */
    static final class PaddedLong {
        long value;
        long p1, p2, p3, p4, p5, p6; // 48 bytes after the value
    }

    /** An AtomicLong followed by 48 bytes of volatile padding (a 72-byte object), as the post's code. */
    static final class PaddedAtomicLong extends AtomicLong {
        private static final long serialVersionUID = 1L;
        volatile long p1, p2, p3, p4, p5, p6 = 7;

        PaddedAtomicLong() {
            super(0L);
        }
    }

    private final int capacity;
    private final int mask;
    private final Object[] buffer;
    private final AtomicLong tail = new PaddedAtomicLong();   // AtomicLong, as the post's code: see above
    private final AtomicLong head = new PaddedAtomicLong();
    private final PaddedLong tailCache = new PaddedLong();
    private final PaddedLong headCache = new PaddedLong();

    public OriginalQueue(final int capacity) {
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.buffer = new Object[capacity];
    }

    @Override
    public boolean offer(final Object e) {
        if (null == e) {                                   // as the post's code
            throw new NullPointerException("null is not a valid element");
        }
        final long currentTail = tail.get();               // lv tail
        final long wrapPoint = currentTail - capacity;
        if (headCache.value <= wrapPoint) {                // lp headCache
            headCache.value = head.get();                  // lv head, sp headCache
            if (headCache.value <= wrapPoint) {
                return false;
            }
        }
        buffer[(int) currentTail & mask] = e;              // sp element
        tail.lazySet(currentTail + 1);                     // so tail
        return true;
    }

    @Override
    public Object poll() {
        final long currentHead = head.get();               // lv head
        if (currentHead >= tailCache.value) {              // lp tailCache
            tailCache.value = tail.get();                  // lv tail, sp tailCache
            if (currentHead >= tailCache.value) {
                return null;
            }
        }
        final int index = (int) currentHead & mask;
        final Object e = buffer[index];                    // lp element
        buffer[index] = null;                              // sp element
        head.lazySet(currentHead + 1);                     // so head
        return e;
    }
}
