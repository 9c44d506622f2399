/*
 * calibration: the floors of a two-thread hand-off in C, beside the Java kernel mechsym.calibration.Floors.
 * No post; the lesson is what no program on this machine can beat: a cache line's round trip between two CPUs,
 * and the wake-up of a thread asleep on another CPU.
 *
 * Measures (--measure):
 *   line   one 64-byte-aligned line passed back and forth: the pinger stores an odd value and waits for the
 *          ponger's next even one (C11 atomics, release/acquire; --wait=spin pauses, yield yields every spin:
 *          the only sane wait when both threads share one CPU). ns per round trip.
 *   futex  round by round, the sleeper waits in futex(FUTEX_WAIT); the waker waits until it has said so and
 *          200 us more (asleep, its CPU idle), stamps CLOCK_MONOTONIC, stores the round and calls FUTEX_WAKE;
 *          the sleeper stamps the clock when it runs. Median ns over --rounds.
 * --pin=A,B places the first thread (pinger, waker) on A and the second on B (A = B: one CPU, time-sliced).
 * Each run (--runs, after --warmup-runs) is one row. Checks after the clock: both threads counted every trip and
 * the line holds 2 x trips; one wake-up per round, each after its stamp. --inject=skip (tests) makes the second
 * thread count one fewer in the first run: exit 3 and no number, every time.
 *
 * How to run and what you should see:
 *   build/c/calibration --measure=line --pin=0,1 --trips=200000
 *   build/c/calibration --measure=futex --pin=0,1 --rounds=200
 * 50-200 ns per round trip across two cores; a few us per wake-up on bare metal, tens of us where an idle vCPU
 * halts and the host must interrupt it.
 */
#define _GNU_SOURCE
#define KERNEL_NAME "calibration"
#include "kernel.h"

#include <linux/futex.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

enum measure { LINE, FUTEX };
static const char *const measure_names[] = {"line", "futex"};
#define SETTLE_NS 200000ULL
#define NOT_STARTED UINT64_MAX

static struct {
    enum measure measure;
    uint64_t trips;
    int rounds;
    int yield;
    int runs;
    int warmup_runs;
    int inject_skip;
    int pinned;
    int pin[2];
} cfg = {LINE, 100000, 200, 0, 3, 1, 0, 0, {0, 0}};

static struct {
    _Alignas(64) _Atomic uint64_t value;
    char pad[56];
} line;

static struct {
    _Alignas(64) _Atomic uint32_t go;     /* the round the sleeper may wake for (the futex word) */
    _Alignas(64) _Atomic uint32_t parked; /* the round the sleeper is about to sleep for */
} wake;

static struct {
    int skip;
    uint64_t counted[2];
    uint64_t *stamps;
    uint64_t *woke;
} run_state;

static void parse_pin(const char *value) {
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
        bad_argument("--pin=%s: CPU ids must be between 0 and %d", value, CPU_SETSIZE - 1);
    }
    cfg.pin[0] = (int)a;
    cfg.pin[1] = (int)b;
    cfg.pinned = 1;
}

static void parse_args(int argc, char **argv) {
    static const char *const waits[] = {"spin", "yield"};
    static const char *const injects[] = {"none", "skip"};
    const char *known = "measure, trips, rounds, wait, pin, runs, warmup-runs, inject";
    for (int i = 1; i < argc; i++) {
        const struct kernel_arg a = kernel_arg(argv, i, known);
        if (arg_is(&a, "measure")) {
            cfg.measure = (enum measure)arg_choice(&a, measure_names, 2);
        } else if (arg_is(&a, "trips")) {
            cfg.trips = arg_u64(&a, 1, 1000000000ULL);
        } else if (arg_is(&a, "rounds")) {
            cfg.rounds = (int)arg_u64(&a, 1, 1000000);
        } else if (arg_is(&a, "wait")) {
            cfg.yield = arg_choice(&a, waits, 2);
        } else if (arg_is(&a, "pin")) {
            if (*a.value != '\0') {
                parse_pin(a.value);
            }
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
}

static inline void relax(void) {
    if (cfg.yield) {
        sched_yield();
    } else {
        __builtin_ia32_pause();
    }
}

static void await_line(uint64_t expected) {
    while (atomic_load_explicit(&line.value, memory_order_acquire) != expected) {
        relax();
    }
}

static void *ponger(void *arg) {
    (void)arg;
    if (cfg.pinned) {
        pin_self(cfg.pin[1]);
    }
    atomic_store_explicit(&line.value, 0, memory_order_release);  /* running: the pinger's clock starts now */
    uint64_t n = 0;
    for (uint64_t v = 2; v <= 2 * cfg.trips; v += 2) {
        await_line(v - 1);
        atomic_store_explicit(&line.value, v, memory_order_release);
        n++;
    }
    run_state.counted[1] = run_state.skip ? n - 1 : n;
    return NULL;
}

static long futex(_Atomic uint32_t *word, int op, uint32_t val) {
    return syscall(SYS_futex, (uint32_t *)word, op | FUTEX_PRIVATE_FLAG, val, NULL, NULL, 0);
}

static void *sleeper(void *arg) {
    (void)arg;
    if (cfg.pinned) {
        pin_self(cfg.pin[1]);
    }
    uint64_t n = 0;
    for (uint32_t r = 1; r <= (uint32_t)cfg.rounds; r++) {
        atomic_store(&wake.parked, r);
        uint32_t seen;
        while ((seen = atomic_load(&wake.go)) != r) {
            futex(&wake.go, FUTEX_WAIT, seen);
        }
        run_state.woke[r - 1] = now_ns();
        n++;
    }
    run_state.counted[1] = run_state.skip ? n - 1 : n;
    return NULL;
}

static int cmp_u64(const void *a, const void *b) {
    const uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* One run: ns per round trip (line) or the median wake-up (futex); exits 3 when a check fails. */
static double measure(int run) {
    pthread_t other;
    run_state.skip = cfg.inject_skip && run == 0;
    run_state.counted[0] = run_state.counted[1] = 0;
    atomic_store(&line.value, NOT_STARTED);
    atomic_store(&wake.go, 0);
    atomic_store(&wake.parked, 0);
    if (pthread_create(&other, NULL, cfg.measure == LINE ? ponger : sleeper, NULL) != 0) {
        fprintf(stderr, "calibration: error: cannot create a thread\n");
        exit(1);
    }
    if (cfg.pinned) {
        pin_self(cfg.pin[0]);
    }
    double value;
    int ok;
    if (cfg.measure == LINE) {
        await_line(0);  /* the ponger runs: its start-up is not the first trip */
        const uint64_t start = now_ns();
        uint64_t n = 0;
        for (uint64_t v = 1; v < 2 * cfg.trips; v += 2) {
            atomic_store_explicit(&line.value, v, memory_order_release);
            await_line(v + 1);
            n++;
        }
        value = (double)(now_ns() - start) / (double)cfg.trips;
        run_state.counted[0] = n;
        pthread_join(other, NULL);
        ok = n == cfg.trips && run_state.counted[1] == cfg.trips && atomic_load(&line.value) == 2 * cfg.trips;
    } else {
        for (uint32_t r = 1; r <= (uint32_t)cfg.rounds; r++) {
            while (atomic_load(&wake.parked) != r) {
                __builtin_ia32_pause();
            }
            const uint64_t settle = now_ns() + SETTLE_NS;
            while (now_ns() < settle) {
                __builtin_ia32_pause();
            }
            run_state.stamps[r - 1] = now_ns();
            atomic_store(&wake.go, r);
            futex(&wake.go, FUTEX_WAKE, 1);
        }
        pthread_join(other, NULL);
        ok = run_state.counted[1] == (uint64_t)cfg.rounds;
        for (int r = 0; r < cfg.rounds; r++) {
            ok = ok && run_state.woke[r] > run_state.stamps[r];
            run_state.woke[r] -= run_state.stamps[r];
        }
        qsort(run_state.woke, (size_t)cfg.rounds, sizeof *run_state.woke, cmp_u64);
        value = (double)run_state.woke[cfg.rounds / 2];
    }
    if (!ok) {
        fprintf(stderr, "calibration: CHECK FAILED: run %d: %s: the second thread counted %" PRIu64 " of %" PRIu64
                "\n", run, measure_names[cfg.measure], run_state.counted[1],
                cfg.measure == LINE ? cfg.trips : (uint64_t)cfg.rounds);
        exit(3);
    }
    return value;
}

int main(int argc, char **argv) {
    parse_args(argc, argv);
    const int total = cfg.warmup_runs + cfg.runs;
    double *values = calloc((size_t)total, sizeof *values);
    run_state.stamps = calloc((size_t)cfg.rounds, sizeof *run_state.stamps);
    run_state.woke = calloc((size_t)cfg.rounds, sizeof *run_state.woke);
    if (values == NULL || run_state.stamps == NULL || run_state.woke == NULL) {
        fprintf(stderr, "calibration: error: out of memory\n");
        return 1;
    }
    for (int r = 0; r < total; r++) {
        values[r] = measure(r);
    }
    const char *pinning = cfg.pinned ? "thread" : "none";
    printf("measure,pinning,iteration,warmup,metric,value,unit\n");
    for (int r = 0; r < total; r++) {
        printf("%s,%s,%d,%s,%s,%.6g,ns\n", measure_names[cfg.measure], pinning, r,
               r < cfg.warmup_runs ? "true" : "false", cfg.measure == LINE ? "round_trip" : "wakeup", values[r]);
    }
    fflush(stdout);
    return 0;
}
