package mechsym.common;

/**
 * The shared {@code main} wrapper of every kernel: runs the body, turns a
 * {@link BadArgument} into exit code 2 and a {@link CheckFailed} into exit
 * code 3, each with one line on stderr, so the Python launcher can tell a
 * usage error from a failed self-check.
 */
public final class Kernels {
    private Kernels() {
    }

    @FunctionalInterface
    public interface Body {
        void run(Args args) throws Exception;
    }

    public static void main(final String kernel, final String[] argv, final Body body) {
        try {
            final Args args = new Args(argv);
            body.run(args);
        } catch (BadArgument e) {
            System.err.println(kernel + ": bad argument: " + e.getMessage());
            System.exit(2);
        } catch (CheckFailed e) {
            System.err.println(kernel + ": CHECK FAILED: " + e.getMessage());
            System.exit(3);
        } catch (Throwable t) {
            System.err.println(kernel + ": error: " + t);
            t.printStackTrace(System.err);
            System.exit(1);
        }
        System.exit(0);
    }
}
