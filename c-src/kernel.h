/*
 * What every C kernel needs around its loops, written once: the one-line bad-argument exit (2), the --name=value
 * arguments (split, refused when malformed or given twice, whole numbers and names read from them, as common.Args
 * does in Java), the monotonic clock, and pinning a thread. Define KERNEL_NAME (the binary's name, the
 * prefix of every message) before including this. Each kernel is a translation unit of its own (the Makefile
 * builds one binary per C source in c-src and rebuilds them all when a header changes), so these are static
 * inline: a kernel that does not pin pays nothing for pin_self.
 */
#ifndef MECHSYM_KERNEL_H
#define MECHSYM_KERNEL_H

#ifndef KERNEL_NAME
#error "define KERNEL_NAME (the binary's name) before including kernel.h"
#endif

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A bad argument: one line on stderr naming it and what is allowed, exit 2. */
__attribute__((format(printf, 1, 2), noreturn)) static inline void bad_argument(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, KERNEL_NAME ": bad argument: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

static inline uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* The value of --name=value as a whole number in min..max, or a bad argument. */
static inline uint64_t parse_u64(const char *name, const char *value, uint64_t min, uint64_t max) {
    char *end;
    errno = 0;
    if (*value == '-' || *value == '\0') {
        bad_argument("--%s=%s: not a whole number (allowed %" PRIu64 "..%" PRIu64 ")", name, value, min, max);
    }
    unsigned long long v = strtoull(value, &end, 10);
    if (errno != 0 || *end != '\0') {
        bad_argument("--%s=%s: not a whole number (allowed %" PRIu64 "..%" PRIu64 ")", name, value, min, max);
    }
    if (v < min || v > max) {
        bad_argument("--%s=%s: out of range (allowed %" PRIu64 "..%" PRIu64 ")", name, value, min, max);
    }
    return v;
}

/* One --name=value argument: its name without "--", and its value. */
struct kernel_arg {
    char name[64];
    const char *value;
};

/* argv[i] split into name and value. Anything not --name=value, a name longer than any argument's, and a name given
 * earlier in argv are bad arguments (which of two would count is a guess a sweep must never depend on); `known` lists
 * the kernel's argument names for the messages. */
static inline struct kernel_arg kernel_arg(char **argv, int i, const char *known) {
    struct kernel_arg a;
    const char *arg = argv[i];
    const char *eq = strchr(arg, '=');
    if (strncmp(arg, "--", 2) != 0 || eq == NULL) {
        bad_argument("argument '%s': expected --name=value", arg);
    }
    size_t len = (size_t)(eq - arg - 2);
    if (len >= sizeof a.name) {
        bad_argument("argument '%s': unknown argument (known: %s)", arg, known);
    }
    memcpy(a.name, arg + 2, len);
    a.name[len] = '\0';
    a.value = eq + 1;
    for (int j = 1; j < i; j++) {
        if (strncmp(argv[j], arg, len + 3) == 0) {  /* "--", the name and "=" */
            bad_argument("--%s: given twice (--%s and %s); give it once", a.name, argv[j], arg);
        }
    }
    return a;
}

static inline int arg_is(const struct kernel_arg *a, const char *name) {
    return strcmp(a->name, name) == 0;
}

/* A name no branch of the kernel's took. */
__attribute__((noreturn)) static inline void unknown_argument(const struct kernel_arg *a, const char *known) {
    bad_argument("--%s: unknown argument (known: %s)", a->name, known);
}

/* The argument as a whole number in min..max, or a bad argument. */
static inline uint64_t arg_u64(const struct kernel_arg *a, uint64_t min, uint64_t max) {
    return parse_u64(a->name, a->value, min, max);
}

/* The index of the argument's value among names[0..n), or a bad argument listing them. */
static inline int arg_choice(const struct kernel_arg *a, const char *const *names, int n) {
    char allowed[256] = "";
    for (int k = 0; k < n; k++) {
        if (strcmp(a->value, names[k]) == 0) {
            return k;
        }
        strncat(allowed, k == 0 ? "" : ", ", sizeof allowed - strlen(allowed) - 1);
        strncat(allowed, names[k], sizeof allowed - strlen(allowed) - 1);
    }
    bad_argument("--%s=%s: allowed values are %s", a->name, a->value, allowed);
}

/* Pins the calling thread to one CPU. The ids were checked when the arguments were read, so a failure now is the
 * machine's, not the caller's: exit 1. */
static inline void pin_self(int cpu) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
    if (rc != 0) {
        fprintf(stderr, KERNEL_NAME ": error: cannot pin a thread to CPU %d: %s\n", cpu, strerror(rc));
        exit(1);
    }
}

#endif
