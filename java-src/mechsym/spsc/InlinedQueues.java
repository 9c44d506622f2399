package mechsym.spsc;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The post's inlined-counter queues. The four counters of {@link OriginalQueue}
 * move out of their holder objects into the queue object itself, and a class
 * hierarchy forces their order and the padding between them (HotSpot lays out
 * a superclass's fields before its subclass's; see package-info for the
 * naming): cold fields, pad, tail, pad, headCache, pad, head, pad, tailCache,
 * pad, each pad seven longs (56 bytes), so every hot field is 64 bytes from
 * the next. Ordered writes of head and tail go through
 * {@link VarHandle#setRelease} (the post used Unsafe's putOrderedLong, the same
 * store); reads of head and tail are volatile reads. The same algorithm as O1
 * otherwise.
 * <ul>
 *   <li>{@link I1}: inlined counters; the cold fields (capacity, mask, buffer)
 *       sit right after the object header.</li>
 *   <li>{@link I2}: I1 with the padded data buffer of {@link OriginalPaddedDataQueue}
 *       (the post's extra variant, "inlined counters, padded data").</li>
 *   <li>{@link PaddedClassQueues.I3}: I1 with 64 bytes of padding before the
 *       cold fields (an int fills the 4-byte hole after a 12-byte header, so that
 *       JDK 15+'s field layout, which lets subclass fields fill a superclass's
 *       holes, cannot put a cold field there).</li>
 *   <li>{@link PaddedClassQueues.I4}: I3 with the padded data buffer (16 unused
 *       slots on each end).</li>
 * </ul>
 *
 * <p>Why offer and poll are written out four times, identically except for
 * the {@code PAD} constant and the class whose VarHandle they use: each
 * variant's layout is its own class hierarchy, and the post measured four
 * separate classes, each with its own copy of the hot path (its own bytecode,
 * so its own profile and compiled code). A shared superclass method or a
 * static helper taking the queue would change that: one method compiled for
 * two receivers, or a call the JIT has to inline first. So the copies stay;
 * tests/test_spsc_sanity.py runs the same contract over every variant, which
 * is what keeps them alike. Comments name each access with the prefixes of
 * package-info (lv, so, lp, sp).
 *
 * <p>{@link SpscLayout} prints the actual layout with JOL and checks the spacing.
 */
public final class InlinedQueues {
    private InlinedQueues() {
    }

    /** Unused slots at each end of I2's and I4's buffer: the same as O2's. */
    static final int DATA_PAD = OriginalPaddedDataQueue.PAD;

    // I1 and I2: inlined counters, cold fields flush against the object header.

    /** Cold fields of I1 and I2: written once in the constructor, read by both threads. */
    abstract static class InlinedColdFields {
        final int capacity;
        final int mask;
        final Object[] buffer;

        InlinedColdFields(final int capacity, final int dataPad) {
            this.capacity = capacity;
            this.mask = capacity - 1;
            this.buffer = new Object[capacity + 2 * dataPad];
        }
    }

    /** Padding only: 56 bytes between the cold fields and tail. */
    abstract static class InlinedL1Pad extends InlinedColdFields {
        long p10, p11, p12, p13; // 32 bytes
        long p14, p15, p16;      // 56 bytes

        InlinedL1Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** The producer's index (tail): written by the producer only (so), read by both (lv). */
    abstract static class InlinedTailField extends InlinedL1Pad {
        volatile long tail;
        static final VarHandle TAIL = handle(InlinedTailField.class, "tail");

        InlinedTailField(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** Padding only: 56 bytes between tail and headCache. */
    abstract static class InlinedL2Pad extends InlinedTailField {
        long p20, p21, p22, p23; // 32 bytes
        long p24, p25, p26;      // 56 bytes

        InlinedL2Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** The producer's plain copy of head (lp/sp by the producer only): it reads head only when this says full. */
    abstract static class InlinedHeadCacheField extends InlinedL2Pad {
        long headCache;

        InlinedHeadCacheField(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** Padding only: 56 bytes between headCache and head. */
    abstract static class InlinedL3Pad extends InlinedHeadCacheField {
        long p30, p31, p32, p33; // 32 bytes
        long p34, p35, p36;      // 56 bytes

        InlinedL3Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** The consumer's index (head): written by the consumer only (so), read by both (lv). */
    abstract static class InlinedHeadField extends InlinedL3Pad {
        volatile long head;
        static final VarHandle HEAD = handle(InlinedHeadField.class, "head");

        InlinedHeadField(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** Padding only: 56 bytes between head and tailCache. */
    abstract static class InlinedL4Pad extends InlinedHeadField {
        long p40, p41, p42, p43; // 32 bytes
        long p44, p45, p46;      // 56 bytes

        InlinedL4Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** The consumer's plain copy of tail (lp/sp by the consumer only): it reads tail only when this says empty. */
    abstract static class InlinedTailCacheField extends InlinedL4Pad {
        long tailCache;

        InlinedTailCacheField(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** Padding only: 56 bytes between tailCache and whatever the heap puts after the queue. */
    abstract static class InlinedL5Pad extends InlinedTailCacheField {
        long p50, p51, p52, p53; // 32 bytes
        long p54, p55, p56;      // 56 bytes

        InlinedL5Pad(final int capacity, final int dataPad) {
            super(capacity, dataPad);
        }
    }

    /** I1: inlined counters (no data padding). */
    public static final class I1 extends InlinedL5Pad implements SpscQueue {
        private static final int PAD = 0;

        public I1(final int capacity) {
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
            InlinedTailField.TAIL.setRelease(this, currentTail + 1); // so tail
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
            InlinedHeadField.HEAD.setRelease(this, currentHead + 1); // so head
            return e;
        }
    }

    /** I2: inlined counters and a padded data buffer. */
    public static final class I2 extends InlinedL5Pad implements SpscQueue {
        private static final int PAD = DATA_PAD;

        public I2(final int capacity) {
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
            InlinedTailField.TAIL.setRelease(this, currentTail + 1); // so tail
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
            InlinedHeadField.HEAD.setRelease(this, currentHead + 1); // so head
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
