package mechsym.falsesharing;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

import org.openjdk.jol.info.ClassLayout;
import org.openjdk.jol.info.FieldLayout;
import org.openjdk.jol.vm.VirtualMachine;

import mechsym.common.Args;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.Kernels;
import mechsym.common.VmOptions;

/**
 * Each counter layout as this JVM lays it out, read with JOL (org.openjdk.jol:jol-core 0.17).
 *
 * <p>The claim under test ("False Sharing &amp;&amp; Java 7", 2011-08-13): "Java 7 got clever and eliminated or
 * re-ordered the unused fields, thus re-introducing false sharing." Per layout ({@code --layout=NAME} or
 * {@code all}) this prints every field's offset and size in the counter's class (and its superclasses), the
 * instance size, and, for {@code --threads} counters allocated exactly as {@link FalseSharing} allocates them,
 * where they are: {@code counter_gap_min}, the smallest distance in bytes between two threads' counters
 * (JOL's {@code addressOf} plus the field's offset), and {@code shares_line}, 1 when two of them sit in one
 * 64-byte line; {@code array_shares_line}, 1 when a counter sits in a line of the {@code longs} array of
 * references, which every thread reads on every write (padding after the value only, as the posts', does not
 * keep counter 0 off the array's line). For the two posts' padded classes, {@code padding_fields_kept} counts the declared padding
 * fields JOL finds and {@code value_first} is 1 when the value comes before all of them, as declared.
 *
 * <p>{@code --check=true} exits 3 when a padded layout's counters are under 64 bytes apart or share a line
 * ({@code contended} only when this JVM runs with {@code -XX:-RestrictContended}: the column
 * {@code restrict_contended} says). Test-only fault injection: {@code --inject=unpadded} adds the unpadded layout
 * and checks it as if it were padded: exit 3, nothing on stdout, every time. When JOL cannot read the layout, one row
 * per layout with metric {@code jol_unavailable} = 1 and the reason in {@code jol_error}.
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -XX:-RestrictContended -cp 'build/mechsym.jar:build/lib/*' mechsym.falsesharing.CounterLayout --format=text
 * </pre>
 * JOL's tables; unpadded counters 24 bytes apart (sharing lines); every padded layout 64+ bytes apart.
 */
public final class CounterLayout {
    private static final List<String> FORMATS = List.of("csv", "text");
    public static final List<String> INJECTS = List.of("none", "unpadded");
    private static final int LINE = 64;

    private CounterLayout() {
    }

    public static void main(final String[] argv) {
        Kernels.main("CounterLayout", argv, CounterLayout::run);
    }

    private static void run(final Args args) {
        final List<String> allowed = new ArrayList<>(Layouts.NAMES);
        allowed.add("all");
        final String which = args.choice("layout", "all", allowed);
        final int threads = args.intValue("threads", 4, 2, 256);
        final String format = args.choice("format", "csv", FORMATS);
        final boolean check = args.choice("check", "false", List.of("true", "false")).equals("true");
        final boolean inject = args.choice("inject", "none", INJECTS).equals("unpadded");
        args.finish();
        final String restrict = VmOptions.value("RestrictContended");
        final PrintStream out = System.out;
        final Csv csv = new Csv("layout", "class", "field", "restrict_contended", "jol_error");
        final StringBuilder text = new StringBuilder();
        final List<String> failures = new ArrayList<>();
        System.setOut(System.err);   // JOL may print warnings on stdout, which belongs to the CSV
        try {
            final VirtualMachine vm = Placement.jol();
            final List<String> names = new ArrayList<>(which.equals("all") ? Layouts.NAMES : List.of(which));
            if (inject && !names.contains("unpadded")) {
                names.add("unpadded");
            }
            for (final String name : names) {
                final boolean checked = check || inject;
                final boolean padded = !name.equals("unpadded") || inject;
                final boolean applies = padded && !(name.equals("contended") && !"false".equals(restrict));
                layout(vm, name, threads, restrict, csv, text, checked && applies ? failures : null);
            }
        } catch (Throwable t) {
            final String why = String.valueOf(t).replace(',', ';').replace('\n', ' ');
            csv.row(List.of(which, "", "", restrict, why), 0, false, "jol_unavailable", 1, "bool");
            text.append("JOL cannot read the layout: ").append(why).append('\n');
        } finally {
            System.setOut(out);
        }
        if (!failures.isEmpty()) {
            throw new CheckFailed(String.join("; ", failures));
        }
        if (format.equals("text")) {
            out.print(text);
            out.flush();
        } else {
            csv.flush(out);
        }
    }

    private static void layout(final VirtualMachine vm, final String name, final int threads, final String restrict,
                               final Csv csv, final StringBuilder text, final List<String> failures) {
        final Layouts.Counters counters = Layouts.create(name);
        counters.allocate(threads);
        final Class<?> type = counters.holder(0).getClass();
        final ClassLayout layout = ClassLayout.parseClass(type);
        text.append("== ").append(name).append('\n').append(layout.toPrintable());
        long value = -1;
        final List<Long> pads = new ArrayList<>();
        for (final FieldLayout f : layout.fields()) {
            final List<String> extra = List.of(name, type.getName(), f.hostClass() + "." + f.name(), restrict, "");
            csv.row(extra, 0, false, "offset", f.offset(), "bytes");
            csv.row(extra, 0, false, "size", f.size(), "bytes");
            if (f.name().equals("value")) {
                value = f.offset();
            } else if (f.name().matches("p\\d+")) {
                pads.add(f.offset());
            }
        }
        final List<String> whole = List.of(name, type.getName(), "(instance)", restrict, "");
        csv.row(whole, 0, false, "instance_size", layout.instanceSize(), "bytes");
        final long[] at = new long[threads];
        for (int k = 0; k < threads; k++) {
            at[k] = Placement.address(vm, name, counters, k, value);
        }
        long gap = Long.MAX_VALUE;
        boolean shared = false;
        for (int a = 0; a < threads; a++) {
            for (int b = a + 1; b < threads; b++) {
                gap = Math.min(gap, Math.abs(at[a] - at[b]));
                shared |= at[a] / LINE == at[b] / LINE;
            }
        }
        final List<String> placed = List.of(name, type.getName(), "(" + threads + " counters as allocated)", restrict, "");
        csv.row(placed, 0, false, "counter_gap_min", gap, "bytes");
        csv.row(placed, 0, false, "shares_line", shared ? 1 : 0, "bool");
        final Object refs = counters.references();
        if (refs != null) {
            final boolean withArray = Placement.sharesArrayLine(vm, counters, name, threads);
            csv.row(placed, 0, false, "array_shares_line", withArray ? 1 : 0, "bool");
            text.append(String.format("%s: a counter in a line of the longs array (read by every thread): %s%n", name,
                                      withArray ? "yes" : "no"));
        }
        text.append(String.format("%s: %d counters as allocated: smallest gap %d bytes, two in one 64-byte line: %s%n",
                                  name, threads, gap, shared ? "yes" : "no"));
        if (name.equals("padded-longs") || name.equals("padded-atomic")) {
            final long first = pads.stream().mapToLong(Long::longValue).min().orElse(Long.MAX_VALUE);
            csv.row(whole, 0, false, "padding_fields_kept", pads.size(), "count");
            csv.row(whole, 0, false, "value_first", value >= 0 && value < first ? 1 : 0, "bool");
            text.append(String.format("%s: %d of 6 padding fields kept, value first: %s%n%n", name, pads.size(),
                                      value < first ? "yes" : "no"));
        }
        if (failures != null && (gap < LINE || shared)) {
            failures.add(name + ": two counters " + gap + " bytes apart" + (shared ? ", in one 64-byte line" : ""));
        }
    }

}
