package mechsym.jmh;

import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.TimeUnit;

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

import mechsym.spsc.SpscQueue;

/**
 * One producer, one consumer, one bounded queue between them: messages per second (notebook 05).
 *
 * <p>The claims ("Single Producer Single Consumer Queue", Martin Thompson 2010, and "SPSC Queue Revisited:
 * Variance", Nitsan Wakart 2013): a lock-free single-producer single-consumer array queue moves tens of millions
 * of messages per second between two threads, and how its counters are laid out (original holders O1, counters
 * inlined I1, padded class I3, padded data I2/I4) decides how much that rate varies from JVM to JVM. The posts
 * timed N offers against N polls with a hand-written loop per thread; the lab's kernel is
 * {@code mechsym.spsc.SpscThroughput}.
 *
 * <p>A JMH group of two threads, {@link #offer} and {@link #poll}, on a group-scoped queue, as JCTools' own
 * throughput benchmarks ({@code QueueThroughputBackoffNone}) pair them. One call is one message: a full queue
 * (producer) or an empty one (consumer) is retried until it is not, or until JMH ends the iteration
 * ({@link Control#stopMeasurement}, as {@code JMHSample_18_Control}), so the consumer's score counts messages
 * moved (JCTools' benchmark instead counts attempts and keeps the successes in {@code @AuxCounters}). Queues
 * ({@code queue}), the kernel's own classes by the kernel's names ({@link SpscQueue#create}): {@code O1},
 * {@code O2}, {@code I1}-{@code I4}, {@code jctools} (JCTools 4.0.5 {@code SpscArrayQueue} behind the kernel's
 * interface); and {@code abq} ({@code ArrayBlockingQueue}, offer and poll: a lock and two conditions). A new
 * queue for each iteration, so an iteration never starts with what the last one left; capacity 32768, the spsc
 * sweep's. Deliberate difference from the lab's harness: one constant element, as the posts and JCTools send
 * (the lab's kernel sends a cycle of distinct objects and checks each).
 *
 * <p>How to run this and what you should see:
 * <pre>
 *   taskset -c 0,1 java -cp 'build/jmh.jar:build/jmh-lib/*:build/lib/*:build/mechsym.jar' \
 *       org.openjdk.jmh.Main 'mechsym.jmh.SpscQueues' -f 5 -p queue=O1,I3,jctools
 * </pre>
 * {@code offer} and {@code poll} at about the same rate (the queue is full or empty most of the time); the
 * padded queues (I3, I4, jctools) at tens of millions a second with less spread over forks than O1 and I1;
 * {@code abq} several times slower.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class SpscQueues {
    public static final List<String> QUEUES = List.of("O1", "O2", "I1", "I2", "I3", "I4", "jctools", "abq");
    public static final int CAPACITY = 32768;
    private static final Integer MESSAGE = 777;

    @State(Scope.Group)
    public static class Channel {
        @Param({"O1", "O2", "I1", "I2", "I3", "I4", "jctools", "abq"})
        public String queue;

        SpscQueue q;

        @Setup(Level.Iteration)
        public void setUp() {
            if (!QUEUES.contains(queue)) {
                throw new IllegalArgumentException("queue '" + queue + "': allowed values are "
                                                   + String.join(", ", QUEUES));
            }
            q = queue.equals("abq") ? new Blocking(CAPACITY) : SpscQueue.create(queue, CAPACITY);
        }
    }

    /** ArrayBlockingQueue behind the kernel's interface: offer and poll, neither blocks. */
    static final class Blocking implements SpscQueue {
        private final ArrayBlockingQueue<Object> q;

        Blocking(final int capacity) {
            q = new ArrayBlockingQueue<>(capacity);
        }

        @Override
        public boolean offer(final Object e) {
            return q.offer(e);
        }

        @Override
        public Object poll() {
            return q.poll();
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
    public Object poll(final Channel c, final Control control) {
        Object m;
        while ((m = c.q.poll()) == null) {
            if (control.stopMeasurement) {
                return null;
            }
        }
        return m;
    }
}
