package mechsym.bidding;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.PriorityBlockingQueue;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import mechsym.common.Args;
import mechsym.common.BadArgument;
import mechsym.common.CheckFailed;
import mechsym.common.Csv;
import mechsym.common.Defaults;
import mechsym.common.FirstFailure;
import mechsym.common.JitGc;
import mechsym.common.Kernels;
import mechsym.common.Threads;

/**
 * Clients bidding on items, one thread per client: a blocking bid container
 * against a lock-free one, in a small system with keepers and a factory.
 *
 * <p>The claims under test ("Lock vs no-lock bidding simulation", 2014-03, Chris Fabri): the no-lock container
 * (a ConcurrentLinkedQueue, the peak kept by CAS) is the fastest (2.6M+ bids/s), the mutex around a priority
 * queue the slowest (1.7M); every container peaks at 4 clients on the post's 4 cores; thread jitter (standard
 * deviation of the threads' completion times over their mean) stays within 0-6% while clients &lt;= cores,
 * highest for the no-lock container; a bid keeper presized to 1k+ is best.
 *
 * <p>The post prints no listing: this kernel follows its description. Each client thread bids
 * {@code --bids-per-item} times on every item, round after round: look the item up in the item keeper (a
 * ConcurrentHashMap), read its best bid, make a higher bid (the bid factory: ids per client), add it to the
 * item's container and put it into the bid keeper (a ConcurrentHashMap of initial capacity
 * {@code --map-capacity}). Containers ({@code --container}): {@code mutex-priority-queue} (the post's Impl1, a
 * PriorityBlockingQueue), {@code rw-lock-list} (Impl2, a read-write lock around a list, the best bid tracked
 * on insert), {@code cas-linked-queue} (Impl3, a ConcurrentLinkedQueue, the peak in an AtomicReference updated
 * by compareAndSet).
 *
 * <p>One simulation: the threads wait on a latch; the clock starts when it opens. Per simulation:
 * {@code duration}, {@code bids}, {@code bids_per_s}, {@code jitter} (0 for one client) and JIT/GC time
 * ({@link JitGc}). {@code --gc-between-runs=true} calls System.gc() before each simulation, outside the clock,
 * as the post did. Protocols: {@code post}, one simulation per item count of {@code --items}, ascending, no
 * warm-up (the post's sweep); {@code lab}, per item count warm-up runs then measured runs.
 *
 * <p>Checks after every simulation: each item's best bid is the highest the keeper holds for it; the
 * containers and the keeper hold every bid; else exit 3, no number. {@code --inject=drop-bid} (tests): the
 * first client's first bid never reaches the keeper: the check fails every time.
 *
 * <p>How to run and what you should see:
 * <pre>
 *   java -cp build/mechsym.jar mechsym.bidding.BiddingSimulation --container=cas-linked-queue --clients=2 \
 *        --items=1,4,16,32 --protocol=post
 * </pre>
 * Millions of bids per second, rising with the item count, the priority queue the slowest.
 */
public final class BiddingSimulation {
    public static final List<String> CONTAINERS = List.of("mutex-priority-queue", "rw-lock-list", "cas-linked-queue");
    public static final List<String> PROTOCOLS = List.of("lab", "post");
    /** Fault injection for the tests: {@code drop-bid} keeps the first client's first bid out of the keeper. */
    public static final List<String> INJECTS = List.of("none", "drop-bid");
    private static final String NAME = "BiddingSimulation";
    private static final int MAX_ITEMS = 100_000;

    private BiddingSimulation() {
    }

    /** The kernel's defaults, for the Python bench (read through JPype). */
    public static String[] defaults() {
        return Defaults.of(BiddingSimulation::run);
    }

    public static String[] containers() {
        return CONTAINERS.toArray(new String[0]);
    }

    public static void main(final String[] argv) {
        Kernels.main(NAME, argv, BiddingSimulation::run);
    }

    // ------------------------------------------------------------------ the system

    /** A bid of one client on one item. */
    record Bid(long id, int client, int item, long price) {
    }

    /** What an item keeps its bids in: the best bid on demand, thread-safe. */
    interface BidContainer {
        Bid best();

        void add(Bid bid);

        /** Every bid held (after the run, for the checks). */
        List<Bid> bids();
    }

    private static final Comparator<Bid> HIGHEST_FIRST = Comparator.comparingLong(Bid::price).reversed();

    /** Impl1: one lock for reads and writes, bids ordered on insert (log k). */
    static final class MutexPriorityQueue implements BidContainer {
        private final PriorityBlockingQueue<Bid> bids = new PriorityBlockingQueue<>(11, HIGHEST_FIRST);

        public Bid best() {
            return bids.peek();
        }

        public void add(final Bid bid) {
            bids.add(bid);
        }

        public List<Bid> bids() {
            return new ArrayList<>(bids);
        }
    }

    /** Impl2: a read/write lock around a list; the best bid tracked on insert. */
    static final class RwLockList implements BidContainer {
        private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
        private final List<Bid> bids = new ArrayList<>();
        private Bid best;

        public Bid best() {
            lock.readLock().lock();
            try {
                return best;
            } finally {
                lock.readLock().unlock();
            }
        }

        public void add(final Bid bid) {
            lock.writeLock().lock();
            try {
                bids.add(bid);
                if (best == null || bid.price() > best.price()) {
                    best = bid;
                }
            } finally {
                lock.writeLock().unlock();
            }
        }

        public List<Bid> bids() {
            return new ArrayList<>(bids);
        }
    }

    /** Impl3: no lock: a lock-free queue, the peak raised by compareAndSet until it is at least this bid. */
    static final class CasLinkedQueue implements BidContainer {
        private final ConcurrentLinkedQueue<Bid> bids = new ConcurrentLinkedQueue<>();
        private final AtomicReference<Bid> peak = new AtomicReference<>();

        public Bid best() {
            return peak.get();
        }

        public void add(final Bid bid) {
            bids.add(bid);
            Bid current = peak.get();
            while ((current == null || bid.price() > current.price()) && !peak.compareAndSet(current, bid)) {
                current = peak.get();
            }
        }

        public List<Bid> bids() {
            return new ArrayList<>(bids);
        }
    }

    /** An item to bid on, holding its bids. */
    record Item(int id, BidContainer bids) {
    }

    private static BidContainer container(final String name) {
        return switch (name) {
            case "mutex-priority-queue" -> new MutexPriorityQueue();
            case "rw-lock-list" -> new RwLockList();
            default -> new CasLinkedQueue();
        };
    }

    /** One simulation's system: the item keeper and the bid keeper. */
    private static final class Market {
        final ConcurrentHashMap<Integer, Item> items = new ConcurrentHashMap<>();
        final ConcurrentHashMap<Long, Bid> bidKeeper;

        Market(final String container, final int itemCount, final int mapCapacity) {
            bidKeeper = new ConcurrentHashMap<>(mapCapacity);
            for (int i = 0; i < itemCount; i++) {
                items.put(i, new Item(i, container(container)));
            }
        }
    }

    /**
     * One client's bidding: {@code rounds} rounds over every item; each bid reads the item's best and bids above
     * it. The bid factory gives ids per client (client in the high bits), so no counter is shared.
     */
    private static void bid(final Market market, final int client, final int itemCount, final int rounds,
                            final boolean dropFirst) {
        long seq = 0;
        for (int r = 0; r < rounds; r++) {
            for (int i = 0; i < itemCount; i++) {
                final Item item = market.items.get(i);
                final Bid best = item.bids().best();
                final long price = (best == null ? 0 : best.price()) + 1 + ((seq * 31 + client) & 7);
                final Bid bid = new Bid(((long) client << 40) | seq, client, i, price);
                item.bids().add(bid);
                if (!(dropFirst && seq == 0)) {
                    market.bidKeeper.put(bid.id(), bid);
                }
                seq++;
            }
        }
    }

    // ------------------------------------------------------------------ the kernel

    private static void run(final Args args) throws Exception {
        final String protocol = args.choice("protocol", "lab", PROTOCOLS);
        final String container = args.choice("container", "cas-linked-queue", CONTAINERS);
        final int clients = args.intValue("clients", 4, 1, 1024);
        final int[] itemCounts = itemList(args.string("items", "45"));
        final int rounds = args.intValue("bids-per-item", 1000, 1, 1_000_000);
        final int mapCapacity = args.intValue("map-capacity", 16, 1, 1 << 28);
        final boolean post = protocol.equals("post");
        final int runs = args.intValue("runs", post ? 1 : 5, 1, 1_000_000);
        final int warmupRuns = args.intValue("warmup-runs", post ? 0 : 2, 0, 1_000_000);
        final boolean gcBetween = args.choice("gc-between-runs", post ? "true" : "false", List.of("true", "false"))
            .equals("true");
        final String inject = args.choice("inject", "none", INJECTS);
        args.finish();
        if (post && (runs != 1 || warmupRuns != 0)) {
            throw new BadArgument("--runs=" + runs + " --warmup-runs=" + warmupRuns + ": the post protocol runs one "
                                  + "simulation per item count and warms nothing up; give 1 and 0 or use "
                                  + "--protocol=lab");
        }
        final long total = (long) clients * rounds * Arrays.stream(itemCounts).max().getAsInt();
        if (total > 200_000_000L) {
            throw new BadArgument("--clients x --items x --bids-per-item = " + total + ": at most 200000000 bids "
                                  + "per simulation (the heap holds every bid)");
        }

        JitGc.open();
        final Csv csv = new Csv("items");
        int iteration = 0;
        for (final int items : itemCounts) {
            for (int r = 0; r < warmupRuns + runs; r++) {
                if (gcBetween) {
                    System.gc();
                }
                final Result res = simulate(container, clients, items, rounds, mapCapacity, inject.equals("drop-bid"));
                final boolean warmup = r < warmupRuns;
                final List<String> extra = List.of(Integer.toString(items));
                final long bids = (long) clients * items * rounds;
                csv.row(extra, iteration, warmup, "duration", res.duration, "ns");
                res.jitGc.rows(csv, extra, iteration, warmup);
                csv.row(extra, iteration, warmup, "bids", bids, "count");
                csv.row(extra, iteration, warmup, "bids_per_s", bids * 1e9 / res.duration, "bids/s");
                csv.row(extra, iteration, warmup, "jitter", res.jitter, "ratio");
                // gc_count and gc_ms under the names the bidding tables (and runs stored before them) read
                csv.row(extra, iteration, warmup, "gc_events", res.jitGc.gcCount(), "count");
                csv.row(extra, iteration, warmup, "gc_pause_ms", res.jitGc.gcMs(), "ms");
                iteration++;
            }
        }
        csv.flush(System.out);
    }

    /** The item counts, ascending: a comma-separated list of whole numbers. */
    private static int[] itemList(final String spec) {
        final String[] parts = spec.split(",", -1);
        final int[] out = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                out[i] = Integer.parseInt(parts[i].strip());
            } catch (NumberFormatException e) {
                throw new BadArgument("--items=" + spec + ": not a list of whole numbers (allowed: ascending counts "
                                      + "1.." + MAX_ITEMS + ", comma-separated)");
            }
            if (out[i] < 1 || out[i] > MAX_ITEMS || i > 0 && out[i] <= out[i - 1]) {
                throw new BadArgument("--items=" + spec + ": allowed: ascending counts 1.." + MAX_ITEMS
                                      + ", comma-separated");
            }
        }
        return out;
    }

    private record Result(long duration, double jitter, JitGc jitGc) {
    }

    /** One timed simulation, its checks after the clock, and the GC work it saw. */
    private static Result simulate(final String container, final int clients, final int items, final int rounds,
                                   final int mapCapacity, final boolean dropBid) throws Exception {
        final Market market = new Market(container, items, mapCapacity);
        final FirstFailure failure = new FirstFailure();
        final CountDownLatch ready = new CountDownLatch(clients);
        final CountDownLatch go = new CountDownLatch(1);
        final long[] finished = new long[clients];
        final JitGc jitGc = new JitGc();
        final Thread[] threads = new Thread[clients];
        for (int c = 0; c < clients; c++) {
            final int client = c;
            threads[c] = Threads.worker("client-" + c, -1, failure, () -> {
                ready.countDown();
                go.await();
                bid(market, client, items, rounds, dropBid && client == 0);
                finished[client] = System.nanoTime();
            }, ready::countDown);
        }
        for (final Thread t : threads) {
            t.start();
        }
        ready.await();
        jitGc.start();
        final long start = System.nanoTime();
        go.countDown();
        for (final Thread t : threads) {
            t.join();
        }
        jitGc.stop();   // at the last join: a little after the last client's finish, where the duration ends
        failure.rethrow("client thread");
        long last = start;
        final double[] times = new double[clients];
        for (int c = 0; c < clients; c++) {
            last = Math.max(last, finished[c]);
            times[c] = finished[c] - start;
        }
        check(market, clients, items, rounds);
        return new Result(last - start, jitter(times), jitGc);
    }

    /** Population standard deviation over mean (0 for one thread). */
    private static double jitter(final double[] times) {
        final double mean = Arrays.stream(times).average().orElse(0);
        final double var = Arrays.stream(times).map(t -> (t - mean) * (t - mean)).sum() / times.length;
        return mean > 0 ? Math.sqrt(var) / mean : 0;
    }

    private static void check(final Market market, final int clients, final int items, final int rounds) {
        final long expected = (long) clients * items * rounds;
        CheckFailed.require(market.bidKeeper.size() == expected, "bid keeper holds " + market.bidKeeper.size()
                            + " bids, expected clients x items x bids-per-item = " + expected);
        final long[] highest = new long[items];
        for (final Bid b : market.bidKeeper.values()) {
            highest[b.item()] = Math.max(highest[b.item()], b.price());
        }
        for (int i = 0; i < items; i++) {
            final BidContainer bids = market.items.get(i).bids();
            final Bid best = bids.best();
            final int held = bids.bids().size();
            CheckFailed.require(held == (long) clients * rounds, "item " + i + " holds " + held + " bids, expected "
                                + (long) clients * rounds);
            CheckFailed.require(best != null && best.price() == highest[i], "item " + i + ": best bid "
                                + (best == null ? "none" : best.price()) + " but the highest bid on it is "
                                + highest[i]);
        }
    }
}
