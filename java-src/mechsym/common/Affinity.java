package mechsym.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Per-thread CPU placement. A Java thread finds its Linux thread id through
 * the link {@code /proc/thread-self} (which points at {@code <pid>/task/<tid>})
 * and runs {@code taskset -p -c CPU TID} on itself. Nothing here runs inside a
 * timed region: kernels pin before their clocks start.
 *
 * <p>Two kinds of failure, two exit codes: a {@code --pin} list of the wrong
 * length or naming an offline CPU is the caller's mistake ({@link BadArgument},
 * exit 2; {@link Args#cpuList} checks that the CPUs are online); a taskset
 * that fails or is missing at run time is the machine's doing
 * ({@link IllegalStateException}, exit 1), never a bad argument.
 */
public final class Affinity {
    private Affinity() {
    }

    /**
     * Checks a {@code --pin} list read with {@link Args#cpuList}: empty (no
     * pinning) or exactly one CPU per thread; {@code roles} names the threads in
     * order, e.g. "first thread, second thread".
     */
    public static void checkPin(final String name, final int[] pin, final int threads, final String roles) {
        if (pin.length != 0 && pin.length != threads) {
            throw new BadArgument("--" + name + "=" + Args.join(pin) + ": give " + count(threads) + " CPU ids ("
                                  + roles + "), e.g. --" + name + "=" + example(threads));
        }
        final String online = Args.onlineCpus();
        for (final int cpu : pin) {
            if (cpu < 0 || !(online.isEmpty() || Args.listContains(online, cpu))) {
                throw new BadArgument("--" + name + "=" + Args.join(pin) + ": CPU " + cpu
                                      + " is not online (online CPUs: " + (online.isEmpty() ? "unknown" : online) + ")");
            }
        }
    }

    private static String count(final int n) {
        final String[] words = {"no", "one", "two", "three", "four"};
        return n < words.length ? words[n] : Integer.toString(n);
    }

    private static String example(final int threads) {
        final int[] ids = new int[threads];
        for (int i = 0; i < threads; i++) {
            ids[i] = i;
        }
        return Args.join(ids);
    }

    /** The CPU of thread {@code index} in a checked {@code --pin} list, or -1 when nothing is pinned. */
    public static int cpuOf(final int[] pin, final int index) {
        return pin.length == 0 ? -1 : pin[index];
    }

    /** The CSV {@code pinning} cell: "thread" when every thread was pinned to its own CPU list entry, else "none". */
    public static String pinning(final int[] pin) {
        return pin.length == 0 ? "none" : "thread";
    }

    /** The Linux thread id of the calling thread. */
    public static long currentTid() {
        try {
            final Path target = Files.readSymbolicLink(Path.of("/proc/thread-self"));
            return Long.parseLong(target.getFileName().toString());
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("cannot read /proc/thread-self: " + e.getMessage(), e);
        }
    }

    /**
     * Pins the calling thread to {@code cpu}; throws {@link IllegalStateException}
     * (one line: what failed and taskset's own words) when taskset is missing or
     * fails, so a kernel never reports a placement it did not get.
     */
    public static void pinCurrentThread(final int cpu) {
        final long tid = currentTid();
        try {
            final Process p = new ProcessBuilder("taskset", "-p", "-c", Integer.toString(cpu), Long.toString(tid))
                .redirectErrorStream(true).start();
            final String output = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException("taskset could not pin thread " + tid + " to CPU " + cpu + ": "
                                                + Kernels.oneLine(output.trim()));
            }
        } catch (IOException e) {
            throw new IllegalStateException("taskset is not available (" + e.getMessage() + "); run without --pin", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while pinning thread " + tid + " to CPU " + cpu, e);
        }
    }
}
