package mechsym.jmh;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * Write combining: six byte arrays written in one loop, or in two loops of three (notebook 07).
 *
 * <p>The claim ("Write Combining", 2011-07-15, Martin Thompson): a CPU has few write-combining buffers (four
 * guaranteed on the Intel of the day), so a loop that writes six arrays at once runs slower than two loops
 * of three each, although the split does the same stores and twice the loop overhead. The listing wrote
 * {@code arrays[k][i & MASK] = (byte) i} for {@code Integer.MAX_VALUE} iterations, three times per JVM.
 *
 * <p>Variants, by the sweep's names ({@code mechsym.writecombining.WriteCombining}): {@code single-loop} (the
 * listing's SingleLoop: six arrays in one loop) and {@code split-loops} (its SplitLoop: two loops of three).
 * The loop is the unit: one call runs {@link #ITERATIONS} iterations of each loop, and
 * {@code @OperationsPerInvocation} makes the score iterations (six stores each) per second. {@code items}
 * is each array's length (a power of two, the listing's mask): 2^24 as in the post; 2^16 keeps all six in L2.
 * The arrays are final fields of the state (the kernel's are static final), the mask a final field.
 *
 * <p>How to run this and what you should see:
 * <pre>
 *   java -cp 'build/jmh.jar:build/jmh-lib/*:build/lib/*' org.openjdk.jmh.Main 'mechsym.jmh.WriteCombining' -f 5
 * </pre>
 * On the post's CPUs, {@code split-loops} faster than {@code single-loop} at 2^24 items; on today's (more
 * buffers, a larger store buffer) the difference is small or reversed.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Thread)
public class WriteCombining {
    public static final List<String> VARIANTS = List.of("single-loop", "split-loops");
    /** Iterations per call: 2^24, each array written once around at the post's size. */
    public static final int ITERATIONS = 1 << 24;

    @Param({"single-loop", "split-loops"})
    public String variant;

    @Param({"16777216"})
    public int items;

    private byte[] a, b, c, d, e, f;
    private int mask;
    private boolean split;

    @Setup
    public void setUp() {
        if (!VARIANTS.contains(variant)) {
            throw new IllegalArgumentException("variant '" + variant + "': allowed values are " + String.join(", ", VARIANTS));
        }
        if (items < 1 || Integer.bitCount(items) != 1) {
            throw new IllegalArgumentException("items " + items + ": must be a power of two (the listing masks the index)");
        }
        split = variant.equals("split-loops");
        mask = items - 1;
        a = new byte[items];
        b = new byte[items];
        c = new byte[items];
        d = new byte[items];
        e = new byte[items];
        f = new byte[items];
    }

    /** One pass of the variant's loops; returns a byte written last, so the stores cannot be dropped. */
    @Benchmark
    @OperationsPerInvocation(ITERATIONS)
    public byte write() {
        return split ? splitLoops() : singleLoop();
    }

    private byte singleLoop() {
        final byte[] a = this.a, b = this.b, c = this.c, d = this.d, e = this.e, f = this.f;
        final int mask = this.mask;
        int i = ITERATIONS;
        while (--i != 0) {
            final int slot = i & mask;
            final byte v = (byte) i;
            a[slot] = v; b[slot] = v; c[slot] = v; d[slot] = v; e[slot] = v; f[slot] = v;
        }
        return f[1 & mask];
    }

    private byte splitLoops() {
        final byte[] a = this.a, b = this.b, c = this.c, d = this.d, e = this.e, f = this.f;
        final int mask = this.mask;
        int i = ITERATIONS;
        while (--i != 0) {
            final int slot = i & mask;
            final byte v = (byte) i;
            a[slot] = v; b[slot] = v; c[slot] = v;
        }
        i = ITERATIONS;
        while (--i != 0) {
            final int slot = i & mask;
            final byte v = (byte) i;
            d[slot] = v; e[slot] = v; f[slot] = v;
        }
        return f[1 & mask];
    }
}
