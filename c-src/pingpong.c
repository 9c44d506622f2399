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

#include "pingpong_state.h"
#include "pingpong_lab.h"
#include "pingpong_post.h"

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
