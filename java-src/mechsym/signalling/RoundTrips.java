package mechsym.signalling;

import java.util.Arrays;
import java.util.List;

import mechsym.common.Csv;

/**
 * Shared by the signalling kernels: a sample of individual round trips, the
 * percentiles the notebooks plot, and the cost of the timer itself.
 *
 * <p>The posts report one mean (duration / exchanges). A mean hides the tail,
 * so every {@code sampleEvery}-th round trip is timed on its own with two
 * {@code System.nanoTime()} calls and kept in a plain array (exact
 * percentiles, no histogram buckets; the same in the C kernel). Each sample
 * includes about one timer call, which {@link #timerCost(int)} reports so the
 * reader knows the floor.
 */
final class RoundTrips {
    /** The percentiles emitted, as metric suffixes and fractions. */
    static final List<String> NAMES = List.of("p50", "p90", "p99", "p99.9", "max");
    static final double[] FRACTIONS = {0.50, 0.90, 0.99, 0.999, 1.0};

    private final long[] samples;
    private int count;

    RoundTrips(final long iterations, final long sampleEvery) {
        final long n = sampleEvery <= 0 ? 0 : iterations / sampleEvery + 1;
        samples = new long[(int) Math.min(n, 1_000_000L)];
    }

    void reset() {
        count = 0;
    }

    void record(final long ns) {
        if (count < samples.length) {
            samples[count++] = ns;
        }
    }

    int count() {
        return count;
    }

    /** Nearest-rank percentile of the recorded samples (sorted in place). */
    static long percentile(final long[] sorted, final int n, final double fraction) {
        if (n == 0) {
            return -1;
        }
        final int rank = (int) Math.ceil(fraction * n);
        return sorted[Math.max(0, Math.min(n - 1, rank - 1))];
    }

    /** Rows round_trip_p50 .. round_trip_max (ns) and round_trip_samples (count). */
    void emit(final Csv csv, final List<String> extra, final int iteration, final boolean warmup) {
        csv.row(extra, iteration, warmup, "round_trip_samples", count, "count");
        if (count == 0) {
            return;
        }
        final long[] sorted = Arrays.copyOf(samples, count);
        Arrays.sort(sorted);
        double sum = 0;
        for (int i = 0; i < count; i++) {
            sum += sorted[i];
        }
        csv.row(extra, iteration, warmup, "round_trip_mean", sum / count, "ns");
        for (int i = 0; i < NAMES.size(); i++) {
            csv.row(extra, iteration, warmup, "round_trip_" + NAMES.get(i), percentile(sorted, count, FRACTIONS[i]), "ns");
        }
    }

    /**
     * The timer's own cost: {@code calls} back-to-back {@code System.nanoTime()}
     * calls. Returns {mean ns per call, smallest non-zero step between two
     * consecutive readings (ns)}.
     */
    static double[] timerCost(final int calls) {
        long sink = 0;
        for (int i = 0; i < 100_000; i++) {
            sink += System.nanoTime();   // warm the timer path up
        }
        long minStep = Long.MAX_VALUE;
        final long start = System.nanoTime();
        long prev = start;
        for (int i = 0; i < calls; i++) {
            final long t = System.nanoTime();
            final long step = t - prev;
            if (step > 0 && step < minStep) {
                minStep = step;
            }
            prev = t;
        }
        final long elapsed = prev - start;
        if (sink == 42) {
            System.err.print("");   // keeps sink alive
        }
        return new double[] {(double) elapsed / calls, minStep == Long.MAX_VALUE ? 0 : minStep};
    }

    static void emitTimer(final Csv csv, final List<String> extra) {
        final double[] cost = timerCost(1_000_000);
        csv.row(extra, 0, false, "timer_cost", cost[0], "ns");
        csv.row(extra, 0, false, "timer_step", cost[1], "ns");
    }
}
