package mechsym.spsc;

import java.lang.invoke.VarHandle;

/**
 * The post's "padded class" queues, I3 and I4: {@link InlinedQueues}' I1 and I2
 * with 64 bytes of padding before the cold fields, each its own class hierarchy
 * (cold fields, pad, tail, pad, headCache, pad, head, pad, tailCache, pad). In a
 * file of their own only for length: the hot paths are the same copies as I1's
 * and I2's, for the reason InlinedQueues gives.
 */
public final class PaddedClassQueues {
    private PaddedClassQueues() {
    }

    /**
     * Padding only, before the cold fields of I3 and I4: the int fills the hole
     * a 12-byte object header leaves before the first 8-byte-aligned field, the
     * longs are 64 bytes, so no cold field shares the header's cache line.
     */
    abstract static class PaddedClassL0Pad {
        int p0i;                                     //  4 bytes
        long p00, p01, p02, p03;                     // 36 bytes
        long p04, p05, p06, p07;                     // 68 bytes
    }

    /** Cold fields of I3 and I4: written once in the constructor, read by both threads. */
    abstract static class PaddedClassColdFields extends PaddedClassL0Pad {
        final int capacity;
        final int mask;
        final Object[] buffer;

        PaddedClassColdFields(final int capacity, final int dataPad) {
            this.capacity = capacity;
            this.mask = capacity - 1;
            this.buffer = new Object[capacity + 2 * dataPad];
        }
    }

    /** Padding only: 56 bytes between the cold fields and tail. */
    abstract static class PaddedClassL1Pad extends PaddedClassColdFields {
        long p10, p11, p12, p13; // 32 bytes
        long p14, p15, p16;      // 56 bytes

        PaddedClassL1Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** The producer's index (tail): written by the producer only (so), read by both (lv). */
    abstract static class PaddedClassTailField extends PaddedClassL1Pad {
        volatile long tail;
        static final VarHandle TAIL = InlinedQueues.handle(PaddedClassTailField.class, "tail");

        PaddedClassTailField(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** Padding only: 56 bytes between tail and headCache. */
    abstract static class PaddedClassL2Pad extends PaddedClassTailField {
        long p20, p21, p22, p23; // 32 bytes
        long p24, p25, p26;      // 56 bytes

        PaddedClassL2Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** The producer's plain copy of head (lp/sp by the producer only): it reads head only when this says full. */
    abstract static class PaddedClassHeadCacheField extends PaddedClassL2Pad {
        long headCache;

        PaddedClassHeadCacheField(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** Padding only: 56 bytes between headCache and head. */
    abstract static class PaddedClassL3Pad extends PaddedClassHeadCacheField {
        long p30, p31, p32, p33; // 32 bytes
        long p34, p35, p36;      // 56 bytes

        PaddedClassL3Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** The consumer's index (head): written by the consumer only (so), read by both (lv). */
    abstract static class PaddedClassHeadField extends PaddedClassL3Pad {
        volatile long head;
        static final VarHandle HEAD = InlinedQueues.handle(PaddedClassHeadField.class, "head");

        PaddedClassHeadField(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** Padding only: 56 bytes between head and tailCache. */
    abstract static class PaddedClassL4Pad extends PaddedClassHeadField {
        long p40, p41, p42, p43; // 32 bytes
        long p44, p45, p46;      // 56 bytes

        PaddedClassL4Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** The consumer's plain copy of tail (lp/sp by the consumer only): it reads tail only when this says empty. */
    abstract static class PaddedClassTailCacheField extends PaddedClassL4Pad {
        long tailCache;

        PaddedClassTailCacheField(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** Padding only: 56 bytes between tailCache and whatever the heap puts after the queue. */
    abstract static class PaddedClassL5Pad extends PaddedClassTailCacheField {
        long p50, p51, p52, p53; // 32 bytes
        long p54, p55, p56;      // 56 bytes

        PaddedClassL5Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** I3: inlined counters and a padded class (no data padding). */
    public static final class I3 extends PaddedClassL5Pad implements SpscQueue {
        private static final int PAD = 0;

        public I3(final int capacity) {
            super(capacity, PAD);
        }

        @Override
        public boolean offer(final Object e) {
            final long currentTail = tail;                       // lv tail
            final long wrapPoint = currentTail - capacity;
            if (headCache <= wrapPoint) {                        // lp headCache
                headCache = head;                                // lv head, sp headCache
                if (headCache <= wrapPoint) {
                    return false;
                }
            }
            buffer[PAD + ((int) currentTail & mask)] = e;        // sp element
            PaddedClassTailField.TAIL.setRelease(this, currentTail + 1); // so tail
            return true;
        }

        @Override
        public Object poll() {
            final long currentHead = head;                       // lv head
            if (currentHead >= tailCache) {                      // lp tailCache
                tailCache = tail;                                // lv tail, sp tailCache
                if (currentHead >= tailCache) {
                    return null;
                }
            }
            final int index = PAD + ((int) currentHead & mask);
            final Object e = buffer[index];                      // lp element
            buffer[index] = null;                                // sp element
            PaddedClassHeadField.HEAD.setRelease(this, currentHead + 1); // so head
            return e;
        }
    }

    /** I4: inlined counters, padded class and padded data buffer. */
    public static final class I4 extends PaddedClassL5Pad implements SpscQueue {
        private static final int PAD = InlinedQueues.DATA_PAD;

        public I4(final int capacity) {
            super(capacity, PAD);
        }

        @Override
        public boolean offer(final Object e) {
            final long currentTail = tail;                       // lv tail
            final long wrapPoint = currentTail - capacity;
            if (headCache <= wrapPoint) {                        // lp headCache
                headCache = head;                                // lv head, sp headCache
                if (headCache <= wrapPoint) {
                    return false;
                }
            }
            buffer[PAD + ((int) currentTail & mask)] = e;        // sp element
            PaddedClassTailField.TAIL.setRelease(this, currentTail + 1); // so tail
            return true;
        }

        @Override
        public Object poll() {
            final long currentHead = head;                       // lv head
            if (currentHead >= tailCache) {                      // lp tailCache
                tailCache = tail;                                // lv tail, sp tailCache
                if (currentHead >= tailCache) {
                    return null;
                }
            }
            final int index = PAD + ((int) currentHead & mask);
            final Object e = buffer[index];                      // lp element
            buffer[index] = null;                                // sp element
            PaddedClassHeadField.HEAD.setRelease(this, currentHead + 1); // so head
            return e;
        }
    }
}
