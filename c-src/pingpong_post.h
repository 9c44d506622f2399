/*
 * pingpong's post protocol: the listing's loops (ping on the main thread, a fresh pong thread per run), the watchdog
 * that ends a run which cannot finish, and run_post, which checks the counters after each run.
 */
#ifndef MECHSYM_PINGPONG_POST_H
#define MECHSYM_PINGPONG_POST_H

#include <unistd.h>

#include "pingpong_state.h"

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

#endif
