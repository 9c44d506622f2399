package mechsym.signalling;

// The lock, its conditions and the two values are LockedSignalling's statics, as in the listing. Imported, so that
// the loops name them as the listing's do.
import static mechsym.signalling.LockedSignalling.ECHO_CONDITION;
import static mechsym.signalling.LockedSignalling.LOCK;
import static mechsym.signalling.LockedSignalling.SEND_CONDITION;
import static mechsym.signalling.LockedSignalling.echoValue;
import static mechsym.signalling.LockedSignalling.sendValue;

import java.util.concurrent.CountDownLatch;

import mechsym.common.Affinity;
import mechsym.common.CheckFailed;
import mechsym.common.FirstFailure;
import mechsym.common.JitGc;
import mechsym.common.Threads;

/**
 * The post protocol of {@link LockedSignalling} ({@code --protocol=post}): the listing's sender and echo loops on
 * two fresh threads per run, timed from their start to their join, and the join that looks at the values every
 * {@code --max-ms} to tell a stalled or out-of-step run.
 */
final class LockedPostHarness {
    private LockedPostHarness() {
    }

    /**
     * {@code runs} runs of the listing's loops, two fresh threads each, timed on
     * the calling thread from their start to their join. Throws
     * {@link CheckFailed} when a run's values did not end at
     * {@code iterations - 1} or the run stalled with the echo out of step.
     */
    static RunResult[] measurePost(final long iterations, final int runs, final int[] pin, final long maxMs,
                                   final boolean skip)
            throws InterruptedException {
        Affinity.checkPin("pin", pin, 2, "sender thread, echo thread");
        JitGc.open();
        final RunResult[] results = new RunResult[runs];
        for (int r = 0; r < runs; r++) {
            results[r] = postRun(r, iterations, pin, maxMs, skip && r == 0);
        }
        return results;
    }

    private static RunResult postRun(final int run, final long iterations, final int[] pin,
                                                   final long maxMs, final boolean skip) throws InterruptedException {
        LOCK.lock();
        try {
            sendValue = -1L;
            echoValue = -1L;
        } finally {
            LOCK.unlock();
        }
        final JitGc jitGc = new JitGc();
        final FirstFailure failure = new FirstFailure();
        final CountDownLatch ready = new CountDownLatch(2);
        final CountDownLatch go = new CountDownLatch(1);
        final long skipAt = iterations / 2;
        final Thread sendThread = Threads.worker("send", Affinity.cpuOf(pin, 0), failure, () -> {
            ready.countDown();
            go.await();
            postSend(iterations);
        }, ready::countDown);
        final Thread echoThread = Threads.worker("echo", Affinity.cpuOf(pin, 1), failure, () -> {
            ready.countDown();
            go.await();
            if (skip) {
                postEchoSkipping(iterations, skipAt);
            } else {
                postEcho(iterations);
            }
        }, ready::countDown);
        sendThread.setDaemon(true);
        echoThread.setDaemon(true);
        echoThread.start();
        sendThread.start();
        ready.await();
        failure.rethrow("signalling thread");   // one could not be pinned

        jitGc.start();
        final long start = System.nanoTime();   // the timed region: start, run, join, as the post's main
        go.countDown();
        joinWhileProgressing(run, sendThread, maxMs, failure);
        joinWhileProgressing(run, echoThread, maxMs, failure);
        final long duration = System.nanoTime() - start;
        jitGc.stop();

        failure.rethrow("signalling thread");
        CheckFailed.require(sendValue == iterations - 1 && echoValue == iterations - 1, "run " + run + ": sendValue="
            + sendValue + ", echoValue=" + echoValue + " after " + iterations + " exchanges");
        final RunResult result = new RunResult(iterations, 0, jitGc);
        result.duration = duration;
        result.exchanges = iterations;
        return result;
    }

    /**
     * Joins {@code t}; every {@code maxMs} it is still running, looks at the values under the lock (the only
     * time anything but the two threads touches them, and never in a run shorter than {@code maxMs}): out of
     * step is a {@link CheckFailed} (with the post's loops a value echoed that was never sent leaves both
     * threads waiting for good, in a state no healthy run passes through); in step but not moved since the last
     * look is a stalled run (an error); otherwise it waits on.
     */
    private static void joinWhileProgressing(final int run, final Thread t, final long maxMs,
                                             final FirstFailure failure) throws InterruptedException {
        long lastSent = Long.MIN_VALUE;
        while (true) {
            t.join(maxMs);
            if (!t.isAlive()) {
                return;
            }
            failure.rethrow("signalling thread");
            final long sent;
            final long echoed;
            LOCK.lock();
            try {
                sent = sendValue;
                echoed = echoValue;
            } finally {
                LOCK.unlock();
            }
            CheckFailed.require(echoed == sent || echoed == sent - 1, "run " + run + ": sent " + sent + ", echo was "
                + echoed + ": the exchange is out of step");
            if (sent == lastSent) {
                throw new IllegalStateException("run " + run + " made no progress for --max-ms=" + maxMs + " (sent "
                    + sent + ", echo " + echoed + ")");
            }
            lastSent = sent;
        }
    }

    /** The listing's sender loop. */
    private static void postSend(final long iterations) throws InterruptedException {
        for (long i = 0; i < iterations; i++) {
            LOCK.lock();
            try {
                sendValue = i;
                SEND_CONDITION.signal();
            } finally {
                LOCK.unlock();
            }

            LOCK.lock();
            try {
                while (echoValue != i) {
                    ECHO_CONDITION.await();
                }
            } finally {
                LOCK.unlock();
            }
        }
    }

    /** The listing's echo loop. */
    private static void postEcho(final long iterations) throws InterruptedException {
        for (long i = 0; i < iterations; i++) {
            LOCK.lock();
            try {
                while (sendValue != i) {
                    SEND_CONDITION.await();
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
    }

    /** {@link #postEcho} with the injected fault: at {@code skipAt} it echoes {@code skipAt + 1}. */
    private static void postEchoSkipping(final long iterations, final long skipAt) throws InterruptedException {
        for (long i = 0; i < iterations; i++) {
            LOCK.lock();
            try {
                while (sendValue != i) {
                    SEND_CONDITION.await();
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
    }
}
