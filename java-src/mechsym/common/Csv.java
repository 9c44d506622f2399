package mechsym.common;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The kernels' only stdout output: CSV with a header, one row per measurement,
 * in the lab's long format. The mandatory columns are
 * {@code iteration,warmup,metric,value,unit}; a kernel may add parameter
 * columns before them (for example {@code pinning}). Rows are buffered and
 * printed only by {@link #flush()}, after the kernel's checks have passed, so a
 * failed check leaves nothing on stdout.
 */
public final class Csv {
    private final List<String> extraColumns;
    private final List<String> rows = new ArrayList<>();

    public Csv(final String... extraColumns) {
        this.extraColumns = List.of(extraColumns);
    }

    /** One measurement: extra column values (in order), then the mandatory fields. */
    public void row(final List<String> extra, final int iteration, final boolean warmup,
                    final String metric, final double value, final String unit) {
        if (extra.size() != extraColumns.size()) {
            throw new IllegalArgumentException("expected " + extraColumns.size() + " extra values");
        }
        final StringBuilder sb = new StringBuilder();
        for (final String e : extra) {
            sb.append(e).append(',');
        }
        sb.append(iteration).append(',').append(warmup).append(',').append(metric).append(',')
          .append(format(value)).append(',').append(unit);
        rows.add(sb.toString());
    }

    public void row(final int iteration, final boolean warmup, final String metric, final double value, final String unit) {
        row(List.of(), iteration, warmup, metric, value, unit);
    }

    private static String format(final double v) {
        if (v == Math.rint(v) && Math.abs(v) < 1e15) {
            return Long.toString((long) v);
        }
        return String.format(Locale.ROOT, "%.6g", v);
    }

    public int size() {
        return rows.size();
    }

    public void flush(final PrintStream out) {
        final StringBuilder sb = new StringBuilder();
        for (final String c : extraColumns) {
            sb.append(c).append(',');
        }
        sb.append("iteration,warmup,metric,value,unit\n");
        for (final String r : rows) {
            sb.append(r).append('\n');
        }
        out.print(sb);
        out.flush();
        rows.clear();
    }
}
