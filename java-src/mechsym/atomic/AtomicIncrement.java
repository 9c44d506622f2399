package mechsym.atomic;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import mechsym.common.Args;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.Defaults;
import mechsym.common.FirstFailure;
import mechsym.common.JitGc;
import mechsym.common.Kernels;

/**
 * N threads increment one shared counter until it reaches a total.
 *
 * <p>The claim under test ("Adventures with AtomicLong", 2011-09-11, Martin Thompson):
 * {@code AtomicLong.incrementAndGet()} was a CAS loop ({@code LOCK CMPXCHG}) in JDK 6/7; under contention a
 * CAS loop keeps degrading with threads, while {@code LOCK XADD} levels out at the rate the caches stay
 * coherent (C++ beside it: {@code c-src/atomic_counter.c}). "Disruptor 2.0 Released" (2011-08-27) puts CAS at
 * ~2-10x slower than XADD as contention increases.
 *
 * <p>Variants ({@code --variant}): {@code atomic-increment}, the listing's loop
 * {@code while (i < COUNT) i = counter.incrementAndGet();}, on today's JDKs one intrinsic {@code LOCK XADD}
 * (the fix the post asked for); {@code cas-loop}, the post's JDK 6/7 {@code incrementAndGet} written out
 * ({@code get()} then {@code compareAndSet(v, v + 1)} until it succeeds). Not in the post:
 * {@code varhandle-add} ({@code VarHandle.getAndAdd}, {@code LOCK XADD}); {@code long-adder}
 * ({@code LongAdder.increment()}, each thread COUNT / N increments, the C listing's {@code run_add} shape: a
 * LongAdder has no cheap running total to loop on); {@code synchronized}, for scale.
 *
 * <p>Protocols ({@code --protocol}): {@code post} times each run as the listing did, from before the threads
 * are created to after they are joined, one run per JVM by default; {@code lab} starts the threads outside the
 * clock, releases them together from a latch, and runs warm-up runs ({@code warmup=true}) then measured runs,
 * fresh threads each.
 *
 * <p>Deliberate differences from the listing: COUNT and the thread count are arguments; each thread counts its
 * own successful increments in a local (one register add beside a contended locked instruction), so that after
 * the clock the counter must equal the sum of the threads' counts and reach COUNT (or N x COUNT / N for
 * {@code long-adder}), else exit 3 and no number. {@code --inject=skip} (tests): in the first run thread 0
 * adds 2 in one operation and counts one: exit 3, every time. Comparisons with the listing:
 * {@code data/fidelity/atomiclong.csv}.
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -cp build/mechsym.jar mechsym.atomic.AtomicIncrement --variant=cas-loop --threads=2 --count=50000000
 * </pre>
 * Per run {@code duration} (ns), {@code increments}, {@code ns_per_op}, {@code throughput} and, for the CAS
 * loop, {@code cas_failures_per_op} (0 when the threads never overlapped). One thread: a few ns per increment;
 * two threads on two CPUs: tens of ns, the CAS loop behind XADD and LongAdder far ahead of both.
 */
public final class AtomicIncrement {
    public static final List<String> VARIANTS =
        List.of("atomic-increment", "cas-loop", "varhandle-add", "long-adder", "synchronized");
    public static final List<String> PROTOCOLS = List.of("lab", "post");
    public static final List<String> INJECTS = List.of("none", "skip");
    private static final String NAME = "AtomicIncrement";
    private static final long POST_COUNT = 500L * 1000L * 1000L;

    private static final AtomicLong ATOMIC = new AtomicLong();
    private static final Object LOCK = new Object();
    private static final VarHandle VALUE;
    private static volatile long value;
    private static long locked;
    private static LongAdder adder = new LongAdder();

    static {
        try {
            VALUE = MethodHandles.lookup().findStaticVarHandle(AtomicIncrement.class, "value", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private AtomicIncrement() {
    }

    /** The kernel's defaults, for the Python bench (read through JPype). */
    public static String[] defaults() {
        return Defaults.of(AtomicIncrement::run);
    }

    public static String[] variants() {
        return VARIANTS.toArray(new String[0]);
    }

    public static void main(final String[] argv) {
        Kernels.main(NAME, argv, AtomicIncrement::run);
    }

    private static void run(final Args args) throws Exception {
        final String protocol = args.choice("protocol", "post", PROTOCOLS);
        final String variant = args.choice("variant", "atomic-increment", VARIANTS);
        final int threads = args.intValue("threads", 1, 1, 1024);
        final long count = args.longValue("count", POST_COUNT, threads, Long.MAX_VALUE / 4);
        final int runs = args.intValue("runs", 1, 1, 1_000_000);
        final int warmupRuns = args.intValue("warmup-runs", 0, 0, 1_000_000);
        final boolean skip = args.choice("inject", "none", INJECTS).equals("skip");
        args.finish();

        final Csv csv = new Csv("pinning");
        final List<String> extra = List.of("none");
        final JitGc[] jitGc = JitGc.regions(warmupRuns + runs);
        JitGc.open();
        for (int r = 0; r < warmupRuns + runs; r++) {
            final long[] counts = new long[threads];
            final long[] failures = new long[threads];
            final long duration = measure(protocol.equals("post"), variant, threads, count, counts, failures,
                                          skip && r == 0, jitGc[r]);
            final long increments = check(r, variant, threads, count, counts);
            final boolean warmup = r < warmupRuns;
            csv.row(extra, r, warmup, "duration", duration, "ns");
            jitGc[r].rows(csv, extra, r, warmup);
            csv.row(extra, r, warmup, "increments", increments, "count");
            csv.row(extra, r, warmup, "ns_per_op", (double) duration / increments, "ns/op");
            csv.row(extra, r, warmup, "throughput", increments * 1e9 / duration, "ops/s");
            if (variant.equals("cas-loop")) {   // whether the threads contended: 0 when they never overlapped
                long failed = 0;
                for (final long f : failures) {
                    failed += f;
                }
                csv.row(extra, r, warmup, "cas_failures_per_op", (double) failed / increments, "ratio");
            }
        }
        csv.flush(System.out);
    }

    /**
     * One run; returns its duration in ns. {@code post} times thread creation, start and join, as the listing;
     * otherwise the clock starts when every thread is waiting and the latch opens.
     */
    public static long measure(final boolean post, final String variant, final int threads, final long count,
                               final long[] counts, final long[] failures, final boolean skip)
        throws InterruptedException {
        JitGc.open();
        return measure(post, variant, threads, count, counts, failures, skip, new JitGc());
    }

    /** As above, with the JIT and GC time inside the clock read into {@code jitGc}. */
    static long measure(final boolean post, final String variant, final int threads, final long count,
                        final long[] counts, final long[] failures, final boolean skip, final JitGc jitGc)
        throws InterruptedException {
        ATOMIC.set(0L);
        value = 0L;
        locked = 0L;
        adder = new LongAdder();
        final FirstFailure failure = new FirstFailure();
        final CountDownLatch ready = new CountDownLatch(post ? 0 : threads);
        final CountDownLatch go = new CountDownLatch(post ? 0 : 1);
        final Incrementer[] work = new Incrementer[threads];
        for (int t = 0; t < threads; t++) {
            work[t] = new Incrementer(variant, count, threads, skip && t == 0, counts, failures, t, ready, go,
                                      failure);
        }
        if (post) {
            jitGc.start();
        }
        final long start = System.nanoTime();
        final Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            workers[t] = new Thread(work[t], work[t].name);
        }
        for (final Thread w : workers) {
            w.start();
        }
        ready.await();
        if (!post) {
            jitGc.start();
        }
        final long begin = post ? start : System.nanoTime();
        go.countDown();
        for (final Thread w : workers) {
            w.join();
        }
        final long duration = System.nanoTime() - begin;
        jitGc.stop();
        failure.rethrow("incrementing thread");
        return duration;
    }

    /**
     * One thread's work: a class, not a lambda, made (name included) before the clock starts, as the listing's
     * Runnable class was loaded before its clock: linking a lambda or a string concatenation (invokedynamic) in a
     * cold JVM takes milliseconds, which the post protocol's clock would count (an A/B against the listing showed
     * it: 1.15x at one thread with a lambda here).
     */
    private static final class Incrementer implements Runnable {
        private final String name;
        private final String variant;
        private final long count;
        private final int threads;
        private final boolean skip;
        private final long[] counts;
        private final long[] failures;
        private final int index;
        private final CountDownLatch ready;
        private final CountDownLatch go;
        private final FirstFailure failure;

        Incrementer(final String variant, final long count, final int threads, final boolean skip,
                    final long[] counts, final long[] failures, final int index, final CountDownLatch ready,
                    final CountDownLatch go, final FirstFailure failure) {
            this.name = "incrementer-" + index;
            this.variant = variant;
            this.count = count;
            this.threads = threads;
            this.skip = skip;
            this.counts = counts;
            this.failures = failures;
            this.index = index;
            this.ready = ready;
            this.go = go;
            this.failure = failure;
        }

        @Override
        public void run() {
            try {
                ready.countDown();
                go.await();
                counts[index] = work(variant, count, threads, skip, failures, index);
            } catch (Throwable t) {
                failure.record(t);
            }
        }
    }

    /**
     * One thread's loop; returns how many increments it made. With {@code skip} it first adds 2 as one. The CAS loop
     * also stores its failed attempts in {@code failures[index]}; no other loop touches it.
     */
    private static long work(final String variant, final long count, final int threads, final boolean skip,
                             final long[] failures, final int index) {
        switch (variant) {
            case "atomic-increment":
                return skip ? 1 + atomicLoop(count, ATOMIC.addAndGet(2)) : atomicLoop(count, 0);
            case "cas-loop":
                return skip ? 1 + casLoop(count, ATOMIC.addAndGet(2), failures, index)
                            : casLoop(count, 0, failures, index);
            case "varhandle-add":
                return skip ? 1 + varHandleLoop(count, (long) VALUE.getAndAdd(2L) + 2) : varHandleLoop(count, 0);
            case "synchronized":
                return skip ? 1 + synchronizedLoop(count, lockedAdd(2)) : synchronizedLoop(count, 0);
            default:
                final LongAdder a = adder;
                if (skip) {
                    a.add(2);
                    return 1 + adderLoop(a, count / threads - 1);
                }
                return adderLoop(a, count / threads);
        }
    }

    private static long atomicLoop(final long count, final long first) {
        long i = first;
        long n = 0;
        while (i < count) {
            i = ATOMIC.incrementAndGet();
            n++;
        }
        return n;
    }

    /**
     * The CAS loop; counts its attempts in a local (a register add beside a locked CMPXCHG) and stores the failed
     * ones (attempts - increments) once, after its loop: the contention actually met, 0 where the threads never
     * overlapped.
     */
    private static long casLoop(final long count, final long first, final long[] failures, final int index) {
        long i = first;
        long n = 0;
        long attempts = 0;
        while (i < count) {
            long v;
            do {
                v = ATOMIC.get();
                attempts++;
            } while (!ATOMIC.compareAndSet(v, v + 1));
            i = v + 1;
            n++;
        }
        failures[index] = attempts - n;
        return n;
    }

    private static long varHandleLoop(final long count, final long first) {
        long i = first;
        long n = 0;
        while (i < count) {
            i = (long) VALUE.getAndAdd(1L) + 1;
            n++;
        }
        return n;
    }

    private static long synchronizedLoop(final long count, final long first) {
        long i = first;
        long n = 0;
        while (i < count) {
            synchronized (LOCK) {
                i = ++locked;
            }
            n++;
        }
        return n;
    }

    private static long lockedAdd(final long delta) {
        synchronized (LOCK) {
            locked += delta;
            return locked;
        }
    }

    private static long adderLoop(final LongAdder a, final long increments) {
        for (long k = increments; k > 0; k--) {
            a.increment();
        }
        return increments;
    }

    /**
     * After the timed region: the counter equals the threads' own counts summed, and reached the total (or is
     * exactly N x (COUNT / N) for the long-adder); returns the increments made.
     */
    private static long check(final int run, final String variant, final int threads, final long count,
                              final long[] counts) {
        long sum = 0;
        for (final long c : counts) {
            sum += c;
        }
        final long total;
        switch (variant) {
            case "varhandle-add":
                total = value;
                break;
            case "synchronized":
                synchronized (LOCK) {
                    total = locked;
                }
                break;
            case "long-adder":
                total = adder.sum();
                break;
            default:
                total = ATOMIC.get();
        }
        final boolean reached = variant.equals("long-adder") ? total == threads * (count / threads)
                                                             : total >= count && total <= count + threads;
        CheckFailed.require(total == sum && reached, "run " + run + ": " + variant + " counter = " + total
                            + ", the threads counted " + sum + " increments, total asked " + count);
        return total;
    }
}
