package mechsym.common;

/**
 * Starting a kernel's threads and waiting for them, outside any timed region.
 * A thread that fails records its exception in a {@link FirstFailure} (first
 * one wins); after every thread has been joined that failure is rethrown on
 * the calling thread, so a kernel never reports a number from a run in which
 * a thread died, and a failed check keeps its exit code.
 */
public final class Threads {
    private Threads() {
    }

    /** A worker's body. */
    @FunctionalInterface
    public interface Work {
        void run() throws Exception;
    }

    /**
     * A new (not started) thread named {@code name}: it pins itself to
     * {@code cpu} first when {@code cpu >= 0}, then runs {@code work}. Anything
     * it throws is recorded in {@code failure}, then {@code onFailure} runs in
     * that thread, so that it can release the other threads (abort flags,
     * barriers). A pinning failure is recorded as a runtime error (exit code 1),
     * never as a bad argument: the CPU ids were checked when the arguments were
     * read ({@link Args#cpuList}), so a taskset that fails now is the machine's
     * doing, not the caller's.
     */
    public static Thread worker(final String name, final int cpu, final FirstFailure failure, final Work work,
                                final Runnable onFailure) {
        return new Thread(() -> {
            try {
                if (cpu >= 0) {
                    pin(name, cpu);
                }
                work.run();
            } catch (Throwable t) {
                failure.record(t);
                onFailure.run();
            }
        }, name);
    }

    private static void pin(final String name, final int cpu) {
        try {
            Affinity.pinCurrentThread(cpu);
        } catch (RuntimeException e) {
            throw new IllegalStateException(name + ": cannot pin to CPU " + cpu + ": " + Kernels.oneLine(e.getMessage()), e);
        }
    }

    /** Starts the threads, joins them all, then rethrows the first failure (see {@link FirstFailure#rethrow}). */
    public static void startJoinRethrow(final FirstFailure failure, final String what, final Thread... threads)
            throws InterruptedException {
        startJoin(threads);
        failure.rethrow(what);
    }

    private static void startJoin(final Thread... threads) throws InterruptedException {
        for (final Thread t : threads) {
            t.start();
        }
        for (final Thread t : threads) {
            t.join();
        }
    }
}
