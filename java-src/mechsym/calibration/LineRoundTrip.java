package mechsym.calibration;

import java.util.List;

import mechsym.common.Affinity;
import mechsym.common.CheckFailed;
import mechsym.common.FirstFailure;
import mechsym.common.JitGc;
import mechsym.common.Threads;

/**
 * One cache line passed back and forth: the floor of any hand-off between two threads. The pinger writes an odd
 * value into a padded volatile long and waits for the ponger to write the next even one; a round trip is the line
 * moving to the ponger's core and back. On one CPU ({@code --pin=A,A}) the two threads are time-sliced and each
 * hand-off is a yield, so the figure is two context switches, not the caches.
 *
 * <p>Waiting: {@code spin} ({@code Thread.onSpinWait}, and a yield every 2^16 spins so two unpinned threads on one
 * CPU still progress) or {@code yield} (a yield every spin: the only sane wait on one CPU). Check after the clock:
 * both threads counted every trip and the line holds 2 x trips.
 */
final class LineRoundTrip {
    static final List<String> WAITS = List.of("spin", "yield");
    private static final int YIELD_EVERY = 1 << 16;
    private static final long NOT_STARTED = -2;

    private LineRoundTrip() {
    }

    /** The line between 56 bytes of padding on either side (in field order: HotSpot keeps longs declared). */
    static final class Line {
        long p1, p2, p3, p4, p5, p6, p7;
        volatile long value;
        long q1, q2, q3, q4, q5, q6, q7;

        long padding() {
            return p1 + p2 + p3 + p4 + p5 + p6 + p7 + q1 + q2 + q3 + q4 + q5 + q6 + q7;
        }
    }

    /** ns per round trip over {@code trips} trips; {@code inject} makes the ponger count one trip fewer. */
    static double measure(final int[] pin, final int trips, final String wait, final boolean inject,
                          final JitGc jitGc) throws InterruptedException {
        final Line line = new Line();
        final long[] counted = new long[2];
        final long[] duration = new long[1];
        final boolean yield = wait.equals("yield");
        line.value = NOT_STARTED;
        final FirstFailure failure = new FirstFailure();
        final Thread ponger = Threads.worker("ponger", Affinity.cpuOf(pin, 1), failure, () -> {
            line.value = 0;   // running: the pinger's clock starts now, not at this thread's start-up
            long n = 0;
            for (long v = 2; v <= 2L * trips; v += 2) {
                await(line, v - 1, yield);
                line.value = v;
                n++;
            }
            counted[1] = inject ? n - 1 : n;
        }, () -> line.value = Long.MIN_VALUE);
        final Thread pinger = Threads.worker("pinger", Affinity.cpuOf(pin, 0), failure, () -> {
            await(line, 0, yield);   // the ponger runs: the first trip is not its start-up
            jitGc.start();
            final long start = System.nanoTime();
            long n = 0;
            for (long v = 1; v < 2L * trips; v += 2) {
                line.value = v;
                await(line, v + 1, yield);
                n++;
            }
            duration[0] = System.nanoTime() - start;
            jitGc.stop();
            counted[0] = n;
        }, () -> line.value = Long.MIN_VALUE);
        Threads.startJoinRethrow(failure, "round trip", ponger, pinger);
        CheckFailed.require(counted[0] == trips && counted[1] == trips && line.value == 2L * trips
                            && line.padding() == 0, "line: " + counted[0] + " pings and " + counted[1]
                            + " pongs counted, line = " + line.value + ", for " + trips + " round trips");
        return (double) duration[0] / trips;
    }

    private static void await(final Line line, final long expected, final boolean yield) {
        int spins = 0;
        long v;
        while ((v = line.value) != expected) {
            if (v == Long.MIN_VALUE) {
                throw new IllegalStateException("the other thread failed");
            }
            if (yield || ++spins % YIELD_EVERY == 0) {
                Thread.yield();
            } else {
                Thread.onSpinWait();
            }
        }
    }
}
