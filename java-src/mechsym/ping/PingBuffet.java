package mechsym.ping;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;

import mechsym.common.Affinity;
import mechsym.common.Args;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.JitGc;
import mechsym.common.Kernels;

/**
 * The Java ping buffet: the round-trip time of a no-op request between a client
 * and a server in two JVMs on one machine, per transport.
 *
 * <p>The claims under test ("A Java Ping Buffet", 2013-07-01, Nitsan Wakart): busy-spinning beats
 * {@code selectNow}, which beats blocking reads and {@code select}; UDP beats TCP; IPC through a memory-mapped
 * file is far faster than any socket (89 / 127 ns min / median against TCP busy-spin's 6,244 / 6,784 ns);
 * timing an empty loop ({@code ErrPingClient}) shows the timer's own error, 50 ns at the median.
 *
 * <p>Written anew from the post and its public tool (github.com/nitsanw/java-ping): the client (this process,
 * {@code --role=client}) starts the server as a second JVM ({@code --role=server}, same java, class path and
 * VM options), which binds an ephemeral loopback port (or maps the IPC file) and prints {@code ready port=N};
 * the client then times {@code --pings} round trips of a 32-byte message per run with
 * {@code System.nanoTime()} around each. Each ping carries its sequence number; an echo that differs fails the
 * run after its timed region (exit 3, no numbers). The post's knobs: {@code --yield=true} yields on every
 * empty spin, {@code --wait-nanos=N} waits N ns between pings, outside the timed ping. Modes ({@code --mode}):
 * see {@link Links}; {@code timer} starts no server.
 *
 * <p>Protocols ({@code --protocol}): {@code post} keeps every round trip in a {@code long[]} and reads the
 * percentiles off the sorted array at {@code (int)(N * p)}, as the post chose raw data over a histogram, and lays
 * out the IPC file as java-ping did; {@code lab} (default) records each run in an HdrHistogram (3 significant
 * digits) after its timed loop and puts each IPC message beside its own counter ({@link Links}). Both add the
 * mean the post left out, and run {@code --warmup-runs} then {@code --runs}.
 *
 * <p>Differences from java-ping at the post's date (99d6df0). IPC under {@code post}: its offsets, copies, ordered
 * stores and CAS spins, through VarHandle views and a buffer copy where it used Unsafe; the sequence number
 * overwrites the message's first 8 bytes and the server returns it as its counter (the check); the client's empty
 * spins also count toward a peer-alive test every 2^20 spins (the server's spin is bare, as java-ping's); one
 * sequence across runs, not a count from 0 a row; a 4 KB temporary file, not 272 bytes of ./ping.ipc. Its
 * {@code -DwaitNanos} parks; {@code --wait-nanos} here busy-waits. Its rows: 100,000 socket or 1,000,000 IPC pings.
 *
 * <p>No server outlives the client: it is closed, told to stop, and killed after 5 s (a shutdown hook does the
 * same on SIGTERM); the server halts when its stdin closes; the IPC file ({@code --dir}) is deleted by both.
 * {@code --pin=C,S} pins the client's ping thread and the server's echo thread ({@link Affinity}).
 * {@code --inject=bad-echo} (tests): the server (or the timer's empty ping) returns one wrong sequence number:
 * every run fails its check, exit 3.
 *
 * <p>How to run: {@code java -cp build/mechsym.jar:build/lib/* mechsym.ping.PingBuffet --mode=tcp-spin --pin=0,1
 * --pings=100000}. What you should see: IPC a few hundred ns, sockets several µs, select slowest, timer tens of ns.
 */
public final class PingBuffet {
    static final List<String> PROTOCOLS = List.of("lab", "post");
    static final List<String> INJECT = List.of("none", "bad-echo");

    /** The transports ({@code --mode}), for the Python bench (read through JPype). */
    public static String[] modes() {
        return Links.MODES.toArray(new String[0]);
    }
    static final double[] PERCENTILES = {0.5, 0.9, 0.99, 0.999, 0.9999};
    static final String[] NAMES = {"p50", "p90", "p99", "p99.9", "p99.99"};

    private PingBuffet() {
    }

    public static void main(final String[] argv) {
        Kernels.main("PingBuffet", argv, PingBuffet::run);
    }

    static void run(final Args args) throws Exception {
        if (args.choice("role", "client", List.of("client", "server")).equals("server")) {
            server(args);
            return;
        }
        final String mode = args.choice("mode", "tcp-spin", Links.MODES);
        final String protocol = args.choice("protocol", "lab", PROTOCOLS);
        final int pings = args.intValue("pings", 100_000, 1, 100_000_000);
        final int runs = args.intValue("runs", 8, 1, 10_000);
        final int warmupRuns = args.intValue("warmup-runs", 0, 0, 10_000);
        final boolean yield = args.choice("yield", "false", List.of("false", "true")).equals("true");
        final long waitNanos = args.longValue("wait-nanos", 0, 0, 1_000_000_000L);
        final int[] pin = args.cpuPair("pin", "client, server");
        final boolean inject = args.choice("inject", "none", INJECT).equals("bad-echo");
        final String dirArg = args.string("dir", "");
        args.finish();

        final Path dir = Path.of(dirArg.isEmpty() ? System.getenv().getOrDefault("MECHSYM_SCRATCH",
                System.getProperty("java.io.tmpdir")) : dirArg);
        final boolean post = protocol.equals("post");
        final Peer peer = mode.equals("timer") ? null : Peer.start(mode, dir, pin, yield, inject, post);
        final Csv csv = new Csv("mode", "pinning");
        final List<String> cols = List.of(mode, Affinity.pinning(pin));
        try {
            if (pin.length > 0) {
                Affinity.pinCurrentThread(pin[0]);
            }
            final Links.Spin spin = new Links.Spin(yield, () -> peer == null || peer.alive());
            try (Links.Link link = Links.client(mode, peer == null ? 0 : peer.port, peer == null ? null : peer.file,
                                                spin, inject, post)) {
                final long[] rtt = new long[pings];
                // the JIT and GC time of a run's pings, in one JVM only (a server JVM compiles on its own)
                final JitGc jitGc = peer == null ? new JitGc() : null;
                if (jitGc != null) {
                    JitGc.open();
                }
                long seq = 0;
                for (int r = 0; r < warmupRuns + runs; r++) {
                    int bad = 0;
                    if (jitGc != null) {
                        jitGc.start();
                    }
                    for (int i = 0; i < pings; i++) {
                        final long expect = ++seq;
                        final long t0 = System.nanoTime();
                        final long echo = link.ping(expect);
                        final long t1 = System.nanoTime();
                        rtt[i] = t1 - t0;
                        bad += echo == expect ? 0 : 1;
                        if (waitNanos > 0) {
                            final long until = t1 + waitNanos;
                            while (System.nanoTime() < until) {
                                spin.idle();
                            }
                        }
                    }
                    if (jitGc != null) {
                        jitGc.stop();
                    }
                    CheckFailed.require(bad == 0, "run " + r + ": " + bad + " of " + pings
                                                  + " pings came back with another sequence number");
                    report(csv, cols, r, r < warmupRuns, rtt, protocol);
                    if (jitGc != null) {
                        jitGc.rows(csv, cols, r, r < warmupRuns);
                    }
                }
            }
        } finally {
            if (peer != null) {
                peer.close();
            }
        }
        csv.flush(System.out);
    }

    /** One run's rows: min, the post's percentiles, max (and, lab, the mean), all in ns, and the ping count. */
    static void report(final Csv csv, final List<String> cols, final int run, final boolean warmup, final long[] rtt,
                       final String protocol) {
        final int n = rtt.length;
        final double[] at = new double[PERCENTILES.length];
        final double min;
        final double max;
        if (protocol.equals("post")) {
            final long[] sorted = rtt.clone();
            Arrays.sort(sorted);
            for (int k = 0; k < at.length; k++) {
                at[k] = sorted[(int) (n * PERCENTILES[k])];
            }
            min = sorted[0];
            max = sorted[n - 1];
            csv.row(cols, run, warmup, "rtt_mean", (double) Arrays.stream(rtt).sum() / n, "ns");
        } else {
            final Histogram h = new Histogram(3);
            for (final long v : rtt) {
                h.recordValue(Math.max(v, 0));
            }
            for (int k = 0; k < at.length; k++) {
                at[k] = h.getValueAtPercentile(PERCENTILES[k] * 100);
            }
            min = h.getMinValue();
            max = h.getMaxValue();
            csv.row(cols, run, warmup, "rtt_mean", h.getMean(), "ns");
        }
        csv.row(cols, run, warmup, "rtt_min", min, "ns");
        for (int k = 0; k < at.length; k++) {
            csv.row(cols, run, warmup, "rtt_" + NAMES[k], at[k], "ns");
        }
        csv.row(cols, run, warmup, "rtt_max", max, "ns");
        csv.row(cols, run, warmup, "pings", n, "pings");
    }

    // ---------------------------------------------------------------- the server JVM

    private static void server(final Args args) throws Exception {
        final String mode = args.choice("mode", "tcp-spin", Links.MODES);
        final int cpu = args.intValue("cpu", -1, -1, 4095);
        final boolean yield = args.choice("yield", "false", List.of("false", "true")).equals("true");
        final boolean inject = args.choice("inject", "none", INJECT).equals("bad-echo");
        final boolean post = args.choice("protocol", "lab", PROTOCOLS).equals("post");
        final String file = args.string("file", "");
        args.finish();
        final Path path = file.isEmpty() ? null : Path.of(file);
        watchStdin(path);
        if (cpu >= 0) {
            Affinity.pinCurrentThread(cpu);
        }
        try (Links.Server s = Links.server(mode, path, new Links.Spin(yield, () -> true), inject, post)) {
            System.out.println("ready port=" + s.port());
            System.out.flush();
            s.serve();
        }
    }

    /** The server's lifeline: when the client's end of stdin closes (the client ended, however), halt. */
    private static void watchStdin(final Path file) {
        final Thread t = new Thread(() -> {
            try {
                while (System.in.read() >= 0) {
                    continue;
                }
            } catch (IOException e) {
                // the pipe broke: the client is gone as well
            }
            if (file != null) {
                try {
                    Files.deleteIfExists(file);
                } catch (IOException e) {
                    // the client deletes it too
                }
            }
            Runtime.getRuntime().halt(0);
        }, "stdin-watch");
        t.setDaemon(true);
        t.start();
    }

    /** The server JVM as the client sees it: started, told its port or file, ended on every path. */
    static final class Peer implements AutoCloseable {
        final Process process;
        final int port;
        final Path file;
        private final Thread hook;

        private Peer(final Process process, final int port, final Path file, final Thread hook) {
            this.process = process;
            this.port = port;
            this.file = file;
            this.hook = hook;
        }

        static Peer start(final String mode, final Path dir, final int[] pin, final boolean yield,
                          final boolean inject, final boolean post) throws IOException {
            Path file = null;
            if (mode.equals("ipc-spin")) {
                Files.createDirectories(dir);
                file = Files.createTempFile(dir, "ping-ipc-", ".map");
                try (var ch = java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
                    ch.write(java.nio.ByteBuffer.allocate(Links.IPC_BYTES));
                }
            }
            final List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), PingBuffet.class.getName(),
                               "--role=server", "--mode=" + mode, "--cpu=" + (pin.length > 0 ? pin[1] : -1),
                               "--yield=" + yield, "--inject=" + (inject ? "bad-echo" : "none"),
                               "--protocol=" + (post ? "post" : "lab")));
            if (file != null) {
                cmd.add("--file=" + file);
            }
            final Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
            final Path f = file;
            final Thread hook = new Thread(() -> end(p, f), "ping-server-reaper");
            Runtime.getRuntime().addShutdownHook(hook);
            final String line = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))
                .readLine();
            if (line == null || !line.startsWith("ready port=")) {
                end(p, f);
                throw new IOException("the ping server did not start (it said: " + line + ")");
            }
            return new Peer(p, Integer.parseInt(line.substring("ready port=".length())), file, hook);
        }

        boolean alive() {
            return process.isAlive();
        }

        @Override
        public void close() {
            end(process, file);
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // already shutting down: the hook runs anyway
            }
        }

        private static void end(final Process p, final Path file) {
            try {
                p.getOutputStream().close();
                if (!p.waitFor(5, TimeUnit.SECONDS)) {
                    p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
                }
            } catch (IOException | InterruptedException e) {
                p.destroyForcibly();
            } finally {
                try {
                    if (file != null) {
                        Files.deleteIfExists(file);
                    }
                } catch (IOException e) {
                    System.err.println("PingBuffet: could not delete " + file + ": " + e.getMessage());
                }
            }
        }
    }
}
