package mechsym.spsc;

import java.util.concurrent.atomic.AtomicLong;

/**
 * O2: {@link OriginalQueue} (O1) with a padded data buffer, as the post's
 * "padded data original": the array gets {@link #PAD} extra slots on each end
 * (2 x 16 = the post's 32 extra slots, skipping the first 16 on access), never
 * used, so the slots in use share no cache line with the array header or with
 * whatever the heap places right after the array.
 */
public final class OriginalPaddedDataQueue implements SpscQueue {
    static final int PAD = 16;

    private final int capacity;
    private final int mask;
    private final Object[] buffer;
    private final AtomicLong tail = new OriginalQueue.PaddedAtomicLong();   // AtomicLong, as O1: see OriginalQueue
    private final AtomicLong head = new OriginalQueue.PaddedAtomicLong();
    private final OriginalQueue.PaddedLong tailCache = new OriginalQueue.PaddedLong();
    private final OriginalQueue.PaddedLong headCache = new OriginalQueue.PaddedLong();

    public OriginalPaddedDataQueue(final int capacity) {
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.buffer = new Object[capacity + 2 * PAD];
    }

    @Override
    public boolean offer(final Object e) {
        final long currentTail = tail.get();               // lv tail
        final long wrapPoint = currentTail - capacity;
        if (headCache.value <= wrapPoint) {                // lp headCache
            headCache.value = head.get();                  // lv head, sp headCache
            if (headCache.value <= wrapPoint) {
                return false;
            }
        }
        buffer[PAD + ((int) currentTail & mask)] = e;      // sp element
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
        final int index = PAD + ((int) currentHead & mask);
        final Object e = buffer[index];                    // lp element
        buffer[index] = null;                              // sp element
        head.lazySet(currentHead + 1);                     // so head
        return e;
    }
}
