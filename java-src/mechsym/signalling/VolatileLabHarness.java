package mechsym.signalling;

// The counters and the stop flag are VolatilePingPong's: where a static sits in its class's mirror is part of what
// the kernel measures. Imported, so that the loops name them unqualified.
import static mechsym.signalling.VolatilePingPong.CHECK_SPINS;
import static mechsym.signalling.VolatilePingPong.PAUSE;
import static mechsym.signalling.VolatilePingPong.WAITS;
import static mechsym.signalling.VolatilePingPong.YIELD;
import static mechsym.signalling.VolatilePingPong.s1;
import static mechsym.signalling.VolatilePingPong.s2;
import static mechsym.signalling.VolatilePingPong.stop;

import java.util.concurrent.CyclicBarrier;

import mechsym.common.Affinity;
import mechsym.common.BadArgument;
import mechsym.common.CheckFailed;
import mechsym.common.FirstFailure;
import mechsym.common.JitGc;
import mechsym.common.Threads;

/**
 * The lab protocol of {@link VolatilePingPong} ({@code --protocol=lab}, the default): ping and pong on two threads
 * reused for every run, the clock started at a barrier, every value checked in the loop, sampled round trips.
 */
final class VolatileLabHarness {
    private VolatileLabHarness() {
    }

    /**
     * {@code runs} runs of {@code iterations} exchanges on the same two threads. Throws {@link CheckFailed} when
     * any value was lost, repeated or out of order; with {@code skip} the pong thread of the first run jumps one
     * value (the injected fault, for the tests: the check must catch it).
     */
    static RunResult[] measure(final long iterations, final int runs, final String wait, final int[] pin,
                               final long sampleEvery, final long maxMs, final boolean skip)
            throws InterruptedException {
        if (iterations < 1) {
            throw new BadArgument("--iterations=" + iterations + ": must be at least 1");
        }
        if (!WAITS.contains(wait)) {
            throw new BadArgument("--wait=" + wait + ": allowed values are " + String.join(", ", WAITS));
        }
        Affinity.checkPin("pin", pin, 2, "ping thread, pong thread");
        JitGc.open();
        final int mode = WAITS.indexOf(wait);
        final RunResult[] results = new RunResult[runs];
        for (int r = 0; r < runs; r++) {
            results[r] = new RunResult(iterations, sampleEvery);
        }
        final long[] pongMismatches = new long[1];
        final String[] orderFailure = new String[1];
        final CyclicBarrier start = new CyclicBarrier(2, () -> {
            s1 = 0L;
            s2 = 0L;
            stop = false;
        });
        final CyclicBarrier end = new CyclicBarrier(2);
        final FirstFailure failure = new FirstFailure();
        final Runnable release = () -> {
            stop = true;
            start.reset();
            end.reset();
        };

        final Thread ping = Threads.worker("ping", Affinity.cpuOf(pin, 0), failure, () -> {
            for (int r = 0; r < runs; r++) {
                start.await();
                results[r].jitGc.start();
                final String bad = pingRun(results[r], mode, sampleEvery, maxMs);
                results[r].jitGc.stop();
                if (bad != null && orderFailure[0] == null) {
                    orderFailure[0] = "run " + r + ": " + bad;
                }
                end.await();
            }
        }, release);
        final Thread pong = Threads.worker("pong", Affinity.cpuOf(pin, 1), failure, () -> {
            final long skipAt = iterations / 2;
            for (int r = 0; r < runs; r++) {
                start.await();
                pongMismatches[0] += skip && r == 0
                    ? pongRunSkipping(iterations, mode, skipAt)
                    : pongRun(iterations, mode);
                end.await();
                final long n = results[r].exchanges;
                final long v1 = s1;
                final long v2 = s2;
                final boolean counters = results[r].deadlineHit
                    ? (v2 == n || v2 == n + 1) && (v1 == n + 1 || v1 == n)
                    : v1 == iterations && v2 == iterations && n == iterations;
                if (!counters && orderFailure[0] == null) {
                    orderFailure[0] = "run " + r + ": counters s1=" + v1 + ", s2=" + v2 + " after " + n
                        + " completed exchanges of " + iterations;
                }
            }
        }, release);
        ping.setDaemon(true);
        pong.setDaemon(true);
        Threads.startJoinRethrow(failure, "signalling thread", ping, pong);
        CheckFailed.require(orderFailure[0] == null, orderFailure[0]);
        CheckFailed.require(pongMismatches[0] == 0,
            pongMismatches[0] + " values were not echoed in order (pong saw s1 skip or repeat)");
        return results;
    }

    /** The ping side of one lab run; returns a description of an ordering fault, or null. */
    private static String pingRun(final RunResult result, final int mode, final long sampleEvery, final long maxMs) {
        final long iterations = result.iterations;
        final RoundTrips samples = result.roundTrips;
        samples.reset();
        long countdown = sampleEvery > 0 ? 1 : Long.MAX_VALUE;
        final long begin = System.nanoTime();
        final long deadline = begin + maxMs * 1_000_000L;
        long value = 0;
        long exchanges = 0;
        String bad = null;
        outer:
        for (long i = 0; i < iterations; i++) {
            long t0 = 0;
            final boolean sample = --countdown == 0;
            if (sample) {
                countdown = sampleEvery;
                t0 = System.nanoTime();
                if (t0 - deadline > 0) {
                    result.deadlineHit = true;
                    break;
                }
            }
            final long previous = value;
            value = ++s1;
            long seen;
            int spins = 0;
            while ((seen = s2) != value) {
                if (seen != previous) {
                    bad = "ping expected s2 = " + previous + " or " + value + ", saw " + seen;
                    break outer;
                }
                if (mode == PAUSE) {
                    Thread.onSpinWait();
                } else if (mode == YIELD) {
                    Thread.yield();
                }
                if (++spins == CHECK_SPINS) {
                    spins = 0;
                    if (System.nanoTime() - deadline > 0) {
                        result.deadlineHit = true;
                        break outer;
                    }
                }
            }
            if (sample) {
                samples.record(System.nanoTime() - t0);
            }
            exchanges++;
        }
        result.duration = System.nanoTime() - begin;
        result.exchanges = exchanges;
        stop = true;
        return bad;
    }

    /** The pong side of one lab run; returns how many values were not the expected next one. */
    private static long pongRun(final long iterations, final int mode) {
        long value = 0;
        long mismatches = 0;
        while (value < iterations) {
            long seen;
            int spins = 0;
            while ((seen = s1) == value) {
                if (mode == PAUSE) {
                    Thread.onSpinWait();
                } else if (mode == YIELD) {
                    Thread.yield();
                }
                if (++spins == CHECK_SPINS) {
                    spins = 0;
                    if (stop) {
                        return mismatches;
                    }
                }
            }
            if (seen != value + 1) {
                mismatches++;
            }
            value = ++s2;
        }
        return mismatches;
    }

    /** {@link #pongRun} with the injected fault: at {@code skipAt} s2 jumps by two in one write. */
    private static long pongRunSkipping(final long iterations, final int mode, final long skipAt) {
        long value = 0;
        long mismatches = 0;
        while (value < iterations) {
            long seen;
            int spins = 0;
            while ((seen = s1) == value) {
                if (mode == PAUSE) {
                    Thread.onSpinWait();
                } else if (mode == YIELD) {
                    Thread.yield();
                }
                if (++spins == CHECK_SPINS) {
                    spins = 0;
                    if (stop) {
                        return mismatches;
                    }
                }
            }
            if (seen != value + 1) {
                mismatches++;
            }
            if (value == skipAt) {
                value += 2;
                s2 = value;
            } else {
                value = ++s2;
            }
        }
        return mismatches;
    }
}
