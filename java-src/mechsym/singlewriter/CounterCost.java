package mechsym.singlewriter;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

import mechsym.common.Affinity;
import mechsym.common.Args;
import mechsym.common.BadArgument;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.Defaults;
import mechsym.common.FirstFailure;
import mechsym.common.JitGc;
import mechsym.common.Kernels;
import mechsym.common.Threads;

/**
 * Incrementing one 64-bit counter, by one thread or two, with nothing, a memory barrier, a CAS or a lock: the
 * cost of managing contention.
 *
 * <p>The claim ("Single Writer Principle", 2011-09-22, Martin Thompson): 500 million increments on a 2.4 GHz
 * Westmere take 300 ms with one thread, 4,700 ms with a memory barrier, 5,700 ms with CAS, 18,000 ms with two
 * threads CAS-ing, 10,000 ms with a lock and 118,000 ms with two threads taking it: contention, not the
 * instruction, is the big cost. The post prints no code; each method is written from its row's name, plus what
 * an ordered store and the fences of "Memory Barriers/Fences" (2011-07-24) cost beside them.
 *
 * <p>Methods ({@code --method}), each its own loop, the increments shared among {@code --threads}:
 * {@code plain} ("One Thread": the counter in a register, stored with {@code VarHandle.setOpaque} after every
 * increment, a plain {@code mov} on x86 that the JIT may not sink out of the loop); {@code plain-foldable}, the
 * lesson beside it ({@code counter++} on a plain field: C2 replaces the loop by its result, so it neither costs
 * nor scales; not an increment's cost); {@code barrier} ({@code counter++} on a {@code volatile long});
 * {@code cas} ({@code AtomicLong} get then {@code compareAndSet} until it succeeds: {@code LOCK CMPXCHG}, not the
 * {@code LOCK XADD} of {@code incrementAndGet}); {@code lock} ({@code ReentrantLock}: {@code synchronized} was
 * biased, i.e. free, for one thread on the post's JDK 6); {@code release} ({@code setRelease}, i.e. lazySet);
 * {@code fence-release}, {@code fence-acquire}, {@code fence-full} (the plain loop and that {@code VarHandle}
 * fence after each store). Only {@code cas} and {@code lock} take {@code --threads=2}: the others would lose
 * updates with two writers.
 *
 * <p>Protocols: {@code post}, the simplest program for the table (the post has none): one thread loops on
 * {@code main}, or two threads are started by {@code main} with the clock around their start and join; cold,
 * compiled while it runs. {@code lab} (the default): warm-up runs first, then {@code --runs}; two threads wait
 * at a latch that the clock's start opens. After every run the counter must equal {@code --iterations} (which
 * must divide by the thread count); {@code --pin} pins each thread before the clock. Rows per run:
 * {@code duration} (ns), {@code increments}, {@code ns_per_op}, JIT and GC time ({@link JitGc}); for {@code cas},
 * {@code cas_failures_per_op} (failed CAS attempts per increment, counted in a local, summed after the run).
 * {@code --inject=lose-one} (tests) makes the first thread's share one short: exit 3, no number, every time.
 * Compared with the simplest program for the table: {@code data/fidelity/singlewriter.csv}.
 *
 * <p>How to run: {@code java -cp build/mechsym.jar mechsym.singlewriter.CounterCost --method=lock --threads=2
 * --pin=0,1 --iterations=500000000}. What you should see: under a nanosecond per increment for {@code plain}, ~0.01 ns for {@code plain-foldable}, several ns for
 * {@code barrier}, {@code cas} and {@code fence-full}, a plain store's cost for {@code release} and the other
 * fences, and tens to hundreds of ns with two threads.
 */
public final class CounterCost {
    public static final List<String> METHODS = List.of("plain", "plain-foldable", "barrier", "cas", "lock", "release",
                                                       "fence-release", "fence-acquire", "fence-full");
    /** The methods two threads may run (the others would lose updates). */
    public static final List<String> SHARED = List.of("cas", "lock");
    public static final List<String> PROTOCOLS = List.of("lab", "post");
    /** Fault injection for the tests: {@code lose-one} makes the first thread's share one short. */
    public static final List<String> INJECTS = List.of("none", "lose-one");
    private static final String NAME = "CounterCost";
    private static final VarHandle VALUE;

    static {
        try {
            VALUE = MethodHandles.lookup().findStaticVarHandle(CounterCost.class, "value", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // Static fields, as the simplest program for the table has them (with instance fields the counter shared a cache
    // line with the lock's state, and two threads ran ~20% faster than that program); reset before each run.
    private static long value;
    private static volatile long volatileValue;
    private static final AtomicLong ATOMIC = new AtomicLong();
    private static final ReentrantLock LOCK = new ReentrantLock();
    /** Failed CAS attempts of the current run, per thread: each {@code cas} loop stores its own once, after it. */
    private static final long[] CAS_FAILURES = new long[2];

    private CounterCost() {
    }

    /** The kernel's defaults, for the Python bench (read through JPype). */
    public static String[] defaults() {
        return Defaults.of(CounterCost::run);
    }

    public static String[] methods() {
        return METHODS.toArray(new String[0]);
    }

    public static String[] protocols() {
        return PROTOCOLS.toArray(new String[0]);
    }

    public static void main(final String[] argv) {
        Kernels.main(NAME, argv, CounterCost::run);
    }

    private static void run(final Args args) throws Exception {
        final String protocol = args.choice("protocol", "lab", PROTOCOLS);
        final String method = args.choice("method", "plain", METHODS);
        final int threads = args.intValue("threads", 1, 1, 2);
        final long iterations = args.longValue("iterations", 500_000_000L, 1, Long.MAX_VALUE / 4);
        final int runs = args.intValue("runs", protocol.equals("post") ? 1 : 5, 1, 1_000_000);
        final int warmupRuns = args.intValue("warmup-runs", protocol.equals("post") ? 0 : 2, 0, 1_000_000);
        final int[] pin = args.cpuList("pin");
        final String inject = args.choice("inject", "none", INJECTS);
        args.finish();
        if (threads == 2 && !SHARED.contains(method)) {
            throw new BadArgument("--threads=2: only methods " + String.join(", ", SHARED) + " take two threads (--method="
                                  + method + " would lose updates with two writers)");
        }
        if (iterations % threads != 0) {
            throw new BadArgument("--iterations=" + iterations + ": must divide by --threads=" + threads);
        }
        if (protocol.equals("post") && warmupRuns != 0) {
            throw new BadArgument("--warmup-runs=" + warmupRuns + ": the post protocol warms nothing up; give 0 or use "
                                  + "--protocol=lab");
        }
        Affinity.checkPin("pin", pin, threads, threads == 1 ? "the thread" : "first thread, second thread");

        final Csv csv = new Csv("pinning");
        final List<String> extra = List.of(Affinity.pinning(pin));
        final boolean post = protocol.equals("post");
        final long lost = inject.equals("lose-one") ? 1 : 0;
        if (threads == 1 && pin.length == 1) {
            Affinity.pinCurrentThread(pin[0]);
        }
        final JitGc jitGc = new JitGc();
        JitGc.open();
        for (int r = 0; r < warmupRuns + runs; r++) {
            reset();
            final long duration = threads == 1
                ? timedOnMain(method, iterations - lost, jitGc)
                : timedOnTwo(method, iterations / 2, lost, pin, post, jitGc);
            final long total = total(method);
            CheckFailed.require(total == iterations, "run " + r + ": --method=" + method + " counter = " + total
                                + " after " + threads + " x " + iterations / threads + " increments");
            final boolean warmup = r < warmupRuns;
            csv.row(extra, r, warmup, "duration", duration, "ns");
            jitGc.rows(csv, extra, r, warmup);
            csv.row(extra, r, warmup, "increments", iterations, "count");
            csv.row(extra, r, warmup, "ns_per_op", (double) duration / iterations, "ns/op");
            if (method.equals("cas")) {
                csv.row(extra, r, warmup, "cas_failures_per_op",
                        (double) (CAS_FAILURES[0] + CAS_FAILURES[1]) / iterations, "ratio");
            }
        }
        csv.flush(System.out);
    }

    private static void reset() {
        VALUE.setVolatile(0L);
        volatileValue = 0L;
        ATOMIC.set(0L);
        CAS_FAILURES[0] = 0L;
        CAS_FAILURES[1] = 0L;
    }

    /** One thread: the loop on the calling thread; returns its duration in ns. */
    private static long timedOnMain(final String method, final long n, final JitGc jitGc) {
        jitGc.start();
        final long start = System.nanoTime();
        increment(method, n, 0);
        final long duration = System.nanoTime() - start;
        jitGc.stop();
        return duration;
    }

    /**
     * Two threads, each {@code share} increments (the first {@code lost} fewer).
     * post: the clock spans their start and join; lab: both wait on a latch that
     * the clock's start releases.
     */
    private static long timedOnTwo(final String method, final long share, final long lost, final int[] pin,
                            final boolean post, final JitGc jitGc) throws InterruptedException {
        final FirstFailure failure = new FirstFailure();
        final CountDownLatch ready = new CountDownLatch(2);
        final CountDownLatch go = new CountDownLatch(post ? 0 : 1);
        final Thread[] workers = new Thread[2];
        for (int i = 0; i < 2; i++) {
            final long n = share - (i == 0 ? lost : 0);
            final int index = i;
            workers[i] = Threads.worker("writer-" + i, Affinity.cpuOf(pin, i), failure, () -> {
                ready.countDown();
                go.await();
                increment(method, n, index);
            }, () -> {
                ready.countDown();
            });
        }
        if (post) {
            jitGc.start();
            final long start = System.nanoTime();
            Threads.startJoinRethrow(failure, "writer thread", workers);
            final long duration = System.nanoTime() - start;
            jitGc.stop();
            return duration;
        }
        for (final Thread t : workers) {
            t.start();
        }
        ready.await();
        jitGc.start();
        final long start = System.nanoTime();
        go.countDown();
        for (final Thread t : workers) {
            t.join();
        }
        final long duration = System.nanoTime() - start;
        jitGc.stop();
        failure.rethrow("writer thread");
        return duration;
    }

    private static void increment(final String method, final long n, final int thread) {
        switch (method) {
            case "plain" -> plain(n);
            case "plain-foldable" -> plainFoldable(n);
            case "barrier" -> barrier(n);
            case "cas" -> cas(n, thread);
            case "lock" -> locked(n);
            case "release" -> release(n);
            case "fence-release" -> fenceRelease(n);
            case "fence-acquire" -> fenceAcquire(n);
            case "fence-full" -> fenceFull(n);
            default -> throw new BadArgument("--method=" + method + ": allowed values are " + String.join(", ", METHODS));
        }
    }

    /** The counter's final value, read after the timed region. */
    private static long total(final String method) {
        return switch (method) {
            case "barrier" -> volatileValue;
            case "cas" -> ATOMIC.get();
            default -> (long) VALUE.getVolatile();
        };
    }

    private static void plain(final long n) {
        long c = (long) VALUE.getOpaque();
        for (long i = 0; i < n; i++) {
            c++;
            VALUE.setOpaque(c);
        }
    }

    private static void plainFoldable(final long n) {
        for (long i = 0; i < n; i++) {
            value++;
        }
    }

    private static void barrier(final long n) {
        for (long i = 0; i < n; i++) {
            volatileValue++;
        }
    }

    /**
     * Counts its attempts in a local (a register add beside a locked CMPXCHG, off its dependency chain) and stores
     * the failed ones (attempts - increments) once, after its loop: 0 for one thread, and with two, how often the
     * other thread took the line between this thread's read and its CAS (AtomicIncrement's cas-loop does the same).
     */
    private static void cas(final long n, final int thread) {
        final AtomicLong a = ATOMIC;
        long attempts = 0;
        for (long i = 0; i < n; i++) {
            long v;
            do {
                v = a.get();
                attempts++;
            } while (!a.compareAndSet(v, v + 1));
        }
        CAS_FAILURES[thread] = attempts - n;
    }

    private static void locked(final long n) {
        final ReentrantLock l = LOCK;
        for (long i = 0; i < n; i++) {
            l.lock();
            try {
                value++;
            } finally {
                l.unlock();
            }
        }
    }

    private static void release(final long n) {
        long c = (long) VALUE.getOpaque();
        for (long i = 0; i < n; i++) {
            c++;
            VALUE.setRelease(c);
        }
    }

    private static void fenceRelease(final long n) {
        long c = (long) VALUE.getOpaque();
        for (long i = 0; i < n; i++) {
            c++;
            VALUE.setOpaque(c);
            VarHandle.releaseFence();
        }
    }

    private static void fenceAcquire(final long n) {
        long c = (long) VALUE.getOpaque();
        for (long i = 0; i < n; i++) {
            c++;
            VALUE.setOpaque(c);
            VarHandle.acquireFence();
        }
    }

    private static void fenceFull(final long n) {
        long c = (long) VALUE.getOpaque();
        for (long i = 0; i < n; i++) {
            c++;
            VALUE.setOpaque(c);
            VarHandle.fullFence();
        }
    }
}
