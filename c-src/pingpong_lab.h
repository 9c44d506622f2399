/*
 * pingpong's lab protocol (the default): the timed round-trip loops (ping_run, pong_run and its fault-injecting
 * copy), the two threads that run them for every run, and run_lab, which resets the counters before each run and
 * checks them after it.
 */
#ifndef MECHSYM_PINGPONG_LAB_H
#define MECHSYM_PINGPONG_LAB_H

#include "pingpong_state.h"

#define CHECK_SPINS 4096

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

#endif
