package mechsym.falsesharing;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

import org.openjdk.jol.info.ClassLayout;
import org.openjdk.jol.info.FieldLayout;
import org.openjdk.jol.vm.VM;
import org.openjdk.jol.vm.VirtualMachine;

import mechsym.common.BadArgument;

/**
 * Where the counters land in memory, read with JOL: which byte of a 64-byte line the {@code longs} array starts at,
 * and whether a counter shares a line with that array.
 *
 * <p>Why it matters: every thread reads {@code longs[k]} on every write, and the posts' padding sits only after each
 * value. Counter 0 is allocated right after the array, so whether its value shares the array's last line depends on
 * where the array happens to start, an accident of what the JVM allocated before it. Measured on a 2-vCPU EPYC,
 * JDK 17, padded AtomicLong, 2 threads: 0.6 s when the array starts at byte 32 of a line, 1.5 s when it starts at 0
 * or 16 (counter 0 then shares the line the other thread reads), for the posts' listing and this kernel alike.
 *
 * <p>{@code --array-offset}: {@code as-allocated} (the listing's way: wherever the allocation pointer is),
 * {@code random} (a fresh offset, a multiple of 8, per run: forks sample every placement alike), or a byte offset
 * 0, 8 .. 56. A filler array allocated just before the counters moves them; the allocation is then read back, and
 * retried a few times if a new allocation buffer started in between.
 */
final class Placement {
    static final int LINE = 64;
    static final String AS_ALLOCATED = "as-allocated";
    static final String RANDOM = "random";
    static final List<String> CHOICES = choices();
    private static final int TRIES = 16;
    private static final Object[] KEEP = new Object[1];   // the filler stays reachable until the next run

    private final String choice;
    private final VirtualMachine vm;
    private final String unavailable;
    /** A plain Object's size, read once: JOL's sizeOf allocates, which would move what it measures. */
    private final long objectSize;

    private Placement(final String choice, final VirtualMachine vm, final String unavailable) {
        this.choice = choice;
        this.vm = vm;
        this.unavailable = unavailable;
        this.objectSize = vm == null ? 0 : vm.sizeOf(new Object());
    }

    private static List<String> choices() {
        final List<String> c = new ArrayList<>(List.of(AS_ALLOCATED, RANDOM));
        for (int b = 0; b < LINE; b += 8) {
            c.add(Integer.toString(b));
        }
        return c;
    }

    /** JOL started quietly (no agent, no Serviceability Agent). */
    static VirtualMachine jol() {
        System.setProperty("jol.skipHotspotSAAttach", System.getProperty("jol.skipHotspotSAAttach", "true"));
        System.setProperty("jol.skipDynamicAttach", System.getProperty("jol.skipDynamicAttach", "true"));
        return quietly(() -> {
            final VirtualMachine vm = VM.current();
            vm.addressOf(new Object());   // its per-thread buffer, allocated once, before anything is placed
            return vm;
        });
    }

    /** Runs a JOL call with its warnings kept off stdout, which holds the CSV. */
    static <T> T quietly(final Supplier<T> call) {
        final PrintStream out = System.out;
        System.setOut(System.err);
        try {
            return call.get();
        } finally {
            System.setOut(out);
        }
    }

    /** The placement for {@code --array-offset=choice}; as-allocated works without JOL (nothing is recorded then). */
    static Placement of(final String choice) {
        try {
            return new Placement(choice, jol(), null);
        } catch (Throwable t) {
            if (!choice.equals(AS_ALLOCATED)) {
                throw new BadArgument("--array-offset=" + choice + ": needs JOL to read addresses, which failed here ("
                                      + t + "); allowed without it: " + AS_ALLOCATED);
            }
            return new Placement(choice, null, String.valueOf(t));
        }
    }

    boolean recorded() {
        return vm != null;
    }

    String unavailable() {
        return unavailable;
    }

    /** Allocates the counters, first moving the allocation so the first object starts at the chosen byte. */
    void allocate(final Layouts.Counters counters, final int threads) {
        if (vm == null || choice.equals(AS_ALLOCATED)) {
            counters.allocate(threads);
            return;
        }
        final int target = choice.equals(RANDOM) ? 8 * ThreadLocalRandom.current().nextInt(LINE / 8)
                                                 : Integer.parseInt(choice);
        final long filler = vm.arrayBaseOffset("long");
        for (int t = 0; t < TRIES; t++) {
            final Object probe = new Object();
            final long next = vm.addressOf(probe) + objectSize;   // addressOf allocates nothing
            long gap = Math.floorMod(target - next, (long) LINE);
            while (gap < filler) {
                gap += LINE;
            }
            KEEP[0] = new long[(int) ((gap - filler) / Long.BYTES)];
            counters.allocate(threads);
            if (arrayOffset(counters) == target) {
                return;
            }
        }
        throw new IllegalStateException("could not place the counters' array at byte " + target + " of a line in "
                                        + TRIES + " tries");
    }

    /** The byte of its 64-byte line at which the first allocated object (the longs array) starts. */
    long arrayOffset(final Layouts.Counters counters) {
        return vm.addressOf(first(counters)) % LINE;
    }

    /** 1 when a counter's value lies in one of the longs array's lines (read by every thread), else 0. */
    int sharesArrayLine(final Layouts.Counters counters, final String layout, final int threads) {
        return sharesArrayLine(vm, counters, layout, threads) ? 1 : 0;
    }

    /** True when a counter's value lies in one of the longs array's lines (false when the layout has no array). */
    static boolean sharesArrayLine(final VirtualMachine vm, final Layouts.Counters counters, final String layout,
                                   final int threads) {
        final Object refs = counters.references();
        if (refs == null) {
            return false;
        }
        final long from = vm.addressOf(refs) / LINE;
        final long to = (vm.addressOf(refs) + vm.sizeOf(refs) - 1) / LINE;
        final long value = valueOffset(counters.holder(0).getClass());
        for (int k = 0; k < threads; k++) {
            final long line = address(vm, layout, counters, k, value) / LINE;
            if (line >= from && line <= to) {
                return true;
            }
        }
        return false;
    }

    private static Object first(final Layouts.Counters counters) {
        final Object refs = counters.references();
        return refs != null ? refs : counters.holder(0);
    }

    /** The offset of the field called {@code value} in a counter's class (or a superclass), -1 when it has none. */
    static long valueOffset(final Class<?> type) {
        for (final FieldLayout f : quietly(() -> ClassLayout.parseClass(type)).fields()) {
            if (f.name().equals("value")) {
                return f.offset();
            }
        }
        return -1;
    }

    /** The address of counter k as allocated: its holder's address plus the value's offset (array: its element). */
    static long address(final VirtualMachine vm, final String layout, final Layouts.Counters counters,
                        final int k, final long valueOffset) {
        final Object holder = counters.holder(k);
        if (layout.equals("array-stride")) {
            return vm.addressOf(holder) + vm.arrayBaseOffset("long") + (long) (k + 1) * Layouts.STRIDE * Long.BYTES;
        }
        return vm.addressOf(holder) + valueOffset;
    }
}
