package mechsym.jmh;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Blackhole;

/**
 * Let the caller choose: String.split against a split into a collection the caller supplies and reuses
 * (notebook 16). Run it with {@code -prof gc}: bytes allocated per call ({@code gc.alloc.rate.norm}) are the
 * post's real subject.
 *
 * <p>The claim ("Let the Caller Choose", 2011-07-16, Martin Thompson): an API that returns a new array for
 * every call ({@code String[] split(String)}) makes garbage the caller cannot avoid; one that fills a
 * collection the caller passes in ({@code split(Collection, String)}) lets the caller reuse it, allocating
 * nothing but the words themselves, and that costs less.
 *
 * <p>Methods, by the kernel's names ({@code mechsym.callerchoose.SplitCost --method}): {@code split}
 * ({@code String.split(" ")}), {@code list} (a split into a reused ArrayList), {@code set} (into a reused
 * HashSet). {@code words}: words per input, 8 (the post's example sentence's size) or 1000. The input is the
 * kernel's: words of five letters from 1000 distinct ones, separated by a space. Every call's result goes to
 * a {@link Blackhole}.
 *
 * <p>How to run this and what you should see:
 * <pre>
 *   java -cp 'build/jmh.jar:build/jmh-lib/*:build/lib/*' org.openjdk.jmh.Main 'mechsym.jmh.CallerChoose' -f 5 -prof gc
 * </pre>
 * {@code gc.alloc.rate.norm}: {@code split} allocates the words plus the result array and the list it is
 * built from; {@code list} and {@code set} only the words (the substrings). Time per call: {@code list}
 * ahead of {@code split}, {@code set} behind both (hashing).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Thread)
public class CallerChoose {
    public static final List<String> METHODS = List.of("split", "list", "set");
    private static final int WORD_LENGTH = 5;
    private static final int DISTINCT = 1000;

    @Param({"split", "list", "set"})
    public String method;

    @Param({"8", "1000"})
    public int words;

    private String input;
    private Collection<String> values;
    private boolean stringSplit;

    @Setup
    public void setUp() {
        if (!METHODS.contains(method)) {
            throw new IllegalArgumentException("method '" + method + "': allowed values are " + String.join(", ", METHODS));
        }
        if (words < 1) {
            throw new IllegalArgumentException("words " + words + ": must be at least 1");
        }
        input = input(words);
        stringSplit = method.equals("split");
        values = method.equals("set") ? new HashSet<>() : new ArrayList<>();
    }

    /** One call of the method on the input; what it returns goes to the blackhole. */
    @Benchmark
    public void splitOnce(final Blackhole bh) {
        if (stringSplit) {
            bh.consume(input.split(" "));
        } else {
            bh.consume(split(input, ' ', values));
        }
    }

    /** The post's {@code split(values, " ")}: clears the caller's collection, adds every word, returns it. */
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

    /**
     * The kernel's input: {@code words} words of WORD_LENGTH letters, DISTINCT different ones. A deliberate copy of
     * SplitCost's generator: the benchmarks' class path does not carry the kernels' jar, and both harnesses must
     * split the same text.
     */
    static String input(final int words) {
        final StringBuilder sb = new StringBuilder(words * (WORD_LENGTH + 1));
        for (int w = 0; w < words; w++) {
            if (w > 0) {
                sb.append(' ');
            }
            int v = (int) ((w * 2654435761L) % DISTINCT);
            for (int c = 0; c < WORD_LENGTH; c++) {
                sb.append((char) ('a' + v % 26));
                v = v / 26 + c + 1;
            }
        }
        return sb.toString();
    }
}
