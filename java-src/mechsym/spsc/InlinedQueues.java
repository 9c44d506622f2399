package mechsym.spsc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The post's inlined-counter queues. The four counters of {@link OriginalQueue}
 * move out of their holder objects into the queue object itself, and a class
 * hierarchy forces their order and the padding between them (HotSpot lays out
 * a superclass's fields before its subclass's): cold fields, pad, tail, pad,
 * headCache, pad, head, pad, tailCache, pad, each pad seven longs (56 bytes),
 * so every hot field is 64 bytes from the next. Ordered writes of head and
 * tail go through {@link VarHandle#setRelease} (the post used Unsafe's
 * putOrderedLong, the same store); reads of head and tail are volatile reads.
 * The same algorithm as O1 otherwise.
 * <ul>
 *   <li>{@link I1}: inlined counters; the cold fields (capacity, mask, buffer)
 *       sit right after the object header.</li>
 *   <li>{@link I2}: I1 with the padded data buffer of {@link OriginalPaddedDataQueue}
 *       (the post's extra variant, "inlined counters, padded data").</li>
 *   <li>{@link I3}: I1 with 64 bytes of padding before the cold fields (an int
 *       fills the 4-byte hole after a 12-byte header, so that JDK 15+'s field
 *       layout, which lets subclass fields fill a superclass's holes, cannot put
 *       a cold field there).</li>
 *   <li>{@link I4}: I3 with the padded data buffer (16 unused slots on each end).</li>
 * </ul>
 * {@link SpscLayout} prints the actual layout with JOL and checks the spacing.
 */
public final class InlinedQueues {
    private InlinedQueues() {
    }

    static final int DATA_PAD = 16;

    // I1 and I2: inlined counters, cold fields flush against the object header.
    /** Cold fields: written once in the constructor, read by both threads. */
    abstract static class ACold {
        final int capacity;
        final int mask;
        final Object[] buffer;

        ACold(final int capacity, final int dataPad) {
            this.capacity = capacity;
            this.mask = capacity - 1;
            this.buffer = new Object[capacity + 2 * dataPad];
        }
    }

    abstract static class AL1Pad extends ACold {
        long p10, p11, p12, p13, p14, p15, p16;

        AL1Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    abstract static class ATail extends AL1Pad {
        volatile long tail;
        static final VarHandle TAIL = handle(ATail.class, "tail");

        ATail(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    abstract static class AL2Pad extends ATail {
        long p20, p21, p22, p23, p24, p25, p26;

        AL2Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    abstract static class AHeadCache extends AL2Pad {
        long headCache;
        static final VarHandle HEADCACHE = handle(AHeadCache.class, "headCache");

        AHeadCache(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    abstract static class AL3Pad extends AHeadCache {
        long p30, p31, p32, p33, p34, p35, p36;

        AL3Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    abstract static class AHead extends AL3Pad {
        volatile long head;
        static final VarHandle HEAD = handle(AHead.class, "head");

        AHead(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    abstract static class AL4Pad extends AHead {
        long p40, p41, p42, p43, p44, p45, p46;

        AL4Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    abstract static class ATailCache extends AL4Pad {
        long tailCache;
        static final VarHandle TAILCACHE = handle(ATailCache.class, "tailCache");

        ATailCache(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    abstract static class AL5Pad extends ATailCache {
        long p50, p51, p52, p53, p54, p55, p56;

        AL5Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** I1: inlined counters (no data padding). */
    public static final class I1 extends AL5Pad implements SpscQueue {
        private static final int PAD = 0;

        public I1(final int capacity) {
            super(capacity, PAD);
        }

        @Override
        public boolean offer(final Object e) {
            final long currentTail = tail;
            final long wrapPoint = currentTail - capacity;
            if (headCache <= wrapPoint) {
                headCache = head;
                if (headCache <= wrapPoint) {
                    return false;
                }
            }
            buffer[PAD + ((int) currentTail & mask)] = e;
            ATail.TAIL.setRelease(this, currentTail + 1);
            return true;
        }

        @Override
        public Object poll() {
            final long currentHead = head;
            if (currentHead >= tailCache) {
                tailCache = tail;
                if (currentHead >= tailCache) {
                    return null;
                }
            }
            final int index = PAD + ((int) currentHead & mask);
            final Object e = buffer[index];
            buffer[index] = null;
            AHead.HEAD.setRelease(this, currentHead + 1);
            return e;
        }
    }

    /** I2: inlined counters and a padded data buffer. */
    public static final class I2 extends AL5Pad implements SpscQueue {
        private static final int PAD = DATA_PAD;

        public I2(final int capacity) {
            super(capacity, PAD);
        }

        @Override
        public boolean offer(final Object e) {
            final long currentTail = tail;
            final long wrapPoint = currentTail - capacity;
            if (headCache <= wrapPoint) {
                headCache = head;
                if (headCache <= wrapPoint) {
                    return false;
                }
            }
            buffer[PAD + ((int) currentTail & mask)] = e;
            ATail.TAIL.setRelease(this, currentTail + 1);
            return true;
        }

        @Override
        public Object poll() {
            final long currentHead = head;
            if (currentHead >= tailCache) {
                tailCache = tail;
                if (currentHead >= tailCache) {
                    return null;
                }
            }
            final int index = PAD + ((int) currentHead & mask);
            final Object e = buffer[index];
            buffer[index] = null;
            AHead.HEAD.setRelease(this, currentHead + 1);
            return e;
        }
    }

    // I3 and I4: the same with padding before the cold fields.
    /** 64+ bytes of padding between the object header and the cold fields. */
    abstract static class BL0Pad {
        int p0i;
        long p00, p01, p02, p03, p04, p05, p06, p07;
    }

    /** Cold fields: written once in the constructor, read by both threads. */
    abstract static class BCold extends BL0Pad {
        final int capacity;
        final int mask;
        final Object[] buffer;

        BCold(final int capacity, final int dataPad) {
            this.capacity = capacity;
            this.mask = capacity - 1;
            this.buffer = new Object[capacity + 2 * dataPad];
        }
    }

    abstract static class BL1Pad extends BCold {
        long p10, p11, p12, p13, p14, p15, p16;

        BL1Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    abstract static class BTail extends BL1Pad {
        volatile long tail;
        static final VarHandle TAIL = handle(BTail.class, "tail");

        BTail(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    abstract static class BL2Pad extends BTail {
        long p20, p21, p22, p23, p24, p25, p26;

        BL2Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    abstract static class BHeadCache extends BL2Pad {
        long headCache;
        static final VarHandle HEADCACHE = handle(BHeadCache.class, "headCache");

        BHeadCache(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    abstract static class BL3Pad extends BHeadCache {
        long p30, p31, p32, p33, p34, p35, p36;

        BL3Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    abstract static class BHead extends BL3Pad {
        volatile long head;
        static final VarHandle HEAD = handle(BHead.class, "head");

        BHead(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    abstract static class BL4Pad extends BHead {
        long p40, p41, p42, p43, p44, p45, p46;

        BL4Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    abstract static class BTailCache extends BL4Pad {
        long tailCache;
        static final VarHandle TAILCACHE = handle(BTailCache.class, "tailCache");

        BTailCache(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    abstract static class BL5Pad extends BTailCache {
        long p50, p51, p52, p53, p54, p55, p56;

        BL5Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** I3: inlined counters and a padded class (no data padding). */
    public static final class I3 extends BL5Pad implements SpscQueue {
        private static final int PAD = 0;

        public I3(final int capacity) {
            super(capacity, PAD);
        }

        @Override
        public boolean offer(final Object e) {
            final long currentTail = tail;
            final long wrapPoint = currentTail - capacity;
            if (headCache <= wrapPoint) {
                headCache = head;
                if (headCache <= wrapPoint) {
                    return false;
                }
            }
            buffer[PAD + ((int) currentTail & mask)] = e;
            BTail.TAIL.setRelease(this, currentTail + 1);
            return true;
        }

        @Override
        public Object poll() {
            final long currentHead = head;
            if (currentHead >= tailCache) {
                tailCache = tail;
                if (currentHead >= tailCache) {
                    return null;
                }
            }
            final int index = PAD + ((int) currentHead & mask);
            final Object e = buffer[index];
            buffer[index] = null;
            BHead.HEAD.setRelease(this, currentHead + 1);
            return e;
        }
    }

    /** I4: inlined counters, padded class and padded data buffer. */
    public static final class I4 extends BL5Pad implements SpscQueue {
        private static final int PAD = DATA_PAD;

        public I4(final int capacity) {
            super(capacity, PAD);
        }

        @Override
        public boolean offer(final Object e) {
            final long currentTail = tail;
            final long wrapPoint = currentTail - capacity;
            if (headCache <= wrapPoint) {
                headCache = head;
                if (headCache <= wrapPoint) {
                    return false;
                }
            }
            buffer[PAD + ((int) currentTail & mask)] = e;
            BTail.TAIL.setRelease(this, currentTail + 1);
            return true;
        }

        @Override
        public Object poll() {
            final long currentHead = head;
            if (currentHead >= tailCache) {
                tailCache = tail;
                if (currentHead >= tailCache) {
                    return null;
                }
            }
            final int index = PAD + ((int) currentHead & mask);
            final Object e = buffer[index];
            buffer[index] = null;
            BHead.HEAD.setRelease(this, currentHead + 1);
            return e;
        }
    }

    static VarHandle handle(final Class<?> owner, final String field) {
        try {
            return MethodHandles.lookup().findVarHandle(owner, field, long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
