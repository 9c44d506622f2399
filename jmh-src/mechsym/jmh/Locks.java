package mechsym.jmh;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.StampedLock;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;

/**
 * Counter increments under a lock: the JMH opinion on notebooks 01 and 02.
 *
 * <p>The claim ("Java Lock Implementations", 2011-11-19, and "Biased Locking, OSR, and Benchmarking Fun",
 * 2011-11-22, Martin Thompson): uncontended, a biased JVM monitor is several times faster than one without
 * biasing and than a {@code ReentrantLock}; contended (2+ threads) every lock loses an order of magnitude.
 * The posts timed one hand-written loop per thread, started fresh threads per run and read the clock around
 * thread creation; the second post showed how much of the first post's result was that harness (OSR, the
 * biasing start-up delay).
 *
 * <p>Here JMH owns the harness: its threads are started once per fork and reused for every iteration, its
 * loop calls {@link #increment} and consumes what it returns, and its forks are fresh JVMs. Locks, by the
 * kernel's names ({@code mechsym.locks.LockContention --lock}):
 * <ul>
 *   <li>{@code monitor}: {@code synchronized} on one object. Biased or not is the JVM's flag
 *       ({@code -XX:[+-]UseBiasedLocking}, JDK 17 and older), given per fork by the bench
 *       ({@code -jvmArgsAppend}); the lock object is allocated in the trial's set-up, within a second of
 *       the JVM's start, so with the JDK 6 start-up delay of 4 s it is never biased (the first post's mistake).</li>
 *   <li>{@code reentrant}: {@code ReentrantLock} (non-fair).</li>
 *   <li>{@code atomic}: no lock, {@code AtomicLong.incrementAndGet} (not in the posts).</li>
 *   <li>{@code stamped}: the write lock of a {@code StampedLock} (not in the posts).</li>
 * </ul>
 * Threads: one by default; {@code -t 2} makes two threads contend for the one counter (the bench passes the
 * cell's thread count). The counter is shared ({@code Scope.Benchmark}).
 *
 * <p>How to run this and what you should see:
 * <pre>
 *   java -cp 'build/jmh.jar:build/jmh-lib/*:build/lib/*' org.openjdk.jmh.Main 'mechsym.jmh.Locks' \
 *        -f 5 -t 1 -jvmArgsAppend -XX:+UseBiasedLocking      (JDK 17; then -t 2)
 * </pre>
 * With one thread, the monitor, ReentrantLock and AtomicLong all run at 10^7-10^8 increments/s (the
 * uncontended fast paths; a biased monitor on JDK 17 is the fastest); with two threads, all of them fall by
 * roughly an order of magnitude as the counter's cache line moves between cores.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class Locks {
    public static final List<String> LOCKS = List.of("monitor", "reentrant", "atomic", "stamped");

    @Param({"monitor", "reentrant", "atomic", "stamped"})
    public String lock;

    private Counter counter;

    @Setup
    public void setUp() {
        switch (lock) {
            case "monitor": counter = new MonitorCounter(); break;
            case "reentrant": counter = new ReentrantCounter(); break;
            case "atomic": counter = new AtomicCounter(); break;
            case "stamped": counter = new StampedCounter(); break;
            default: throw new IllegalArgumentException("lock '" + lock + "': allowed values are " + String.join(", ", LOCKS));
        }
    }

    /** One increment of the shared counter under the lock; the new value goes to JMH's blackhole. */
    @Benchmark
    @Threads(1)
    public long increment() {
        return counter.increment();
    }

    /** One implementation per fork (JMH forks each @Param value apart), so the call is monomorphic and inlined. */
    abstract static class Counter {
        abstract long increment();
    }

    static final class MonitorCounter extends Counter {
        private final Object monitor = new Object();
        private long value;

        long increment() {
            synchronized (monitor) {
                return ++value;
            }
        }
    }

    static final class ReentrantCounter extends Counter {
        private final ReentrantLock lock = new ReentrantLock();
        private long value;

        long increment() {
            lock.lock();
            try {
                return ++value;
            } finally {
                lock.unlock();
            }
        }
    }

    static final class AtomicCounter extends Counter {
        private final AtomicLong value = new AtomicLong();

        long increment() {
            return value.incrementAndGet();
        }
    }

    static final class StampedCounter extends Counter {
        private final StampedLock lock = new StampedLock();
        private long value;

        long increment() {
            final long stamp = lock.writeLock();
            try {
                return ++value;
            } finally {
                lock.unlockWrite(stamp);
            }
        }
    }
}
