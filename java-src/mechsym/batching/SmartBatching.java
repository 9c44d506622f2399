package mechsym.batching;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

import mechsym.common.Args;
import mechsym.common.BadArgument;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.FirstFailure;
import mechsym.common.JitGc;
import mechsym.common.Kernels;
import mechsym.common.Threads;

/**
 * Bursts of messages written to a slow device, one by one under a lock or in batches by one batcher thread.
 *
 * <p>The claim under test ("Smart Batching", 2011-10-19, Martin Thompson): when a burst of messages meets a device
 * that takes 100 µs per write, producers that each take a lock and write their own message queue on the lock
 * (10 messages: best 100, average 500, worst 1,000 µs, 10 packets), while producers that hand their messages to a
 * queue drained by one batcher thread, which writes whatever is there, up to the packet size, in one go, see
 * 100 / 150 / 200 µs in 1-2 packets; and as load grows, batching's latency stays flat until the device saturates
 * (a "bathtub"), serial's rises (a J-curve).
 *
 * <p>The simulation. The device ({@code --device}) takes {@code --device-us} per write whatever the packet holds:
 * {@code spin} busy-waits on {@code nanoTime} (exact, but holds a CPU), {@code park} sleeps with
 * {@code parkNanos} (overshoots by the timer's slack); each write's real duration is reported ({@code device_ns}).
 * {@code --bursts} bursts of {@code --burst} messages, one per producer thread, a burst every
 * {@code --interval-us}; each producer parks until its message's arrival time. Latency runs from that scheduled
 * arrival to the end of the write that carried the message, so a producer still blocked on the lock counts the
 * wait (no coordinated omission); how late producers wake up is reported ({@code wakeup_late_*}).
 * {@code --mode=serial}: each producer takes a {@code ReentrantLock} guarding the device and writes a packet of
 * its one message (the post's "threads write to device API directly"). {@code --mode=batching}: producers
 * {@code offer} to a {@code ConcurrentLinkedQueue}; one batcher thread runs the post's algorithm: wait until the
 * queue has something ({@code --wait}: {@code spin} or {@code yield}), poll until it is empty, filling a
 * {@code ByteBuffer} of {@code --packet-bytes} and sending it when the next message does not fit, then send the
 * rest. Protocols: {@code post}, the post's worked example, one burst per run against an idle device (warm-up
 * runs of one burst may come first, so the burst meets a running system, not a cold JVM); {@code lab}: warm-up
 * runs, then measured runs of {@code --bursts} bursts each.
 *
 * <p>Checks, after each run: the device saw every message exactly once, the packets carried exactly the messages
 * sent, and every message's write ended after it arrived. {@code --inject=drop-one} (tests) makes the device lose
 * the first run's middle message: exit 3, no number, every time.
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -cp build/mechsym.jar mechsym.batching.SmartBatching --mode=serial --burst=10 --bursts=100
 *   java -cp build/mechsym.jar mechsym.batching.SmartBatching --mode=batching --burst=10 --bursts=100
 * </pre>
 * Per run {@code latency_best}, {@code _mean}, {@code _worst}, {@code _p50}, {@code _p99} (ns), {@code packets},
 * {@code packets_per_burst}, {@code device_ns}, {@code wakeup_late_median}/{@code _max}. Serial: a 10-message
 * burst takes ~1 ms, mean ~550 µs; batching: ~2 packets, mean ~200 µs.
 */
public final class SmartBatching {
    public static final List<String> PROTOCOLS = List.of("lab", "post");
    public static final List<String> MODES = List.of("serial", "batching");
    public static final List<String> DEVICES = List.of("spin", "park");
    public static final List<String> WAITS = List.of("yield", "spin");
    public static final List<String> INJECTS = List.of("none", "drop-one");
    private static final String NAME = "SmartBatching";
    /** Time from starting the threads to the first arrival: every producer is parked by then. */
    private static final long LEAD_NS = 10_000_000L;

    private SmartBatching() {
    }

    public static void main(final String[] argv) {
        Kernels.main(NAME, argv, SmartBatching::run);
    }

    /** The arguments of one run. */
    record Config(boolean serial, int burst, int bursts, long intervalNs, long deviceNs, boolean spinDevice,
                  int packetBytes, int messageBytes, boolean spinWait) {
        int messages() {
            return burst * bursts;
        }
    }

    private static void run(final Args args) throws Exception {
        final String protocol = args.choice("protocol", "lab", PROTOCOLS);
        final boolean post = protocol.equals("post");
        final String mode = args.choice("mode", "batching", MODES);
        final int burst = args.intValue("burst", 10, 1, 256);
        final int bursts = args.intValue("bursts", post ? 1 : 100, 1, 1_000_000);
        final long intervalUs = args.longValue("interval-us", 3_000, 1, 10_000_000);
        final long deviceUs = args.longValue("device-us", 100, 1, 1_000_000);
        final String device = args.choice("device", "spin", DEVICES);
        final int packetBytes = args.intValue("packet-bytes", 1500, 8, 1 << 20);
        final int messageBytes = args.intValue("message-bytes", 100, 4, 1 << 20);
        final String wait = args.choice("wait", "yield", WAITS);
        final int runs = args.intValue("runs", post ? 1 : 5, 1, 10_000);
        final int warmupRuns = args.intValue("warmup-runs", post ? 0 : 2, 0, 10_000);
        final String inject = args.choice("inject", "none", INJECTS);
        args.finish();
        if (messageBytes > packetBytes) {
            throw new BadArgument("--message-bytes=" + messageBytes + ": must fit in a packet (--packet-bytes="
                                  + packetBytes + ")");
        }
        if (post && bursts != 1) {
            throw new BadArgument("--bursts=" + bursts + ": the post protocol is the post's worked example, one burst "
                                  + "per run (--bursts=1)");
        }
        final Config c = new Config(mode.equals("serial"), burst, bursts, intervalUs * 1000, deviceUs * 1000,
                                    device.equals("spin"), packetBytes, messageBytes, wait.equals("spin"));
        JitGc.open();
        final Csv csv = new Csv("mode");
        final List<String> extra = List.of(mode);
        for (int r = 0; r < warmupRuns + runs; r++) {
            final Run result = runOnce(c, inject.equals("drop-one") && r == 0);
            result.emit(csv, extra, r, r < warmupRuns);
        }
        csv.flush(System.out);
    }

    /** The device: a synchronous write of one packet that takes {@code deviceNs}; it records every id it reads. */
    static final class Device {
        final Config c;
        final int[] seen;
        final boolean dropOne;
        long packets;
        long carried;
        long busyNs;

        Device(final Config c, final boolean dropOne) {
            this.c = c;
            this.seen = new int[c.messages()];
            this.dropOne = dropOne;
        }

        /** Writes the packet (position 0..limit), returns the time the write ended. Not thread-safe: one writer. */
        long send(final ByteBuffer packet) {
            final long start = System.nanoTime();
            final int n = packet.limit() / c.messageBytes;
            packets++;
            for (int k = 0; k < n; k++) {
                final int id = packet.getInt(k * c.messageBytes);
                if (dropOne && id == c.messages() / 2) {
                    continue;
                }
                seen[id]++;
                carried++;
            }
            final long end = start + c.deviceNs;
            long now;
            if (c.spinDevice) {
                while ((now = System.nanoTime()) < end) {
                    Thread.onSpinWait();
                }
            } else {
                while ((now = System.nanoTime()) < end) {
                    LockSupport.parkNanos(end - now);
                }
            }
            busyNs += now - start;
            return now;
        }
    }

    /** One run's stamps: scheduled arrival, the moment the producer woke, the end of the write that carried it. */
    static final class Run {
        final long[] due;
        final long[] woke;
        final long[] done;
        /** The JIT and GC time from the threads' start to their join (the run has no single clock). */
        final JitGc jitGc = new JitGc();
        Device device;

        Run(final int n) {
            due = new long[n];
            woke = new long[n];
            done = new long[n];
        }

        void emit(final Csv csv, final List<String> extra, final int iteration, final boolean warmup) {
            final int n = due.length;
            final long[] lat = new long[n];
            final long[] late = new long[n];
            double sum = 0;
            for (int i = 0; i < n; i++) {
                lat[i] = done[i] - due[i];
                late[i] = woke[i] - due[i];
                sum += lat[i];
            }
            Arrays.sort(lat);
            Arrays.sort(late);
            csv.row(extra, iteration, warmup, "latency_best", lat[0], "ns");
            csv.row(extra, iteration, warmup, "latency_mean", sum / n, "ns");
            csv.row(extra, iteration, warmup, "latency_worst", lat[n - 1], "ns");
            csv.row(extra, iteration, warmup, "latency_p50", lat[(n - 1) / 2], "ns");
            csv.row(extra, iteration, warmup, "latency_p99", lat[(int) Math.ceil(0.99 * n) - 1], "ns");
            csv.row(extra, iteration, warmup, "messages", n, "count");
            csv.row(extra, iteration, warmup, "packets", device.packets, "count");
            csv.row(extra, iteration, warmup, "packets_per_burst", (double) device.packets / (n / device.c.burst),
                    "count");
            csv.row(extra, iteration, warmup, "device_ns", (double) device.busyNs / device.packets, "ns");
            csv.row(extra, iteration, warmup, "wakeup_late_median", late[(n - 1) / 2], "ns");
            csv.row(extra, iteration, warmup, "wakeup_late_max", late[n - 1], "ns");
            jitGc.rows(csv, extra, iteration, warmup);
        }
    }

    /** One run: producers (and the batcher) on fresh threads; checks after every thread has ended. */
    static Run runOnce(final Config c, final boolean dropOne) throws InterruptedException {
        final int n = c.messages();
        final Run run = new Run(n);
        final Device device = new Device(c, dropOne);
        run.device = device;
        final FirstFailure failure = new FirstFailure();
        final long t0 = System.nanoTime() + LEAD_NS;
        for (int i = 0; i < n; i++) {
            run.due[i] = t0 + (long) (i / c.burst) * c.intervalNs;
        }
        final Queue<Integer> queue = new ConcurrentLinkedQueue<>();
        final ReentrantLock lock = new ReentrantLock();
        final Thread[] threads = new Thread[c.burst + (c.serial ? 0 : 1)];
        for (int p = 0; p < c.burst; p++) {
            final int first = p;
            threads[p] = Threads.worker("producer-" + p, -1, failure, () -> {
                final ByteBuffer own = ByteBuffer.allocate(c.packetBytes);
                for (int i = first; i < n; i += c.burst) {
                    run.woke[i] = parkUntil(run.due[i]);
                    if (c.serial) {
                        own.clear();
                        put(own, i, c.messageBytes);
                        own.flip();
                        lock.lock();
                        try {
                            run.done[i] = device.send(own);
                        } finally {
                            lock.unlock();
                        }
                    } else {
                        queue.offer(i);
                    }
                }
            }, () -> { });
        }
        if (!c.serial) {
            threads[c.burst] = Threads.worker("batcher", -1, failure, () -> batch(c, queue, device, run.done),
                                              () -> { });
            threads[c.burst].setDaemon(true);
        }
        run.jitGc.start();
        Threads.startJoinRethrow(failure, "smart batching thread", threads);
        run.jitGc.stop();
        check(run, device, n);
        return run;
    }

    /** The post's NetworkBatcher loop, until every message of the run has been polled. */
    private static void batch(final Config c, final Queue<Integer> queue, final Device device, final long[] done) {
        final ByteBuffer buffer = ByteBuffer.allocate(c.packetBytes);
        final int[] inBuffer = new int[c.packetBytes / c.messageBytes];
        final int n = c.messages();
        int polled = 0;
        while (polled < n) {
            while (null == queue.peek()) {
                if (c.spinWait) {
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            }
            int count = 0;
            Integer msg;
            while (null != (msg = queue.poll())) {
                polled++;
                if (c.messageBytes > buffer.remaining()) {
                    sendBuffer(buffer, device, inBuffer, count, done);
                    count = 0;
                }
                put(buffer, msg, c.messageBytes);
                inBuffer[count++] = msg;
            }
            sendBuffer(buffer, device, inBuffer, count, done);
        }
    }

    private static void sendBuffer(final ByteBuffer buffer, final Device device, final int[] ids, final int count,
                                   final long[] done) {
        buffer.flip();
        final long end = device.send(buffer);
        buffer.clear();
        for (int k = 0; k < count; k++) {
            done[ids[k]] = end;
        }
    }

    /** A message: its id, then padding up to its size. */
    private static void put(final ByteBuffer buffer, final int id, final int messageBytes) {
        buffer.putInt(id);
        buffer.position(buffer.position() + messageBytes - 4);
    }

    /** Parks until {@code due} (System.nanoTime()); returns when it woke. */
    private static long parkUntil(final long due) {
        long now;
        while ((now = System.nanoTime()) < due) {
            LockSupport.parkNanos(due - now);
        }
        return now;
    }

    private static void check(final Run run, final Device device, final int n) {
        for (int i = 0; i < n; i++) {
            CheckFailed.require(device.seen[i] == 1,
                "message " + i + " reached the device " + device.seen[i] + " times (every message exactly once)");
            CheckFailed.require(run.done[i] >= run.woke[i] && run.woke[i] >= run.due[i],
                "message " + i + ": written before it arrived");
        }
        CheckFailed.require(device.carried == n, "the packets carried " + device.carried + " messages of " + n);
    }
}
