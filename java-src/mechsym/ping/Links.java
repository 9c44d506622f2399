package mechsym.ping;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.FileChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The ping buffet's transports, both ends of each: a client {@link Link} sends a
 * sequence number and returns what came back; a server {@link #serve} echoes
 * every message until its client goes away. One mode names both ends, as the
 * post's {@code tcp-server.sh spin} / {@code tcp-client.sh spin} pairs did.
 *
 * <p>Messages are {@link #SIZE} bytes (the post's default message size), the
 * sequence number in the first 8. Sockets are on loopback only, the server's
 * port chosen by the kernel (port 0). Waiting, by mode: {@code spin} retries a
 * non-blocking read; {@code selectnow} spins on {@code Selector.selectNow()};
 * {@code select} blocks in {@code Selector.select()}; {@code block} blocks in a
 * blocking read. {@code --yield=true} (the post's {@code -Dyield=true}) calls
 * {@code Thread.yield()} on every empty spin. IPC, the steps of java-ping's
 * IpcPingClient/IpcPingServer in a memory-mapped file: a side copies a 32-byte
 * message, stores its counter with release semantics and waits for the other's
 * counter with a CAS of the expected value for itself (VarHandle views), both
 * ends busy spinning. Two layouts: {@code post}, java-ping's own (each side
 * writes its data beside the counter it waits on, so a message travels on
 * other cache lines than the counter that announces it; see {@link #MESSAGE});
 * {@code lab}, each side's data beside its own counter on a line of its own.
 */
final class Links {
    static final int SIZE = 32;
    static final List<String> MODES =
        List.of("tcp-spin", "tcp-selectnow", "tcp-select", "tcp-block", "udp-spin", "ipc-spin", "timer");
    static final long CORRUPT = 1L << 40;  // added to an echo by --inject=bad-echo
    static final int IPC_BYTES = 4096;
    // the lab layout: each side's counter with its 32-byte message after it, the two sides two cache lines apart
    private static final int PING = 0;
    private static final int PING_DATA = 8;
    private static final int PONG = 128;
    private static final int PONG_DATA = PONG + 8;
    // the post layout, java-ping's offsets from the page-aligned start of the map for a 32-byte message: the
    // client's counter on the second cache line with the server's echo after it; 64 bytes on, the server's counter
    // with the client's message after it, which crosses the line boundary at 192
    private static final int CLIENT_COUNTER = 64;
    private static final int ECHO = CLIENT_COUNTER + 8;            // 72-103
    private static final int SERVER_COUNTER = ECHO + SIZE + 64;    // 168
    private static final int MESSAGE = SERVER_COUNTER + 8;         // 176-207
    private static final long STOP = -1;
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private Links() {
    }

    /** The client end: one round trip per call. */
    interface Link extends AutoCloseable {
        long ping(long seq) throws IOException;

        @Override
        void close() throws IOException;
    }

    /** How a spinning end waits for one more try: yield if asked, and give up when the peer is gone. */
    static final class Spin {
        private final boolean yield;
        private final BooleanSupplier peerAlive;
        private int spins;

        Spin(final boolean yield, final BooleanSupplier peerAlive) {
            this.yield = yield;
            this.peerAlive = peerAlive;
        }

        void idle() throws IOException {
            if (yield) {
                Thread.yield();
            }
            if ((++spins & 0xFFFFF) == 0 && !peerAlive.getAsBoolean()) {
                throw new IOException("the other end of the ping has gone away");
            }
        }
    }

    static InetSocketAddress loopback(final int port) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    }

    // ---------------------------------------------------------------- client ends

    static Link client(final String mode, final int port, final Path file, final Spin spin, final boolean inject,
                       final boolean ipcPost) throws IOException {
        switch (mode) {
            case "timer":
                return new Link() {   // the post's ErrPingClient: nothing between the two clock reads
                    private boolean first = inject;

                    @Override
                    public long ping(final long seq) {
                        final long echo = first ? seq + CORRUPT : seq;
                        first = false;
                        return echo;
                    }

                    @Override
                    public void close() {
                    }
                };
            case "udp-spin":
                return udpClient(port, spin);
            case "ipc-spin":
                return ipcPost ? ipcPostClient(file, spin) : ipcClient(file, spin);
            default:
                return tcpClient(mode, port, spin);
        }
    }

    private static Link tcpClient(final String mode, final int port, final Spin spin) throws IOException {
        final SocketChannel ch = SocketChannel.open(loopback(port));
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        final Stream stream = new Stream(ch, mode, spin);
        final ByteBuffer buf = ByteBuffer.allocateDirect(SIZE).order(ByteOrder.nativeOrder());
        return new Link() {
            @Override
            public long ping(final long seq) throws IOException {
                buf.clear();
                buf.putLong(0, seq);
                stream.writeAll(buf);
                buf.clear();
                if (!stream.readAll(buf)) {
                    throw new IOException("the server closed the connection");
                }
                return buf.getLong(0);
            }

            @Override
            public void close() throws IOException {
                stream.close();
            }
        };
    }

    private static Link udpClient(final int port, final Spin spin) throws IOException {
        final DatagramChannel ch = DatagramChannel.open();
        ch.connect(loopback(port));
        ch.configureBlocking(false);
        final ByteBuffer buf = ByteBuffer.allocateDirect(SIZE).order(ByteOrder.nativeOrder());
        return new Link() {
            @Override
            public long ping(final long seq) throws IOException {
                buf.clear();
                buf.putLong(0, seq);
                while (ch.write(buf) == 0) {
                    spin.idle();
                }
                buf.clear();
                while (ch.read(buf) <= 0) {
                    spin.idle();
                }
                return buf.getLong(0);
            }

            @Override
            public void close() throws IOException {
                ch.close();
            }
        };
    }

    private static Link ipcClient(final Path file, final Spin spin) throws IOException {
        final MappedByteBuffer map = mapped(file);
        return new Link() {
            @Override
            public long ping(final long seq) throws IOException {
                // the message: the last echo copied into the outgoing slot, its first 8 bytes the sequence number
                map.put(PING_DATA, map, PONG_DATA, SIZE);
                map.putLong(PING_DATA, seq);
                LONGS.setRelease(map, PING, seq);
                // wait for the echo counter with a CAS (seq for seq), as java-ping's IpcPingClient; a witness
                // other than the last counter (a corrupt echo) ends the wait too, so a fault cannot hang the client
                final long last = seq - 1;
                long w;
                while ((w = (long) LONGS.compareAndExchange(map, PONG, seq, seq)) == last) {
                    spin.idle();
                }
                return w == seq ? map.getLong(PONG_DATA) : w;
            }

            @Override
            public void close() {
                LONGS.setRelease(map, PING, STOP);
            }
        };
    }

    /**
     * The post layout's client, as java-ping's IpcPingClient: copy the last echo into the outgoing message, publish
     * the counter, spin on a CAS of the server's counter. The one addition, the lab's check: the sequence number
     * overwrites the message's first 8 bytes, and the server echoes it as its counter, so the CAS's witness is the
     * echo (no further read of the echo line inside the timed ping, which java-ping does not make either).
     *
     * <p>The wait ends on any witness but the one the previous ping ended on. Because the server's counter is the
     * echo, a corrupt echo leaves that counter at a value no sequence number reaches: waiting only while it equals
     * {@code seq - 1} let the next ping return at once, run ahead of the server and overwrite a counter the server
     * had not yet seen, which then left both ends spinning forever. Waiting on the previous
     * witness keeps the two ends in strict turns, so a bad echo costs exactly one failed ping.
     */
    private static Link ipcPostClient(final Path file, final Spin spin) throws IOException {
        final MappedByteBuffer map = mapped(file);
        return new Link() {
            private long previous;   // the server's counter when the last ping ended

            @Override
            public long ping(final long seq) throws IOException {
                map.put(MESSAGE, map, ECHO, SIZE);
                map.putLong(MESSAGE, seq);
                LONGS.setRelease(map, CLIENT_COUNTER, seq);
                final long last = previous;
                long w;
                while ((w = (long) LONGS.compareAndExchange(map, SERVER_COUNTER, seq, seq)) == last) {
                    spin.idle();
                }
                previous = w;
                return w;
            }

            @Override
            public void close() {
                LONGS.setRelease(map, CLIENT_COUNTER, STOP);
            }
        };
    }

    static MappedByteBuffer mapped(final Path file) throws IOException {
        try (FileChannel fc = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            return fc.map(FileChannel.MapMode.READ_WRITE, 0, IPC_BYTES);
        }
    }

    // ---------------------------------------------------------------- server ends

    /** A bound server end: {@link #port()} to tell the client, then {@link #serve()} until the client goes. */
    interface Server extends AutoCloseable {
        int port();

        void serve() throws IOException;

        @Override
        void close() throws IOException;
    }

    static Server server(final String mode, final Path file, final Spin spin, final boolean inject,
                         final boolean ipcPost) throws IOException {
        switch (mode) {
            case "udp-spin":
                return udpServer(spin, inject);
            case "ipc-spin":
                return ipcPost ? ipcPostServer(file, spin, inject) : ipcServer(file, spin, inject);
            default:
                return tcpServer(mode, spin, inject);
        }
    }

    private static Server tcpServer(final String mode, final Spin spin, final boolean inject) throws IOException {
        final ServerSocketChannel listen = ServerSocketChannel.open().bind(loopback(0), 1);
        return new Server() {
            private Stream stream;

            @Override
            public int port() {
                return listen.socket().getLocalPort();
            }

            @Override
            public void serve() throws IOException {
                final SocketChannel ch = listen.accept();
                ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
                stream = new Stream(ch, mode, spin);
                final ByteBuffer buf = ByteBuffer.allocateDirect(SIZE).order(ByteOrder.nativeOrder());
                boolean corrupt = inject;
                while (true) {
                    buf.clear();
                    if (!stream.readAll(buf)) {
                        return;   // the client closed: the run is over
                    }
                    if (corrupt) {
                        buf.putLong(0, buf.getLong(0) + CORRUPT);
                        corrupt = false;
                    }
                    buf.flip();
                    stream.writeAll(buf);
                }
            }

            @Override
            public void close() throws IOException {
                try (listen) {
                    if (stream != null) {
                        stream.close();
                    }
                }
            }
        };
    }

    private static Server udpServer(final Spin spin, final boolean inject) throws IOException {
        final DatagramChannel ch = DatagramChannel.open().bind(loopback(0));
        ch.configureBlocking(false);
        return new Server() {
            @Override
            public int port() {
                return ch.socket().getLocalPort();
            }

            @Override
            public void serve() throws IOException {
                final ByteBuffer buf = ByteBuffer.allocateDirect(SIZE).order(ByteOrder.nativeOrder());
                boolean corrupt = inject;
                while (true) {   // ends when the client ends (stdin closes, see PingBuffet)
                    buf.clear();
                    SocketAddress from;
                    while ((from = ch.receive(buf)) == null) {
                        spin.idle();
                    }
                    if (corrupt) {
                        buf.putLong(0, buf.getLong(0) + CORRUPT);
                        corrupt = false;
                    }
                    buf.flip();
                    while (ch.send(buf, from) == 0) {
                        spin.idle();
                    }
                }
            }

            @Override
            public void close() throws IOException {
                ch.close();
            }
        };
    }

    private static Server ipcServer(final Path file, final Spin spin, final boolean inject) throws IOException {
        final MappedByteBuffer map = mapped(file);
        return new Server() {
            @Override
            public int port() {
                return 0;
            }

            @Override
            public void serve() throws IOException {
                long last = 0;
                boolean corrupt = inject;
                while (true) {
                    // wait for the next ping with a CAS (next for next), as java-ping's IpcPingServer
                    final long next = last + 1;
                    long w;
                    while ((w = (long) LONGS.compareAndExchange(map, PING, next, next)) != next) {
                        if (w == STOP) {
                            return;
                        }
                        spin.idle();
                    }
                    last = next;
                    // copy the 32-byte message back, then publish the echo counter
                    map.put(PONG_DATA, map, PING_DATA, SIZE);
                    if (corrupt) {
                        map.putLong(PONG_DATA, next + CORRUPT);
                        corrupt = false;
                    }
                    LONGS.setRelease(map, PONG, next);
                }
            }

            @Override
            public void close() {
            }
        };
    }

    /**
     * The post layout's server, as java-ping's IpcPingServer: spin on a CAS of the client's counter, copy the
     * message back into the echo, publish the counter. Its counter is the sequence number read from the echo it
     * just wrote (java-ping's is its own loop count: the same value when the message arrived intact).
     *
     * <p>The lesson: a spinner's work between two tries is part of the latency it measures. Its spin is a bare CAS
     * loop, as java-ping's (a yield in it under {@code --yield=true}): with a stop test and a peer-alive count in the
     * loop, as the lab's server has, java-ping's own client ran 1.2x faster against it than against java-ping's
     * server (110 against 130 ns p50, and 381 against 531 ns in the VM's slow regime): CAS tries back to back take
     * the counter's line from the client more often. It needs no exit test: the client's close halts this JVM
     * through its stdin ({@code watchStdin}).
     */
    private static Server ipcPostServer(final Path file, final Spin spin, final boolean inject) throws IOException {
        final MappedByteBuffer map = mapped(file);
        return new Server() {
            @Override
            public int port() {
                return 0;
            }

            @Override
            public void serve() {
                long last = 0;
                boolean corrupt = inject;
                final boolean yield = spin.yield;
                while (true) {
                    final long next = last + 1;
                    if (yield) {
                        while ((long) LONGS.compareAndExchange(map, CLIENT_COUNTER, next, next) != next) {
                            Thread.yield();
                        }
                    } else {
                        while ((long) LONGS.compareAndExchange(map, CLIENT_COUNTER, next, next) != next) {
                            continue;
                        }
                    }
                    last = next;
                    map.put(ECHO, map, MESSAGE, SIZE);
                    long echo = map.getLong(ECHO);
                    if (corrupt) {
                        echo += CORRUPT;
                        corrupt = false;
                    }
                    LONGS.setRelease(map, SERVER_COUNTER, echo);
                }
            }

            @Override
            public void close() {
            }
        };
    }

    /** One TCP connection read and written whole messages at a time, waiting as its mode says. */
    private static final class Stream implements AutoCloseable {
        private final SocketChannel ch;
        private final Spin spin;
        private final Selector selector;
        private final boolean selectNow;
        private final boolean spinRead;

        Stream(final SocketChannel ch, final String mode, final Spin spin) throws IOException {
            this.ch = ch;
            this.spin = spin;
            this.selectNow = mode.equals("tcp-selectnow");
            this.spinRead = mode.equals("tcp-spin");
            ch.configureBlocking(mode.equals("tcp-block"));
            if (mode.equals("tcp-selectnow") || mode.equals("tcp-select")) {
                selector = Selector.open();
                ch.register(selector, SelectionKey.OP_READ);
            } else {
                selector = null;
            }
        }

        void writeAll(final ByteBuffer buf) throws IOException {
            while (buf.hasRemaining()) {
                if (ch.write(buf) == 0) {
                    spin.idle();
                }
            }
        }

        /** Fills buf; false when the peer closed the connection first. */
        boolean readAll(final ByteBuffer buf) throws IOException {
            while (buf.hasRemaining()) {
                if (selectNow) {
                    while (selector.selectNow() == 0) {
                        spin.idle();
                    }
                    selector.selectedKeys().clear();
                } else if (selector != null) {
                    selector.select();
                    selector.selectedKeys().clear();
                }
                final int n = ch.read(buf);
                if (n < 0) {
                    return false;
                }
                if (n == 0 && spinRead) {
                    spin.idle();
                }
            }
            return true;
        }

        @Override
        public void close() throws IOException {
            try (ch) {
                if (selector != null) {
                    selector.close();
                }
            }
        }
    }
}
