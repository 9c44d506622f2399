package mechsym.spsc;

import java.io.PrintStream;
import java.lang.reflect.Field;

import org.openjdk.jol.vm.VM;
import org.openjdk.jol.vm.VirtualMachine;

/**
 * Where an object starts within a 64-byte cache line, through JOL's
 * {@code VM.current().addressOf}. JOL prints its start-up warnings on stdout,
 * which belongs to the kernel's CSV, so stdout is pointed at stderr while JOL
 * starts. Anything that goes wrong gives -1 ("unknown"), never an exception:
 * the address is a diagnostic, not a measurement. JOL starts before the
 * queue is allocated, the same way for every variant. Addresses are as of the
 * call; a GC may move the object later (the harness allocates nothing in the
 * timed loops).
 */
final class Addresses {
    private static VirtualMachine vm;
    private static boolean tried;

    private Addresses() {
    }

    static synchronized VirtualMachine vm() {
        if (!tried) {
            tried = true;
            final PrintStream out = System.out;
            try {
                System.setOut(System.err);
                quiet();
                vm = VM.current();
            } catch (Throwable t) {
                System.err.println("SpscThroughput: JOL cannot read addresses here (" + t + "); line offsets are -1");
                vm = null;
            } finally {
                System.setOut(out);
            }
        }
        return vm;
    }

    /**
     * Skips JOL's attempts to attach the Serviceability Agent and to self-attach
     * an agent: both fail on a stock JDK 17+ (one second lost in SA attach) and
     * neither is needed for field offsets or addresses. A value set on the
     * command line wins.
     */
    static void quiet() {
        if (System.getProperty("jol.skipHotspotSAAttach") == null) {
            System.setProperty("jol.skipHotspotSAAttach", "true");
        }
        if (System.getProperty("jol.skipDynamicAttach") == null) {
            System.setProperty("jol.skipDynamicAttach", "true");
        }
    }

    /** The object's address modulo 64, or -1 when unknown. */
    static long lineOffset(final Object o) {
        if (o == null) {
            return -1;
        }
        try {
            final VirtualMachine v = vm();
            return v == null ? -1 : v.addressOf(o) & 63;
        } catch (Throwable t) {
            return -1;
        }
    }

    /** The queue's data array (the field named buffer, searched up the class hierarchy), or null. */
    static Object buffer(final Object queue) {
        Object target = queue instanceof JctoolsQueue ? ((JctoolsQueue) queue).delegate() : queue;
        for (Class<?> c = target.getClass(); c != null; c = c.getSuperclass()) {
            for (final Field f : c.getDeclaredFields()) {
                if (f.getType().isArray() && (f.getName().equals("buffer") || f.getName().equals("producerBuffer"))) {
                    try {
                        f.setAccessible(true);
                        return f.get(target);
                    } catch (RuntimeException | IllegalAccessException e) {
                        return null;
                    }
                }
            }
        }
        return null;
    }
}
