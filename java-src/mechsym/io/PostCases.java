package mechsym.io;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.util.ArrayList;
import java.util.List;

import mechsym.common.CheckFailed;

/**
 * {@link SequentialIo}'s {@code post} protocol: the four test cases of "Java
 * Sequential IO Performance" (2011-12-26) in the shape the post gave them,
 * written anew from its description. That shape decides what the JIT makes of
 * each loop, so it is kept: an abstract test case whose {@code test(type,
 * file)} times one call of an instance method {@code testWrite} or
 * {@code testRead} of an anonymous subclass, one per means of IO, in the
 * post's order; every loop runs {@code for (long i = 0; i < FILE_SIZE; i++)}
 * over a {@code static final} file size, writes {@code (byte) i} and adds each
 * byte to an {@code int} checksum, and nothing else; the read's checksum is
 * compared with the write's inside {@code test}, as the post did.
 *
 * <p>Per case, as the post: {@code RandomAccessFile} fills a page-sized
 * {@code byte[]} and writes it one page per call, reads into it one page per
 * call; buffered streams write and read one byte per call through
 * {@code BufferedOutputStream(new FileOutputStream(name))} (which truncates the
 * file and so re-allocates its blocks) and {@code BufferedInputStream}; the
 * channel case {@code put}s and {@code get}s one byte at a time on a page-sized
 * heap {@code ByteBuffer} and writes or reads it one page per call, on a
 * channel of a {@code RandomAccessFile} opened {@code "rw"} for both phases;
 * the mapped case maps {@code min(channel.size(), window)} bytes (window
 * {@code Integer.MAX_VALUE} unless {@code --window} is given), re-maps when a
 * window is used up ({@code READ_WRITE} in both phases when re-mapping, as
 * printed) and never unmaps: the mappings go when the garbage collector finds
 * them, at the {@code System.gc()} before the next phase.
 *
 * <p>Deliberate differences from the listing: the file size is an argument,
 * made a {@code static final} of a holder class before the first case runs
 * (so it is a constant to the JIT, as the post's {@code FILE_SIZE}); the
 * clock is {@code System.nanoTime} instead of {@code currentTimeMillis}; a
 * checksum that differs is a {@link CheckFailed} (exit 3, no number) instead
 * of a printed stack trace; with
 * {@code --sync=true} (the bench's evicted regime) {@code test} ends a write
 * phase with an {@code fsync} of the file inside the timed region, after
 * {@code testWrite} returned, so that every {@code testWrite} keeps the
 * listing's bytecode (see below); with
 * {@code --evict=ask} the mappings of a phase are unmapped after its clock
 * stopped, so that its pages can be evicted (the post's regime had no
 * eviction).
 *
 * <p>As the listing, every stream and channel is closed at the end of its
 * phase except the channel case's read channel, which is left to the garbage
 * collector (the {@code System.gc()} before the next phase finds it).
 *
 * <p>Why the shape is kept so close: code that the channel case never runs,
 * in the other cases' methods, changed the speed of its loop in the same JVM,
 * and closing the read channel the listing leaves open slowed the next
 * channel write; the comparisons with the listing are in
 * {@code data/fidelity/seqio.csv}. The mapped write is bimodal in both
 * programs (about 900 or 1,080 MB/s a JVM); within a mode they are the same.
 */
final class PostCases {
    private PostCases() {
    }

    private static long configuredSize = -1;

    /** The file size, a constant to the JIT: read the first time a case runs, after {@link #configure}. */
    private static final class Size {
        static final long FILE_SIZE = configuredSize;
    }

    static final int PAGE_SIZE = SequentialIo.PAGE_SIZE;

    /** The names of the cases, in the post's order (the lab's method names). */
    static final List<String> ORDER = List.of("random-access-file", "buffered-stream", "channel-heap", "mapped");

    /** Sets the file size for the life of this JVM; a second, different size is refused. */
    static synchronized void configure(final long size) {
        if (configuredSize != -1 && configuredSize != size) {
            throw new IllegalStateException("the post protocol's file size is fixed per JVM: " + configuredSize);
        }
        configuredSize = size;
        if (Size.FILE_SIZE != size) {
            throw new IllegalStateException("the post protocol's file size is fixed per JVM: " + Size.FILE_SIZE);
        }
    }

    /** The sum of {@code (byte) i} over {@code i < size} (size a multiple of 256), wrapping as an int does. */
    static int expectedChecksum(final long size) {
        return (int) (size / 256 * -128L);
    }

    /** One means of IO, timed as the post's {@code PerfTestCase.test}. */
    abstract static class Case {
        enum Type { READ, WRITE }

        private final String name;
        final boolean sync;
        final long window;
        /** Mappings of the last phase, kept only when they must be unmapped before an eviction. */
        final List<MappedByteBuffer> mapped = new ArrayList<>();
        private final boolean keepMappings;
        private int checkSum;

        Case(final String name, final boolean sync, final long window, final boolean keepMappings) {
            this.name = name;
            this.sync = sync;
            this.window = window;
            this.keepMappings = keepMappings;
        }

        String getName() {
            return name;
        }

        int writtenChecksum() {
            return checkSum;
        }

        /** One phase; returns its duration in ns. */
        long test(final Type type, final String fileName) throws IOException {
            final long start = System.nanoTime();
            switch (type) {
                case WRITE: {
                    checkSum = testWrite(fileName);
                    if (sync) {
                        syncFile(fileName);
                    }
                    break;
                }
                case READ: {
                    final int read = testRead(fileName);
                    if (read != this.checkSum) {
                        throw new CheckFailed(getName() + ": checksum read " + read + " differs from the one written "
                            + this.checkSum);
                    }
                    break;
                }
                default:
                    throw new IllegalArgumentException(type.toString());
            }
            return System.nanoTime() - start;
        }

        /**
         * The evicted regime's end of a write phase, inside the clock: {@code fsync} on a descriptor of its own. Linux
         * writes back every dirty page of the file whichever descriptor or shared mapping dirtied it, so this covers
         * the mapped case's pages too ({@code msync} is the same call on a range); the driver's residency check before
         * each read would see a page it left dirty.
         */
        static void syncFile(final String fileName) throws IOException {
            try (RandomAccessFile f = new RandomAccessFile(fileName, "rw")) {
                f.getFD().sync();
            }
        }

        abstract int testWrite(String fileName) throws IOException;

        abstract int testRead(String fileName) throws IOException;

        void keep(final MappedByteBuffer buffer) {
            if (keepMappings) {
                mapped.add(buffer);
            }
        }

        /** Unmaps what {@link #keep} kept (after the clock stopped, before an eviction). */
        void unmapKept() {
            for (final MappedByteBuffer b : mapped) {
                SequentialIo.unmap(b);
            }
            mapped.clear();
        }
    }

    /** The four cases, in the post's order; {@code only} one of them by name, or all for "all". */
    static List<Case> cases(final String only, final boolean sync, final long window, final boolean evict) {
        final Case[] all = {
            new Case("random-access-file", sync, window, evict) {
                @Override
                int testWrite(final String fileName) throws IOException {
                    final RandomAccessFile file = new RandomAccessFile(fileName, "rw");
                    final byte[] buffer = new byte[PAGE_SIZE];
                    int pos = 0;
                    int checkSum = 0;

                    for (long i = 0; i < Size.FILE_SIZE; i++) {
                        final byte b = (byte) i;
                        checkSum += b;

                        buffer[pos++] = b;
                        if (PAGE_SIZE == pos) {
                            file.write(buffer, 0, PAGE_SIZE);
                            pos = 0;
                        }
                    }

                    file.close();
                    return checkSum;
                }

                @Override
                int testRead(final String fileName) throws IOException {
                    final RandomAccessFile file = new RandomAccessFile(fileName, "r");
                    final byte[] buffer = new byte[PAGE_SIZE];
                    int checkSum = 0;
                    int bytesRead;

                    while (-1 != (bytesRead = file.read(buffer))) {
                        for (int i = 0; i < bytesRead; i++) {
                            checkSum += buffer[i];
                        }
                    }

                    file.close();
                    return checkSum;
                }
            },

            new Case("buffered-stream", sync, window, evict) {
                @Override
                int testWrite(final String fileName) throws IOException {
                    int checkSum = 0;
                    final OutputStream out = new BufferedOutputStream(new FileOutputStream(fileName));

                    for (long i = 0; i < Size.FILE_SIZE; i++) {
                        final byte b = (byte) i;
                        checkSum += b;
                        out.write(b);
                    }

                    out.close();
                    return checkSum;
                }

                @Override
                int testRead(final String fileName) throws IOException {
                    int checkSum = 0;
                    final InputStream in = new BufferedInputStream(new FileInputStream(fileName));

                    int b;
                    while (-1 != (b = in.read())) {
                        checkSum += (byte) b;
                    }

                    in.close();
                    return checkSum;
                }
            },

            new Case("channel-heap", sync, window, evict) {
                @Override
                int testWrite(final String fileName) throws IOException {
                    final FileChannel channel = new RandomAccessFile(fileName, "rw").getChannel();
                    final ByteBuffer buffer = ByteBuffer.allocate(PAGE_SIZE);
                    int checkSum = 0;

                    for (long i = 0; i < Size.FILE_SIZE; i++) {
                        final byte b = (byte) i;
                        checkSum += b;
                        buffer.put(b);

                        if (!buffer.hasRemaining()) {
                            buffer.flip();
                            channel.write(buffer);
                            buffer.clear();
                        }
                    }

                    channel.close();
                    return checkSum;
                }

                @Override
                int testRead(final String fileName) throws IOException {
                    final FileChannel channel = new RandomAccessFile(fileName, "rw").getChannel();
                    final ByteBuffer buffer = ByteBuffer.allocate(PAGE_SIZE);
                    int checkSum = 0;

                    while (-1 != channel.read(buffer)) {
                        buffer.flip();

                        while (buffer.hasRemaining()) {
                            checkSum += buffer.get();
                        }

                        buffer.clear();
                    }

                    // not closed, as the post's code: the channel goes at the System.gc() before the next phase
                    // (closing it here made the next pass's channel write 3-6% slower, 8 of 8 sets; see the class)
                    return checkSum;
                }
            },

            new Case("mapped", sync, window, evict) {
                @Override
                int testWrite(final String fileName) throws IOException {
                    final FileChannel channel = new RandomAccessFile(fileName, "rw").getChannel();
                    MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_WRITE, 0,
                                                          Math.min(channel.size(), window));
                    int checkSum = 0;

                    for (long i = 0; i < Size.FILE_SIZE; i++) {
                        if (!buffer.hasRemaining()) {
                            keep(buffer);
                            buffer = channel.map(FileChannel.MapMode.READ_WRITE, i,
                                                 Math.min(channel.size() - i, window));
                        }

                        final byte b = (byte) i;
                        checkSum += b;
                        buffer.put(b);
                    }

                    keep(buffer);
                    channel.close();
                    return checkSum;
                }

                @Override
                int testRead(final String fileName) throws IOException {
                    final FileChannel channel = new RandomAccessFile(fileName, "rw").getChannel();
                    MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_ONLY, 0,
                                                          Math.min(channel.size(), window));
                    int checkSum = 0;

                    for (long i = 0; i < Size.FILE_SIZE; i++) {
                        if (!buffer.hasRemaining()) {
                            keep(buffer);
                            buffer = channel.map(FileChannel.MapMode.READ_WRITE, i,
                                                 Math.min(channel.size() - i, window));
                        }

                        checkSum += buffer.get();
                    }

                    keep(buffer);
                    channel.close();
                    return checkSum;
                }
            },
        };
        final List<Case> out = new ArrayList<>();
        for (final Case c : all) {
            if (only.equals("all") || only.equals(c.getName())) {
                out.add(c);
            }
        }
        return out;
    }
}
