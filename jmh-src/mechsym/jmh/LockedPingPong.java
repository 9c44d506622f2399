package mechsym.jmh;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Control;

/**
 * Two threads hand control back and forth through one lock and two condition variables (notebook 03).
 *
 * <p>The claim ("Locks &amp; Condition Variables - Latency Impact", 2011-11-05, Martin Thompson): signalling
 * through a {@code ReentrantLock} and two {@code Condition}s costs about three orders of magnitude more than
 * through volatile counters ({@link PingPong}): 2,023 ns/op pinned, 8,489 unpinned, because the kernel must
 * arbitrate the lock and wake the waiting thread (the post's ns/op is the run's duration over 2 x its round
 * trips). The lab's kernel is {@code mechsym.signalling.LockedSignalling} (variant {@code locked}).
 *
 * <p>The post's shape, in a JMH group of two threads: {@link #ping} takes the lock, waits on
 * {@code echoCondition} until the last value sent was echoed, releases it; takes it again, sends the next value
 * and signals {@code sendCondition}. {@link #pong} waits on {@code sendCondition} for a value it has not echoed,
 * then echoes it and signals {@code echoCondition}. Two lock acquisitions per half round trip, as the listing's
 * two {@code lock()} blocks per loop. One call is one half of a round trip; each method's score is round trips
 * per second, the group's their sum, so 1e9 / group score is the post's ns/op.
 *
 * <p>The one deliberate difference: a waiter parks with {@code awaitNanos(1 ms)}, not {@code await()}, and looks
 * at {@link Control#stopMeasurement} between waits (as {@code JMHSample_18_Control}), so that when JMH ends an
 * iteration the partner still waiting gets out; a signal wakes either wait alike (both park the thread), and a
 * call that got out that way moves nothing. The lab's kernel checks every echo; here the protocol's state
 * (echo == sent, or sent - 1) is all there is, and the partner's wait loops would hang on a broken one.
 *
 * <p>How to run this and what you should see:
 * <pre>
 *   taskset -c 0,1 java -cp 'build/jmh.jar:build/jmh-lib/*:build/lib/*:build/mechsym.jar' \
 *       org.openjdk.jmh.Main 'mechsym.jmh.LockedPingPong' -f 5
 * </pre>
 * {@code ping} and {@code pong} equal (they move in lockstep), a few hundred thousand round trips per second
 * each across two cores: one to two orders of magnitude below {@link PingPong}'s volatile spin.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LockedPingPong {
    /** How long a waiter parks before it looks at whether JMH ended the iteration. */
    static final long WAIT_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

    @State(Scope.Group)
    public static class Exchange {
        final ReentrantLock lock = new ReentrantLock();
        final Condition sendCondition = lock.newCondition();
        final Condition echoCondition = lock.newCondition();
        long sendValue;
        long echoValue;
    }

    /** Waits until pong echoed the last value sent, then sends the next one. Returns it (or the last, if JMH
     * ended the wait). */
    @Benchmark
    @Group("pingpong")
    @GroupThreads(1)
    public long ping(final Exchange x, final Control control) throws InterruptedException {
        final ReentrantLock lock = x.lock;
        lock.lock();
        try {
            while (x.echoValue != x.sendValue) {
                if (control.stopMeasurement) {
                    return x.sendValue;
                }
                x.echoCondition.awaitNanos(WAIT_NANOS);
            }
        } finally {
            lock.unlock();
        }
        lock.lock();
        try {
            final long next = x.sendValue + 1;
            x.sendValue = next;
            x.sendCondition.signal();
            return next;
        } finally {
            lock.unlock();
        }
    }

    /** Waits for a value pong has not echoed, then echoes it. Returns it (or the last echo, if JMH ended the
     * wait). */
    @Benchmark
    @Group("pingpong")
    @GroupThreads(1)
    public long pong(final Exchange x, final Control control) throws InterruptedException {
        final ReentrantLock lock = x.lock;
        final long value;
        lock.lock();
        try {
            while (x.sendValue == x.echoValue) {
                if (control.stopMeasurement) {
                    return x.echoValue;
                }
                x.sendCondition.awaitNanos(WAIT_NANOS);
            }
            value = x.sendValue;
        } finally {
            lock.unlock();
        }
        lock.lock();
        try {
            x.echoValue = value;
            x.echoCondition.signal();
            return value;
        } finally {
            lock.unlock();
        }
    }
}
