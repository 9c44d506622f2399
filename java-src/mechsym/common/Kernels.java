package mechsym.common;

/**
 * The shared {@code main} wrapper of every kernel: runs the body, turns a
 * {@link BadArgument} into exit code 2 and a {@link CheckFailed} into exit
 * code 3, each with exactly one line on stderr (a message that spans lines,
 * such as a tool's reply, is joined with "; "), so the Python launcher can tell
 * a usage error from a failed self-check. Anything else is an error of the run
 * (exit code 1, with its stack trace).
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
            System.err.println(kernel + ": bad argument: " + oneLine(e.getMessage()));
            System.exit(2);
        } catch (CheckFailed e) {
            System.err.println(kernel + ": CHECK FAILED: " + oneLine(e.getMessage()));
            System.exit(3);
        } catch (Throwable t) {
            System.err.println(kernel + ": error: " + t);
            t.printStackTrace(System.err);
            System.exit(1);
        }
        System.exit(0);
    }

    /** {@code message} on one line: surrounding blanks dropped, inner line breaks replaced by "; ". */
    public static String oneLine(final String message) {
        return message == null ? "" : message.strip().replaceAll("\\s*\\R\\s*", "; ");
    }
}
