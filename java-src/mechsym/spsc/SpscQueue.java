package mechsym.spsc;

import java.util.List;

import mechsym.common.BadArgument;

/**
 * A bounded queue for exactly one producer thread and one consumer thread.
 * {@code offer} returns false when the queue is full, {@code poll} returns null
 * when it is empty; neither blocks. The variants, by name (see
 * {@link SpscThroughput} for the post and what each one tests):
 * <ul>
 *   <li>{@code O1}: the original queue ({@link OriginalQueue}).</li>
 *   <li>{@code O2}: O1 with a padded data buffer ({@link OriginalPaddedDataQueue}).</li>
 *   <li>{@code I1}: counters inlined into the queue object ({@link InlinedQueues.I1}).</li>
 *   <li>{@code I2}: I1 with a padded data buffer ({@link InlinedQueues.I2}).</li>
 *   <li>{@code I3}: I1 with padding before the cold fields ({@link PaddedClassQueues.I3}).</li>
 *   <li>{@code I4}: I3 with a padded data buffer ({@link PaddedClassQueues.I4}).</li>
 *   <li>{@code jctools}: JCTools 4.0.5 {@code SpscArrayQueue}, today's reference ({@link JctoolsQueue}).</li>
 * </ul>
 */
public interface SpscQueue {
    List<String> NAMES = List.of("O1", "O2", "I1", "I2", "I3", "I4", "jctools");

    /** Adds e (not null); false when full. Producer thread only. */
    boolean offer(Object e);

    /** Removes the oldest element; null when empty. Consumer thread only. */
    Object poll();

    /** A new empty queue of the named variant; capacity must be a power of two. */
    static SpscQueue create(final String name, final int capacity) {
        if (capacity < 2 || Integer.bitCount(capacity) != 1) {
            throw new BadArgument("--capacity=" + capacity + ": must be a power of two >= 2");
        }
        switch (name) {
            case "O1": return new OriginalQueue(capacity);
            case "O2": return new OriginalPaddedDataQueue(capacity);
            case "I1": return new InlinedQueues.I1(capacity);
            case "I2": return new InlinedQueues.I2(capacity);
            case "I3": return new PaddedClassQueues.I3(capacity);
            case "I4": return new PaddedClassQueues.I4(capacity);
            case "jctools": return new JctoolsQueue(capacity);
            default:
                throw new BadArgument("--queue=" + name + ": allowed values are " + String.join(", ", NAMES));
        }
    }
}
