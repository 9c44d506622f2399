package mechsym.common;

/**
 * Starting a kernel's threads and waiting for them, outside any timed region.
 * A thread that fails stores its exception in {@code failure[0]} (first one
 * wins); after every thread has been joined that failure is rethrown here, so
 * a kernel never reports a number from a run in which a thread died.
 */
public final class Threads {
    private Threads() {
    }

    /** Starts the threads, joins them all, then rethrows failure[0] ("<what> failed" when it is checked). */
    public static void startJoinRethrow(final Throwable[] failure, final String what, final Thread... threads)
            throws InterruptedException {
        for (final Thread t : threads) {
            t.start();
        }
        for (final Thread t : threads) {
            t.join();
        }
        if (failure[0] instanceof RuntimeException) {
            throw (RuntimeException) failure[0];
        } else if (failure[0] != null) {
            throw new IllegalStateException(what + " failed", failure[0]);
        }
    }
}
