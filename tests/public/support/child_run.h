/*
 * child_run.h - runs one job of the code under test in a child process,
 * under a CPU budget and, when asked, on a thread with a small stack.
 *
 * Some checks can only be made from outside the code they judge: "fills
 * the table within a CPU budget" needs a process that can be stopped when
 * the budget is spent, and "uses no recursion" needs a stack too small for
 * recursion, where overflowing it kills only the child. The job runs
 * student code and nothing else (no assertion: a failed Criterion
 * assertion in a forked child would not reach the test), and hands its
 * result back as bytes through a pipe; the parent then judges it.
 *
 * Under the grader every call of the lab's API already crosses to a
 * student process (grader/boundary), so the limits there must be applied
 * to that process; see the report of issue 11 for what the proxy needs.
 */
#ifndef CHILD_RUN_H
#define CHILD_RUN_H

#include <stdbool.h>
#include <stddef.h>

/* The largest result a job can hand back. */
enum { CHILD_RESULT_MAX = 256 };

typedef enum {
    CHILD_FINISHED,    /* the job returned; see result */
    CHILD_OVER_BUDGET, /* it used up its CPU budget (or a generous wall-clock limit) */
    CHILD_CRASHED      /* it died of a signal of its own, or exited on its own */
} child_outcome;

typedef struct {
    child_outcome outcome;
    double cpu_seconds;  /* what the child used, finished or not */
    int signal;          /* CHILD_CRASHED by a signal: which one (SIGSEGV for a stack overflow) */
    int exit_status;     /* CHILD_CRASHED without a signal: its exit status (AddressSanitizer
                            reports a stack overflow and exits with 1) */
    size_t result_size;
    unsigned char result[CHILD_RESULT_MAX];
} child_result;

/* A job: runs in the child with `input`, writes at most CHILD_RESULT_MAX
 * bytes to `result` and returns how many. */
typedef size_t (*child_job)(const void *input, void *result);

/* Runs job(input) in a child process. stack_bytes > 0 runs it on a new
 * thread whose stack has that size (rounded up to what the system allows;
 * see child_stack_size); 0 runs it on the child's own stack. cpu_budget
 * > 0 stops the child once it has used that many CPU seconds; <= 0 sets
 * no CPU budget. A wall-clock limit of 4 x budget + 10 s (60 s without a
 * budget) stops a child that sleeps or blocks. */
child_result child_run(child_job job, const void *input, size_t stack_bytes, double cpu_budget);

/* The stack size a job asking for stack_bytes really gets. */
size_t child_stack_size(size_t stack_bytes);

/* "it crashed with signal 11 (Segmentation fault)" or "it exited with
 * status 1 before returning", for messages about a CHILD_CRASHED result
 * (one static buffer, valid until the next call). */
const char *child_crash_text(const child_result *r);

/* What ends a child with exit status 1 in the build at hand: the
 * sanitizers stop a process that way (the text starts with a space). */
#if defined(__SANITIZE_ADDRESS__)
#define CHILD_EXIT_1_TEXT                                                                      \
    " (AddressSanitizer ends a process that overflows its stack or misuses memory that way, " \
    "and UndefinedBehaviorSanitizer one with undefined behaviour: their report is above)"
#elif defined(LAB_UBSAN)
#define CHILD_EXIT_1_TEXT                                                                    \
    " (UndefinedBehaviorSanitizer, which `make test` builds with, ends a process that way on " \
    "undefined behaviour: its report, printed above, names the line)"
#else
#define CHILD_EXIT_1_TEXT ""
#endif

#endif /* CHILD_RUN_H */
