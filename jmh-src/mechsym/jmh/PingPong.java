package mechsym.jmh;

import java.util.List;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Control;

/**
 * Two threads play ping-pong on two volatile counters: the cost of signalling between threads (notebooks 03, 11).
 *
 * <p>The claim ("Inter Thread Latency", 2011-08-09, Martin Thompson): a change signalled through a volatile
 * write costs the exchange of one cache line between cores, under 50 ns, 20-30 million exchanges per second
 * (the post's ns/op is the run's duration over 2 x its round trips); the 2011-11-05 post put a lock and
 * condition variable against it, two orders of magnitude slower.
 *
 * <p>The post's shape, in a JMH group of two threads: {@code s1} and {@code s2} are adjacent volatile longs;
 * {@link #ping} waits until {@code s2} has caught up with {@code s1} and increments {@code s1}; {@link #pong}
 * waits until {@code s1} moves past {@code s2} and increments {@code s2}. One call is one half of a round trip;
 * each method's score is round trips per second, the group's is their sum. Variants, by the sweep's names
 * ({@code mechsym.signalling.VolatilePingPong --wait}): {@code volatile-spin} (busy spin, as the post) and
 * {@code volatile-yield} ({@code Thread.yield()} in the wait). As {@code JMHSample_18_Control}, every wait also
 * checks {@link Control#stopMeasurement}, so that when JMH ends an iteration the partner that is still waiting
 * gets out; a call that got out that way does not move its counter.
 *
 * <p>How to run this and what you should see:
 * <pre>
 *   java -cp 'build/jmh.jar:build/jmh-lib/*:build/lib/*' org.openjdk.jmh.Main 'mechsym.jmh.PingPong' -f 5
 * </pre>
 * With the two threads on different cores, {@code ping} and {@code pong} at 10-30 million round trips per
 * second each, equal (they move in lockstep); on one CPU, far fewer, each round trip waiting for a time slice.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PingPong {
    public static final List<String> VARIANTS = List.of("volatile-spin", "volatile-yield");

    @State(Scope.Group)
    public static class Counters {
        @Param({"volatile-spin", "volatile-yield"})
        public String variant;

        volatile long s1;
        volatile long s2;
        boolean yield;

        @Setup
        public void setUp() {
            if (!VARIANTS.contains(variant)) {
                throw new IllegalArgumentException("variant '" + variant + "': allowed values are "
                                                   + String.join(", ", VARIANTS));
            }
            yield = variant.equals("volatile-yield");
        }
    }

    /** Waits for pong to echo the last ping, then pings: s1 becomes s2 + 1. Returns s1. */
    @Benchmark
    @Group("pingpong")
    @GroupThreads(1)
    public long ping(final Counters c, final Control control) {
        final long value = c.s1;
        while (c.s2 != value) {
            if (control.stopMeasurement) {
                return value;
            }
            if (c.yield) {
                Thread.yield();
            }
        }
        c.s1 = value + 1;
        return value + 1;
    }

    /** Waits for a ping that pong has not echoed, then echoes it: s2 becomes s1. Returns s2. */
    @Benchmark
    @Group("pingpong")
    @GroupThreads(1)
    public long pong(final Counters c, final Control control) {
        final long value = c.s2;
        while (c.s1 == value) {
            if (control.stopMeasurement) {
                return value;
            }
            if (c.yield) {
                Thread.yield();
            }
        }
        c.s2 = value + 1;
        return value + 1;
    }
}
