package mechsym.calibration;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

import mechsym.common.Affinity;
import mechsym.common.CheckFailed;
import mechsym.common.FirstFailure;
import mechsym.common.JitGc;
import mechsym.common.Threads;

/**
 * How long a parked thread on another CPU takes to run again after {@code LockSupport.unpark}: the floor of every
 * blocking hand-off (a lock's or a condition's wake-up). Round by round the sleeper parks; the waker waits until it
 * has said so and 200 µs more (so it is asleep and its CPU idle, as in a blocking queue), stamps the clock and
 * unparks it; the sleeper stamps the clock when it runs. On bare metal a few µs; on a VM whose idle vCPU halts, the
 * host's interrupt to wake it (tens of µs). Check: one wake-up per round, each after its stamp.
 */
final class Wakeup {
    private static final long SETTLE_NS = 200_000;

    private Wakeup() {
    }

    /** The median wake-up in ns over {@code rounds}; {@code inject} makes the sleeper count one wake-up fewer. */
    static double measure(final int[] pin, final int rounds, final boolean inject, final JitGc jitGc)
            throws InterruptedException {
        final long[] stamps = new long[rounds];
        final long[] woke = new long[rounds];
        final long[] counted = new long[1];
        final State state = new State();
        final FirstFailure failure = new FirstFailure();
        final Thread sleeper = Threads.worker("sleeper", Affinity.cpuOf(pin, 1), failure, () -> {
            long n = 0;
            for (int r = 0; r < rounds; r++) {
                state.parked = r + 1;
                while (state.go != r + 1) {
                    if (state.go < 0) {
                        throw new IllegalStateException("the waker failed");
                    }
                    LockSupport.park(state);
                }
                woke[r] = System.nanoTime();
                n++;
            }
            counted[0] = inject ? n - 1 : n;
        }, () -> state.parked = -1);
        final Thread waker = Threads.worker("waker", Affinity.cpuOf(pin, 0), failure, () -> {
            jitGc.start();
            for (int r = 0; r < rounds; r++) {
                while (state.parked != r + 1) {
                    if (state.parked < 0) {
                        throw new IllegalStateException("the sleeper failed");
                    }
                    Thread.onSpinWait();
                }
                final long settle = System.nanoTime() + SETTLE_NS;
                while (System.nanoTime() < settle) {
                    Thread.onSpinWait();
                }
                stamps[r] = System.nanoTime();
                state.go = r + 1;
                LockSupport.unpark(sleeperOf(state));
            }
            jitGc.stop();
        }, () -> {
            state.go = -1;
            LockSupport.unpark(sleeperOf(state));
        });
        state.sleeper = sleeper;
        Threads.startJoinRethrow(failure, "wake-up", sleeper, waker);
        final long[] lat = new long[rounds];
        boolean ordered = true;
        for (int r = 0; r < rounds; r++) {
            lat[r] = woke[r] - stamps[r];
            ordered &= lat[r] > 0;
        }
        CheckFailed.require(counted[0] == rounds && ordered, "wakeup: " + counted[0] + " wake-ups for " + rounds
                            + " rounds" + (ordered ? "" : ", one before its unpark"));
        Arrays.sort(lat);
        return lat[rounds / 2];
    }

    private static Thread sleeperOf(final State state) {
        return state.sleeper;
    }

    /** The round the sleeper has parked for and the round it may wake for (-1: the other thread failed). */
    static final class State {
        volatile int parked;
        volatile int go;
        volatile Thread sleeper;
    }
}
