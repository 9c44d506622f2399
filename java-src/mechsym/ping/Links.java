package mechsym.ping;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
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
 * other cache lines than the counter that announces it; see
 * {@link IpcLinks#MESSAGE}); {@code lab}, each side's data beside its own
 * counter on a line of its own.
 *
 * <p>This class holds what the transports share and picks one by mode; each
 * transport's two ends are in {@link TcpLinks}, {@link UdpLinks} and
 * {@link IpcLinks}.
 */
final class Links {
    static final int SIZE = 32;
    static final List<String> MODES =
        List.of("tcp-spin", "tcp-selectnow", "tcp-select", "tcp-block", "udp-spin", "ipc-spin", "timer");
    static final long CORRUPT = 1L << 40;  // added to an echo by --inject=bad-echo
    static final int IPC_BYTES = 4096;

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
        final boolean yield;   // read by IpcLinks' post-layout server, which spins without idle()
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
                return UdpLinks.udpClient(port, spin);
            case "ipc-spin":
                return ipcPost ? IpcLinks.ipcPostClient(file, spin) : IpcLinks.ipcClient(file, spin);
            default:
                return TcpLinks.tcpClient(mode, port, spin);
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
                return UdpLinks.udpServer(spin, inject);
            case "ipc-spin":
                return ipcPost ? IpcLinks.ipcPostServer(file, spin, inject) : IpcLinks.ipcServer(file, spin, inject);
            default:
                return TcpLinks.tcpServer(mode, spin, inject);
        }
    }
}
