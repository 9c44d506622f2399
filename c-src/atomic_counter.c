/*
 * atomic_counter: N threads increment one shared counter with GCC atomic
 * builtins; the C side of "Adventures with AtomicLong" (Martin Thompson,
 * 2011-09-11), measured beside the Java kernel mechsym.atomic.AtomicIncrement
 * with the same arguments and output.
 *
 * The claims under test: LOCK XADD greatly outperforms a CAS loop (LOCK
 * CMPXCHG) under contention and stops degrading past 3 threads, the CAS loop
 * keeps degrading; LOCK ADD and LOCK XADD cost about the same; C's CAS and
 * Java's are comparable.
 *
 * Variants (--variant), the listing's three thread functions:
 *   xadd: while (value < COUNT) value = __sync_add_and_fetch(&counter, 1);
 *     the result is used, so gcc emits `lock xadd` (run_xadd).
 *   add: each thread COUNT / N times __sync_add_and_fetch(&counter, 1), the
 *     result unused: `lock addq $1` (run_add, which the listing's main runs).
 *   cas: while (value < COUNT) { do value = counter; while (CAS fails); }
 *     (run_cas; __sync_val_compare_and_swap, the same `lock cmpxchg` as the
 *     listing's __sync_bool_...); it stops one increment later than xadd, so
 *     the counter ends at COUNT + up to N.
 * `gcc -O2 -S c-src/atomic_counter.c` shows the three instructions.
 *
 * Protocols (--protocol): post times each run as the listing did, from
 * before pthread_create to after the joins, one run per process by default;
 * lab creates the threads outside the clock, releases them from a barrier,
 * and runs warm-up runs (warmup=true) then measured runs, fresh threads each.
 * CLOCK_MONOTONIC in both, as the listing.
 * Deliberate differences from the listing: COUNT and N are arguments; gcc
 * -O2 as C, not g++; each thread counts its own successful increments in a
 * register, and after the clock the counter must equal their sum and have
 * reached COUNT (add: equal N x (COUNT / N)), else exit 3 and no number.
 * --inject=skip (tests): in the first run thread 0 adds 2 in one operation
 * and counts one: exit 3, every time. Comparisons with the listing:
 * data/fidelity/atomiclong.csv.
 *
 * How to run and what you should see:
 *   build/c/atomic_counter --variant=cas --threads=2 --count=50000000
 * a few ns per increment on one thread; tens of ns on two CPUs, cas behind
 * xadd and add.
 */
#define _GNU_SOURCE
#define KERNEL_NAME "atomic_counter"
#include "kernel.h"

enum variant { XADD, ADD, CAS };
static const char *const variant_names[] = {"xadd", "add", "cas"};

volatile uint64_t counter = 0;

static struct {
    int post;
    enum variant variant;
    int threads;
    uint64_t count;
    int runs;
    int warmup_runs;
    int inject_skip;
} cfg = {1, XADD, 1, 500000000ULL, 1, 0, 0};

struct worker {
    pthread_t thread;
    int skip;
    uint64_t increments;
    char pad[64];
};

static pthread_barrier_t ready, go;

static void parse_args(int argc, char **argv) {
    static const char *const protocols[] = {"lab", "post"};
    static const char *const injects[] = {"none", "skip"};
    const char *known = "protocol, variant, threads, count, runs, warmup-runs, inject";
    const char *count_arg = NULL;
    for (int i = 1; i < argc; i++) {
        const struct kernel_arg a = kernel_arg(argv, i, known);
        if (arg_is(&a, "protocol")) {
            cfg.post = arg_choice(&a, protocols, 2);
        } else if (arg_is(&a, "variant")) {
            cfg.variant = (enum variant)arg_choice(&a, variant_names, 3);
        } else if (arg_is(&a, "threads")) {
            cfg.threads = (int)arg_u64(&a, 1, 1024);
        } else if (arg_is(&a, "count")) {
            count_arg = a.value;
        } else if (arg_is(&a, "runs")) {
            cfg.runs = (int)arg_u64(&a, 1, 1000000);
        } else if (arg_is(&a, "warmup-runs")) {
            cfg.warmup_runs = (int)arg_u64(&a, 0, 1000000);
        } else if (arg_is(&a, "inject")) {
            cfg.inject_skip = arg_choice(&a, injects, 2);
        } else {
            unknown_argument(&a, known);
        }
    }
    if (count_arg != NULL) {  /* read last: its lower bound is the thread count */
        cfg.count = parse_u64("count", count_arg, (uint64_t)cfg.threads, UINT64_MAX / 4);
    }
}

/* The listing's run_xadd: the returned value is used, so this is LOCK XADD. */
static uint64_t xadd_loop(uint64_t value) {
    uint64_t n = 0;
    while (value < cfg.count) {
        value = __sync_add_and_fetch(&counter, 1);
        n++;
    }
    return n;
}

/* The listing's run_add: the result is unused, so this is LOCK ADD. */
static uint64_t add_loop(uint64_t increments) {
    for (uint64_t k = increments; k != 0; k--) {
        __sync_add_and_fetch(&counter, 1);
    }
    return increments;
}

/* The listing's run_cas: read, then LOCK CMPXCHG, retried until it succeeds. */
static uint64_t cas_loop(uint64_t value) {
    uint64_t n = 0;
    while (value < cfg.count) {
        do {
            value = counter;
        } while (__sync_val_compare_and_swap(&counter, value, value + 1) != value);
        n++;
    }
    return n;
}

static void *worker_main(void *arg) {
    struct worker *w = arg;
    if (!cfg.post) {
        pthread_barrier_wait(&ready);
        pthread_barrier_wait(&go);
    }
    uint64_t first = 0, skipped = 0;
    if (w->skip) {  /* the injected fault: +2 in one operation, counted as one increment */
        if (cfg.variant == CAS) {
            do {
                first = counter;
            } while (__sync_val_compare_and_swap(&counter, first, first + 2) != first);
            first += 2;
        } else {
            first = __sync_add_and_fetch(&counter, 2);
        }
        skipped = 1;
    }
    switch (cfg.variant) {
    case XADD:
        w->increments = skipped + xadd_loop(first);
        break;
    case ADD:
        w->increments = skipped + add_loop(cfg.count / (uint64_t)cfg.threads - skipped);
        break;
    case CAS:
        w->increments = skipped + cas_loop(first);
        break;
    }
    return NULL;
}

/* One run; returns its duration in ns. */
static uint64_t measure(struct worker *workers, int skip) {
    counter = 0;
    __sync_synchronize();
    if (!cfg.post) {
        pthread_barrier_init(&ready, NULL, (unsigned)cfg.threads + 1);
        pthread_barrier_init(&go, NULL, (unsigned)cfg.threads + 1);
    }
    const uint64_t start = now_ns();
    for (int t = 0; t < cfg.threads; t++) {
        workers[t].skip = skip && t == 0;
        workers[t].increments = 0;
        if (pthread_create(&workers[t].thread, NULL, worker_main, &workers[t]) != 0) {
            fprintf(stderr, "atomic_counter: error: cannot create thread %d\n", t);
            exit(1);
        }
    }
    uint64_t begin = start;
    if (!cfg.post) {
        /* the clock is read before the threads are released: read after, it could miss the whole run when this
           thread loses its CPU to the workers (more threads than CPUs) */
        pthread_barrier_wait(&ready);
        begin = now_ns();
        pthread_barrier_wait(&go);
    }
    for (int t = 0; t < cfg.threads; t++) {
        pthread_join(workers[t].thread, NULL);
    }
    const uint64_t duration = now_ns() - begin;
    if (!cfg.post) {
        pthread_barrier_destroy(&ready);
        pthread_barrier_destroy(&go);
    }
    return duration;
}

static void row_u(int it, int warm, const char *metric, uint64_t v, const char *unit) {
    printf("none,%d,%s,%s,%" PRIu64 ",%s\n", it, warm ? "true" : "false", metric, v, unit);
}

static void row_d(int it, int warm, const char *metric, double v, const char *unit) {
    printf("none,%d,%s,%s,%.6g,%s\n", it, warm ? "true" : "false", metric, v, unit);
}

int main(int argc, char **argv) {
    parse_args(argc, argv);
    const int total = cfg.warmup_runs + cfg.runs;
    struct worker *workers = calloc((size_t)cfg.threads, sizeof *workers);
    uint64_t *durations = calloc((size_t)total, sizeof *durations);
    uint64_t *finals = calloc((size_t)total, sizeof *finals);
    if (workers == NULL || durations == NULL || finals == NULL) {
        fprintf(stderr, "atomic_counter: error: out of memory\n");
        return 1;
    }
    for (int r = 0; r < total; r++) {
        durations[r] = measure(workers, cfg.inject_skip && r == 0);
        /* the checks, after the timed region */
        uint64_t sum = 0;
        for (int t = 0; t < cfg.threads; t++) {
            sum += workers[t].increments;
        }
        const uint64_t n = (uint64_t)cfg.threads;
        const uint64_t final = counter;
        const int reached = cfg.variant == ADD ? final == n * (cfg.count / n)
                                               : final >= cfg.count && final <= cfg.count + n;
        if (final != sum || !reached) {
            fprintf(stderr, "atomic_counter: CHECK FAILED: run %d: %s counter = %" PRIu64 ", the threads counted %"
                    PRIu64 " increments, total asked %" PRIu64 "\n", r, variant_names[cfg.variant], final, sum,
                    cfg.count);
            return 3;
        }
        finals[r] = final;
    }
    printf("pinning,iteration,warmup,metric,value,unit\n");
    for (int r = 0; r < total; r++) {
        const int warm = r < cfg.warmup_runs;
        row_u(r, warm, "duration", durations[r], "ns");
        row_u(r, warm, "increments", finals[r], "count");
        row_d(r, warm, "ns_per_op", (double)durations[r] / (double)finals[r], "ns/op");
        row_d(r, warm, "throughput", (double)finals[r] * 1e9 / (double)durations[r], "ops/s");
    }
    fflush(stdout);
    return 0;
}
