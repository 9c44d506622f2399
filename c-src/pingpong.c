/*
 * pingpong: two threads play ping-pong on two counters, in C with GCC atomic
 * builtins; the C side of "Inter Thread Latency" (Martin Thompson,
 * 2011-08-09), measured beside the Java kernel
 * mechsym.signalling.VolatilePingPong with the same arguments and output.
 *
 * The claim under test: C++ is only slightly faster than Java (45 vs 50 ns per
 * exchange on a 2.2 GHz Sandy Bridge, taskset -c 2,4): the cost is the lock
 * instruction and the cache-line transfer, not the language.
 *
 * As in the post: s1 and s2 are adjacent volatile uint64 globals; ping waits
 * until s2 equals its value, then __sync_add_and_fetch(&s1, 1); pong waits
 * until s1 moves, then adds to s2. ns/op = duration / (2 x iterations).
 *
 * Protocols (--protocol):
 *   post: the listing. Ping on the main thread, nothing else in its loop (gcc
 *     makes of it the listing's loop, instruction for instruction); pong on a
 *     pthread created before the clock; counters checked after it.
 *     Deliberate differences: the pong loops while (value < N), not while
 *     (true), so that runs can repeat (--runs, a fresh pong each); the clock
 *     starts once the pong runs (pinned, when asked); N is an argument; a
 *     watchdog ends a run that cannot finish after --max-ms (default 10
 *     minutes: exit 3 if the counters are out of step, else 1); gcc -O2 as C.
 *   lab (the default): both sides on threads reused for every run, warm-up
 *     runs first, the clock (CLOCK_MONOTONIC) started at a barrier; every
 *     value must be echoed once and in order, tested on the ping's slow path
 *     only (after 4096 unsuccessful spins, which a skipped or repeated value
 *     always reaches; on the exchange's own path the tests slowed it: the A/B
 *     is in commit 4d8278a); every --sample-every-th round trip timed;
 *     --wait=spin (the post), pause or yield; --max-ms bounds a run
 *     (deadline_hit=1). Both: the timer's own cost is reported; --pin=a,b.
 *
 * --inject=skip (tests): in the first run the pong adds 2 to s2 at the middle
 * value (a loop copy chosen before the run): exit 3, no number, every time.
 *
 * How to run and what you should see:
 *   build/c/pingpong --iterations=50000000 --pin=0,1
 *   build/c/pingpong --protocol=post --iterations=50000000 --runs=1 --warmup-runs=0
 * tens of ns per op across two cores, close to the Java kernel.
 */
#define _GNU_SOURCE
#define KERNEL_NAME "pingpong"
#include "kernel.h"
#include <limits.h>
#include <unistd.h>

#define CHECK_SPINS 4096
#define MAX_SAMPLES 1000000

enum wait_mode { WAIT_SPIN, WAIT_PAUSE, WAIT_YIELD };

volatile uint64_t s1 = 0;
volatile uint64_t s2 = 0;
static volatile int stop_flag = 0;

struct run_result {
    uint64_t duration;
    uint64_t exchanges;
    int deadline_hit;
    uint64_t *samples;
    size_t nsamples;
};

static struct {
    int post;
    uint64_t iterations;
    int runs;
    int warmup_runs;
    enum wait_mode wait;
    int pin[2];
    int pinned;
    uint64_t sample_every;
    uint64_t max_ms;
    int inject_skip;
    int sample_every_given;
    int max_ms_given;
} cfg = {0, 50000000ULL, 5, 2, WAIT_SPIN, {-1, -1}, 0, 1000, 20000, 0, 0, 0};

static pthread_barrier_t start_barrier, end_barrier;
static struct run_result *results;
static char failure[256];

static inline void wait_once(enum wait_mode mode) {
    if (mode == WAIT_PAUSE) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#else
        __asm__ __volatile__("" ::: "memory");
#endif
    } else if (mode == WAIT_YIELD) {
        sched_yield();
    }
}

static void parse_pin(const char *value) {
    if (*value == '\0') {
        cfg.pinned = 0;
        return;
    }
    char *end;
    long a = strtol(value, &end, 10);
    if (end == value || *end != ',') {
        bad_argument("--pin=%s: give two CPU ids (first thread, second thread), e.g. --pin=0,1", value);
    }
    const char *second = end + 1;
    long b = strtol(second, &end, 10);
    if (end == second || *end != '\0') {
        bad_argument("--pin=%s: give two CPU ids (first thread, second thread), e.g. --pin=0,1", value);
    }
    if (a < 0 || b < 0 || a >= CPU_SETSIZE || b >= CPU_SETSIZE) {
        bad_argument("--pin=%s: CPU ids must be between 0 and 1023", value);
    }
    cfg.pin[0] = (int)a;
    cfg.pin[1] = (int)b;
    cfg.pinned = 1;
}

static void parse_args(int argc, char **argv) {
    static const char *const protocols[] = {"lab", "post"};
    static const char *const waits[] = {"spin", "pause", "yield"};  /* in enum wait_mode's order */
    static const char *const injects[] = {"none", "skip"};
    const char *known = "protocol, iterations, runs, warmup-runs, wait, pin, sample-every, max-ms, inject";
    for (int i = 1; i < argc; i++) {
        const struct kernel_arg a = kernel_arg(argv, i, known);
        if (arg_is(&a, "protocol")) {
            cfg.post = arg_choice(&a, protocols, 2);
        } else if (arg_is(&a, "iterations")) {
            cfg.iterations = arg_u64(&a, 1, UINT64_MAX / 4);
        } else if (arg_is(&a, "runs")) {
            cfg.runs = (int)arg_u64(&a, 1, 1000000);
        } else if (arg_is(&a, "warmup-runs")) {
            cfg.warmup_runs = (int)arg_u64(&a, 0, 1000000);
        } else if (arg_is(&a, "wait")) {
            cfg.wait = (enum wait_mode)arg_choice(&a, waits, 3);
        } else if (arg_is(&a, "pin")) {
            parse_pin(a.value);
        } else if (arg_is(&a, "sample-every")) {
            cfg.sample_every = arg_u64(&a, 0, UINT64_MAX / 4);
            cfg.sample_every_given = 1;
        } else if (arg_is(&a, "inject")) {
            cfg.inject_skip = arg_choice(&a, injects, 2);
        } else if (arg_is(&a, "max-ms")) {
            cfg.max_ms = arg_u64(&a, 1, 86400000ULL);
            cfg.max_ms_given = 1;
        } else {
            unknown_argument(&a, known);
        }
    }
    if (cfg.post) {
        if (cfg.wait != WAIT_SPIN) {
            bad_argument("--wait=%s: the post protocol busy-spins, as the listing; pause and yield are lab variants "
                         "(--protocol=lab)", cfg.wait == WAIT_PAUSE ? "pause" : "yield");
        }
        if (!cfg.max_ms_given) {
            cfg.max_ms = 600000; /* only a guard against a hang: the post's loop has no deadline */
        }
        if (!cfg.sample_every_given) {
            cfg.sample_every = 0;
        } else if (cfg.sample_every != 0) {
            bad_argument("--sample-every=%" PRIu64 ": the post protocol times whole runs "
                    "only, as the listing; give 0 or use --protocol=lab", cfg.sample_every);
        }
    }
}

static void set_failure(const char *msg) {
    if (failure[0] == '\0') {
        snprintf(failure, sizeof failure, "%s", msg);
    }
}

/* The ping side of one run. */
static void ping_run(struct run_result *res) {
    const uint64_t iterations = cfg.iterations;
    const enum wait_mode mode = cfg.wait;
    uint64_t countdown = cfg.sample_every > 0 ? 1 : UINT64_MAX;
    const uint64_t begin = now_ns();
    const uint64_t deadline = begin + cfg.max_ms * 1000000ULL;
    uint64_t value = 0, exchanges = 0;
    res->nsamples = 0;
    for (uint64_t i = 0; i < iterations; i++) {
        uint64_t t0 = 0;
        const int sample = --countdown == 0;
        if (sample) {
            countdown = cfg.sample_every;
            t0 = now_ns();
            if (t0 > deadline) {
                res->deadline_hit = 1;
                break;
            }
        }
        const uint64_t previous = value;
        value = __sync_add_and_fetch(&s1, 1);
        uint64_t seen;
        int spins = 0;
        int broke = 0;
        while ((seen = s2) != value) {
            wait_once(mode);
            if (++spins == CHECK_SPINS) {
                /* the slow path, after 4096 unsuccessful spins: a pong that ran ahead (s2 past value) never
                   comes back, so it is seen here every time, and no check sits on the exchange's own path */
                spins = 0;
                if (seen != previous) {
                    char msg[200];
                    snprintf(msg, sizeof msg, "ping expected s2 = %" PRIu64 " or %" PRIu64 ", saw %" PRIu64,
                             previous, value, seen);
                    set_failure(msg);
                    broke = 1;
                    break;
                }
                if (now_ns() > deadline) {
                    res->deadline_hit = 1;
                    broke = 1;
                    break;
                }
            }
        }
        if (broke) {
            break;
        }
        if (sample && res->nsamples < MAX_SAMPLES) {
            res->samples[res->nsamples++] = now_ns() - t0;
        }
        exchanges++;
    }
    res->duration = now_ns() - begin;
    res->exchanges = exchanges;
    __sync_synchronize();
    stop_flag = 1;
}

/* The pong side of one lab run. No check on the exchange's path: the ping's slow path and the counters after the
   run catch a value skipped or repeated. */
static void pong_run(void) {
    const uint64_t iterations = cfg.iterations;
    const enum wait_mode mode = cfg.wait;
    uint64_t value = 0;
    while (value < iterations) {
        int spins = 0;
        while (s1 == value) {
            wait_once(mode);
            if (++spins == CHECK_SPINS) {
                spins = 0;
                if (stop_flag) {
                    return;
                }
            }
        }
        value = __sync_add_and_fetch(&s2, 1);
    }
}

/* pong_run with the injected fault: at skip_at, s2 jumps by two in one atomic add. */
static void pong_run_skipping(uint64_t skip_at) {
    const uint64_t iterations = cfg.iterations;
    const enum wait_mode mode = cfg.wait;
    uint64_t value = 0;
    while (value < iterations) {
        int spins = 0;
        while (s1 == value) {
            wait_once(mode);
            if (++spins == CHECK_SPINS) {
                spins = 0;
                if (stop_flag) {
                    return;
                }
            }
        }
        value = __sync_add_and_fetch(&s2, value == skip_at ? 2 : 1);
    }
}

static void *ping_thread(void *arg) {
    (void)arg;
    if (cfg.pinned) {
        pin_self(cfg.pin[0]);
    }
    for (int r = 0; r < cfg.warmup_runs + cfg.runs; r++) {
        pthread_barrier_wait(&start_barrier);
        ping_run(&results[r]);
        pthread_barrier_wait(&end_barrier);
    }
    return NULL;
}

static void *pong_thread(void *arg) {
    (void)arg;
    if (cfg.pinned) {
        pin_self(cfg.pin[1]);
    }
    for (int r = 0; r < cfg.warmup_runs + cfg.runs; r++) {
        pthread_barrier_wait(&start_barrier);
        if (r == 0 && cfg.inject_skip) {
            pong_run_skipping(cfg.iterations / 2);
        } else {
            pong_run();
        }
        pthread_barrier_wait(&end_barrier);
    }
    return NULL;
}

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void row_u(const char *pinning, int it, int warm, const char *metric, uint64_t v, const char *unit) {
    printf("%s,%d,%s,%s,%" PRIu64 ",%s\n", pinning, it, warm ? "true" : "false", metric, v, unit);
}

static void row_d(const char *pinning, int it, int warm, const char *metric, double v, const char *unit) {
    printf("%s,%d,%s,%s,%.6g,%s\n", pinning, it, warm ? "true" : "false", metric, v, unit);
}

static uint64_t percentile(const uint64_t *sorted, size_t n, double fraction) {
    double r = fraction * (double)n;
    size_t rank = (size_t)r;
    if ((double)rank < r) {
        rank++;
    }
    if (rank < 1) {
        rank = 1;
    }
    if (rank > n) {
        rank = n;
    }
    return sorted[rank - 1];
}

/* The lab protocol: ping and pong on threads of their own, reused for every run. Three parties meet at the
   barriers: ping, pong and this thread, which resets the counters before each run and checks them after it. */
static void run_lab(int total) {
    pthread_barrier_init(&start_barrier, NULL, 3);
    pthread_barrier_init(&end_barrier, NULL, 3);
    pthread_t ping, pong;
    if (pthread_create(&ping, NULL, ping_thread, NULL) != 0 || pthread_create(&pong, NULL, pong_thread, NULL) != 0) {
        fprintf(stderr, "pingpong: error: cannot create threads\n");
        exit(1);
    }
    for (int r = 0; r < total; r++) {
        s1 = 0;
        s2 = 0;
        stop_flag = 0;
        __sync_synchronize();
        pthread_barrier_wait(&start_barrier);
        pthread_barrier_wait(&end_barrier);
        const uint64_t n = results[r].exchanges;
        const uint64_t v1 = s1, v2 = s2;
        int ok;
        if (results[r].deadline_hit) {
            ok = (v2 == n || v2 == n + 1) && (v1 == n || v1 == n + 1) && v2 <= v1;
        } else {
            ok = v1 == cfg.iterations && v2 == cfg.iterations && n == cfg.iterations;
        }
        if (!ok) {
            char msg[200];
            snprintf(msg, sizeof msg, "run %d: counters s1=%" PRIu64 ", s2=%" PRIu64 " after %" PRIu64
                     " completed exchanges of %" PRIu64, r, v1, v2, n, cfg.iterations);
            set_failure(msg);
        }
    }
    pthread_join(ping, NULL);
    pthread_join(pong, NULL);
}

/* ---------------------------------------------------------------- post */

static pthread_barrier_t ready_barrier;
static pthread_t post_pong_thread;
static int post_run_index;

/* The listing's ping loop, on the main thread; returns its duration in ns. */
static uint64_t post_ping(const uint64_t iterations) {
    const uint64_t start = now_ns();
    uint64_t value = s1;
    while (s1 < iterations) {
        while (s2 != value) {
            /* busy spin */
        }
        value = __sync_add_and_fetch(&s1, 1);
    }
    return now_ns() - start;
}

/* The listing's pong loop; it ends once it has echoed the last value. */
static void post_pong(const uint64_t iterations) {
    uint64_t value = s2;
    while (value < iterations) {
        while (value == s1) {
            /* busy spin */
        }
        value = __sync_add_and_fetch(&s2, 1);
    }
}

/* post_pong with the injected fault: at skip_at, s2 jumps by two in one atomic add. */
static void post_pong_skipping(const uint64_t iterations, const uint64_t skip_at) {
    uint64_t value = s2;
    while (value < iterations) {
        while (value == s1) {
            /* busy spin */
        }
        value = __sync_add_and_fetch(&s2, value == skip_at ? 2 : 1);
    }
}

static void *post_pong_main(void *arg) {
    const int skip = arg != NULL;
    if (cfg.pinned) {
        pin_self(cfg.pin[1]);
    }
    pthread_barrier_wait(&ready_barrier);
    if (skip) {
        post_pong_skipping(cfg.iterations, cfg.iterations / 2);
    } else {
        post_pong(cfg.iterations);
    }
    return NULL;
}

/* Blocked until the pong thread ends or --max-ms passes, so it costs the timed loop nothing. A healthy pong ends
   only after it saw s1 reach N; if s1 is short of N the pong ran ahead and the ping (the main thread) will wait
   forever for a value that never comes: the process ends here, one line, no number. */
static void *post_watchdog(void *arg) {
    (void)arg;
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += (time_t)(cfg.max_ms / 1000);
    deadline.tv_nsec += (long)(cfg.max_ms % 1000) * 1000000L;
    if (deadline.tv_nsec >= 1000000000L) {
        deadline.tv_sec++;
        deadline.tv_nsec -= 1000000000L;
    }
    const int rc = pthread_timedjoin_np(post_pong_thread, NULL, &deadline);
    const uint64_t v1 = s1, v2 = s2;
    if (rc == ETIMEDOUT) {
        if (v2 > v1 || v1 - v2 > 1) {
            fprintf(stderr, "pingpong: CHECK FAILED: run %d: s1=%" PRIu64 ", s2=%" PRIu64 " after --max-ms=%" PRIu64
                    ": the exchange is out of step\n", post_run_index, v1, v2, cfg.max_ms);
            _exit(3);
        }
        fprintf(stderr, "pingpong: error: run %d did not finish within --max-ms=%" PRIu64 " (s1=%" PRIu64 " of %"
                PRIu64 "): the post's loop has no deadline; --protocol=lab bounds a run\n", post_run_index,
                cfg.max_ms, v1, cfg.iterations);
        _exit(1);
    }
    if (rc != 0) {
        fprintf(stderr, "pingpong: error: cannot join the pong thread: %s\n", strerror(rc));
        _exit(1);
    }
    if (v1 != cfg.iterations) {
        fprintf(stderr, "pingpong: CHECK FAILED: run %d: the pong thread finished at s2=%" PRIu64 " while s1=%"
                PRIu64 ": it echoed values that were never sent\n", post_run_index, v2, v1);
        _exit(3);
    }
    return NULL;
}

/* The post protocol: the ping on this (the main) thread, a fresh pong thread per run. */
static void run_post(int total) {
    static int skip_marker;
    if (cfg.pinned) {
        pin_self(cfg.pin[0]);
    }
    pthread_barrier_init(&ready_barrier, NULL, 2);
    for (int r = 0; r < total; r++) {
        s1 = 0;
        s2 = 0;
        post_run_index = r;
        __sync_synchronize();
        pthread_t watchdog;
        if (pthread_create(&post_pong_thread, NULL, post_pong_main,
                           r == 0 && cfg.inject_skip ? &skip_marker : NULL) != 0) {
            fprintf(stderr, "pingpong: error: cannot create threads\n");
            exit(1);
        }
        pthread_barrier_wait(&ready_barrier);
        if (pthread_create(&watchdog, NULL, post_watchdog, NULL) != 0) {
            fprintf(stderr, "pingpong: error: cannot create threads\n");
            exit(1);
        }

        results[r].duration = post_ping(cfg.iterations);   /* the timed region */

        pthread_join(watchdog, NULL);
        const uint64_t v1 = s1, v2 = s2;
        results[r].exchanges = cfg.iterations;
        results[r].nsamples = 0;
        if (v1 != cfg.iterations || v2 != cfg.iterations) {
            char msg[200];
            snprintf(msg, sizeof msg, "run %d: counters s1=%" PRIu64 ", s2=%" PRIu64 " after %" PRIu64
                     " exchanges", r, v1, v2, cfg.iterations);
            set_failure(msg);
            return;
        }
    }
}

int main(int argc, char **argv) {
    parse_args(argc, argv);
    const int total = cfg.warmup_runs + cfg.runs;
    size_t cap = cfg.sample_every == 0 ? 0 : (size_t)(cfg.iterations / cfg.sample_every + 1);
    if (cap > MAX_SAMPLES) {
        cap = MAX_SAMPLES;
    }
    results = calloc((size_t)total, sizeof *results);
    if (results == NULL) {
        fprintf(stderr, "pingpong: error: out of memory\n");
        return 1;
    }
    for (int r = 0; r < total; r++) {
        results[r].samples = calloc(cap + 1, sizeof(uint64_t));
        if (results[r].samples == NULL) {
            fprintf(stderr, "pingpong: error: out of memory\n");
            return 1;
        }
    }
    if (cfg.post) {
        run_post(total);
    } else {
        run_lab(total);
    }
    if (failure[0] != '\0') {
        fprintf(stderr, "pingpong: CHECK FAILED: %s\n", failure);
        return 3;
    }

    /* The timer's own cost: clock_gettime back to back. */
    uint64_t sink = 0;
    for (int i = 0; i < 100000; i++) {
        sink += now_ns();
    }
    const int calls = 1000000;
    const uint64_t t_start = now_ns();
    uint64_t prev = t_start, min_step = UINT64_MAX;
    for (int i = 0; i < calls; i++) {
        const uint64_t t = now_ns();
        if (t > prev && t - prev < min_step) {
            min_step = t - prev;
        }
        prev = t;
    }
    if (sink == 42) {
        fputs("", stderr);
    }

    const char *pinning = cfg.pinned ? "thread" : "none";
    static const char *names[] = {"p50", "p90", "p99", "p99.9", "max"};
    static const double fractions[] = {0.50, 0.90, 0.99, 0.999, 1.0};
    printf("pinning,iteration,warmup,metric,value,unit\n");
    for (int r = 0; r < total; r++) {
        struct run_result *res = &results[r];
        const int warm = r < cfg.warmup_runs;
        row_u(pinning, r, warm, "duration", res->duration, "ns");
        row_u(pinning, r, warm, "exchanges", res->exchanges, "count");
        row_u(pinning, r, warm, "deadline_hit", (uint64_t)res->deadline_hit, "bool");
        if (res->exchanges > 0) {
            row_d(pinning, r, warm, "ns_per_op", (double)res->duration / (2.0 * (double)res->exchanges), "ns/op");
            row_d(pinning, r, warm, "throughput", 2.0 * (double)res->exchanges * 1e9 / (double)res->duration, "ops/s");
        }
        /* where the counters sit (the linker's choice, fixed per build): one line or two, as the Java kernel says */
        row_u(pinning, r, warm, "counter_line_offset", (uint64_t)((uintptr_t)&s1 % 64), "bytes");
        row_u(pinning, r, warm, "counters_share_line", (uintptr_t)&s1 / 64 == (uintptr_t)&s2 / 64, "bool");
        row_u(pinning, r, warm, "round_trip_samples", res->nsamples, "count");
        if (res->nsamples > 0) {
            qsort(res->samples, res->nsamples, sizeof(uint64_t), cmp_u64);
            double sum = 0;
            for (size_t i = 0; i < res->nsamples; i++) {
                sum += (double)res->samples[i];
            }
            row_d(pinning, r, warm, "round_trip_mean", sum / (double)res->nsamples, "ns");
            for (int k = 0; k < 5; k++) {
                char metric[40];
                snprintf(metric, sizeof metric, "round_trip_%s", names[k]);
                row_u(pinning, r, warm, metric, percentile(res->samples, res->nsamples, fractions[k]), "ns");
            }
        }
    }
    row_d(pinning, 0, 0, "timer_cost", (double)(prev - t_start) / calls, "ns");
    row_u(pinning, 0, 0, "timer_step", min_step == UINT64_MAX ? 0 : min_step, "ns");
    fflush(stdout);
    return 0;
}
