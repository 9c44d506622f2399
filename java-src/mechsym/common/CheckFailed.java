package mechsym.common;

/**
 * A kernel's own correctness check did not hold (a counter, a checksum, the
 * order of messages). No number may be reported after this: {@link Kernels#main}
 * prints one line on stderr and exits with code 3.
 */
public final class CheckFailed extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CheckFailed(final String message) {
        super(message);
    }

    /** Throws unless {@code condition} holds. */
    public static void require(final boolean condition, final String what) {
        if (!condition) {
            throw new CheckFailed(what);
        }
    }
}
