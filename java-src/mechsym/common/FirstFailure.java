package mechsym.common;

/**
 * The first failure among a kernel's threads. Every thread that fails records
 * what it threw; the first record wins and later ones (usually consequences:
 * a broken barrier, an abort) are dropped. After all threads are joined,
 * {@link #rethrow(String)} throws it on the main thread with its type intact,
 * so a {@link CheckFailed} still exits with 3 and a {@link BadArgument} with 2.
 */
public final class FirstFailure {
    private volatile Throwable first;

    /** Records {@code t} unless a failure is already recorded; true when this was the first. */
    public boolean record(final Throwable t) {
        synchronized (this) {
            if (first != null) {
                return false;
            }
            first = t;
            return true;
        }
    }

    /** True once any thread has recorded a failure. */
    public boolean failed() {
        return first != null;
    }

    /** The first failure, or null. */
    public Throwable get() {
        return first;
    }

    /**
     * Throws the first failure, if any: unchecked ones as they are, a checked
     * one (InterruptedException, BrokenBarrierException) wrapped in an
     * IllegalStateException saying "{@code what} failed".
     */
    public void rethrow(final String what) {
        rethrow(first, what);
    }

    private static void rethrow(final Throwable t, final String what) {
        if (t == null) {
            return;
        }
        if (t instanceof RuntimeException) {
            throw (RuntimeException) t;
        }
        if (t instanceof Error) {
            throw (Error) t;
        }
        throw new IllegalStateException(what + " failed: " + t, t);
    }
}
