/*
 * timed_run.h - runs the student's solver in a child process under a CPU
 * budget.
 *
 * A slow solver (an unmemoized one takes hours on the timed heaps) must
 * fail a timing check quickly and cleanly, not hang the suite. The child
 * starts with a cold memo, solves one position, and is stopped by SIGPROF
 * when it has used its CPU budget (or killed when a generous wall-clock
 * limit passes, whatever it does with signals). CPU time rather than wall
 * time is measured so that a busy machine does not make a solution look
 * slow.
 */
#ifndef TIMED_RUN_H
#define TIMED_RUN_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    TIMED_ANSWERED,    /* finished within budget; see is_p */
    TIMED_OVER_BUDGET, /* used up its CPU budget or wall-clock limit */
    TIMED_CRASHED      /* died of a signal of its own, or exited oddly */
} timed_outcome;

typedef struct {
    timed_outcome outcome;
    bool is_p;
    double cpu_seconds; /* CPU time the child used, answered or not */
    int signal;         /* for TIMED_CRASHED: the signal, or 0 */
    int exit_status;    /* for TIMED_CRASHED without a signal */
} timed_result;

timed_result timed_is_p(const int *heaps, size_t n, double cpu_budget_seconds);

#endif /* TIMED_RUN_H */
