package mechsym.signalling;

// The lock, its conditions and the two values are LockedSignalling's statics, as in the listing. Imported, so that
// the loops name them unqualified.
import static mechsym.signalling.LockedSignalling.ECHO_CONDITION;
import static mechsym.signalling.LockedSignalling.LOCK;
import static mechsym.signalling.LockedSignalling.SEND_CONDITION;
import static mechsym.signalling.LockedSignalling.echoValue;
import static mechsym.signalling.LockedSignalling.sendValue;

import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import mechsym.common.Affinity;
import mechsym.common.BadArgument;
import mechsym.common.CheckFailed;
import mechsym.common.FirstFailure;
import mechsym.common.JitGc;
import mechsym.common.Threads;

/**
 * The lab protocol of {@link LockedSignalling} ({@code --protocol=lab}, the default): sender and echo on two
 * threads reused for every run, the clock started at a barrier, every value checked to arrive exactly and in order,
 * sampled round trips.
 */
final class LockedLabHarness {
    private LockedLabHarness() {
    }

    /**
     * {@code runs} runs of {@code iterations} exchanges on the same two threads. Throws {@link CheckFailed} when a
     * value was not echoed exactly and in order; with {@code skip} the echo thread of the first run echoes a wrong
     * value once (for the tests).
     */
    static RunResult[] measure(final long iterations, final int runs, final int[] pin, final long sampleEvery,
                               final long maxMs, final boolean skip)
            throws InterruptedException {
        if (iterations < 1) {
            throw new BadArgument("--iterations=" + iterations + ": must be at least 1");
        }
        Affinity.checkPin("pin", pin, 2, "sender thread, echo thread");
        JitGc.open();
        final RunResult[] results = new RunResult[runs];
        for (int r = 0; r < runs; r++) {
            results[r] = new RunResult(iterations, sampleEvery);
        }
        final String[] bad = new String[2];
        final CyclicBarrier start = new CyclicBarrier(2, () -> {
            sendValue = -1L;
            echoValue = -1L;
        });
        final CyclicBarrier end = new CyclicBarrier(2);
        final FirstFailure failure = new FirstFailure();
        final Runnable release = () -> {
            start.reset();
            end.reset();
        };
        final long skipAt = iterations / 2;

        final Thread sender = Threads.worker("send", Affinity.cpuOf(pin, 0), failure, () -> {
            for (int r = 0; r < runs; r++) {
                start.await();
                results[r].jitGc.start();
                final String b = send(results[r], sampleEvery);
                results[r].jitGc.stop();
                if (b != null && bad[0] == null) {
                    bad[0] = "run " + r + ": " + b;
                }
                end.await();
            }
        }, release);
        final Thread echo = Threads.worker("echo", Affinity.cpuOf(pin, 1), failure, () -> {
            for (int r = 0; r < runs; r++) {
                start.await();
                final String b = skip && r == 0 ? echoSkipping(iterations, skipAt) : echo(iterations);
                if (b != null && bad[1] == null) {
                    bad[1] = "run " + r + ": " + b;
                }
                end.await();
            }
        }, release);
        sender.setDaemon(true);
        echo.setDaemon(true);
        sender.start();
        echo.start();
        final long limitMs = maxMs > Long.MAX_VALUE / runs ? Long.MAX_VALUE : maxMs * runs;
        final long begin = System.nanoTime();
        sender.join(limitMs);
        final long left = limitMs - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - begin);
        if (left > 0) {
            echo.join(left);
        }
        if (sender.isAlive() || echo.isAlive()) {
            failure.rethrow("signalling thread");
            throw new IllegalStateException(runs + " runs did not finish within " + runs + " x --max-ms=" + maxMs);
        }
        failure.rethrow("signalling thread");
        CheckFailed.require(bad[0] == null, "sender: " + bad[0]);
        CheckFailed.require(bad[1] == null, "echo: " + bad[1]);
        for (int r = 0; r < runs; r++) {
            CheckFailed.require(results[r].exchanges == iterations,
                "run " + r + ": " + results[r].exchanges + " exchanges completed of " + iterations);
        }
        return results;
    }

    /** The sending side of one lab run; returns a description of an ordering fault, or null. */
    private static String send(final RunResult result, final long sampleEvery)
            throws InterruptedException {
        final long iterations = result.iterations;
        final RoundTrips samples = result.roundTrips;
        samples.reset();
        long countdown = sampleEvery > 0 ? 1 : Long.MAX_VALUE;
        final long begin = System.nanoTime();
        long exchanges = 0;
        String bad = null;
        for (long i = 0; i < iterations; i++) {
            long t0 = 0;
            final boolean sample = --countdown == 0;
            if (sample) {
                countdown = sampleEvery;
                t0 = System.nanoTime();
            }
            LOCK.lock();
            try {
                sendValue = i;
                SEND_CONDITION.signal();
            } finally {
                LOCK.unlock();
            }

            LOCK.lock();
            try {
                while (echoValue < i) {
                    ECHO_CONDITION.await();
                }
                if (echoValue != i) {
                    bad = "sent " + i + ", echo was " + echoValue;
                }
            } finally {
                LOCK.unlock();
            }
            if (bad != null) {
                break;
            }
            if (sample) {
                samples.record(System.nanoTime() - t0);
            }
            exchanges++;
        }
        result.duration = System.nanoTime() - begin;
        result.exchanges = exchanges;
        if (bad != null) {
            LOCK.lock();
            try {
                sendValue = Long.MAX_VALUE;   // releases the echo thread
                SEND_CONDITION.signal();
            } finally {
                LOCK.unlock();
            }
        }
        return bad;
    }

    /** The echo side of one lab run; returns a description of an ordering fault, or null. */
    private static String echo(final long iterations) throws InterruptedException {
        for (long i = 0; i < iterations; i++) {
            LOCK.lock();
            try {
                while (sendValue < i) {
                    SEND_CONDITION.await();
                }
                if (sendValue != i) {
                    return outOfStep(i);
                }
            } finally {
                LOCK.unlock();
            }

            LOCK.lock();
            try {
                echoValue = i;
                ECHO_CONDITION.signal();
            } finally {
                LOCK.unlock();
            }
        }
        return null;
    }

    /** {@link #echo} with the injected fault: at {@code skipAt} it echoes {@code skipAt + 1}. */
    private static String echoSkipping(final long iterations, final long skipAt) throws InterruptedException {
        for (long i = 0; i < iterations; i++) {
            LOCK.lock();
            try {
                while (sendValue < i) {
                    SEND_CONDITION.await();
                }
                if (sendValue != i) {
                    return outOfStep(i);
                }
            } finally {
                LOCK.unlock();
            }

            LOCK.lock();
            try {
                echoValue = i == skipAt ? i + 1 : i;
                ECHO_CONDITION.signal();
            } finally {
                LOCK.unlock();
            }
        }
        return null;
    }

    /** Called under the lock when the sender's value is not the one expected; releases the sender. */
    private static String outOfStep(final long expected) {
        final long received = sendValue;
        echoValue = Long.MAX_VALUE;
        ECHO_CONDITION.signal();
        return "expected " + expected + ", received " + received;
    }
}
