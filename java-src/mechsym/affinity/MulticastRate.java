package mechsym.affinity;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.MulticastSocket;
import java.net.NetworkInterface;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import mechsym.common.Args;
import mechsym.common.BadArgument;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.Kernels;

/**
 * A multicast sender and a multicast receiver, one per JVM: messages per
 * second, each second of the run.
 *
 * <p>The claim under test ("Processor Affinity - Part 1", Martin Thompson, 2011-07-19): two JVMs exchanging IP
 * multicast on a dummy interface, each printing the messages it sent or received every second; unpinned, the rate
 * follows "a step function of unpredictable performance"; pinned with {@code taskset -c 2} and
 * {@code taskset -c 4}, "consistent throughput with no step pattern and always the greatest throughput". The
 * post's listing is not in its text; this kernel is written from its description.
 *
 * <p>Roles ({@code --role}): {@code sender} sends {@code --messages} datagrams of {@code --size} bytes to
 * {@code --group}:{@code --port} on {@code --interface}, TTL 0 (never routed off the host), each carrying its
 * sequence number, then ten end markers (it stops early, reporting what it sent, after {@code --max-seconds});
 * {@code receiver} joins the group, touches {@code --ready-file} (so the sender can start after it), and counts
 * datagrams per second from the first one until an end marker, {@code --idle-ms} without a datagram, or
 * {@code --max-seconds}. UDP may drop or reorder: the receiver reports lost (gaps in the sequence) and reordered
 * (late) datagrams, and fails (exit 3) only when it received nothing. The lab runs the pair in a network
 * namespace of its own (see the experiment's sweep): nothing leaves it.
 *
 * <p>Output, CSV (role, iteration, warmup, metric, value, unit): per second {@code rate} (messages/s; a last
 * partial second is scaled to its length and marked {@code warmup=true}), then {@code total}, {@code lost},
 * {@code reordered} (receiver) at the last iteration. Faults: {@code --inject=deaf} (receiver) joins no group,
 * receives nothing, exits 3 and prints no number; {@code --inject=sender-dies} (sender) halts with exit 1
 * halfway, a crashed peer for the tests (the receiver then stops after {@code --idle-ms}).
 *
 * <p>How to run (inside a namespace, as root):
 * <pre>
 *   unshare -n sh -c 'ip link set lo up multicast on; ip route add 224.0.0.0/4 dev lo;
 *     java -cp build/mechsym.jar mechsym.affinity.MulticastRate --role=receiver --ready-file=/tmp/r &amp;
 *     while [ ! -e /tmp/r ]; do sleep 0.05; done;
 *     java -cp build/mechsym.jar mechsym.affinity.MulticastRate --role=sender --messages=2000000; wait'
 * </pre>
 * and what you should see: a few hundred thousand messages per second on each
 * side, per second.
 */
public final class MulticastRate {
    public static final List<String> ROLES = List.of("sender", "receiver");
    public static final List<String> INJECTS = List.of("none", "deaf", "sender-dies");
    private static final long END = -1L;

    private MulticastRate() {
    }

    public static void main(final String[] argv) {
        Kernels.main("MulticastRate", argv, MulticastRate::run);
    }

    private static void run(final Args args) throws Exception {
        final String role = args.choice("role", "sender", ROLES);
        final InetAddress group = InetAddress.getByName(args.string("group", "239.255.17.1"));
        final int port = args.intValue("port", 47017, 1024, 65535);
        final String ifname = args.string("interface", "lo");
        final long messages = args.longValue("messages", 20_000_000L, 1, Long.MAX_VALUE / 2);
        final int size = args.intValue("size", 32, 8, 1400);
        final String ready = args.string("ready-file", "");
        final int idleMs = args.intValue("idle-ms", 2000, 10, 600_000);
        final int maxSeconds = args.intValue("max-seconds", 600, 1, 86_400);
        final String inject = args.choice("inject", "none", INJECTS);
        args.finish();
        if (!group.isMulticastAddress()) {
            throw new BadArgument("--group=" + group.getHostAddress() + ": not a multicast address (224.0.0.0/4)");
        }
        final NetworkInterface nif = NetworkInterface.getByName(ifname);
        if (nif == null) {
            throw new BadArgument("--interface=" + ifname + ": no such network interface");
        }
        final Csv csv = new Csv("role");
        if (role.equals("sender")) {
            send(group, port, nif, messages, size, maxSeconds, inject.equals("sender-dies"), csv);
        } else {
            receive(group, port, nif, size, ready, idleMs, maxSeconds, inject.equals("deaf"), csv);
        }
        csv.flush(System.out);
    }

    /** Per-second counts: the clock starts at the first message. */
    private static final class Seconds {
        final List<Long> counts = new ArrayList<>();
        long start;
        long current;
        long lastNanos;

        void tick(final long now) {
            if (start == 0) {
                start = now;
            }
            while (now - start >= (counts.size() + 1) * 1_000_000_000L) {
                counts.add(current);
                current = 0;
            }
            current++;
            lastNanos = now;
        }

        void emit(final Csv csv, final List<String> extra) {
            for (int s = 0; s < counts.size(); s++) {
                csv.row(extra, s, false, "rate", counts.get(s), "msg/s");
            }
            final double partial = (lastNanos - start) / 1e9 - counts.size();
            if (current > 0 && partial > 0) {
                csv.row(extra, counts.size(), true, "rate", current / partial, "msg/s");
            }
        }
    }

    private static void send(final InetAddress group, final int port, final NetworkInterface nif, final long messages,
                             final int size, final int maxSeconds, final boolean dies, final Csv csv)
            throws IOException, InterruptedException {
        final Seconds seconds = new Seconds();
        long sent = 0;
        try (MulticastSocket socket = new MulticastSocket()) {
            socket.setNetworkInterface(nif);
            socket.setTimeToLive(0);
            final ByteBuffer buf = ByteBuffer.allocate(size);
            final DatagramPacket packet = new DatagramPacket(buf.array(), size, group, port);
            final long deadline = System.nanoTime() + maxSeconds * 1_000_000_000L;
            for (long seq = 0; seq < messages; seq++) {
                buf.putLong(0, seq);
                socket.send(packet);
                sent++;
                // the clock is read once a message for the per-second count anyway; comparing it to
                // the deadline is a register compare beside a ~5 µs send system call
                final long now = System.nanoTime();
                seconds.tick(now);
                if (now - deadline > 0) {
                    break;
                }
                if (dies && seq == messages / 2) {
                    Runtime.getRuntime().halt(1);
                }
            }
            for (int i = 0; i < 10; i++) {
                buf.putLong(0, END);
                socket.send(packet);
                Thread.sleep(10);
            }
        }
        final List<String> extra = List.of("sender");
        seconds.emit(csv, extra);
        csv.row(extra, seconds.counts.size() + 1, false, "total", sent, "messages");
    }

    private static void receive(final InetAddress group, final int port, final NetworkInterface nif, final int size,
                                final String ready, final int idleMs, final int maxSeconds, final boolean deaf,
                                final Csv csv) throws IOException {
        final Seconds seconds = new Seconds();
        long expected = 0;
        long lost = 0;
        long reordered = 0;
        long total = 0;
        try (MulticastSocket socket = new MulticastSocket(port)) {
            if (!deaf) {
                socket.joinGroup(new InetSocketAddress(group, port), nif);
            }
            if (!ready.isEmpty()) {
                Files.writeString(Path.of(ready), "ready\n");
            }
            final byte[] data = new byte[Math.max(size, 64)];
            final DatagramPacket packet = new DatagramPacket(data, data.length);
            final ByteBuffer buf = ByteBuffer.wrap(data);
            final long deadline = System.nanoTime() + maxSeconds * 1_000_000_000L;
            socket.setSoTimeout(idleMs);
            while (System.nanoTime() < deadline) {
                try {
                    socket.receive(packet);
                } catch (SocketTimeoutException e) {
                    break;
                }
                final long seq = buf.getLong(0);
                if (seq == END) {
                    break;
                }
                seconds.tick(System.nanoTime());
                total++;
                if (seq >= expected) {
                    lost += seq - expected;
                    expected = seq + 1;
                } else {
                    reordered++;
                    lost--;
                }
            }
        }
        CheckFailed.require(total > 0, "the receiver got no datagram from the group (nothing sent, or not routed)");
        final List<String> extra = List.of("receiver");
        seconds.emit(csv, extra);
        final int last = seconds.counts.size() + 1;
        csv.row(extra, last, false, "total", total, "messages");
        csv.row(extra, last, false, "lost", lost, "messages");
        csv.row(extra, last, false, "reordered", reordered, "messages");
    }
}
