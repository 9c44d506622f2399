package mechsym.io;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import mechsym.common.Args;
import mechsym.common.BadArgument;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.JitGc;

/**
 * {@link SequentialIo}'s harness: its arguments, the scratch file (created,
 * pre-allocated, deleted), the passes of either protocol with their clocks,
 * checks, eviction pauses and injected fault, and the rows. The timed IO is
 * SequentialIo's methods (lab) or {@link PostCases} (post).
 */
final class Harness {
    private static final int PAGE_SIZE = SequentialIo.PAGE_SIZE;

    private Harness() {
    }

    static void run(final Args args) throws Exception {
        final String protocol = args.choice("protocol", "lab", SequentialIo.PROTOCOLS);
        final boolean post = protocol.equals("post");
        final String method = args.choice("method", "random-access-file", SequentialIo.METHOD_CHOICES);
        final String fileArg = args.string("file", null);
        final long size = args.longValue("size", 409_600_000L, PAGE_SIZE, Long.MAX_VALUE / 2);
        final int passes = args.intValue("passes", 5, 1, 1000);
        final int warmupPasses = args.intValue("warmup-passes", 1, 0, 1000);
        final boolean sync = Boolean.parseBoolean(args.choice("sync", "false", SequentialIo.BOOLEANS));
        final String evict = args.choice("evict", "none", SequentialIo.EVICTS);
        final boolean windowGiven = args.has("window");
        final long window = args.longValue("window", post ? Integer.MAX_VALUE : SequentialIo.MAX_WINDOW, PAGE_SIZE,
                                           SequentialIo.MAX_WINDOW);
        final boolean preallocate = Boolean.parseBoolean(args.choice("preallocate", "true", SequentialIo.BOOLEANS));
        final long seed = args.longValue("seed", 1, 0, Integer.MAX_VALUE);
        final boolean corrupt = args.choice("inject", "none", SequentialIo.INJECTS).equals("corrupt");
        args.finish();
        if (post && !method.equals("all") && !PostCases.ORDER.contains(method)) {
            throw new BadArgument("--method=" + method + ": not one of the post's cases; with --protocol=post allowed "
                + "values are " + String.join(", ", PostCases.ORDER) + ", all");
        }
        if (fileArg == null || fileArg.isEmpty()) {
            throw new BadArgument("--file: required (the scratch file to write and read, e.g. --file=/tmp/seqio.dat)");
        }
        if (size % PAGE_SIZE != 0) {
            throw new BadArgument("--size=" + size + ": must be a multiple of the page size " + PAGE_SIZE);
        }
        if (windowGiven && window % PAGE_SIZE != 0) {
            throw new BadArgument("--window=" + window + ": must be a multiple of the page size " + PAGE_SIZE);
        }
        final Path file = Path.of(fileArg).toAbsolutePath();
        final Path dir = file.getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw new BadArgument("--file=" + fileArg + ": its directory does not exist");
        }
        if (preallocate && Files.exists(file)) {
            throw new BadArgument("--file=" + fileArg + ": already exists; the kernel only creates (and later deletes) "
                + "a file of its own, or reuses one with --preallocate=false");
        }
        if (!preallocate && (!Files.isRegularFile(file) || Files.size(file) != size)) {
            throw new BadArgument("--file=" + fileArg + ": with --preallocate=false it must be an existing file of exactly "
                + size + " bytes");
        }
        if (preallocate) {
            final long free = Files.getFileStore(dir).getUsableSpace();
            final long margin = Math.max(256L << 20, size / 20);
            if (free < size + margin) {
                throw new BadArgument("--size=" + size + ": needs " + (size + margin) + " bytes free in " + dir
                    + " (file + margin), only " + free + " free");
            }
        }

        final BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        final Csv csv = new Csv("method", "sync", "evict", "size_bytes");
        final Phases phases = new Phases(file, size, passes, warmupPasses, sync, evict, stdin, csv, corrupt);
        boolean created = false;
        try {
            if (preallocate) {
                created = true;
                // Ctrl-C skips finally blocks but runs shutdown hooks.
                Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                    try {
                        Files.deleteIfExists(file);
                    } catch (IOException e) {
                        System.err.println("SequentialIo: could not delete " + file + ": " + e.getMessage());
                    }
                }, "seqio-cleanup"));
                preallocate(file, size, !post);
            }
            JitGc.open();
            if (post) {
                runPost(phases, method, window);
            } else {
                for (final String m : method.equals("all") ? PostCases.ORDER : List.of(method)) {
                    runLab(phases, m, seed, window);
                }
            }
        } finally {
            if (created) {
                Files.deleteIfExists(file);
            }
        }
        csv.flush(System.out);
    }

    /** What every pass of either protocol shares: the file, the passes, the regime, the output. */
    private static final class Phases {
        final Path file;
        final long size;
        final int passes;
        final int warmupPasses;
        final boolean sync;
        final String evict;
        final BufferedReader stdin;
        final Csv csv;
        final boolean corrupt;
        /** The JIT and GC time inside the current pass's write and read clocks. */
        final JitGc writeJitGc = new JitGc();
        final JitGc readJitGc = new JitGc();

        Phases(final Path file, final long size, final int passes, final int warmupPasses, final boolean sync,
               final String evict, final BufferedReader stdin, final Csv csv, final boolean corrupt) {
            this.file = file;
            this.size = size;
            this.passes = passes;
            this.warmupPasses = warmupPasses;
            this.sync = sync;
            this.evict = evict;
            this.stdin = stdin;
            this.csv = csv;
            this.corrupt = corrupt;
        }

        /** The injected fault (untimed, after pass 0's write): one byte of the file made different. */
        void afterWrite(final int pass) throws IOException {
            if (corrupt && pass == 0) {
                corruptOneByte(file, size);
            }
        }

        void rows(final String method, final int pass, final long writeNs, final long readNs) {
            final List<String> extra = List.of(method, Boolean.toString(sync), evict, Long.toString(size));
            final boolean warm = pass < warmupPasses;
            csv.row(extra, pass, warm, "write_duration", writeNs, "ns");
            writeJitGc.rows(csv, extra, pass, warm, "write");
            csv.row(extra, pass, warm, "write_throughput", size * 1e3 / writeNs, "MB/s");
            csv.row(extra, pass, warm, "read_duration", readNs, "ns");
            readJitGc.rows(csv, extra, pass, warm, "read");
            csv.row(extra, pass, warm, "read_throughput", size * 1e3 / readNs, "MB/s");
        }
    }

    /** The lab protocol for one method: every pass writes a pattern of its own, checked after each timed phase. */
    private static void runLab(final Phases ph, final String method, final long seed, final long window)
            throws IOException {
        long previous = Long.MIN_VALUE;
        long passSeed = seed;
        for (int pass = 0; pass < ph.passes; pass++) {
            // A pass whose expected checksum equals the previous pass's could
            // not tell stale data from fresh: move the seed on until it differs.
            while (SequentialIo.expectedChecksum(ph.size, passSeed) == previous) {
                passSeed++;
            }
            final int expected = SequentialIo.expectedChecksum(ph.size, passSeed);
            previous = expected;

            awaitEviction(ph, "write", pass, method);
            System.gc();
            ph.writeJitGc.start();
            long start = System.nanoTime();
            final int written = SequentialIo.write(method, ph.file, ph.size, passSeed, window, ph.sync);
            final long writeNs = System.nanoTime() - start;
            ph.writeJitGc.stop();
            CheckFailed.require(written == expected, method + " pass " + pass + ": checksum written " + written
                + " differs from the pattern's " + expected);
            ph.afterWrite(pass);

            awaitEviction(ph, "read", pass, method);
            System.gc();
            ph.readJitGc.start();
            start = System.nanoTime();
            final int read = SequentialIo.read(method, ph.file, ph.size, window);
            final long readNs = System.nanoTime() - start;
            ph.readJitGc.stop();
            CheckFailed.require(read == expected, method + " pass " + pass + ": checksum read " + read
                + " differs from the one written " + expected);

            ph.rows(method, pass, writeNs, readNs);
            passSeed++;
        }
    }

    /**
     * The post protocol ({@link PostCases}): the listing's cases, in its order when {@code method} is "all",
     * five passes each in one JVM; each case's {@code test} is the timed region.
     */
    private static void runPost(final Phases ph, final String method, final long window) throws IOException {
        PostCases.configure(ph.size);
        final int expected = PostCases.expectedChecksum(ph.size);
        final String fileName = ph.file.toString();
        for (final PostCases.Case c : PostCases.cases(method, ph.sync, window, ph.evict.equals("ask"))) {
            for (int pass = 0; pass < ph.passes; pass++) {
                awaitEviction(ph, "write", pass, c.getName());
                System.gc();
                ph.writeJitGc.start();   // around the listing's test(), which holds the clock
                final long writeNs = c.test(PostCases.Case.Type.WRITE, fileName);
                ph.writeJitGc.stop();
                c.unmapKept();
                CheckFailed.require(c.writtenChecksum() == expected, c.getName() + " pass " + pass
                    + ": checksum written " + c.writtenChecksum() + " differs from the pattern's " + expected);
                ph.afterWrite(pass);

                awaitEviction(ph, "read", pass, c.getName());
                System.gc();
                ph.readJitGc.start();
                final long readNs = c.test(PostCases.Case.Type.READ, fileName);   // checks read == written, as the post
                ph.readJitGc.stop();
                c.unmapKept();
                SequentialIo.requireSize(Files.size(ph.file), ph.size);

                ph.rows(c.getName(), pass, writeNs, readNs);
            }
        }
    }

    /** Makes one byte in the middle of the file different from what was written, so every checksum must differ. */
    static void corruptOneByte(final Path file, final long size) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            final long at = size / 2 + 123;
            f.seek(at);
            final int b = f.read();
            f.seek(at);
            f.write((b + 1) & 0xFF);
        }
    }

    /** Waits for the driver to evict the file's pages (see {@link SequentialIo}'s class comment). */
    private static void awaitEviction(final Phases ph, final String phase, final int pass, final String method)
            throws IOException {
        if (!ph.evict.equals("ask")) {
            return;
        }
        System.err.println("seqio: evict before " + phase + " pass " + pass + " method " + method);
        System.err.flush();
        final String reply = ph.stdin.readLine();
        if (reply == null) {
            throw new IllegalStateException("--evict=ask: stdin closed before the driver confirmed the eviction");
        }
    }

    /**
     * Zero pages, as the post's preallocateTestFile; with {@code sync} (the lab) then synced so the blocks exist on
     * the device, without it (the post) left to the kernel's writeback, as the post did.
     */
    static void preallocate(final Path file, final long size, final boolean sync) throws IOException {
        final byte[] blank = new byte[PAGE_SIZE];
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            for (long i = 0; i < size; i += PAGE_SIZE) {
                f.write(blank, 0, PAGE_SIZE);
            }
            if (sync) {
                f.getFD().sync();
            }
        }
    }
}
