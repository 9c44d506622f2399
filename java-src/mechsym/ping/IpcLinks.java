package mechsym.ping;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The {@code ipc-spin} mode of {@link Links}: both ends of a memory-mapped
 * file, java-ping's steps, in the lab layout or the post's ({@code --protocol});
 * the offsets of both layouts are here.
 */
final class IpcLinks {
    // the lab layout: each side's counter with its 32-byte message after it, the two sides two cache lines apart
    private static final int PING = 0;
    private static final int PING_DATA = 8;
    private static final int PONG = 128;
    private static final int PONG_DATA = PONG + 8;
    // the post layout, java-ping's offsets from the page-aligned start of the map for a 32-byte message: the
    // client's counter on the second cache line with the server's echo after it; 64 bytes on, the server's counter
    // with the client's message after it, which crosses the line boundary at 192
    private static final int CLIENT_COUNTER = 64;
    private static final int ECHO = CLIENT_COUNTER + 8;                  // 72-103
    private static final int SERVER_COUNTER = ECHO + Links.SIZE + 64;    // 168
    private static final int MESSAGE = SERVER_COUNTER + 8;               // 176-207
    private static final long STOP = -1;
    private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private IpcLinks() {
    }

    static Links.Link ipcClient(final Path file, final Links.Spin spin) throws IOException {
        final MappedByteBuffer map = mapped(file);
        return new Links.Link() {
            @Override
            public long ping(final long seq) throws IOException {
                // the message: the last echo copied into the outgoing slot, its first 8 bytes the sequence number
                map.put(PING_DATA, map, PONG_DATA, Links.SIZE);
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
    static Links.Link ipcPostClient(final Path file, final Links.Spin spin) throws IOException {
        final MappedByteBuffer map = mapped(file);
        return new Links.Link() {
            private long previous;   // the server's counter when the last ping ended

            @Override
            public long ping(final long seq) throws IOException {
                map.put(MESSAGE, map, ECHO, Links.SIZE);
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
            return fc.map(FileChannel.MapMode.READ_WRITE, 0, Links.IPC_BYTES);
        }
    }

    static Links.Server ipcServer(final Path file, final Links.Spin spin, final boolean inject) throws IOException {
        final MappedByteBuffer map = mapped(file);
        return new Links.Server() {
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
                    map.put(PONG_DATA, map, PING_DATA, Links.SIZE);
                    if (corrupt) {
                        map.putLong(PONG_DATA, next + Links.CORRUPT);
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
    static Links.Server ipcPostServer(final Path file, final Links.Spin spin, final boolean inject) throws IOException {
        final MappedByteBuffer map = mapped(file);
        return new Links.Server() {
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
                    map.put(ECHO, map, MESSAGE, Links.SIZE);
                    long echo = map.getLong(ECHO);
                    if (corrupt) {
                        echo += Links.CORRUPT;
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
}
