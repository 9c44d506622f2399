package mechsym.io;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.List;

import mechsym.common.CheckFailed;
import mechsym.common.JitGc;
import mechsym.common.Defaults;
import mechsym.common.Kernels;

/**
 * Sequential writes and reads of a pre-allocated file, by the means Java offers.
 *
 * <p>The claim ("Java Sequential IO Performance", 2011-12-26, Martin Thompson): the ways Java writes and reads a
 * file sequentially are "not even remotely equal". On a 400 MB file in the page cache, {@code RandomAccessFile}
 * with a page-sized {@code byte[]} and a {@code FileChannel} with a page-sized {@code ByteBuffer} read fastest
 * (~1.4-1.5 GB/s), mapped files win some writes, buffered streams lag; on a file larger than RAM every method
 * falls to about the SSD's speed.
 *
 * <p>Methods ({@code --method}), the post's four cases plus one, one add per byte into a checksum in each:
 * {@code random-access-file} (4 KiB {@code byte[]}, one page per call), {@code buffered-stream} (8 KiB buffered
 * streams, one byte per call), {@code channel-heap} and {@code channel-direct} (4 KiB heap or direct
 * {@code ByteBuffer}, one put/get per byte; direct is not in the post), {@code mapped} ({@code FileChannel.map}
 * windows of at most {@code --window} bytes), {@code all} (the post's four in its order in one JVM, each
 * inheriting the JIT's and page cache's state from the one before). A pass writes the whole file and reads it
 * back, each phase timed from opening the file to closing it; {@code --passes} (5, as the post) per JVM, the
 * first {@code --warmup-passes} marked warm-up. Each phase's JIT and GC time is recorded beside it ({@link JitGc}).
 *
 * <p>Protocols: {@code post}, the listing's code shape and data ({@link PostCases} names each difference); the
 * data is the same every pass, so it cannot tell a stale read from a fresh one. {@code lab} (the default)
 * differs on purpose: byte i is {@code (byte)((i & 0x7F) + salt)} with a per-page, per-pass salt, so a stale,
 * zero or short read fails the check (written and read checksums must equal the pattern's: else exit 3, no
 * number); streams overwrite the pre-allocated file in place (the post's truncated it); {@code mapped} unmaps
 * each window inside the clock, so pages can be evicted between passes. Both: {@code --sync=true} ends a write
 * phase with {@code force}/{@code fsync} inside the clock (the post's larger-than-RAM regime, without such a
 * file); {@code --evict=ask} stops before each phase ({@code seqio: evict before ...} on stderr) until a line on
 * stdin, while the bench drops the file's pages, never in the clock; {@code nanoTime} for the clock.
 * {@code --inject=corrupt} (tests) changes one byte after pass 0's write: the read check fails, every time.
 * {@code --file} is created by writing zero pages (untimed; with {@code --preallocate=false} it must exist with
 * {@code --size} bytes) and deleted at the end, whatever happens. Comparisons: {@code data/fidelity/seqio.csv}.
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -cp build/mechsym.jar mechsym.io.SequentialIo --method=channel-heap --file=/tmp/seqio.dat --size=409600000
 *   java -cp build/mechsym.jar mechsym.io.SequentialIo --protocol=post --method=all --file=/tmp/seqio.dat ...
 * </pre>
 * {@code write_/read_duration} (ns), {@code write_/read_throughput} (MB/s) per pass. From the page cache the
 * channels and {@code random-access-file} read at several GB/s, {@code buffered-stream} several times slower;
 * with {@code --sync=true --evict=ask} (driven by the bench) every method sits near the device's speed.
 */
public final class SequentialIo {
    public static final int PAGE_SIZE = 4096;
    public static final int PAGE_SHIFT = 12;
    public static final long PAGE_MASK = PAGE_SIZE - 1;
    /** The largest page multiple a MappedByteBuffer can hold. */
    public static final long MAX_WINDOW = (Integer.MAX_VALUE / PAGE_SIZE) * (long) PAGE_SIZE;
    public static final List<String> METHODS =
        List.of("random-access-file", "buffered-stream", "channel-heap", "channel-direct", "mapped");
    /** {@code --method} also takes "all": the post's four cases in the post's order, in one JVM. */
    public static final List<String> METHOD_CHOICES =
        List.of("random-access-file", "buffered-stream", "channel-heap", "channel-direct", "mapped", "all");
    public static final List<String> PROTOCOLS = List.of("lab", "post");
    /** Fault injection for the tests: {@code corrupt} changes one byte of the file after pass 0's write. */
    public static final List<String> INJECTS = List.of("none", "corrupt");
    public static final List<String> EVICTS = List.of("none", "ask");
    public static final List<String> BOOLEANS = List.of("false", "true");
    private static final int[] PAGE_SUMS = pageSums();

    private SequentialIo() {
    }

    /** The kernel's defaults, for the Python bench (read through JPype). */
    public static String[] defaults() {
        return Defaults.of(Harness::run);
    }

    public static String[] methods() {
        return METHODS.toArray(new String[0]);
    }

    public static void main(final String[] argv) {
        Kernels.main("SequentialIo", argv, Harness::run);
    }

    // ---------------------------------------------------------------- the data

    /** The per-page salt: a hash of the page number and the pass's seed, 0..255. */
    static int salt(final long page, final long seed) {
        return (int) (((page + 1) * 0x9E3779B97F4A7C15L + seed * 0xC2B2AE3D27D4EB4FL) >>> 56);
    }

    private static int[] pageSums() {
        final int[] sums = new int[256];
        for (int s = 0; s < 256; s++) {
            int sum = 0;
            for (int k = 0; k < PAGE_SIZE; k++) {
                sum += (byte) ((k & 0x7F) + s);
            }
            sums[s] = sum;
        }
        return sums;
    }

    /** The int checksum (sum of the signed bytes, wrapping) of the whole file for {@code seed}. */
    public static int expectedChecksum(final long size, final long seed) {
        int sum = 0;
        final long pages = size >>> PAGE_SHIFT;
        for (long p = 0; p < pages; p++) {
            sum += PAGE_SUMS[salt(p, seed)];
        }
        return sum;
    }

    // ----------------------------------------------------------- the methods

    /**
     * Writes the whole pre-allocated file by {@code method}; returns the sum
     * of the bytes written. Public so that the Python bench can call it in
     * process through JPype.
     */
    public static int write(final String method, final Path file, final long size, final long seed,
                            final long window, final boolean sync) throws IOException {
        switch (method) {
            case "random-access-file": return writeRandomAccessFile(file, size, seed, sync);
            case "buffered-stream": return writeBufferedStream(file, size, seed, sync);
            case "channel-heap": return writeChannel(file, size, seed, sync, ByteBuffer.allocate(PAGE_SIZE));
            case "channel-direct": return writeChannel(file, size, seed, sync, ByteBuffer.allocateDirect(PAGE_SIZE));
            case "mapped": return writeMapped(file, size, seed, window, sync);
            default: throw new IllegalArgumentException("method '" + method + "': allowed " + String.join(", ", METHODS));
        }
    }

    /** Reads the whole file by {@code method}; returns the sum of the bytes read. */
    public static int read(final String method, final Path file, final long size, final long window)
            throws IOException {
        switch (method) {
            case "random-access-file": return readRandomAccessFile(file, size);
            case "buffered-stream": return readBufferedStream(file, size);
            case "channel-heap": return readChannel(file, size, ByteBuffer.allocate(PAGE_SIZE));
            case "channel-direct": return readChannel(file, size, ByteBuffer.allocateDirect(PAGE_SIZE));
            case "mapped": return readMapped(file, size, window);
            default: throw new IllegalArgumentException("method '" + method + "': allowed " + String.join(", ", METHODS));
        }
    }

    private static int writeRandomAccessFile(final Path file, final long size, final long seed, final boolean sync)
            throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            final byte[] buffer = new byte[PAGE_SIZE];
            int pos = 0;
            int checkSum = 0;
            int salt = 0;
            for (long i = 0; i < size; i++) {
                if ((i & PAGE_MASK) == 0) {
                    salt = salt(i >>> PAGE_SHIFT, seed);
                }
                final byte b = (byte) ((i & 0x7F) + salt);
                checkSum += b;
                buffer[pos++] = b;
                if (PAGE_SIZE == pos) {
                    f.write(buffer, 0, PAGE_SIZE);
                    pos = 0;
                }
            }
            if (sync) {
                f.getFD().sync();
            }
            return checkSum;
        }
    }

    private static int readRandomAccessFile(final Path file, final long size) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r")) {
            final byte[] buffer = new byte[PAGE_SIZE];
            int checkSum = 0;
            long total = 0;
            int bytesRead;
            while (-1 != (bytesRead = f.read(buffer))) {
                for (int i = 0; i < bytesRead; i++) {
                    checkSum += buffer[i];
                }
                total += bytesRead;
            }
            requireSize(total, size);
            return checkSum;
        }
    }

    private static int writeBufferedStream(final Path file, final long size, final long seed, final boolean sync)
            throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw");
             FileOutputStream fos = new FileOutputStream(f.getFD());
             OutputStream out = new BufferedOutputStream(fos)) {
            int checkSum = 0;
            int salt = 0;
            for (long i = 0; i < size; i++) {
                if ((i & PAGE_MASK) == 0) {
                    salt = salt(i >>> PAGE_SHIFT, seed);
                }
                final byte b = (byte) ((i & 0x7F) + salt);
                checkSum += b;
                out.write(b);
            }
            out.flush();
            if (sync) {
                fos.getFD().sync();
            }
            return checkSum;
        }
    }

    private static int readBufferedStream(final Path file, final long size) throws IOException {
        try (InputStream in = new BufferedInputStream(new FileInputStream(file.toFile()))) {
            int checkSum = 0;
            long total = 0;
            int b;
            while (-1 != (b = in.read())) {
                checkSum += (byte) b;
                total++;
            }
            requireSize(total, size);
            return checkSum;
        }
    }

    private static int writeChannel(final Path file, final long size, final long seed, final boolean sync,
                                    final ByteBuffer buffer) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw"); FileChannel channel = f.getChannel()) {
            int checkSum = 0;
            int salt = 0;
            for (long i = 0; i < size; i++) {
                if ((i & PAGE_MASK) == 0) {
                    salt = salt(i >>> PAGE_SHIFT, seed);
                }
                final byte b = (byte) ((i & 0x7F) + salt);
                checkSum += b;
                buffer.put(b);
                if (!buffer.hasRemaining()) {
                    buffer.flip();
                    while (buffer.hasRemaining()) {
                        channel.write(buffer);
                    }
                    buffer.clear();
                }
            }
            if (sync) {
                channel.force(false);
            }
            return checkSum;
        }
    }

    private static int readChannel(final Path file, final long size, final ByteBuffer buffer) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r"); FileChannel channel = f.getChannel()) {
            int checkSum = 0;
            long total = 0;
            while (-1 != channel.read(buffer)) {
                buffer.flip();
                total += buffer.remaining();
                while (buffer.hasRemaining()) {
                    checkSum += buffer.get();
                }
                buffer.clear();
            }
            requireSize(total, size);
            return checkSum;
        }
    }

    private static int writeMapped(final Path file, final long size, final long seed, final long window,
                                   final boolean sync) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw"); FileChannel channel = f.getChannel()) {
            MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_WRITE, 0, Math.min(size, window));
            int checkSum = 0;
            int salt = 0;
            for (long i = 0; i < size; i++) {
                if (!buffer.hasRemaining()) {
                    release(buffer, sync);
                    buffer = channel.map(FileChannel.MapMode.READ_WRITE, i, Math.min(size - i, window));
                }
                if ((i & PAGE_MASK) == 0) {
                    salt = salt(i >>> PAGE_SHIFT, seed);
                }
                final byte b = (byte) ((i & 0x7F) + salt);
                checkSum += b;
                buffer.put(b);
            }
            release(buffer, sync);
            return checkSum;
        }
    }

    private static int readMapped(final Path file, final long size, final long window) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "r"); FileChannel channel = f.getChannel()) {
            final long length = channel.size();
            requireSize(length, size);
            MappedByteBuffer buffer = channel.map(FileChannel.MapMode.READ_ONLY, 0, Math.min(length, window));
            int checkSum = 0;
            for (long i = 0; i < length; i++) {
                if (!buffer.hasRemaining()) {
                    release(buffer, false);
                    buffer = channel.map(FileChannel.MapMode.READ_ONLY, i, Math.min(length - i, window));
                }
                checkSum += buffer.get();
            }
            release(buffer, false);
            return checkSum;
        }
    }

    static void requireSize(final long actual, final long expected) {
        CheckFailed.require(actual == expected, "read " + actual + " bytes, the file has " + expected);
    }

    // ------------------------------------------------------------- unmapping

    private static final Object UNSAFE = unsafe();

    private static Object unsafe() {
        try {
            final Class<?> c = Class.forName("sun.misc.Unsafe");
            final Field f = c.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            return f.get(null);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** Forces (when asked) and unmaps a window now; falls back to the GC when Unsafe is not there. */
    private static void release(final MappedByteBuffer buffer, final boolean force) {
        if (force) {
            buffer.force();
        }
        unmap(buffer);
    }

    /** Unmaps a window now (it must not be used again); falls back to the GC when Unsafe is not there. */
    static void unmap(final MappedByteBuffer buffer) {
        if (UNSAFE != null) {
            try {
                UNSAFE.getClass().getMethod("invokeCleaner", ByteBuffer.class).invoke(UNSAFE, buffer);
            } catch (ReflectiveOperationException | RuntimeException e) {
                // leave it to the garbage collector (System.gc() runs before every phase)
            }
        }
    }
}
