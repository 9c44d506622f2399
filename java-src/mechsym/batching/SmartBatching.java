package mechsym.batching;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.Queue;
import java.util.SplittableRandom;
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
 * <p>The claim ("Smart Batching", 2011-10-19, Martin Thompson): a burst of 10 messages to a device taking 100 µs a
 * write waits 100..1,000 µs when writers queue on a lock, 100..200 µs in 1-2 packets when one batcher thread drains a
 * queue into packets; under load batching stays flat (a bathtub) where serial rises (a J-curve).
 *
 * <p>The pitfall: the harness's own scheduling floor. Ten producer threads parked until their send time, a batcher
 * and a spinning device on 2 vCPUs wake 0.1-0.6 ms late, more than the 100 µs device: the latency then measures the
 * scheduler, not the post's mechanism. So the producers here are simulated: ONE producer thread holds the whole
 * schedule (message i of burst b is due at the burst's time) and busy-waits on {@code System.nanoTime()} to each due
 * time, then sends; every message carries its due time and its latency runs from it to the end of the write that
 * carried it, so a send the producer could only issue late counts its wait (no coordinated omission). One busy
 * producer plus the device (spinning inside the writer: the producer in serial mode, the batcher in batching mode)
 * fit 2 CPUs; ten spinning producers would not. {@code wakeup_late_*} is each send's lateness against the moment the
 * producer could have made it ({@code max(due, free)}): the floor, recorded so a verdict can refuse a fork where it is
 * not small beside the device time.
 * <ul>
 *   <li>{@code --mode=serial}: the producer takes a {@code ReentrantLock} around the device and writes a packet
 *       holding its one message: the post's "threads write to device API directly", with the post's own assumption
 *       of a lock that costs nothing (one thread: no hand-off, no wake-up).</li>
 *   <li>{@code --mode=batching}: the producer {@code offer}s to a {@code ConcurrentLinkedQueue}; one batcher thread
 *       runs the post's NetworkBatcher loop (wait by {@code --wait}, poll until empty into a {@code --packet-bytes}
 *       buffer, send when the next message does not fit, send the rest). It pays a real thread hand-off that serial
 *       does not: the comparison leans towards serial.</li>
 * </ul>
 * The device ({@code --device}: {@code spin} on the clock, or {@code park}) takes {@code --device-us} per write and
 * reads every id back. Bursts ({@code --bursts} of {@code --burst}) come every {@code --interval-us} ({@code fixed}
 * {@code --arrivals}) or at exponential gaps of that mean ({@code poisson}, {@code --seed}: the post's "seldom
 * uniformly spaced out"; a fixed period below saturation never queues). Protocols: {@code post}, one burst a run
 * after warm-up runs; {@code lab}, runs of many bursts. Checked after each run: every message reached the device once,
 * written after it was due; {@code --inject=drop-one} loses one: exit 3.
 *
 * <p>How to run and what you should see (either mode):
 * <pre>  java -cp build/mechsym.jar mechsym.batching.SmartBatching --mode=serial --burst=10 --bursts=100</pre>
 * CSV per run: {@code latency_best|mean|worst|p50|p99}, {@code packets},
 * {@code packets_per_burst}, {@code device_ns}, {@code wakeup_late_median|max}. Serial: mean ~550 µs, 10 packets a
 * burst; batching: ~100-200 µs in 1-2 packets.
 */
public final class SmartBatching {
    public static final List<String> PROTOCOLS = List.of("lab", "post");
    public static final List<String> MODES = List.of("serial", "batching");
    public static final List<String> DEVICES = List.of("spin", "park");
    public static final List<String> WAITS = List.of("yield", "spin");
    public static final List<String> ARRIVALS = List.of("fixed", "poisson");
    public static final List<String> INJECTS = List.of("none", "drop-one");
    private static final String NAME = "SmartBatching";
    /** Time from starting the threads to the first burst: the batcher is waiting by then. */
    private static final long LEAD_NS = 2_000_000L;

    private SmartBatching() {
    }

    public static void main(final String[] argv) {
        Kernels.main(NAME, argv, SmartBatching::run);
    }

    /** The arguments of one run. */
    record Config(boolean serial, int burst, int bursts, long intervalNs, long deviceNs, boolean spinDevice,
                  int packetBytes, int messageBytes, boolean spinWait, boolean poisson) {
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
        final String arrivals = args.choice("arrivals", "fixed", ARRIVALS);
        final long seed = args.longValue("seed", 1, 0, Long.MAX_VALUE);
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
                                    device.equals("spin"), packetBytes, messageBytes, wait.equals("spin"),
                                    arrivals.equals("poisson"));
        JitGc.open();
        final Csv csv = new Csv("mode");
        final List<String> extra = List.of(mode);
        final SplittableRandom random = new SplittableRandom(seed);
        for (int r = 0; r < warmupRuns + runs; r++) {
            final Run result = runOnce(c, schedule(c, random), inject.equals("drop-one") && r == 0);
            result.emit(csv, extra, r, r < warmupRuns);
        }
        csv.flush(System.out);
    }

    /** Each burst's offset from the run's start: every interval, or exponential gaps of that mean (Poisson). */
    static long[] schedule(final Config c, final SplittableRandom random) {
        final long[] offsets = new long[c.bursts];
        long t = 0;
        for (int b = 0; b < c.bursts; b++) {
            offsets[b] = t;
            t += c.poisson ? (long) (-Math.log(1.0 - random.nextDouble()) * c.intervalNs) : c.intervalNs;
        }
        return offsets;
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

    /** One run's stamps per message: due, when the producer was free for it, when it sent it, when its write ended. */
    static final class Run {
        final long[] due;
        final long[] free;
        final long[] sent;
        final long[] done;
        /** The JIT and GC time from the threads' start to their join (the run has no single clock). */
        final JitGc jitGc = new JitGc();
        Device device;

        Run(final int n) {
            due = new long[n];
            free = new long[n];
            sent = new long[n];
            done = new long[n];
        }

        /** How late message i was sent against the moment the producer could have sent it. */
        long late(final int i) {
            return sent[i] - Math.max(due[i], free[i]);
        }

        void emit(final Csv csv, final List<String> extra, final int iteration, final boolean warmup) {
            final int n = due.length;
            final long[] lat = new long[n];
            final long[] late = new long[n];
            double sum = 0;
            for (int i = 0; i < n; i++) {
                lat[i] = done[i] - due[i];
                late[i] = late(i);
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

    /** One run: the producer (and the batcher) on fresh threads; checks after both have ended. */
    static Run runOnce(final Config c, final long[] offsets, final boolean dropOne) throws InterruptedException {
        final int n = c.messages();
        final Run run = new Run(n);
        final Device device = new Device(c, dropOne);
        run.device = device;
        final FirstFailure failure = new FirstFailure();
        final long t0 = System.nanoTime() + LEAD_NS;
        for (int i = 0; i < n; i++) {
            run.due[i] = t0 + offsets[i / c.burst];
        }
        final Queue<Integer> queue = new ConcurrentLinkedQueue<>();
        final ReentrantLock lock = new ReentrantLock();
        final Thread[] threads = new Thread[c.serial ? 1 : 2];
        threads[0] = Threads.worker("producer", -1, failure, () -> produce(c, run, queue, lock, device), () -> { });
        if (!c.serial) {
            threads[1] = Threads.worker("batcher", -1, failure, () -> batch(c, queue, device, run.done), () -> { });
            threads[1].setDaemon(true);
        }
        run.jitGc.start();
        Threads.startJoinRethrow(failure, "smart batching thread", threads);
        run.jitGc.stop();
        check(run, device, n);
        return run;
    }

    /** Every producer's sends, in due order, from one thread: busy-wait to the due time, then lock and write, or
     *  offer. A send that comes due while the producer is still writing goes as soon as it is free. */
    private static void produce(final Config c, final Run run, final Queue<Integer> queue, final ReentrantLock lock,
                                final Device device) {
        final ByteBuffer own = ByteBuffer.allocate(c.packetBytes);
        for (int i = 0; i < run.due.length; i++) {
            run.free[i] = System.nanoTime();
            run.sent[i] = spinUntil(run.due[i]);
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

    /** Busy-waits until {@code due} (System.nanoTime()); returns the time it saw. */
    private static long spinUntil(final long due) {
        long now;
        while ((now = System.nanoTime()) < due) {
            Thread.onSpinWait();
        }
        return now;
    }

    private static void check(final Run run, final Device device, final int n) {
        for (int i = 0; i < n; i++) {
            CheckFailed.require(device.seen[i] == 1,
                "message " + i + " reached the device " + device.seen[i] + " times (every message exactly once)");
            CheckFailed.require(run.done[i] >= run.sent[i] && run.sent[i] >= run.due[i],
                "message " + i + ": written before it was due");
        }
        CheckFailed.require(device.carried == n, "the packets carried " + device.carried + " messages of " + n);
    }
}
