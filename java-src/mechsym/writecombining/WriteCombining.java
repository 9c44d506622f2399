package mechsym.writecombining;

import java.lang.management.ManagementFactory;
import java.lang.management.RuntimeMXBean;
import java.util.List;

import mechsym.common.Args;
import mechsym.common.BadArgument;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.JitGc;
import mechsym.common.Defaults;
import mechsym.common.Kernels;

/**
 * One loop writing six byte arrays against two loops writing three each.
 *
 * <p>The claim under test ("Write Combining", 2011-07-15, Martin Thompson): a CPU has only a few
 * write-combining buffers ("on an Intel CPU you are only guaranteed to get 4"), so a loop writing more than
 * four distinct locations per iteration loses the effect; two loops of three are about twice as fast although
 * they do more work (14.0 s against 8.9 s on a Core i7 860).
 *
 * <p>Every loop is the listing's loop with K stores, K = 1..12:
 * {@code int i = iterations; while (--i != 0) { int slot = i & MASK; byte b = (byte) i; A[slot] = b; ... }}.
 * {@code loop6} is the listing's {@code runCaseOne} (SingleLoop), {@code splitLoop} its {@code runCaseTwo}
 * (A-C in one loop, then D-F). As in the listing the arrays and the mask are {@code static final}
 * ({@link Data}), so C2 drops every store's range check (a build that passed them as arguments ran about twice
 * as slow as the listing: {@code data/fidelity/writecombining.csv}). Deliberate differences: {@code --items}
 * (the post's 1 << 24) and the iteration count are arguments; the clock is read around the call of the loop
 * method; the arrays are checked after every timed run.
 *
 * <p>Protocols ({@code --protocol}): {@code post}, the listing's {@code main}: {@code --runs} times (its 3)
 * SingleLoop then SplitLoop, each timed, no warm-up (rows {@code arrays=6}, {@code per_loop=6} or {@code 3});
 * {@code lab} (the default): {@code --arrays} arrays in one loop, or {@code --arrays=6 --per-loop=3} for
 * SplitLoop, warm-up runs then measured runs. Per run: {@code duration} (ns), {@code stores},
 * {@code ns_per_store}; under {@code post} also {@code uptime_start} and {@code uptime_end} (ms since JVM start,
 * read outside the clock), to place {@code -Xlog:jit+compilation} events in the repetitions.
 *
 * <p>Checks: bytes poisoned before each run (one in 4096) must be overwritten after it, and after the last run
 * every slot holds what its last iteration wrote; else exit 3, no number. {@code --inject=drop-array} (tests)
 * leaves the last array out of the first timed case: the check fails every time.
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -cp build/mechsym.jar mechsym.writecombining.WriteCombining --protocol=post --iterations=536870912
 *   java -cp build/mechsym.jar mechsym.writecombining.WriteCombining --arrays=8   (then --arrays=3)
 * </pre>
 * Where the CPU runs out of write-combining (line fill) buffers, ns_per_store of one loop of many arrays rises
 * above that of a loop of three.
 */
public final class WriteCombining {
    public static final List<String> PROTOCOLS = List.of("lab", "post");
    /** Fault injection for the tests: {@code drop-array} leaves arrays of the first timed case unwritten. */
    public static final List<String> INJECTS = List.of("none", "drop-array");
    public static final int MAX_ARRAYS = 12;
    private static final String NAME = "WriteCombining";
    /** The listing's six arrays, one loop of six against two loops of three. */
    private static final int POST_ARRAYS = 6;
    private static final int POST_SPLIT = 3;
    private static final int POISON_EVERY = 4096;

    /** The size and number of the arrays, set from the arguments before {@link Data} is first used. */
    private static int items = 1 << 24;
    private static int arrays = POST_ARRAYS;
    /** The JIT and GC time inside the current case's clock. */
    private static final JitGc JIT_GC = new JitGc();
    /** The JVM's uptime, on the clock -Xlog's uptime decorator reads; null unless the post protocol runs. */
    private static RuntimeMXBean uptime;

    private WriteCombining() {
    }

    /**
     * The arrays, as the listing holds them: {@code static final} fields, created when this class is first used
     * (after the arguments are read), so the JIT sees constant arrays of a known length and a constant mask and,
     * as for the listing, drops the range check of every store. Arrays past {@code --arrays} are empty.
     */
    private static final class Data {
        static final int MASK = items - 1;
        static final byte[] A = array(0);
        static final byte[] B = array(1);
        static final byte[] C = array(2);
        static final byte[] D = array(3);
        static final byte[] E = array(4);
        static final byte[] F = array(5);
        static final byte[] G = array(6);
        static final byte[] H = array(7);
        static final byte[] I = array(8);
        static final byte[] J = array(9);
        static final byte[] K = array(10);
        static final byte[] L = array(11);
        static final byte[][] ALL = {A, B, C, D, E, F, G, H, I, J, K, L};

        private static byte[] array(final int k) {
            return new byte[k < arrays ? items : 0];
        }
    }

    /** The kernel's defaults, for the Python bench (read through JPype). */
    public static String[] defaults() {
        return Defaults.of(WriteCombining::run);
    }

    public static String[] protocols() {
        return PROTOCOLS.toArray(new String[0]);
    }

    public static void main(final String[] argv) {
        Kernels.main(NAME, argv, WriteCombining::run);
    }

    private static void run(final Args args) {
        final boolean post = args.choice("protocol", "lab", PROTOCOLS).equals("post");
        final int iterations = args.intValue("iterations", 134_217_728, 2, Integer.MAX_VALUE);
        items = args.intValue("items", 1 << 24, 64, 1 << 30);
        arrays = args.intValue("arrays", POST_ARRAYS, 1, MAX_ARRAYS);
        final int perLoop = args.intValue("per-loop", arrays, 1, MAX_ARRAYS);
        final int runs = args.intValue("runs", post ? 3 : 5, 1, 1_000_000);
        final int warmupRuns = args.intValue("warmup-runs", post ? 0 : 1, 0, 1_000_000);
        final boolean inject = args.choice("inject", "none", INJECTS).equals("drop-array");
        args.finish();
        if (Integer.bitCount(items) != 1) {
            throw new BadArgument("--items=" + items + ": must be a power of two (the listing masks the index)");
        }
        if (perLoop != arrays && !(arrays == POST_ARRAYS && perLoop == POST_SPLIT)) {
            throw new BadArgument("--per-loop=" + perLoop + ": allowed --per-loop=" + arrays + " (one loop of the "
                                  + arrays + " arrays) or, with --arrays=6, 3 (the listing's SplitLoop)");
        }
        if (post && (args.has("arrays") || args.has("per-loop") || warmupRuns != 0)) {
            throw new BadArgument("--protocol=post runs the listing: one loop of 6 arrays, then two of 3, no warm-up; "
                                  + "--arrays, --per-loop and --warmup-runs are for --protocol=lab");
        }

        JitGc.open();
        if (post) {
            uptime = ManagementFactory.getRuntimeMXBean();
            uptime.getUptime();   // linked before the first timed case
        }
        final Csv csv = new Csv("arrays", "per_loop");
        boolean faulty = inject;
        if (post) {
            for (int r = 0; r < runs; r++) {
                timed(csv, POST_ARRAYS, iterations, r, false, faulty, false);
                timed(csv, POST_SPLIT, iterations, r, false, false, r == runs - 1);
                faulty = false;
            }
        } else {
            for (int r = 0; r < warmupRuns + runs; r++) {
                timed(csv, perLoop, iterations, r, r < warmupRuns, faulty, r == warmupRuns + runs - 1);
                faulty = false;
            }
        }
        csv.flush(System.out);
    }

    /**
     * One timed case: the arrays written in one loop, or the listing's two loops of three; checked; rows added. Every
     * run checks its poisoned bytes (one per 4096: a read per page); only the last reads every slot, so no run starts
     * from a cache state that a full read of the arrays left behind.
     */
    private static void timed(final Csv csv, final int perLoop, final int iterations, final int iteration,
                              final boolean warmup, final boolean faulty, final boolean last) {
        poison(iterations);
        final long upStart = uptime == null ? -1 : uptime.getUptime();
        JIT_GC.start();
        final long start = System.nanoTime();
        if (perLoop == arrays) {
            loop(faulty ? arrays - 1 : arrays, iterations);
        } else if (faulty) {
            loop3(iterations);
        } else {
            splitLoop(iterations);
        }
        final long duration = System.nanoTime() - start;
        JIT_GC.stop();
        final long upEnd = uptime == null ? -1 : uptime.getUptime();
        check(iterations, last ? 1 : POISON_EVERY);
        final long stores = (long) (iterations - 1) * arrays;
        final List<String> extra = List.of(Integer.toString(arrays), Integer.toString(perLoop));
        csv.row(extra, iteration, warmup, "duration", duration, "ns");
        JIT_GC.rows(csv, extra, iteration, warmup);
        csv.row(extra, iteration, warmup, "stores", stores, "count");
        csv.row(extra, iteration, warmup, "ns_per_store", (double) duration / stores, "ns");
        if (uptime != null) {
            csv.row(extra, iteration, warmup, "uptime_start", upStart, "ms");
            csv.row(extra, iteration, warmup, "uptime_end", upEnd, "ms");
        }
    }

    /** Before a run: one byte per 4096 of the slots it will write set to what it will not write there. */
    private static void poison(final int iterations) {
        final int last = Math.min(iterations - 1, Data.MASK);
        for (int k = 0; k < arrays; k++) {
            final byte[] a = Data.ALL[k];
            for (int s = 1; s <= last; s += POISON_EVERY) {
                a[s] = (byte) ~s;
            }
        }
    }

    /**
     * After a run: every {@code step}-th slot it wrote (1: all; POISON_EVERY: the poisoned ones) holds its last
     * iteration's value, (byte) slot (slot 0: (byte) items).
     */
    private static void check(final int iterations, final int step) {
        final int last = Math.min(iterations - 1, Data.MASK);
        final boolean zeroWritten = iterations - 1 >= items;
        for (int k = 0; k < arrays; k++) {
            final byte[] a = Data.ALL[k];
            for (int s = 1; s <= last; s += step) {
                if (a[s] != (byte) s) {
                    throw new CheckFailed("array " + k + " slot " + s + " holds " + a[s] + ", expected " + (byte) s
                                          + " (what the last iteration writing it wrote)");
                }
            }
            CheckFailed.require(!zeroWritten || a[0] == (byte) items,
                "array " + k + " slot 0 holds " + a[0] + ", expected " + (byte) items);
        }
    }

    /** One loop writing the first k arrays (k = 0: none, the injected fault on one array). */
    private static void loop(final int k, final int iterations) {
        switch (k) {
            case 0 -> { }
            case 1 -> loop1(iterations);
            case 2 -> loop2(iterations);
            case 3 -> loop3(iterations);
            case 4 -> loop4(iterations);
            case 5 -> loop5(iterations);
            case 6 -> loop6(iterations);
            case 7 -> loop7(iterations);
            case 8 -> loop8(iterations);
            case 9 -> loop9(iterations);
            case 10 -> loop10(iterations);
            case 11 -> loop11(iterations);
            case 12 -> loop12(iterations);
            default -> throw new IllegalArgumentException("loops write 1.." + MAX_ARRAYS + " arrays, not " + k);
        }
    }

    // The listing's loop with 1..12 stores, one method each so that every body is straight-line code on the
    // static final arrays, as in the listing (loop6 is its runCaseOne; splitLoop its runCaseTwo).

    private static void loop1(final int iterations) {
        int i = iterations;
        while (--i != 0) {
            final int slot = i & Data.MASK;
            final byte b = (byte) i;
            Data.A[slot] = b;
        }
    }

    private static void loop2(final int iterations) {
        int i = iterations;
        while (--i != 0) {
            final int slot = i & Data.MASK;
            final byte b = (byte) i;
            Data.A[slot] = b; Data.B[slot] = b;
        }
    }

    private static void loop3(final int iterations) {
        int i = iterations;
        while (--i != 0) {
            final int slot = i & Data.MASK;
            final byte b = (byte) i;
            Data.A[slot] = b; Data.B[slot] = b; Data.C[slot] = b;
        }
    }

    private static void loop4(final int iterations) {
        int i = iterations;
        while (--i != 0) {
            final int slot = i & Data.MASK;
            final byte b = (byte) i;
            Data.A[slot] = b; Data.B[slot] = b; Data.C[slot] = b; Data.D[slot] = b;
        }
    }

    private static void loop5(final int iterations) {
        int i = iterations;
        while (--i != 0) {
            final int slot = i & Data.MASK;
            final byte b = (byte) i;
            Data.A[slot] = b; Data.B[slot] = b; Data.C[slot] = b; Data.D[slot] = b; Data.E[slot] = b;
        }
    }

    private static void loop6(final int iterations) {
        int i = iterations;
        while (--i != 0) {
            final int slot = i & Data.MASK;
            final byte b = (byte) i;
            Data.A[slot] = b; Data.B[slot] = b; Data.C[slot] = b; Data.D[slot] = b; Data.E[slot] = b;
            Data.F[slot] = b;
        }
    }

    private static void loop7(final int iterations) {
        int i = iterations;
        while (--i != 0) {
            final int slot = i & Data.MASK;
            final byte b = (byte) i;
            Data.A[slot] = b; Data.B[slot] = b; Data.C[slot] = b; Data.D[slot] = b; Data.E[slot] = b;
            Data.F[slot] = b; Data.G[slot] = b;
        }
    }

    private static void loop8(final int iterations) {
        int i = iterations;
        while (--i != 0) {
            final int slot = i & Data.MASK;
            final byte b = (byte) i;
            Data.A[slot] = b; Data.B[slot] = b; Data.C[slot] = b; Data.D[slot] = b; Data.E[slot] = b;
            Data.F[slot] = b; Data.G[slot] = b; Data.H[slot] = b;
        }
    }

    private static void loop9(final int iterations) {
        int i = iterations;
        while (--i != 0) {
            final int slot = i & Data.MASK;
            final byte b = (byte) i;
            Data.A[slot] = b; Data.B[slot] = b; Data.C[slot] = b; Data.D[slot] = b; Data.E[slot] = b;
            Data.F[slot] = b; Data.G[slot] = b; Data.H[slot] = b; Data.I[slot] = b;
        }
    }

    private static void loop10(final int iterations) {
        int i = iterations;
        while (--i != 0) {
            final int slot = i & Data.MASK;
            final byte b = (byte) i;
            Data.A[slot] = b; Data.B[slot] = b; Data.C[slot] = b; Data.D[slot] = b; Data.E[slot] = b;
            Data.F[slot] = b; Data.G[slot] = b; Data.H[slot] = b; Data.I[slot] = b; Data.J[slot] = b;
        }
    }

    private static void loop11(final int iterations) {
        int i = iterations;
        while (--i != 0) {
            final int slot = i & Data.MASK;
            final byte b = (byte) i;
            Data.A[slot] = b; Data.B[slot] = b; Data.C[slot] = b; Data.D[slot] = b; Data.E[slot] = b;
            Data.F[slot] = b; Data.G[slot] = b; Data.H[slot] = b; Data.I[slot] = b; Data.J[slot] = b;
            Data.K[slot] = b;
        }
    }

    private static void loop12(final int iterations) {
        int i = iterations;
        while (--i != 0) {
            final int slot = i & Data.MASK;
            final byte b = (byte) i;
            Data.A[slot] = b; Data.B[slot] = b; Data.C[slot] = b; Data.D[slot] = b; Data.E[slot] = b;
            Data.F[slot] = b; Data.G[slot] = b; Data.H[slot] = b; Data.I[slot] = b; Data.J[slot] = b;
            Data.K[slot] = b; Data.L[slot] = b;
        }
    }

    /** The listing's SplitLoop: arrays A-C in one loop, then D-F in another. */
    private static void splitLoop(final int iterations) {
        int i = iterations;
        while (--i != 0) {
            final int slot = i & Data.MASK;
            final byte b = (byte) i;
            Data.A[slot] = b; Data.B[slot] = b; Data.C[slot] = b;
        }
        i = iterations;
        while (--i != 0) {
            final int slot = i & Data.MASK;
            final byte b = (byte) i;
            Data.D[slot] = b; Data.E[slot] = b; Data.F[slot] = b;
        }
    }
}
