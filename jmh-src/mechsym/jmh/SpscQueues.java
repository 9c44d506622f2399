package mechsym.jmh;

import java.util.List;
import java.util.Queue;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

import org.jctools.queues.SpscArrayQueue;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.GroupThreads;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.infra.Control;

/**
 * One producer, one consumer, one bounded queue between them: messages per second (notebooks 05 and 17).
 *
 * <p>The claims ("Single Producer Single Consumer Queue", Martin Thompson's and Nitsan Wakart's posts, and
 * "Disruptor 2.0 Released", 2011-08-27): a lock-free single-producer single-consumer array queue moves tens
 * of millions of messages per second between two threads, several times what {@code ArrayBlockingQueue} (a
 * lock and two conditions) does. The posts timed N offers against N polls with a hand-written loop per thread.
 *
 * <p>A JMH group of two threads, {@link #offer} and {@link #poll}, on a group-scoped queue, as JCTools' own
 * throughput benchmarks do: one call is one message; a full queue (producer) or an empty one (consumer) is
 * retried until it is not, or until JMH ends the iteration ({@link Control#stopMeasurement}, as
 * {@code JMHSample_18_Control}), so the two scores count messages moved. Queues ({@code queue}), by the sweeps'
 * names: {@code jctools} (JCTools' {@code SpscArrayQueue}, the spsc sweep's) and {@code abq}
 * ({@code ArrayBlockingQueue}, offer and poll: the disruptor sweep's). The queue is made anew for each
 * iteration, so an iteration never starts with what the last one left. Capacity 32768, the spsc sweep's. The
 * post's own queues (O1, I1-I4) live in the kernels' jar and are not measured here yet.
 *
 * <p>How to run this and what you should see:
 * <pre>
 *   java -cp 'build/jmh.jar:build/jmh-lib/*:build/lib/*' org.openjdk.jmh.Main 'mechsym.jmh.SpscQueues' -f 5
 * </pre>
 * {@code offer} and {@code poll} at about the same rate (the queue is full or empty most of the time);
 * {@code jctools} several times {@code abq}.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SpscQueues {
    public static final List<String> QUEUES = List.of("jctools", "abq");
    public static final int CAPACITY = 32768;
    private static final Integer MESSAGE = 777;

    @State(Scope.Group)
    public static class Channel {
        @Param({"jctools", "abq"})
        public String queue;

        Queue<Integer> q;

        @Setup(Level.Iteration)
        public void setUp() {
            switch (queue) {
                case "jctools": q = new SpscArrayQueue<>(CAPACITY); break;
                case "abq": q = new ArrayBlockingQueue<>(CAPACITY); break;
                default: throw new IllegalArgumentException("queue '" + queue + "': allowed values are "
                                                            + String.join(", ", QUEUES));
            }
        }
    }

    /** Offers one message, retrying while the queue is full; returns whether it went in. */
    @Benchmark
    @Group("spsc")
    @GroupThreads(1)
    public boolean offer(final Channel c, final Control control) {
        while (!c.q.offer(MESSAGE)) {
            if (control.stopMeasurement) {
                return false;
            }
        }
        return true;
    }

    /** Polls one message, retrying while the queue is empty; returns it (null when JMH ended the wait). */
    @Benchmark
    @Group("spsc")
    @GroupThreads(1)
    public Integer poll(final Channel c, final Control control) {
        Integer m;
        while ((m = c.q.poll()) == null) {
            if (control.stopMeasurement) {
                return null;
            }
        }
        return m;
    }
}
