package mechsym.spsc;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import org.openjdk.jol.info.ClassLayout;
import org.openjdk.jol.info.FieldLayout;

import mechsym.common.Args;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.Kernels;

/**
 * The field layout of every SPSC queue variant, as this JVM lays it out, read
 * with JOL (org.openjdk.jol:jol-core 0.17) the way the post read it with
 * java-object-layout.
 *
 * <p>The post's claim: with the counters inlined through a class hierarchy
 * (I1), tail, headCache, head and tailCache each sit 64 bytes from the next;
 * with a padded class (I3, I4) the cold fields (capacity, mask, buffer) also
 * start 64+ bytes after the object header. This kernel prints, per queue
 * ({@code --queue=NAME} or {@code all}), every field's offset and size, and
 * derived rows: {@code min_hot_gap} (the smallest distance in bytes between
 * two hot counter fields inlined in the queue object), {@code min_cross_gap}
 * (the same between a field the producer writes and one the consumer writes;
 * JCTools keeps producerIndex and producerLimit together on purpose) and
 * {@code cold_offset} (the offset of the first cold field). O1/O2 keep their
 * counters in holder objects, whose layouts are printed too, so they have no
 * gap rows. With {@code --check=true} it exits with code 3 when
 * I1..I4 have two hot fields closer than 64 bytes, or I3/I4 a cold field
 * within 64 bytes of the object's start. JOL's start-up warnings go to stderr.
 * When JOL cannot read the layout, one row per queue with metric
 * {@code jol_unavailable} = 1 and the reason in {@code jol_error}.
 *
 * <p>Test-only fault injection: {@code --inject=unpadded} adds a class with the
 * same fields and no padding ({@link Unpadded}) to the queues checked, with
 * the rules of I3, and turns the check on: it must fail (exit code 3, nothing
 * on stdout).
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -cp 'build/mechsym.jar:build/lib/*' mechsym.spsc.SpscLayout --queue=I3 --format=text
 * </pre>
 * prints JOL's table: on JDK 17/25 with compressed class pointers (a 12-byte
 * header), exactly the post's I3 table (capacity at 80, tail at 152, headCache
 * at 216, head at 280, tailCache at 344, instance size 408 bytes). Compact
 * object headers (-XX:+UseCompactObjectHeaders, JDK 24+) move every offset;
 * the spacing the check asks for holds either way.
 */
public final class SpscLayout {
    private static final List<String> FORMATS = List.of("csv", "text");
    /** Fields the producer writes, and fields the consumer writes, in the queue object itself. */
    private static final List<String> PRODUCER = List.of("tail", "headCache", "producerIndex", "producerLimit");
    private static final List<String> CONSUMER = List.of("head", "tailCache", "consumerIndex");
    private static final List<String> COLD = List.of("capacity", "mask", "buffer");
    /** The name the fault-injection class is checked under. */
    private static final String FAULT_QUEUE = "unpadded";
    /** Queues whose hot fields must be 64+ bytes apart, and those whose cold fields must start 64+ bytes in. */
    private static final List<String> INLINED = List.of("I1", "I2", "I3", "I4", FAULT_QUEUE);
    private static final List<String> PADDED_CLASS = List.of("I3", "I4", FAULT_QUEUE);
    public static final List<String> INJECTS = List.of("none", FAULT_QUEUE);

    /**
     * Test-only (--inject=unpadded): the inlined queues' fields with no padding
     * at all, which the check must reject. Never instantiated.
     */
    abstract static class Unpadded {
        int capacity;
        int mask;
        Object[] buffer;
        volatile long tail;
        long headCache;
        volatile long head;
        long tailCache;
    }

    private SpscLayout() {
    }

    public static void main(final String[] argv) {
        Kernels.main("SpscLayout", argv, SpscLayout::run);
    }

    private static void run(final Args args) {
        final List<String> allowed = new ArrayList<>(SpscQueue.NAMES);
        allowed.add("all");
        final String which = args.choice("queue", "all", allowed);
        final String format = args.choice("format", "csv", FORMATS);
        final String check = args.choice("check", "false", List.of("true", "false"));
        final boolean fault = args.choice("inject", "none", INJECTS).equals(FAULT_QUEUE);
        args.finish();
        final List<String> names = new ArrayList<>(which.equals("all") ? SpscQueue.NAMES : List.of(which));
        if (fault) {
            names.add(FAULT_QUEUE);
        }
        final PrintStream out = System.out;
        System.setOut(System.err); // JOL may print warnings on stdout
        Addresses.quiet();
        final Csv csv = new Csv("queue", "class", "field", "type", "jol_error");
        final StringBuilder text = new StringBuilder();
        final List<String> failures = new ArrayList<>();
        try {
            for (final String name : names) {
                layout(name, csv, text, failures);
            }
        } finally {
            System.setOut(out);
        }
        if ((check.equals("true") || fault) && !failures.isEmpty()) {
            throw new CheckFailed(String.join("; ", failures));
        }
        if (format.equals("text")) {
            out.print(text);
            out.flush();
        } else {
            csv.flush(out);
        }
    }

    /** The classes whose layout matters for a queue: the queue and its counter holders. */
    static List<Class<?>> classes(final String name) throws ClassNotFoundException {
        switch (name) {
            case "O1": return List.of(OriginalQueue.class, OriginalQueue.PaddedAtomicLong.class, OriginalQueue.PaddedLong.class);
            case "O2": return List.of(OriginalPaddedDataQueue.class, OriginalQueue.PaddedAtomicLong.class, OriginalQueue.PaddedLong.class);
            case "jctools": return List.of(Class.forName("org.jctools.queues.SpscArrayQueue"));
            case FAULT_QUEUE: return List.of(Unpadded.class);
            default: return List.of(SpscQueue.create(name, 2).getClass());
        }
    }

    private static void layout(final String name, final Csv csv, final StringBuilder text, final List<String> failures) {
        final List<Class<?>> classes;
        final List<ClassLayout> layouts = new ArrayList<>();
        try {
            classes = classes(name);
            for (final Class<?> c : classes) {
                layouts.add(ClassLayout.parseClass(c));
            }
        } catch (Throwable t) {
            final String why = String.valueOf(t).replace(',', ';').replace('\n', ' ');
            csv.row(List.of(name, "", "", "", why), 0, false, "jol_unavailable", 1, "bool");
            text.append(name).append(": JOL cannot read the layout: ").append(why).append('\n');
            return;
        }
        final List<Long> hot = new ArrayList<>();
        final List<Boolean> producerSide = new ArrayList<>();
        long cold = Long.MAX_VALUE;
        for (int k = 0; k < layouts.size(); k++) {
            final ClassLayout layout = layouts.get(k);
            final String cls = classes.get(k).getName();
            text.append(layout.toPrintable());
            for (final FieldLayout f : layout.fields()) {
                final List<String> extra = List.of(name, cls, f.hostClass() + "." + f.name(), f.typeClass(), "");
                csv.row(extra, 0, false, "offset", f.offset(), "bytes");
                csv.row(extra, 0, false, "size", f.size(), "bytes");
                final boolean inlined = !name.startsWith("O");
                if (k == 0 && inlined && (PRODUCER.contains(f.name()) || CONSUMER.contains(f.name()))) {
                    hot.add(f.offset());
                    producerSide.add(PRODUCER.contains(f.name()));
                }
                if (k == 0 && COLD.contains(f.name())) {
                    cold = Math.min(cold, f.offset());
                }
            }
            csv.row(List.of(name, cls, "(instance)", "", ""), 0, false, "instance_size", layout.instanceSize(), "bytes");
        }
        long gap = Long.MAX_VALUE;
        long cross = Long.MAX_VALUE;
        for (int a = 0; a < hot.size(); a++) {
            for (int b = a + 1; b < hot.size(); b++) {
                final long d = Math.abs(hot.get(a) - hot.get(b));
                gap = Math.min(gap, d);
                if (producerSide.get(a) != producerSide.get(b)) {
                    cross = Math.min(cross, d);
                }
            }
        }
        final String cls = classes.get(0).getName();
        if (gap != Long.MAX_VALUE) {
            csv.row(List.of(name, cls, "(hot fields)", "", ""), 0, false, "min_hot_gap", gap, "bytes");
            csv.row(List.of(name, cls, "(producer vs consumer fields)", "", ""), 0, false, "min_cross_gap", cross, "bytes");
            text.append(String.format(Locale.ROOT, "%s: smallest gap between hot fields %d bytes, between a producer "
                                      + "and a consumer field %d bytes%n", name, gap, cross));
        } else if (name.startsWith("O")) {
            text.append(name).append(": the counters live in holder objects (one-sided padding), not in the queue object\n");
        }
        if (cold != Long.MAX_VALUE) {
            csv.row(List.of(name, cls, "(cold fields)", "", ""), 0, false, "cold_offset", cold, "bytes");
            text.append(String.format(Locale.ROOT, "%s: first cold field at offset %d%n%n", name, cold));
        }
        if (INLINED.contains(name) && gap < 64) {
            failures.add(name + ": two hot fields only " + gap + " bytes apart");
        }
        if (PADDED_CLASS.contains(name) && cold < 64) {
            failures.add(name + ": a cold field at offset " + cold + ", within 64 bytes of the object's start");
        }
    }
}
