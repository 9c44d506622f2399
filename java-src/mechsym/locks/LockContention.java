package mechsym.locks;

import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.StampedLock;

import mechsym.common.Args;
import mechsym.common.BadArgument;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.Defaults;
import mechsym.common.FirstFailure;
import mechsym.common.JitGc;
import mechsym.common.Kernels;
import mechsym.common.Threads;
import mechsym.common.VmOptions;

/**
 * Counter increments under a lock, 1..N contending threads.
 *
 * <p>The claim under test ("Java Lock Implementations", 2011-11-19, and "Biased Locking, OSR, and Benchmarking
 * Fun", 2011-11-22, Martin Thompson): a JVM monitor ({@code synchronized}) with or without biased locking
 * against a {@code ReentrantLock}, when N threads increment one shared counter inside the lock. The first post
 * warmed up with one run as large as the measured one and found biased locking costs ~10% uncontended; the
 * second warmed up with ten short runs and {@code -XX:BiasedLockingStartupDelay=0}, and found it 8-10x faster
 * uncontended. The launcher chooses the JVM flags; this kernel chooses the lock and the warm-up policy.
 *
 * <p>Locks ({@code --lock}): {@code monitor}, {@code synchronized} on one object allocated when the class
 * initialises, as the post's static {@code jvmLock} (so with {@code BiasedLockingStartupDelay > 0} it is
 * created before biasing is enabled and never biased: exactly the first post's mistake); {@code reentrant}, a
 * non-fair {@code ReentrantLock}, the post's {@code jucLock}. Not in the posts: {@code atomic}
 * ({@code AtomicLong.incrementAndGet}, no lock) and {@code stamped} ({@code StampedLock} write lock).
 *
 * <p>Warm-up ({@code --warmup-policy}): {@code single}, the first post's one run of the full iteration count;
 * {@code short}, the second post's ten runs of {@code --warmup-iterations} (100,000). Warm-up runs are
 * reported, marked {@code warmup=true}. Workers ({@code --workers}): {@code fresh} starts new threads every
 * run, as both posts did; {@code reused} keeps the same threads for all runs. Not in the posts, and it
 * matters: on JDK 17 a monitor biased towards a dead thread is revoked, not re-biased, so with fresh workers
 * only a JVM's first run sees a biased lock.
 *
 * <p>Deliberate differences from the posts' code: several measured runs per JVM ({@code --runs}); the clock
 * starts when all threads wait at a barrier, so thread start-up is not timed; the counter must equal threads x
 * (iterations / threads) after every run, else exit 3 and no number ({@code --inject=drop-one}, for the tests,
 * loses one increment: exit 3 every time); {@code --pin=0,1} pins thread i to CPU pin[i % n].
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -XX:+UseBiasedLocking -XX:BiasedLockingStartupDelay=0 -cp build/mechsym.jar \
 *        mechsym.locks.LockContention --lock=monitor --threads=1 --iterations=100000000 --warmup-policy=short --workers=reused
 * </pre>
 * {@code throughput} (ops/s) and {@code duration} (ns) per run. On JDK 17, biased uncontended monitors several
 * times faster than {@code -XX:-UseBiasedLocking}; at 2+ threads the monitor's throughput drops by an order of
 * magnitude.
 */
public final class LockContention {
    public static final List<String> LOCKS = List.of("monitor", "reentrant", "atomic", "stamped");
    public static final List<String> WARMUPS = List.of("single", "short");
    public static final List<String> WORKERS = List.of("fresh", "reused");
    /** Test-only fault injection: "drop-one" makes the first worker skip one increment, so the check must fail. */
    public static final List<String> INJECTS = List.of("none", "drop-one");
    private static volatile boolean dropOne;

    /** Allocated when the class initialises, as in the post (see class comment). */
    private static final Object MONITOR = new Object();
    private static final ReentrantLock REENTRANT = new ReentrantLock();
    private static final StampedLock STAMPED = new StampedLock();
    private static final AtomicLong ATOMIC = new AtomicLong();
    private static long counter;

    private LockContention() {
    }

    /** The kernel's defaults, for the Python bench (read through JPype). */
    public static String[] defaults() {
        return Defaults.of(LockContention::run);
    }

    public static String[] locks() {
        return LOCKS.toArray(new String[0]);
    }

    public static String[] warmups() {
        return WARMUPS.toArray(new String[0]);
    }

    public static void main(final String[] argv) {
        Kernels.main("LockContention", argv, LockContention::run);
    }

    private static void run(final Args args) throws Exception {
        final String lock = args.choice("lock", "monitor", LOCKS);
        final int threads = args.intValue("threads", 1, 1, 4096);
        final long iterations = args.longValue("iterations", 50_000_000L, 1, Long.MAX_VALUE / 2);
        final String warmup = args.choice("warmup-policy", "short", WARMUPS);
        final int runs = args.intValue("runs", 1, 1, 1_000_000);
        final long warmupIterations = args.longValue("warmup-iterations", 100_000L, 1, Long.MAX_VALUE / 2);
        final String workers = args.choice("workers", "fresh", WORKERS);
        final int[] pin = args.cpuList("pin");
        dropOne = args.choice("inject", "none", INJECTS).equals("drop-one");
        args.finish();
        // every thread does iterations / threads increments: fewer iterations than threads would time zero
        // increments and print a throughput of 0 for what never ran
        if (iterations < threads) {
            throw new BadArgument("--iterations=" + iterations + ": at least --threads=" + threads
                                  + " (each thread does iterations / threads increments)");
        }
        if (warmupIterations < threads && !warmup.equals("single")) {
            throw new BadArgument("--warmup-iterations=" + warmupIterations + ": at least --threads=" + threads
                                  + " (each thread does warmup-iterations / threads increments)");
        }
        if (pin.length > threads) {
            throw new BadArgument("--pin=" + Args.join(pin) + ": " + pin.length + " CPU ids for --threads=" + threads
                                  + "; give at most one per thread (thread i runs on id i mod n)");
        }

        final String biased = VmOptions.value("UseBiasedLocking");
        final String delay = VmOptions.value("BiasedLockingStartupDelay");
        final Csv csv = new Csv("pinning", "vm_biased_locking", "vm_biased_startup_delay_ms");
        final List<String> extra = List.of(pin.length == 0 ? "none" : "thread", biased, delay);

        final int warmupRuns = warmup.equals("single") ? 1 : 10;
        final long warmupSize = warmup.equals("single") ? iterations : warmupIterations;
        final long[] sizes = new long[warmupRuns + runs];
        for (int i = 0; i < sizes.length; i++) {
            sizes[i] = i < warmupRuns ? warmupSize : iterations;
        }
        final long[] durations = new long[sizes.length];
        final JitGc[] jitGc = JitGc.regions(sizes.length);
        JitGc.open();
        if (workers.equals("fresh")) {
            for (int i = 0; i < sizes.length; i++) {
                durations[i] = measure(lock, threads, sizes[i], pin, jitGc[i]);
            }
        } else {
            measureReused(lock, threads, sizes, pin, durations, jitGc);
        }
        for (int i = 0; i < sizes.length; i++) {
            emit(csv, extra, i, i < warmupRuns, threads, sizes[i], durations[i]);
            jitGc[i].rows(csv, extra, i, i < warmupRuns);
        }
        csv.flush(System.out);
    }

    private static void emit(final Csv csv, final List<String> extra, final int iteration, final boolean warmup,
                             final int threads, final long iterations, final long ns) {
        final long ops = (iterations / threads) * threads;
        csv.row(extra, iteration, warmup, "duration", ns, "ns");
        csv.row(extra, iteration, warmup, "throughput", ops * 1e9 / ns, "ops/s");
    }

    /**
     * One run: {@code threads} threads each do {@code iterations / threads}
     * increments of the shared counter under {@code lock}. Returns the
     * nanoseconds from the barrier tripping to the last thread joined; throws
     * {@link CheckFailed} when the counter is not exactly the expected total.
     * Public so that the Python bench can call it in process through JPype.
     */
    public static long measure(final String lock, final int threads, final long iterations, final int[] pin)
            throws InterruptedException {
        JitGc.open();
        return measure(lock, threads, iterations, pin, new JitGc());
    }

    /** As above, with the JIT and GC time inside the clock read into {@code jitGc}. */
    static long measure(final String lock, final int threads, final long iterations, final int[] pin,
                        final JitGc jitGc) throws InterruptedException {
        if (!LOCKS.contains(lock)) {
            throw new IllegalArgumentException("lock '" + lock + "': allowed values are " + String.join(", ", LOCKS));
        }
        if (threads < 1) {
            throw new IllegalArgumentException("threads " + threads + ": must be at least 1");
        }
        if (iterations < threads) {
            throw new IllegalArgumentException("iterations " + iterations + ": at least threads (" + threads + ")");
        }
        final long perThread = iterations / threads;
        counter = 0L;
        ATOMIC.set(0L);
        final long[] start = new long[1];
        final CyclicBarrier barrier = new CyclicBarrier(threads, () -> {
            jitGc.start();
            start[0] = System.nanoTime();
        });
        runWorkers(threads, pin, () -> {
            barrier.await();
            increment(lock, perThread);
        }, barrier::reset);
        final long end = System.nanoTime();
        jitGc.stop();
        final long expected = perThread * threads;
        final long actual = lock.equals("atomic") ? ATOMIC.get() : counter;
        CheckFailed.require(actual == expected,
            "counter is " + actual + " after " + threads + " threads x " + perThread + " increments, expected " + expected);
        return end - start[0];
    }

    /**
     * All runs on the same {@code threads} workers: before each run the workers
     * meet at a start barrier (its action starts the clock), after it at an end
     * barrier (its action stops the clock, checks and resets the counter).
     */
    public static void measureReused(final String lock, final int threads, final long[] sizes, final int[] pin,
                                     final long[] durations) throws InterruptedException {
        JitGc.open();
        measureReused(lock, threads, sizes, pin, durations, JitGc.regions(sizes.length));
    }

    /** As above, with each run's JIT and GC time inside the clock read into {@code jitGc[run]}. */
    static void measureReused(final String lock, final int threads, final long[] sizes, final int[] pin,
                              final long[] durations, final JitGc[] jitGc) throws InterruptedException {
        final long[] start = new long[1];
        final int[] run = new int[1];
        final String[] checkFailure = new String[1];
        final CyclicBarrier startBarrier = new CyclicBarrier(threads, () -> {
            counter = 0L;
            ATOMIC.set(0L);
            jitGc[run[0]].start();
            start[0] = System.nanoTime();
        });
        final CyclicBarrier endBarrier = new CyclicBarrier(threads, () -> {
            final long end = System.nanoTime();
            jitGc[run[0]].stop();
            final int r = run[0]++;
            durations[r] = end - start[0];
            final long expected = (sizes[r] / threads) * threads;
            final long actual = lock.equals("atomic") ? ATOMIC.get() : counter;
            if (actual != expected && checkFailure[0] == null) {
                checkFailure[0] = "run " + r + ": counter is " + actual + " after " + threads + " threads x "
                    + (sizes[r] / threads) + " increments, expected " + expected;
            }
        });
        runWorkers(threads, pin, () -> {
            for (final long size : sizes) {
                startBarrier.await();
                increment(lock, size / threads);
                endBarrier.await();
            }
        }, () -> {
            startBarrier.reset();
            endBarrier.reset();
        });
        CheckFailed.require(checkFailure[0] == null, checkFailure[0]);
    }

    /**
     * Starts {@code threads} workers named lock-contention-i (thread i pinned to
     * pin[i % n] first, when pins are given), each running {@code work}; joins
     * them and rethrows the first failure. {@code onFailure} runs in a failing
     * worker so that the others are released from their barriers.
     */
    private static void runWorkers(final int threads, final int[] pin, final Threads.Work work, final Runnable onFailure)
            throws InterruptedException {
        final FirstFailure failure = new FirstFailure();
        final Thread[] workers = new Thread[threads];
        for (int i = 0; i < threads; i++) {
            final int cpu = pin.length == 0 ? -1 : pin[i % pin.length];
            workers[i] = Threads.worker("lock-contention-" + i, cpu, failure, work, onFailure);
        }
        Threads.startJoinRethrow(failure, "worker", workers);
    }

    private static void increment(final String lock, final long count) {
        final long n = dropOne && Thread.currentThread().getName().equals("lock-contention-0") ? count - 1 : count;
        switch (lock) {
            case "monitor": monitorInc(n); break;
            case "reentrant": reentrantInc(n); break;
            case "atomic": atomicInc(n); break;
            default: stampedInc(n); break;
        }
    }

    /** Convenience for in-process callers: no pinning. */
    public static long measure(final String lock, final int threads, final long iterations) throws InterruptedException {
        return measure(lock, threads, iterations, new int[0]);
    }

    private static void monitorInc(final long n) {
        long count = n;
        while (0 != count--) {
            synchronized (MONITOR) {
                ++counter;
            }
        }
    }

    private static void reentrantInc(final long n) {
        long count = n;
        while (0 != count--) {
            REENTRANT.lock();
            try {
                ++counter;
            } finally {
                REENTRANT.unlock();
            }
        }
    }

    private static void stampedInc(final long n) {
        long count = n;
        while (0 != count--) {
            final long stamp = STAMPED.writeLock();
            try {
                ++counter;
            } finally {
                STAMPED.unlockWrite(stamp);
            }
        }
    }

    private static void atomicInc(final long n) {
        long count = n;
        while (0 != count--) {
            ATOMIC.incrementAndGet();
        }
    }
}
