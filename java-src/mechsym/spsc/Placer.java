package mechsym.spsc;

/**
 * Puts the queue at one byte of its cache line for the post harness
 * ({@code --queue-at}), without building it again: a full GC slides live
 * objects down in allocation order, so an object's place after it is the
 * size of what lives before it. Sixteen small live spacers (twelve
 * {@code long[0]}, four {@code long[1]}: 16 and 24 bytes with compressed
 * class pointers) are allocated and the heap collected before the queue
 * is built, so that the queue is built above them (allocated just before
 * it, without that GC, they were not always below it on a loaded
 * machine); after a GC that leaves the queue elsewhere, the smallest set
 * of them that slides it to the byte asked for is let go and the heap
 * collected again. The queue is built once, as in the post's code, so
 * its counters keep the distances they have without placement (their
 * class data between {@code head} and {@code tailCache}, say). The GC
 * before an iteration can move it further down (something that lived
 * before it died), so the place is settled after each one, outside the
 * clock. The array is not placed: it starts 3,096 bytes after the queue
 * here, where the post's code has it right after {@code headCache} (696
 * bytes), and {@code buffer_line_offset} records where it starts.
 * The slide is exact only when one thread compacts: G1's full GC compacts
 * in one chain per GC worker, and which regions a worker takes varies with
 * the machine's load, so run it with {@code -XX:ParallelGCThreads=1} (with
 * two workers on a loaded 2-CPU machine the queue once stayed at byte 40
 * after six GCs, and the run ends with that error).
 */
final class Placer {
    private static final int TRIES = 6;
    private final int at;
    private final Object[] small = new Object[12];   // long[0] spacers
    private final Object[] large = new Object[4];    // long[1] spacers
    private int smallLeft = small.length;            // the live ones are small[0 .. smallLeft)
    private int largeLeft = large.length;
    private final long smallBytes;
    private final long largeBytes;

    Placer(final int at) {
        this.at = at;
        if (Addresses.vm() == null) {
            throw new IllegalStateException("--queue-at=" + at + ": JOL cannot read addresses on this JVM, so the "
                                            + "queue cannot be placed");
        }
        for (int k = 0; k < small.length; k++) {
            small[k] = new long[0];
        }
        for (int k = 0; k < large.length; k++) {
            large[k] = new long[1];
        }
        smallBytes = Addresses.vm().sizeOf(small[0]);
        largeBytes = Addresses.vm().sizeOf(large[0]);
        System.gc();   // the spacers slide to the end of what lives; the queue is then built above them
    }

    /** After a full GC: slides {@code queue} to byte {@code at} of its line; else IllegalStateException. */
    void settle(final Object queue, final int iteration) {
        long off = Addresses.lineOffset(queue);
        for (int t = 0; off != at; t++) {
            final long slide = (off - at) & 63;
            int bestSmall = -1;
            int bestLarge = -1;
            for (int a = 0; a <= smallLeft; a++) {
                for (int b = 0; b <= largeLeft; b++) {
                    final long bytes = smallBytes * a + largeBytes * b;
                    if (bytes > 0 && (bytes & 63) == slide
                        && (bestSmall < 0 || bytes < smallBytes * bestSmall + largeBytes * bestLarge)) {
                        bestSmall = a;
                        bestLarge = b;
                    }
                }
            }
            if (t == TRIES || bestSmall < 0) {
                throw new IllegalStateException("--queue-at=" + at + ": iteration " + iteration + ": the queue is "
                                                + "still at byte " + off + " of its cache line after " + t
                                                + " full GCs (spacers left: " + smallLeft + " of " + smallBytes
                                                + " bytes, " + largeLeft + " of " + largeBytes + ")");
            }
            for (int k = 0; k < bestSmall; k++) {
                small[--smallLeft] = null;
            }
            for (int k = 0; k < bestLarge; k++) {
                large[--largeLeft] = null;
            }
            System.gc();
            off = Addresses.lineOffset(queue);
        }
    }
}
