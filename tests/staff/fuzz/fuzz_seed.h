/*
 * fuzz_seed.h - what the fuzz driver's two halves share (see
 * fuzz_driver.c): a seed's report, which the seed's child process writes in
 * memory shared with the parent, and the helpers both use.
 */
#ifndef FUZZ_SEED_H
#define FUZZ_SEED_H

#include "proxy.h"

/* GRADER_CALL_SECONDS of every call: short, so that 200 seeds fit in
 * make check (the driver sets it for the proxy). */
#define FUZZ_CALL_SECONDS 0.25

/* One seed's figures and findings. */
typedef struct {
    unsigned calls, answered, points, wrong, restarts;
    unsigned failures[PROXY_FAILURE_KINDS]; /* by proxy_failure kind */
    unsigned problems;                         /* assertions that failed */
    double restart_seconds, stub_seconds;      /* where a seed's time goes */
    char doing[160];                           /* the call in progress, for a hang */
    double doing_since;                        /* when it started (CLOCK_MONOTONIC) */
    char first_problem[400];                   /* for the recap at the end */
} seed_report;

/* The seed the child runs, and its slot of the shared reports. */
extern unsigned long fuzz_seed;
extern seed_report *fuzz_report;

/* Runs the script for fuzz_seed, in the calling (child) process, filling
 * fuzz_report; its FAIL lines are printed as they happen. */
void fuzz_run_seed(void);

/* CLOCK_MONOTONIC, in seconds: the same clock in every process. */
double fuzz_now(void);

/* One line on stdout in one write, so parallel seeds do not interleave. */
__attribute__((format(printf, 1, 2))) void fuzz_say(const char *format, ...);

#endif /* FUZZ_SEED_H */
