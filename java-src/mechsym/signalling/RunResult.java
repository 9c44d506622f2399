package mechsym.signalling;

import java.util.List;

import mechsym.common.Csv;
import mechsym.common.JitGc;

/** One run's numbers, for both signalling kernels ({@link VolatilePingPong}, {@link LockedSignalling}). */
public final class RunResult {
    public final long iterations;
    public long exchanges;
    public long duration;
    public boolean deadlineHit;
    final RoundTrips roundTrips;
    /** The JIT and GC time inside the run's clock. */
    final JitGc jitGc;
    /** Where the exchanged counters sat (VolatilePingPong only; not read: no rows). */
    CounterLine counters;

    RunResult(final long iterations, final long sampleEvery) {
        this(iterations, sampleEvery, new JitGc());
    }

    RunResult(final long iterations, final long sampleEvery, final JitGc jitGc) {
        this.iterations = iterations;
        this.roundTrips = new RoundTrips(iterations, sampleEvery);
        this.jitGc = jitGc;
    }

    public double nsPerOp() {
        return exchanges == 0 ? Double.NaN : (double) duration / (2.0 * exchanges);
    }

    void emit(final Csv csv, final List<String> extra, final int iteration, final boolean warmup) {
        csv.row(extra, iteration, warmup, "duration", duration, "ns");
        jitGc.rows(csv, extra, iteration, warmup);
        csv.row(extra, iteration, warmup, "exchanges", exchanges, "count");
        csv.row(extra, iteration, warmup, "deadline_hit", deadlineHit ? 1 : 0, "bool");
        if (exchanges > 0) {
            csv.row(extra, iteration, warmup, "ns_per_op", nsPerOp(), "ns/op");
            csv.row(extra, iteration, warmup, "throughput", 2.0 * exchanges * 1e9 / duration, "ops/s");
        }
        if (counters != null) {
            csv.row(extra, iteration, warmup, "counter_line_offset", counters.offset, "bytes");
            csv.row(extra, iteration, warmup, "counters_share_line", counters.shared, "bool");
        }
        roundTrips.emit(csv, extra, iteration, warmup);
    }
}
