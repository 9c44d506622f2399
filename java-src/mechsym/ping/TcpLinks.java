package mechsym.ping;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The TCP modes of {@link Links} ({@code tcp-spin}, {@code tcp-selectnow},
 * {@code tcp-select}, {@code tcp-block}): both ends of a loopback connection
 * with {@code TCP_NODELAY}, whole messages at a time, waiting as the mode says.
 */
final class TcpLinks {
    private TcpLinks() {
    }

    static Links.Link tcpClient(final String mode, final int port, final Links.Spin spin) throws IOException {
        final SocketChannel ch = SocketChannel.open(Links.loopback(port));
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        final Stream stream = new Stream(ch, mode, spin);
        final ByteBuffer buf = ByteBuffer.allocateDirect(Links.SIZE).order(ByteOrder.nativeOrder());
        return new Links.Link() {
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

    static Links.Server tcpServer(final String mode, final Links.Spin spin, final boolean inject) throws IOException {
        final ServerSocketChannel listen = ServerSocketChannel.open().bind(Links.loopback(0), 1);
        return new Links.Server() {
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
                final ByteBuffer buf = ByteBuffer.allocateDirect(Links.SIZE).order(ByteOrder.nativeOrder());
                boolean corrupt = inject;
                while (true) {
                    buf.clear();
                    if (!stream.readAll(buf)) {
                        return;   // the client closed: the run is over
                    }
                    if (corrupt) {
                        buf.putLong(0, buf.getLong(0) + Links.CORRUPT);
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

    /** One TCP connection read and written whole messages at a time, waiting as its mode says. */
    private static final class Stream implements AutoCloseable {
        private final SocketChannel ch;
        private final Links.Spin spin;
        private final Selector selector;
        private final boolean selectNow;
        private final boolean spinRead;

        Stream(final SocketChannel ch, final String mode, final Links.Spin spin) throws IOException {
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
