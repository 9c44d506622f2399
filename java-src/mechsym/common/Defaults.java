package mechsym.common;

import java.util.Map;

/**
 * A kernel's defaults as {@code name=value} items, for the Python bench (read
 * through JPype): the kernel's body runs on no arguments with its
 * {@link Args} recording each getter's fallback ("" for none) until
 * {@link Args#finish()}, which ends the body there, before any work. So a
 * kernel states each default once, in its getter, and the list is that of an
 * empty command line.
 *
 * <p>A class of its own, loaded only when the defaults are asked for: a kernel
 * run never loads it, so it allocates nothing before the timed objects are
 * built (a class's mirror lives on the heap).
 */
public final class Defaults {
    private Defaults() {
    }

    /** The defaults of the kernel whose body is {@code body}, in the order its getters ask for them. */
    public static String[] of(final Kernels.Body body) {
        final Args args = new Args(new String[0]);
        final Map<String, String> fallbacks = args.recordFallbacks();
        try {
            body.run(args);
        } catch (Reached r) {
            return fallbacks.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toArray(String[]::new);
        } catch (Exception e) {
            throw new IllegalStateException("defaults: the kernel's body failed before Args.finish(): " + e, e);
        }
        throw new IllegalStateException("defaults: the kernel's body returned without calling Args.finish()");
    }

    /** What {@link Args#finish()} throws when only the defaults were asked for (typed so Args needs no new class). */
    static RuntimeException reached() {
        return new Reached();
    }

    private static final class Reached extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Reached() {
            super(null, null, false, false);
        }
    }
}
