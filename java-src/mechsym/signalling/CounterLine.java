package mechsym.signalling;

import java.io.PrintStream;
import java.lang.reflect.Field;

import org.openjdk.jol.vm.VM;

import sun.misc.Unsafe;

/**
 * Whether a class's two static counters share one 64-byte cache line, read with JOL after the timed region.
 *
 * <p>The lesson: the post times "the latency of exchanging a cache line between cores", which assumes its two
 * adjacent static longs sit in one line. Where they sit is an accident of where the JVM allocates the class's
 * mirror (the object that holds its statics), and that moves with things as remote as the classpath's length: the
 * class's code-source string is allocated just before it. With {@code s1} at byte 56, {@code s2} opens the next
 * line and every exchange moves two lines: on a 2-vCPU EPYC (JDK 17, 4 M exchanges) the post's listing ran at 69-82
 * ns/op in the 18 of 30 JVMs where a directory name put its counters there, against 23-40 ns/op on one line.
 *
 * <p>Read once the clock has stopped (JOL loads classes and allocates). A collection could move the mirror, so the
 * caller gives {@link #NOT_READ} when one ran in or after the timed runs. Anything that goes wrong gives
 * {@link #UNKNOWN}.
 */
final class CounterLine {
    static final int UNKNOWN = -1;
    private static final int LINE = 64;

    /** The first counter's byte in its line (0-56), or {@link #UNKNOWN}. */
    final int offset;
    /** 1 when both counters lie in one line, 0 when they straddle two, {@link #UNKNOWN}. */
    final int shared;

    private CounterLine(final int offset, final int shared) {
        this.offset = offset;
        this.shared = shared;
    }

    static final CounterLine NOT_READ = new CounterLine(UNKNOWN, UNKNOWN);

    /** Where {@code holder}'s static fields {@code first} and {@code second} are now. */
    static CounterLine of(final Class<?> holder, final String first, final String second) {
        final PrintStream out = System.out;
        try {
            System.setOut(System.err);   // JOL's start-up warnings would land in the kernel's CSV
            for (final String skip : new String[] {"jol.skipHotspotSAAttach", "jol.skipDynamicAttach"}) {
                if (System.getProperty(skip) == null) {
                    System.setProperty(skip, "true");   // neither is needed for an address; the first costs seconds
                }
            }
            final Field theUnsafe = Unsafe.class.getDeclaredField("theUnsafe");
            theUnsafe.setAccessible(true);
            final Unsafe unsafe = (Unsafe) theUnsafe.get(null);
            final Field a = holder.getDeclaredField(first);
            final Field b = holder.getDeclaredField(second);
            final long base = VM.current().addressOf(unsafe.staticFieldBase(a));
            final long at = base + unsafe.staticFieldOffset(a);
            final long bt = base + unsafe.staticFieldOffset(b);
            return new CounterLine((int) (at & (LINE - 1)), at / LINE == bt / LINE ? 1 : 0);   // 8-aligned longs
        } catch (Throwable t) {
            System.err.println("VolatilePingPong: cannot read where the counters are (" + t + "); placement -1");
            return NOT_READ;
        } finally {
            System.setOut(out);
        }
    }
}
