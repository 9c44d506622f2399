package mechsym.callerchoose;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;

import mechsym.common.Args;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.JitGc;
import mechsym.common.Kernels;

/**
 * Splitting a string: a method that allocates its result against one that fills a collection the caller supplies.
 *
 * <p>The claim under test ("Let The Caller Choose", 2011-07-16, Martin Thompson): {@code String.split} allocates a
 * new array (and temporary structures) on every call; letting the caller pass in a collection it reuses
 * ({@code str.split(values, " ")}) is cheaper and allocates less, and for arrays too large for the young generation
 * the allocating idiom is much worse. The post prints no benchmark; this kernel is written from its text.
 *
 * <p>Methods ({@code --method}): {@code split}, {@code String.split(" ")} (a one-character separator: the JDK's
 * fast path, no regex); {@code list}, a split into a caller-supplied {@code ArrayList} cleared and reused on every
 * call; {@code set}, the same into a reused {@code HashSet} (the post's "finding distinct words"). Every method
 * still allocates the word strings themselves ({@code substring}), as the post's signature implies: what differs is
 * the result structure. The input is {@code --words} words of {@code --word-length} letters from a vocabulary of
 * {@code --distinct} words, separated by one space.
 *
 * <p>One run calls the method {@code --ops} times. Measured outside the timed loop, per run: its duration, ns per call, calls per
 * second, bytes allocated per call ({@code com.sun.management.ThreadMXBean.getThreadAllocatedBytes} of this
 * thread, read before and after), the collections, their pause time and the JIT's time in the run ({@link JitGc}), and once
 * the young generation's size (the committed size of the memory pools whose names say Eden or Survivor) and the
 * result array's size ({@code 16 + 4 x words} bytes with compressed references), so a reader can see which arrays
 * do not fit. Every call's result feeds a checksum (its size and the first and last word's hash; a set's size), so nothing is
 * dead code; after the run it must equal {@code ops} times the one computed before the run from a plain split.
 * {@code --inject=checksum} (tests) makes that check fail: exit 3, no number.
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -cp build/mechsym.jar mechsym.callerchoose.SplitCost --method=split --words=10 --ops=1000000
 *   java -cp build/mechsym.jar mechsym.callerchoose.SplitCost --method=list --words=10 --ops=1000000
 * </pre>
 * {@code list} allocates fewer bytes per call than {@code split} (no array, no temporary list); with
 * {@code --words=4000000} and a small young generation ({@code -Xmn16m}) {@code split}'s array goes to the old
 * generation and the GC count and time show it.
 */
public final class SplitCost {
    public static final List<String> METHODS = List.of("split", "list", "set");
    public static final List<String> INJECTS = List.of("none", "checksum");
    private static final String NAME = "SplitCost";

    private SplitCost() {
    }

    public static void main(final String[] argv) {
        Kernels.main(NAME, argv, SplitCost::run);
    }

    private static void run(final Args args) {
        final String method = args.choice("method", "split", METHODS);
        final int words = args.intValue("words", 10, 1, 50_000_000);
        final int wordLength = args.intValue("word-length", 5, 1, 64);
        final int distinct = args.intValue("distinct", 1000, 1, 1_000_000);
        final long ops = args.longValue("ops", 1_000_000, 1, 1_000_000_000_000L);
        final int runs = args.intValue("runs", 5, 1, 10_000);
        final int warmupRuns = args.intValue("warmup-runs", 2, 0, 10_000);
        final String inject = args.choice("inject", "none", INJECTS);
        args.finish();

        final String input = input(words, wordLength, distinct);
        final long expected = checksum(List.of(input.split(" ")), method.equals("set"));
        final Csv csv = new Csv("method", "words");
        final List<String> extra = List.of(method, Integer.toString(words));
        final com.sun.management.ThreadMXBean threads =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long self = Thread.currentThread().getId();
        final Collection<String> reused = method.equals("set") ? new HashSet<>() : new ArrayList<>();
        final JitGc jitGc = new JitGc();
        JitGc.open();
        for (int r = 0; r < warmupRuns + runs; r++) {
            final boolean warmup = r < warmupRuns;
            final long alloc0 = threads.getThreadAllocatedBytes(self);
            jitGc.start();
            final long start = System.nanoTime();
            final long sum = method.equals("split") ? splitLoop(input, ops) : reuseLoop(input, ops, reused);
            final long duration = System.nanoTime() - start;
            jitGc.stop();
            final long alloc = threads.getThreadAllocatedBytes(self) - alloc0;
            final long want = inject.equals("checksum") && r == 0 ? expected * ops + 1 : expected * ops;
            CheckFailed.require(sum == want, "run " + r + ": checksum " + sum + ", expected " + want
                                + " (" + ops + " calls of " + expected + ")");
            csv.row(extra, r, warmup, "duration", duration, "ns");
            csv.row(extra, r, warmup, "ns_per_op", (double) duration / ops, "ns/op");
            csv.row(extra, r, warmup, "throughput", ops * 1e9 / duration, "ops/s");
            csv.row(extra, r, warmup, "alloc_bytes_per_op", (double) alloc / ops, "bytes/op");
            jitGc.rows(csv, extra, r, warmup);
        }
        csv.row(extra, 0, false, "young_gen_bytes", youngGenBytes(), "bytes");
        csv.row(extra, 0, false, "result_array_bytes", 16 + 4L * words, "bytes");
        csv.flush(System.out);
    }

    /** {@code ops} calls of String.split; returns the sum of the results' checksums. */
    private static long splitLoop(final String input, final long ops) {
        long sum = 0;
        for (long i = 0; i < ops; i++) {
            final String[] values = input.split(" ");
            sum += values.length + values[0].hashCode() + values[values.length - 1].hashCode();
        }
        return sum;
    }

    /** {@code ops} calls of the caller-supplied split into one reused collection. */
    private static long reuseLoop(final String input, final long ops, final Collection<String> values) {
        long sum = 0;
        for (long i = 0; i < ops; i++) {
            split(input, ' ', values);
            sum += checksum(values, values instanceof HashSet);
        }
        return sum;
    }

    /** The post's {@code str.split(values, " ")}: clears the caller's collection, adds every word, returns it. */
    static Collection<String> split(final String s, final char separator, final Collection<String> values) {
        values.clear();
        int from = 0;
        int at;
        while ((at = s.indexOf(separator, from)) >= 0) {
            values.add(s.substring(from, at));
            from = at + 1;
        }
        values.add(s.substring(from));
        return values;
    }

    /** Size plus the first and last word's hash; for a set, its size (the number of distinct words). */
    private static long checksum(final Collection<String> values, final boolean set) {
        if (set) {
            return values instanceof HashSet ? values.size() : new HashSet<>(values).size();
        }
        final List<String> list = (List<String>) values;
        return list.size() + list.get(0).hashCode() + list.get(list.size() - 1).hashCode();
    }

    private static String input(final int words, final int wordLength, final int distinct) {
        final StringBuilder sb = new StringBuilder(words * (wordLength + 1));
        for (int w = 0; w < words; w++) {
            if (w > 0) {
                sb.append(' ');
            }
            int v = (int) ((w * 2654435761L) % distinct);
            for (int c = 0; c < wordLength; c++) {
                sb.append((char) ('a' + v % 26));
                v = v / 26 + c + 1;
            }
        }
        return sb.toString();
    }

    /** The young generation's committed bytes: the pools named Eden or Survivor (every collector names them so). */
    private static long youngGenBytes() {
        long bytes = 0;
        for (final MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getName().contains("Eden") || pool.getName().contains("Survivor")) {
                bytes += pool.getUsage().getCommitted();
            }
        }
        return bytes;
    }
}
