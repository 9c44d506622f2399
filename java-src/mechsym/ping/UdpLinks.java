package mechsym.ping;

import java.io.IOException;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;

/**
 * The {@code udp-spin} mode of {@link Links}: both ends of a loopback datagram
 * channel, non-blocking, each retrying an empty send or receive.
 */
final class UdpLinks {
    private UdpLinks() {
    }

    static Links.Link udpClient(final int port, final Links.Spin spin) throws IOException {
        final DatagramChannel ch = DatagramChannel.open();
        ch.connect(Links.loopback(port));
        ch.configureBlocking(false);
        final ByteBuffer buf = ByteBuffer.allocateDirect(Links.SIZE).order(ByteOrder.nativeOrder());
        return new Links.Link() {
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

    static Links.Server udpServer(final Links.Spin spin, final boolean inject) throws IOException {
        final DatagramChannel ch = DatagramChannel.open().bind(Links.loopback(0));
        ch.configureBlocking(false);
        return new Links.Server() {
            @Override
            public int port() {
                return ch.socket().getLocalPort();
            }

            @Override
            public void serve() throws IOException {
                final ByteBuffer buf = ByteBuffer.allocateDirect(Links.SIZE).order(ByteOrder.nativeOrder());
                boolean corrupt = inject;
                while (true) {   // ends when the client ends (stdin closes, see PingBuffet)
                    buf.clear();
                    SocketAddress from;
                    while ((from = ch.receive(buf)) == null) {
                        spin.idle();
                    }
                    if (corrupt) {
                        buf.putLong(0, buf.getLong(0) + Links.CORRUPT);
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
}
