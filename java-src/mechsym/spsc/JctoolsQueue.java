package mechsym.spsc;

import org.jctools.queues.SpscArrayQueue;

/**
 * Not in the post: JCTools 4.0.5 {@code SpscArrayQueue}, the SPSC queue that
 * grew out of this series of posts (Nitsan Wakart wrote JCTools), as today's
 * reference in the same harness. It pads by class hierarchy like I3, pads its
 * buffer, and the producer looks ahead at the buffer's slots instead of
 * reading the consumer's index.
 */
public final class JctoolsQueue implements SpscQueue {
    private final SpscArrayQueue<Object> queue;

    public JctoolsQueue(final int capacity) {
        this.queue = new SpscArrayQueue<>(capacity);
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
