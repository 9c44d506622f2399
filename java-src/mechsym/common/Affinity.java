package mechsym.common;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * Pins the calling Java thread to one CPU. A Java thread finds its Linux
 * thread id through the link {@code /proc/thread-self} (which points at
 * {@code <pid>/task/<tid>}) and runs {@code taskset -p -c CPU TID} on itself.
 * Nothing here runs inside a timed region: kernels pin before the barrier.
 */
public final class Affinity {
    private Affinity() {
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
     * Pins the calling thread to {@code cpu}. Returns a description of what was
     * done ("thread" on success); throws when taskset failed, so a kernel never
     * reports a placement it did not get.
     */
    public static void pinCurrentThread(final int cpu) {
        final long tid = currentTid();
        try {
            final Process p = new ProcessBuilder("taskset", "-p", "-c", Integer.toString(cpu), Long.toString(tid))
                .redirectErrorStream(true).start();
            final String output = new String(p.getInputStream().readAllBytes());
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new BadArgument("--pin: taskset could not pin thread " + tid + " to CPU " + cpu + ": " + output.trim().replace('\n', ' '));
            }
        } catch (IOException e) {
            throw new BadArgument("--pin: taskset is not available (" + e.getMessage() + "); run without --pin");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
