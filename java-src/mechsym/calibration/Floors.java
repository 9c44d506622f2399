package mechsym.calibration;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import mechsym.common.Affinity;
import mechsym.common.Args;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.Defaults;
import mechsym.common.JitGc;
import mechsym.common.Kernels;

/**
 * What this machine can time: the floors under every claim the lab judges. No post; the lesson is that a number
 * below its mechanism's floor (a lock faster than one CAS, a hand-off faster than a cache-line round trip) measured
 * something else, and a wake-up claim smaller than the machine's wake-up cost cannot be seen at all.
 *
 * <p>Measures ({@code --measure}): {@code nanotime} and {@code millis}, the smallest non-zero step of
 * {@code System.nanoTime} / {@code currentTimeMillis} (median of {@code --samples} steps, ns); {@code cas}, one
 * uncontended {@code AtomicLong.incrementAndGet} on one thread ({@code LOCK XADD} on x86; ns per op);
 * {@code line}, one cache line passed back and forth by two threads pinned by {@code --pin=A,B} (A = B: one CPU,
 * time-sliced; ns per round trip; {@link LineRoundTrip}); {@code wakeup}, a thread parked on CPU B woken by
 * {@code LockSupport.unpark} from CPU A, from the unpark call to the parked thread running (median ns;
 * {@link Wakeup}).
 *
 * <p>Each run ({@code --runs}, after {@code --warmup-runs}) is one row of its measure's unit, with the JIT and GC
 * time inside it. Checks after the clock: the CAS counter equals the operations; both line threads made every
 * trip and the line holds 2 x trips; the parked thread woke once per round. {@code --inject=skip} (tests) makes
 * each check fail (the counter one short, a trip or a wake-up not counted): exit 3, every time.
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -cp build/mechsym.jar mechsym.calibration.Floors --measure=line --pin=0,1 --trips=200000
 * </pre>
 * nanoTime steps of 10-40 ns; a CAS of 5-10 ns; a round trip of 50-200 ns across two cores, microseconds on
 * one CPU (each hand-off a yield); a wake-up of a few µs on bare metal, tens of µs where the target vCPU halts.
 */
public final class Floors {
    public static final List<String> MEASURES = List.of("nanotime", "millis", "cas", "line", "wakeup");
    public static final List<String> INJECTS = List.of("none", "skip");
    private static final String NAME = "Floors";
    private static final AtomicLong COUNTER = new AtomicLong();

    private Floors() {
    }

    /** The kernel's defaults, for the Python bench (read through JPype). */
    public static String[] defaults() {
        return Defaults.of(Floors::run);
    }

    public static void main(final String[] argv) {
        Kernels.main(NAME, argv, Floors::run);
    }

    private static void run(final Args args) throws Exception {
        final String measure = args.choice("measure", "nanotime", MEASURES);
        final int samples = args.intValue("samples", 1000, 3, 10_000_000);
        final long ops = args.longValue("ops", 10_000_000L, 1, Long.MAX_VALUE / 4);
        final int trips = args.intValue("trips", 100_000, 1, Integer.MAX_VALUE / 4);
        final int rounds = args.intValue("rounds", 200, 1, 1_000_000);
        final int[] pin = args.cpuPair("pin", "first thread, second thread");
        final String wait = args.choice("wait", "spin", LineRoundTrip.WAITS);
        final int runs = args.intValue("runs", 3, 1, 1_000_000);
        final int warmupRuns = args.intValue("warmup-runs", 1, 0, 1_000_000);
        final boolean skip = args.choice("inject", "none", INJECTS).equals("skip");
        args.finish();

        final Csv csv = new Csv("measure", "pinning");
        final List<String> extra = List.of(measure, Affinity.pinning(pin));
        final JitGc[] jitGc = JitGc.regions(warmupRuns + runs);
        JitGc.open();
        for (int r = 0; r < warmupRuns + runs; r++) {
            final boolean warmup = r < warmupRuns;
            final boolean inject = skip && r == 0;
            final double value;
            final String metric;
            final String unit;
            switch (measure) {
                case "nanotime":
                case "millis":
                    jitGc[r].start();
                    value = step(measure.equals("millis"), samples, inject);
                    jitGc[r].stop();
                    metric = "granularity";
                    unit = "ns";
                    break;
                case "cas":
                    value = cas(ops, inject, jitGc[r]);
                    metric = "ns_per_op";
                    unit = "ns/op";
                    break;
                case "line":
                    value = LineRoundTrip.measure(pin, trips, wait, inject, jitGc[r]);
                    metric = "round_trip";
                    unit = "ns";
                    break;
                default:
                    value = Wakeup.measure(pin, rounds, inject, jitGc[r]);
                    metric = "wakeup";
                    unit = "ns";
            }
            csv.row(extra, r, warmup, metric, value, unit);
            jitGc[r].rows(csv, extra, r, warmup);
        }
        csv.flush(System.out);
    }

    /**
     * The median of {@code samples} smallest non-zero steps of the clock, in ns: read it until it changes, and
     * record by how much. Check: every step is positive (a clock that went back, or a step not taken).
     */
    static double step(final boolean millis, final int samples, final boolean inject) {
        final long[] steps = new long[samples];
        for (int i = 0; i < samples; i++) {
            if (millis) {
                final long t0 = System.currentTimeMillis();
                long t1;
                do {
                    t1 = System.currentTimeMillis();
                } while (t1 == t0);
                steps[i] = (t1 - t0) * 1_000_000L;
            } else {
                final long t0 = System.nanoTime();
                long t1;
                do {
                    t1 = System.nanoTime();
                } while (t1 == t0);
                steps[i] = t1 - t0;
            }
        }
        if (inject) {
            steps[0] = 0;
        }
        Arrays.sort(steps);
        CheckFailed.require(steps[0] > 0, (millis ? "currentTimeMillis" : "nanoTime") + ": a step of "
                            + steps[0] + " ns (the clock went back or did not move)");
        return steps[samples / 2];
    }

    /** One thread, {@code ops} x {@code incrementAndGet}; ns per op. Check: the counter equals ops. */
    static double cas(final long ops, final boolean inject, final JitGc jitGc) {
        COUNTER.set(inject ? -1 : 0);
        jitGc.start();
        final long start = System.nanoTime();
        for (long i = 0; i < ops; i++) {
            COUNTER.incrementAndGet();
        }
        final long duration = System.nanoTime() - start;
        jitGc.stop();
        final long got = COUNTER.get();
        CheckFailed.require(got == ops, "cas: counter = " + got + " after " + ops + " increments");
        return (double) duration / ops;
    }
}
