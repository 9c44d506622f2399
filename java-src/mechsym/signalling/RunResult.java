package mechsym.signalling;

import java.util.List;

import mechsym.common.Csv;

/** One run's numbers, for both signalling kernels ({@link VolatilePingPong}, {@link LockedSignalling}). */
public final class RunResult {
    public final long iterations;
    public long exchanges;
    public long duration;
    public boolean deadlineHit;
    final RoundTrips roundTrips;

    RunResult(final long iterations, final long sampleEvery) {
        this.iterations = iterations;
        this.roundTrips = new RoundTrips(iterations, sampleEvery);
    }

    public double nsPerOp() {
        return exchanges == 0 ? Double.NaN : (double) duration / (2.0 * exchanges);
    }

    void emit(final Csv csv, final List<String> extra, final int iteration, final boolean warmup) {
        csv.row(extra, iteration, warmup, "duration", duration, "ns");
        csv.row(extra, iteration, warmup, "exchanges", exchanges, "count");
        csv.row(extra, iteration, warmup, "deadline_hit", deadlineHit ? 1 : 0, "bool");
        if (exchanges > 0) {
            csv.row(extra, iteration, warmup, "ns_per_op", nsPerOp(), "ns/op");
            csv.row(extra, iteration, warmup, "throughput", 2.0 * exchanges * 1e9 / duration, "ops/s");
        }
        roundTrips.emit(csv, extra, iteration, warmup);
    }
}
