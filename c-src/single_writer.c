/*
 * single_writer: incrementing one 64-bit counter, by one thread or two, with
 * nothing, a memory barrier, a CAS or a mutex; the C side of "Single Writer
 * Principle" (Martin Thompson, 2011-09-22) and of "Memory Barriers/Fences"
 * (2011-07-24), measured beside mechsym.singlewriter.CounterCost with the same
 * arguments and output.
 *
 * The claim under test: incrementing a 64-bit counter 500 million times takes
 * 300 ms with one thread and 118,000 ms with two threads taking a lock (2.4 GHz
 * Westmere): contention, not the instruction, is the big cost. The post prints
 * no code; each method is written from its row's name.
 *
 * Methods (--method), each a loop of --iterations increments in total:
 *   plain           "One Thread": the counter in a register, stored to a
 *                   volatile global after every increment (a plain mov), so
 *                   gcc cannot fold the loop.
 *   plain-foldable  beside it: counter++ on a plain global, which gcc folds.
 *   barrier         "with Memory Barrier": __atomic_store_n(SEQ_CST), an xchg
 *                   (gcc 12), locked as the JIT's volatile store's lock addl.
 *   cas             "with CAS": __sync_val_compare_and_swap until it succeeds.
 *   lock            "with Lock": pthread_mutex_lock, counter++, unlock.
 *   release         __atomic_store_n(RELEASE): a plain mov.
 *   sfence, lfence, mfence   plain with the 2011-07-24 post's barrier after
 *                   each store. --threads=2 is for cas and lock only.
 *
 * Protocols (--protocol): post, one thread on main, two threads started and
 * joined inside the clock, no warm-up; lab (the default), warm-up runs then
 * --runs measured runs, two threads released by a barrier after the clock
 * starts. After the clock the counter must equal the iteration count, else
 * exit 3 and no number. --pin=a[,b] pins each thread to its CPU.
 * --inject=lose-one (tests): thread 0's share is one short: exit 3, always.
 *
 * How to run and what you should see:
 *   build/c/single_writer --method=plain --iterations=500000000
 *   build/c/single_writer --method=lock --threads=2 --pin=0,1 --iterations=50000000
 * per run duration (ns), increments and ns_per_op: ~0.3 ns per increment for
 * plain, ~0 for plain-foldable, tens of ns for barrier/mfence, cas, lock, and
 * more with two threads.
 */
#define _GNU_SOURCE
#define KERNEL_NAME "single_writer"
#include "kernel.h"
#include <unistd.h>

static const char *const METHODS[] = {"plain", "plain-foldable", "barrier", "cas", "lock", "release",
                                      "sfence", "lfence", "mfence"};
enum { PLAIN, PLAIN_FOLDABLE, BARRIER, CAS, LOCK, RELEASE, SFENCE, LFENCE, MFENCE, NMETHODS };

static struct {
    int method, threads, post, runs, warmup_runs, pinned, lose_one, runs_given, warmup_given;
    uint64_t iterations;
    int pin[2];
} cfg = {PLAIN, 1, 0, 5, 2, 0, 0, 0, 0, 500000000ULL, {-1, -1}};

static volatile uint64_t volatile_counter;
static uint64_t plain_counter;
static uint64_t atomic_counter;
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t ready, go;

/* One CPU id of --pin: one this machine has. */
static int parse_cpu(const char *text) {
    long n = sysconf(_SC_NPROCESSORS_CONF);
    return (int)parse_u64("pin", text, 0, n > 0 ? (uint64_t)n - 1 : 0);
}

static void parse_pin(const char *arg, const char *value) {
    if (value[0] == '\0') {
        return;
    }
    char buf[64];
    if (strlen(value) >= sizeof buf) {
        bad_argument("%s: expected one or two CPU ids such as 0,1", arg);
    }
    strcpy(buf, value);
    char *comma = strchr(buf, ',');
    if (comma != NULL) {
        *comma = '\0';
        cfg.pin[1] = parse_cpu(comma + 1);
    }
    cfg.pin[0] = parse_cpu(buf);
    cfg.pinned = comma != NULL ? 2 : 1;
}

static void parse_args(int argc, char **argv) {
    static const char *const protocols[] = {"lab", "post"};
    static const char *const injects[] = {"none", "lose-one"};
    const char *known = "protocol, method, threads, iterations, runs, warmup-runs, pin, inject";
    for (int i = 1; i < argc; i++) {
        const struct kernel_arg a = kernel_arg(argv, i, known);
        if (arg_is(&a, "method")) {
            cfg.method = arg_choice(&a, METHODS, NMETHODS);
        } else if (arg_is(&a, "protocol")) {
            cfg.post = arg_choice(&a, protocols, 2);
        } else if (arg_is(&a, "threads")) {
            cfg.threads = (int)arg_u64(&a, 1, 2);
        } else if (arg_is(&a, "iterations")) {
            cfg.iterations = arg_u64(&a, 1, UINT64_MAX / 4);
        } else if (arg_is(&a, "runs")) {
            cfg.runs = (int)arg_u64(&a, 1, 1000000);
            cfg.runs_given = 1;
        } else if (arg_is(&a, "warmup-runs")) {
            cfg.warmup_runs = (int)arg_u64(&a, 0, 1000000);
            cfg.warmup_given = 1;
        } else if (arg_is(&a, "pin")) {
            parse_pin(argv[i], a.value);
        } else if (arg_is(&a, "inject")) {
            cfg.lose_one = arg_choice(&a, injects, 2);
        } else {
            unknown_argument(&a, known);
        }
    }
    if (cfg.post) {
        if (!cfg.runs_given) {
            cfg.runs = 1;
        }
        if (!cfg.warmup_given) {
            cfg.warmup_runs = 0;
        } else if (cfg.warmup_runs != 0) {
            bad_argument("--warmup-runs=%d: the post protocol warms nothing up; give 0 or use --protocol=lab",
                cfg.warmup_runs);
        }
    }
    if (cfg.threads == 2 && cfg.method != CAS && cfg.method != LOCK) {
        bad_argument("--threads=2: only methods cas, lock take two threads (--method=%s would lose updates)",
            METHODS[cfg.method]);
    }
    if (cfg.iterations % (uint64_t)cfg.threads != 0) {
        bad_argument("--iterations=%" PRIu64 ": must divide by --threads=%d", cfg.iterations, cfg.threads);
    }
    if (cfg.pinned && cfg.pinned != cfg.threads) {
        bad_argument("--pin: give one CPU id per thread (%d), e.g. --pin=%s", cfg.threads,
                     cfg.threads == 1 ? "0" : "0,1");
    }
}

static void increment(uint64_t n) {
    uint64_t c = 0;
    switch (cfg.method) {
    case PLAIN:
        for (uint64_t i = 0; i < n; i++) {
            volatile_counter = ++c;
        }
        break;
    case PLAIN_FOLDABLE:
        for (uint64_t i = 0; i < n; i++) {
            plain_counter++;
        }
        break;
    case BARRIER:
        for (uint64_t i = 0; i < n; i++) {
            __atomic_store_n(&volatile_counter, ++c, __ATOMIC_SEQ_CST);
        }
        break;
    case CAS:
        for (uint64_t i = 0; i < n; i++) {
            uint64_t v;
            do {
                v = __atomic_load_n(&atomic_counter, __ATOMIC_RELAXED);
            } while (__sync_val_compare_and_swap(&atomic_counter, v, v + 1) != v);
        }
        break;
    case LOCK:
        for (uint64_t i = 0; i < n; i++) {
            pthread_mutex_lock(&mutex);
            plain_counter++;
            pthread_mutex_unlock(&mutex);
        }
        break;
    case RELEASE:
        for (uint64_t i = 0; i < n; i++) {
            __atomic_store_n(&volatile_counter, ++c, __ATOMIC_RELEASE);
        }
        break;
    case SFENCE:
        for (uint64_t i = 0; i < n; i++) {
            volatile_counter = ++c;
            __asm__ __volatile__("sfence" ::: "memory");
        }
        break;
    case LFENCE:
        for (uint64_t i = 0; i < n; i++) {
            volatile_counter = ++c;
            __asm__ __volatile__("lfence" ::: "memory");
        }
        break;
    default:
        for (uint64_t i = 0; i < n; i++) {
            volatile_counter = ++c;
            __asm__ __volatile__("mfence" ::: "memory");
        }
        break;
    }
}

static uint64_t total(void) {
    switch (cfg.method) {
    case PLAIN_FOLDABLE:
    case LOCK:
        return __atomic_load_n(&plain_counter, __ATOMIC_SEQ_CST);
    case CAS:
        return __atomic_load_n(&atomic_counter, __ATOMIC_SEQ_CST);
    default:
        return volatile_counter;
    }
}

struct worker {
    pthread_t thread;
    int cpu;
    uint64_t n;
};

static void *work(void *arg) {
    struct worker *w = arg;
    if (w->cpu >= 0) {
        pin_self(w->cpu);
    }
    if (!cfg.post) {
        pthread_barrier_wait(&ready);
        pthread_barrier_wait(&go);
    }
    increment(w->n);
    return NULL;
}

/* Two threads: post times their creation and join; lab starts the clock once both wait at the `go` barrier and
   then releases them (this thread arrives last), as the Java kernel's latch does. */
static uint64_t timed_on_two(uint64_t share, uint64_t lost) {
    struct worker w[2];
    uint64_t start = 0;
    if (!cfg.post) {
        pthread_barrier_init(&ready, NULL, 3);
        pthread_barrier_init(&go, NULL, 3);
    } else {
        start = now_ns();
    }
    for (int i = 0; i < 2; i++) {
        w[i].cpu = cfg.pinned ? cfg.pin[i] : -1;
        w[i].n = share - (i == 0 ? lost : 0);
        if (pthread_create(&w[i].thread, NULL, work, &w[i]) != 0) {
            fprintf(stderr, "single_writer: error: cannot create threads\n");
            exit(1);
        }
    }
    if (!cfg.post) {
        pthread_barrier_wait(&ready);
        start = now_ns();
        pthread_barrier_wait(&go);
    }
    for (int i = 0; i < 2; i++) {
        pthread_join(w[i].thread, NULL);
    }
    uint64_t duration = now_ns() - start;
    if (!cfg.post) {
        pthread_barrier_destroy(&ready);
        pthread_barrier_destroy(&go);
    }
    return duration;
}

int main(int argc, char **argv) {
    parse_args(argc, argv);
    const int total_runs = cfg.warmup_runs + cfg.runs;
    uint64_t *durations = calloc((size_t)total_runs, sizeof *durations);
    if (durations == NULL) {
        fprintf(stderr, "single_writer: error: out of memory\n");
        return 1;
    }
    const uint64_t lost = cfg.lose_one ? 1 : 0;
    if (cfg.threads == 1 && cfg.pinned) {
        pin_self(cfg.pin[0]);
    }
    for (int r = 0; r < total_runs; r++) {
        volatile_counter = 0;
        plain_counter = 0;
        atomic_counter = 0;
        if (cfg.threads == 1) {
            uint64_t start = now_ns();
            increment(cfg.iterations - lost);
            durations[r] = now_ns() - start;
        } else {
            durations[r] = timed_on_two(cfg.iterations / 2, lost);
        }
        uint64_t t = total();
        if (t != cfg.iterations) {
            fprintf(stderr, "single_writer: CHECK FAILED: run %d: --method=%s counter = %" PRIu64 " after %d x %" PRIu64
                    " increments\n", r, METHODS[cfg.method], t, cfg.threads, cfg.iterations / (uint64_t)cfg.threads);
            return 3;
        }
    }
    const char *pinning = cfg.pinned ? "thread" : "none";
    printf("pinning,iteration,warmup,metric,value,unit\n");
    for (int r = 0; r < total_runs; r++) {
        const char *warm = r < cfg.warmup_runs ? "true" : "false";
        printf("%s,%d,%s,duration,%" PRIu64 ",ns\n", pinning, r, warm, durations[r]);
        printf("%s,%d,%s,increments,%" PRIu64 ",count\n", pinning, r, warm, cfg.iterations);
        printf("%s,%d,%s,ns_per_op,%.6g,ns/op\n", pinning, r, warm, (double)durations[r] / (double)cfg.iterations);
    }
    free(durations);
    return 0;
}
