package mechsym.spsc;

import org.jctools.queues.SpscArrayQueue;

import mechsym.common.BadArgument;

/**
 * Not in the post: JCTools 4.0.5 {@code SpscArrayQueue}, the SPSC queue that
 * grew out of this series of posts (Nitsan Wakart wrote JCTools), as today's
 * reference in the same harness. It pads by class hierarchy like I3, pads its
 * buffer, and the producer looks ahead at the buffer's slots instead of
 * reading the consumer's index. SpscArrayQueue holds at least 4 elements
 * whatever it is asked for, so a smaller {@code --capacity} is refused rather
 * than silently measured as 4.
 */
public final class JctoolsQueue implements SpscQueue {
    private final SpscArrayQueue<Object> queue;

    public JctoolsQueue(final int capacity) {
        this.queue = new SpscArrayQueue<>(capacity);
        if (queue.capacity() != capacity) {
            throw new BadArgument("--capacity=" + capacity + ": jctools' SpscArrayQueue would hold " + queue.capacity()
                                  + ", not " + capacity + "; give at least " + queue.capacity());
        }
    }

    @Override
    public boolean offer(final Object e) {
        return queue.offer(e);
    }

    @Override
    public Object poll() {
        return queue.poll();
    }

    /** The wrapped queue, for the layout printer. */
    Object delegate() {
        return queue;
    }
}
