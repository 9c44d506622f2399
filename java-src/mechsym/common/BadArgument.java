package mechsym.common;

/**
 * A command-line argument that is missing, malformed or out of range.
 * {@link Kernels#main} turns it into a one-line message on stderr and exit code 2.
 */
public final class BadArgument extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public BadArgument(final String message) {
        super(message);
    }
}
