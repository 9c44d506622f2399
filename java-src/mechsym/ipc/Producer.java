package mechsym.ipc;

import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import mechsym.common.FirstFailure;
import mechsym.common.Threads;

/**
 * The producer's side of {@link IpcThroughput}: in a JVM of its own (the file mapped, then each run's slice of the
 * sequence offered) or on a thread of the consumer's JVM. The measured loop ({@code send}) never sees the test-only
 * faults ({@code sendFaulty}); both give up when the consumer aborts or is gone.
 */
final class Producer {
    private Producer() {
    }

    /** The producer JVM: map the file, say so, produce, and end when the consumer's JVM is gone. */
    static void produceInChild(final IpcThroughput.Plan p, final Path file, final int cpu, final long parent) throws Exception {
        final long bytes = OffHeapQueue.bytes(p.capacity, p.layout);
        final OffHeapQueue q;
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            if (ch.size() != bytes) {
                throw new IllegalStateException(file + ": " + ch.size() + " bytes, the queue needs " + bytes);
            }
            final MappedByteBuffer buffer = ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes);
            q = new OffHeapQueue(buffer, p.capacity, p.layout);
        }
        IpcThroughput.checkAlignment(q, p.layout);
        q.putVolatile(q.controlAddr + IpcThroughput.ATTACHED, 1);
        final ProcessHandle consumer = ProcessHandle.of(parent).orElse(null);
        final FirstFailure failure = new FirstFailure();
        final Thread producer = Threads.worker("ipc-producer", cpu, failure,
            () -> produce(q, p, () -> consumer != null && consumer.isAlive()),
            () -> q.putVolatile(q.controlAddr + IpcThroughput.ABORT, 1));
        Threads.startJoinRethrow(failure, "ipc producer", producer);
    }

    /** The producer: wait for each run's release, then send its slice of the sequence. */
    static void produce(final OffHeapQueue q, final IpcThroughput.Plan p, final IpcThroughput.Alive consumer) {
        final long n = p.messages;
        for (int r = 0; r < p.total(); r++) {
            int spins = 0;
            while (q.getVolatile(q.controlAddr + IpcThroughput.GO) < r + 1) {
                if (++spins % IpcThroughput.CHECK_EVERY == 0 && stop(q, consumer)) {
                    return;
                }
                Thread.yield();
            }
            final long base = r * n;
            if (p.fault.equals("none")) {
                send(q, base, n, consumer, p.yield);
            } else {
                sendFaulty(q, base, n, consumer, p.fault, r);
            }
        }
    }

    private static void send(final OffHeapQueue q, final long base, final long n, final IpcThroughput.Alive consumer,
                             final boolean yield) {
        for (long i = 0; i < n; i++) {
            final int v = (int) (base + i);
            int spins = 0;
            while (!q.offer(v)) {
                if (++spins % IpcThroughput.CHECK_EVERY == 0 && stop(q, consumer)) {
                    return;
                }
                if (yield) {
                    Thread.yield();
                }
            }
        }
    }

    /** The test-only faults, kept out of {@link #send} so the measured loop never sees them. */
    private static void sendFaulty(final OffHeapQueue q, final long base, final long n, final IpcThroughput.Alive consumer,
                                   final String fault, final int run) {
        for (long i = 0; i < n; i++) {
            if (fault.equals("producer-exit") && run == 0 && i == n / 2) {
                System.err.println("IpcThroughput: injected fault: the producer stops after " + i + " of " + n
                                   + " messages");
                Runtime.getRuntime().halt(7);
            }
            final int v = (int) (base + i + (fault.equals("lose-one") && i >= n / 2 ? 1 : 0));
            while (!q.offer(v)) {
                if (stop(q, consumer)) {
                    return;
                }
                Thread.yield();
            }
        }
    }

    /** True when the producer should give up: the consumer aborted or is gone. */
    private static boolean stop(final OffHeapQueue q, final IpcThroughput.Alive consumer) {
        if (q.getVolatile(q.controlAddr + IpcThroughput.ABORT) != 0) {
            return true;
        }
        if (!consumer.alive()) {
            System.err.println("IpcThroughput: the consumer is gone; the producer stops");
            return true;
        }
        return false;
    }
}
