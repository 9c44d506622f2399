/*
 * pingpong's shared state: the two exchanged counters (s1, s2), the run's configuration, each run's result and the
 * first failed check, read by both protocols (pingpong_lab.h, pingpong_post.h) and main. The variables keep the
 * order they had in pingpong.c, the lab's barriers included: gcc lays out .data and .bss by it, so it decides what
 * shares the counters' cache line (moving the barriers to pingpong_lab.h moved five variables in .bss).
 */
#ifndef MECHSYM_PINGPONG_STATE_H
#define MECHSYM_PINGPONG_STATE_H

#include "kernel.h"

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

static void set_failure(const char *msg) {
    if (failure[0] == '\0') {
        snprintf(failure, sizeof failure, "%s", msg);
    }
}

#endif
