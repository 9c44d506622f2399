/*
 * writecombining: one loop writing six byte arrays against two loops writing
 * three each, in C; the C side of "Write Combining" (Martin Thompson,
 * 2011-07-15), measured beside the Java kernel
 * mechsym.writecombining.WriteCombining with the same arguments and output,
 * so that what the JIT does and what the hardware does can be told apart.
 *
 * The claim under test: a CPU has only a few write-combining buffers (4
 * guaranteed on Intel in 2011), so a loop writing more than four distinct
 * locations per iteration is slower per store than the same writes split
 * into loops of fewer arrays (14.0 s against 8.9 s in the post).
 *
 * Every loop is the listing's: i = iterations; while (--i != 0) { slot = i &
 * mask; v = (uint8_t)i; a0[slot] = v; ... } with K stores, K = 1..12, one
 * function per K (HEAD/BODY below), the array pointers in locals (through an
 * array of pointers every store could alias them and gcc would reload them).
 * gcc -O2 -S (gcc 12, x86-64) shows each body as `mov; and`, exactly K scalar
 * `movb` and `sub; jne`: nothing vectorised, no store removed, the split case
 * two loops as in the listing, no register spilled even at K = 12. The loops
 * are called through a function pointer between two clock_gettime calls and
 * their stores are read by the check, so no volatile or barrier is needed.
 *
 * Protocols (--protocol): post, the listing's main: --runs times (its 3) the
 * single loop of six, then the two loops of three, each timed, no warm-up
 * (rows arrays=6, per_loop=6 or 3); lab (the default): --arrays arrays
 * (1..12) in one loop, or with --arrays=6 --per-loop=3 the listing's
 * SplitLoop, --warmup-runs marked warmup=true, then --runs measured runs.
 * Each run prints duration (ns), stores (count), ns_per_store (ns).
 *
 * Checks after each timed run, as in the Java kernel: one byte in every 4096
 * of the slots is poisoned before it, and every slot it wrote must then hold
 * (uint8_t)slot (slot 0, when reached, (uint8_t)items). --inject=drop-array
 * (tests) leaves the last array out of the first timed case: exit 3, every time.
 *
 * How to run and what you should see:
 *   build/c/writecombining --protocol=post --iterations=536870912
 *   build/c/writecombining --arrays=8; build/c/writecombining --arrays=3
 * where the CPU runs out of write-combining buffers, ns_per_store of one loop
 * of many arrays rises above that of a loop of three.
 */
#define _GNU_SOURCE
#define KERNEL_NAME "writecombining"
#include "kernel.h"

#define MAX_ARRAYS 12
#define POST_ARRAYS 6
#define POST_SPLIT 3
#define POISON_EVERY 4096
#define KNOWN "protocol, iterations, items, arrays, per-loop, runs, warmup-runs, inject"

static struct {
    int post;
    uint32_t iterations;
    uint32_t items;
    int arrays;
    int per_loop;
    int runs;
    int warmup_runs;
    int inject;
    int arrays_given, per_loop_given, runs_given, warmup_given;
} cfg = {0, 134217728u, 1u << 24, POST_ARRAYS, 0, 5, 1, 0, 0, 0, 0, 0};

static uint8_t *data[MAX_ARRAYS];
static int narrays;

static void parse_args(int argc, char **argv) {
    static const char *const protocols[] = {"lab", "post"};
    static const char *const injects[] = {"none", "drop-array"};
    for (int i = 1; i < argc; i++) {
        const struct kernel_arg a = kernel_arg(argv, i, KNOWN);
        if (arg_is(&a, "protocol")) {
            cfg.post = arg_choice(&a, protocols, 2);
        } else if (arg_is(&a, "iterations")) {
            cfg.iterations = (uint32_t)arg_u64(&a, 2, INT32_MAX);
        } else if (arg_is(&a, "items")) {
            cfg.items = (uint32_t)arg_u64(&a, 64, 1u << 30);
            if (cfg.items & (cfg.items - 1)) {
                bad_argument("--items=%s: must be a power of two (the listing masks the index)", a.value);
            }
        } else if (arg_is(&a, "arrays")) {
            cfg.arrays = (int)arg_u64(&a, 1, MAX_ARRAYS);
            cfg.arrays_given = 1;
        } else if (arg_is(&a, "per-loop")) {
            cfg.per_loop = (int)arg_u64(&a, 1, MAX_ARRAYS);
            cfg.per_loop_given = 1;
        } else if (arg_is(&a, "runs")) {
            cfg.runs = (int)arg_u64(&a, 1, 1000000);
            cfg.runs_given = 1;
        } else if (arg_is(&a, "warmup-runs")) {
            cfg.warmup_runs = (int)arg_u64(&a, 0, 1000000);
            cfg.warmup_given = 1;
        } else if (arg_is(&a, "inject")) {
            cfg.inject = arg_choice(&a, injects, 2);
        } else {
            unknown_argument(&a, KNOWN);
        }
    }
    if (cfg.post) {
        if (cfg.arrays_given || cfg.per_loop_given || (cfg.warmup_given && cfg.warmup_runs != 0)) {
            bad_argument("--protocol=post runs the listing: one loop of 6 arrays, "
                    "then two of 3, no warm-up; --arrays, --per-loop and --warmup-runs are for --protocol=lab");
        }
        cfg.arrays = POST_ARRAYS;
        cfg.warmup_runs = 0;
        if (!cfg.runs_given) {
            cfg.runs = 3;
        }
    }
    if (!cfg.per_loop_given) {
        cfg.per_loop = cfg.arrays;
    }
    if (cfg.per_loop != cfg.arrays && !(cfg.arrays == POST_ARRAYS && cfg.per_loop == POST_SPLIT)) {
        bad_argument("--per-loop=%d: allowed --per-loop=%d (one loop of the %d "
                "arrays) or, with --arrays=6, 3 (the listing's SplitLoop)", cfg.per_loop, cfg.arrays, cfg.arrays);
    }
}

/* The listing's loop with K stores: P(j) names the j-th array pointer, held in a local. */
#define HEAD(K) static void loop##K(uint8_t *const *d, uint32_t iterations, uint32_t mask)
#define BODY(DECL, STORES)                                  \
    {                                                       \
        DECL;                                               \
        uint32_t i = iterations;                            \
        while (--i != 0) {                                  \
            uint32_t slot = i & mask;                       \
            uint8_t v = (uint8_t)i;                         \
            STORES;                                         \
        }                                                   \
    }
#define P1 uint8_t *a = d[0]
#define P2 P1, *b = d[1]
#define P3 P2, *c = d[2]
#define P4 P3, *e = d[3]
#define P5 P4, *f = d[4]
#define P6 P5, *g = d[5]
#define P7 P6, *h = d[6]
#define P8 P7, *j = d[7]
#define P9 P8, *k = d[8]
#define P10 P9, *l = d[9]
#define P11 P10, *m = d[10]
#define P12 P11, *n = d[11]
#define S1 a[slot] = v
#define S2 S1; b[slot] = v
#define S3 S2; c[slot] = v
#define S4 S3; e[slot] = v
#define S5 S4; f[slot] = v
#define S6 S5; g[slot] = v
#define S7 S6; h[slot] = v
#define S8 S7; j[slot] = v
#define S9 S8; k[slot] = v
#define S10 S9; l[slot] = v
#define S11 S10; m[slot] = v
#define S12 S11; n[slot] = v

HEAD(1) BODY(P1, S1)
HEAD(2) BODY(P2, S2)
HEAD(3) BODY(P3, S3)
HEAD(4) BODY(P4, S4)
HEAD(5) BODY(P5, S5)
HEAD(6) BODY(P6, S6)
HEAD(7) BODY(P7, S7)
HEAD(8) BODY(P8, S8)
HEAD(9) BODY(P9, S9)
HEAD(10) BODY(P10, S10)
HEAD(11) BODY(P11, S11)
HEAD(12) BODY(P12, S12)

typedef void (*loop_fn)(uint8_t *const *, uint32_t, uint32_t);
static const loop_fn LOOPS[MAX_ARRAYS + 1] = {NULL, loop1, loop2, loop3, loop4, loop5, loop6, loop7, loop8,
                                              loop9, loop10, loop11, loop12};

/* The timed region: the arrays in loops of per_loop, one after another (drop_last: the injected fault, the last
 * array left out of its loop); returns ns. */
static uint64_t write_arrays(int per_loop, uint32_t mask, int drop_last) {
    uint64_t start = now_ns();
    for (int from = 0; from < narrays; from += per_loop) {
        int k = narrays - from < per_loop ? narrays - from : per_loop;
        if (drop_last && from + per_loop >= narrays) {
            k--;
        }
        if (k > 0) {
            LOOPS[k](data + from, cfg.iterations, mask);
        }
    }
    return now_ns() - start;
}

static uint32_t last_slot(uint32_t mask) {
    return cfg.iterations - 1 < mask ? cfg.iterations - 1 : mask;
}

static void poison(uint32_t mask) {
    for (int k = 0; k < narrays; k++) {
        for (uint32_t s = 1; s <= last_slot(mask); s += POISON_EVERY) {
            data[k][s] = (uint8_t)~s;
        }
    }
}

static void check(uint32_t mask) {
    int zero_written = cfg.iterations - 1 >= mask + 1;
    for (int k = 0; k < narrays; k++) {
        for (uint32_t s = 1; s <= last_slot(mask); s++) {
            if (data[k][s] != (uint8_t)s) {
                fprintf(stderr, "writecombining: CHECK FAILED: array %d slot %" PRIu32 " holds %u, expected %u (what "
                        "the last iteration writing it wrote)\n", k, s, data[k][s], (uint8_t)s);
                exit(3);
            }
        }
        if (zero_written && data[k][0] != (uint8_t)(mask + 1)) {
            fprintf(stderr, "writecombining: CHECK FAILED: array %d slot 0 holds %u, expected %u\n", k, data[k][0],
                    (uint8_t)(mask + 1));
            exit(3);
        }
    }
}

static char *out;
static size_t out_len, out_cap;

/* Rows are kept until every check has passed: a failed run prints no number. */
static void row(int per_loop, int it, int warm, const char *metric, double v, const char *unit) {
    char line[160];
    int n = v == (double)(uint64_t)v ? snprintf(line, sizeof line, "%d,%d,%d,%s,%s,%" PRIu64 ",%s\n", narrays,
                                                per_loop, it, warm ? "true" : "false", metric, (uint64_t)v, unit)
                                     : snprintf(line, sizeof line, "%d,%d,%d,%s,%s,%.6g,%s\n", narrays, per_loop, it,
                                                warm ? "true" : "false", metric, v, unit);
    if (out_len + (size_t)n + 1 > out_cap) {
        out_cap = out_cap ? out_cap * 2 : 8192;
        out = realloc(out, out_cap);
        if (out == NULL) {
            fprintf(stderr, "writecombining: error: out of memory\n");
            exit(1);
        }
    }
    memcpy(out + out_len, line, (size_t)n + 1);
    out_len += (size_t)n;
}

static void timed(int per_loop, int it, int warm, int drop_last) {
    uint32_t mask = cfg.items - 1;
    poison(mask);
    uint64_t duration = write_arrays(per_loop, mask, drop_last);
    check(mask);
    uint64_t stores = (uint64_t)(cfg.iterations - 1) * (uint64_t)narrays;
    row(per_loop, it, warm, "duration", (double)duration, "ns");
    row(per_loop, it, warm, "stores", (double)stores, "count");
    row(per_loop, it, warm, "ns_per_store", (double)duration / (double)stores, "ns");
}

int main(int argc, char **argv) {
    parse_args(argc, argv);
    narrays = cfg.arrays;
    for (int k = 0; k < narrays; k++) {
        /* touched here (as the JVM zeroes a new array), so no page is first faulted in inside a timed run */
        data[k] = malloc(cfg.items);
        if (data[k] == NULL) {
            fprintf(stderr, "writecombining: error: cannot allocate %d arrays of %" PRIu32 " bytes\n", narrays,
                    cfg.items);
            return 1;
        }
        memset(data[k], 0, cfg.items);
    }
    int faulty = cfg.inject;
    if (cfg.post) {
        for (int r = 0; r < cfg.runs; r++) {
            timed(POST_ARRAYS, r, 0, faulty);
            timed(POST_SPLIT, r, 0, 0);
            faulty = 0;
        }
    } else {
        for (int r = 0; r < cfg.warmup_runs + cfg.runs; r++) {
            timed(cfg.per_loop, r, r < cfg.warmup_runs, faulty);
            faulty = 0;
        }
    }
    printf("arrays,per_loop,iteration,warmup,metric,value,unit\n%s", out);
    return 0;
}
