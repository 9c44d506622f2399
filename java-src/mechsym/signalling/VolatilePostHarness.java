package mechsym.signalling;

// The counters, flags and holders are VolatilePingPong's: where a static sits in its class's mirror is part of what
// the kernel measures. Imported, so that the loops name them as the listing's do.
import static mechsym.signalling.VolatilePingPong.NAME;
import static mechsym.signalling.VolatilePingPong.POST_RAN;
import static mechsym.signalling.VolatilePingPong.filler;
import static mechsym.signalling.VolatilePingPong.pingDone;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import mechsym.common.Affinity;
import mechsym.common.CheckFailed;
import mechsym.common.FirstFailure;
import mechsym.common.JitGc;
import mechsym.common.Kernels;
import mechsym.common.Threads;
import mechsym.signalling.VolatilePingPong.Post;
import mechsym.signalling.VolatilePingPong.Pre1;
import mechsym.signalling.VolatilePingPong.Pre2;

/**
 * The post protocol of {@link VolatilePingPong} ({@code --protocol=post}): the listing's ping and pong loops on
 * {@link Post}'s counters, the placement of that holder before the clock, and the watchdog that ends a run the
 * listing's loops cannot finish.
 */
final class VolatilePostHarness {
    private VolatilePostHarness() {
    }

    /**
     * The one run of the listing's loops a JVM can make: the ping on the
     * calling thread, the pong on a daemon thread that spins until the JVM
     * exits, as the post's. Throws {@link CheckFailed} when the counters did
     * not end at {@code iterations}; a run that cannot finish ends the JVM from
     * the watchdog (exit 3 when the counters show a value echoed out of step,
     * else 1). The calling thread is pinned to {@code pin[0]} for good when
     * pinning is asked for.
     */
    static RunResult measurePost(final long iterations, final int[] pin, final long maxMs, final boolean skip)
            throws InterruptedException {
        Affinity.checkPin("pin", pin, 2, "ping thread, pong thread");
        JitGc.open();
        if (!POST_RAN.compareAndSet(false, true)) {
            throw new IllegalStateException("the post protocol makes one run per JVM: its pong thread from the last "
                + "run is still spinning on s1");
        }
        if (pin.length == 2) {
            Affinity.pinCurrentThread(pin[0]);
        }
        placePost();
        Post.s1 = 0L;
        Post.s2 = 0L;
        final JitGc jitGc = new JitGc();   // read outside postPing, which stays the listing's loop
        final FirstFailure failure = new FirstFailure();
        final CountDownLatch ready = new CountDownLatch(1);
        final CountDownLatch over = new CountDownLatch(1);   // the ping loop ended, or the pong thread did
        final long skipAt = iterations / 2;
        final int pongCpu = Affinity.cpuOf(pin, 1);
        final Thread pong = Threads.worker("pong", pongCpu, failure, () -> {
            ready.countDown();
            if (skip) {
                postPongSkipping(iterations, skipAt);
                over.countDown();
            } else {
                postPong();
            }
        }, () -> {
            ready.countDown();
            over.countDown();
        });
        pong.setDaemon(true);
        final Thread watchdog = new Thread(() -> watch(pong, over, failure, iterations, maxMs), "watchdog");
        watchdog.setDaemon(true);
        if (pongCpu >= 0) {
            pong.start();
            ready.await();   // pinning (a taskset process) is not timed
            failure.rethrow("pong thread");   // it could not be pinned
            watchdog.start();
        } else {
            watchdog.start();
            pong.start();   // and the clock starts at once, as the listing's
        }

        jitGc.start();
        final long duration = postPing(iterations);   // the timed region
        jitGc.stop();

        pingDone = true;
        over.countDown();
        watchdog.join();
        failure.rethrow("pong thread");
        final long v1 = Post.s1;
        final long v2 = awaitLastEcho(iterations, maxMs);
        CheckFailed.require(v1 == iterations && v2 == iterations,
            "counters s1=" + v1 + ", s2=" + v2 + " after " + iterations + " exchanges");
        final RunResult result = new RunResult(iterations, 0, jitGc);
        result.duration = duration;
        result.exchanges = iterations;
        return result;
    }

    /**
     * Loads {@link Post} with its counters on one line ({@link MirrorPlacement}): Pre1, then Pre2 to learn how far
     * past the allocation pointer loading puts a mirror's s1, then a filler when Post's s1 would land at byte 56,
     * then Post. Before the clock: reads, three class loads and small allocations. Where the counters sat is read
     * again after the run ({@link CounterLine}); a TLAB refill in between can still put them on two lines.
     */
    private static void placePost() {
        if (MirrorPlacement.SHIFT < 0) {
            return;   // the heap's references cannot be read here: Post is loaded where it falls
        }
        MirrorPlacement.address(Pre1.class);   // loaded here
        final long t0 = MirrorPlacement.top();
        final Class<?> pre2 = Pre2.class;   // loaded here
        final long lead = MirrorPlacement.address(pre2) - t0 + MirrorPlacement.staticOffset(pre2, "s1");
        final long t1 = MirrorPlacement.top();
        if (((t1 + lead) & (MirrorPlacement.LINE - 1)) == MirrorPlacement.LINE - 8) {
            filler = new long[1];
        }
        MirrorPlacement.address(Post.class);   // loaded here, after the filler
    }

    /** The listing's ping loop, on the calling thread; returns its duration in ns. */
    private static long postPing(final long iterations) {
        final long start = System.nanoTime();
        long value = Post.s1;
        while (Post.s1 < iterations) {
            while (Post.s2 != value) {
                // busy spin
            }
            value = ++Post.s1;
        }
        return System.nanoTime() - start;
    }

    /** The listing's pong loop: it never ends (the thread is a daemon, gone when the JVM exits). */
    private static void postPong() {
        long value = Post.s2;
        while (true) {
            while (value == Post.s1) {
                // busy spin
            }
            value = ++Post.s2;
        }
    }

    /**
     * After the timed region: the ping's loop ends once it has sent N, without waiting for the echo, so s2 may
     * still be N - 1 for a moment; returns s2 once it has reached N (or has gone past it), or after {@code maxMs}.
     */
    private static long awaitLastEcho(final long iterations, final long maxMs) {
        final long deadline = System.nanoTime() + maxMs * 1_000_000L;
        long v2 = Post.s2;
        while (v2 < iterations && System.nanoTime() - deadline < 0) {
            Thread.onSpinWait();
            v2 = Post.s2;
        }
        return v2;
    }

    /** {@link #postPong} with the injected fault: at {@code skipAt} s2 jumps by two in one write. */
    private static void postPongSkipping(final long iterations, final long skipAt) {
        long value = Post.s2;
        while (value < iterations) {
            while (value == Post.s1) {
                // busy spin
            }
            if (value == skipAt) {
                value += 2;
                Post.s2 = value;
            } else {
                value = ++Post.s2;
            }
        }
    }

    /**
     * The watchdog of the post run: blocked until the ping loop ends, the pong
     * thread ends (only the injected fault's pong or a failed one ever does) or
     * {@code maxMs} passes, so it costs the timed loop nothing. If the pong
     * ended with s1 short of N, it ran ahead, and the ping would wait forever
     * for a value that never comes, so the JVM is ended here: no number, one
     * line, exit 3.
     */
    private static void watch(final Thread pong, final CountDownLatch over, final FirstFailure failure,
                              final long iterations, final long maxMs) {
        try {
            over.await(maxMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
        }
        if (pingDone) {
            return;   // the main thread checks the counters
        }
        final long v1 = Post.s1;
        final long v2 = Post.s2;
        if (failure.failed()) {
            die(1, "error", "pong thread failed: " + Kernels.oneLine(String.valueOf(failure.get())));
        }
        if (pong.isAlive()) {
            if (v2 > v1 || v1 - v2 > 1) {
                die(3, "CHECK FAILED", "s1=" + v1 + ", s2=" + v2 + " after --max-ms=" + maxMs
                    + ": the exchange is out of step");
            }
            die(1, "error", "the run did not finish within --max-ms=" + maxMs + " (s1=" + v1 + " of "
                + iterations + "): the post's loop has no deadline; --protocol=lab bounds a run");
        }
        die(3, "CHECK FAILED", "the pong thread finished at s2=" + v2 + " while s1=" + v1
            + ": it echoed values that were never sent");
    }

    /** Ends the JVM from a helper thread while the main thread is stuck in the listing's loop: one line, no number. */
    private static void die(final int code, final String kind, final String message) {
        System.err.println(NAME + ": " + kind + ": " + message);
        System.err.flush();
        System.exit(code);
    }
}
