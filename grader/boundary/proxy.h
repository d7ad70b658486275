/*
 * proxy.h - the lab's API on the trusted side of the grader: every call of
 * grundy.h is answered by a student process (see spawn.h), so the tests,
 * the oracle and the grader's report never share a process with the
 * submission's code.
 *
 * proxy.c defines grundy.h's functions (and the counts the suites read:
 * alloc_live_blocks, expansions, lab_stub_reached) for the test runners and
 * the timing probe. A position the student process returns arrives as a
 * copy (a "mirror") whose fields the tests read as they would read the
 * submission's own; calls that take a position send its handle, and every
 * reply carries the position's fields again, so a call that changes its
 * argument shows. The student process is started on the first call of a
 * test (each Criterion test runs in a process of its own) and ended when
 * that process exits.
 *
 * Configured by the environment (set by the grader): GRADER_SERVER (the
 * student program), GRADER_POLICY (serve, coverage or valgrind),
 * GRADER_CALL_SECONDS (wall-clock limit of one call), GRADER_CPU_SECONDS
 * (CPU limit of one student process), GRADER_SIDE_FD (the pipe valgrind's
 * reports go to) and GRADER_GCOV_PREFIX(_STRIP).
 */
#ifndef GRADER_PROXY_H
#define GRADER_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include "grundy.h"

typedef enum {
    PROXY_OK,
    PROXY_CRASHED,     /* the student process died of a signal or exited */
    PROXY_TIMED_OUT,   /* a call did not return within its wall-clock limit */
    PROXY_OVER_BUDGET, /* the student process used up its CPU budget */
    PROXY_MALFORMED_REPLY, /* a reply did not follow the protocol */
    PROXY_NOT_STARTED, /* the student process could not be started */
    PROXY_INTERNAL_ERROR, /* the trusted side itself failed (out of memory, poll):
                           * nothing the student process did */
    PROXY_FAILURE_KINDS /* how many kinds there are, for arrays by kind */
} proxy_failure;

/* Defined by what links the proxy (proxy_criterion.c for the runners, the
 * timing probe for itself): reports a failed call, naming the call and
 * what went wrong, and does not return. */
_Noreturn void proxy_report_failure(proxy_failure kind, const char *message);

/* Defined by what links the proxy: records that the current test read a
 * figure only the student process can count (expansions, memo size, live
 * allocations), so that the grader can make its points depend on a check
 * made from outside. */
void proxy_note_figure(const char *figure);

/* Appends `text` to the file $GRADER_REPORT.SUFFIX (nothing when not under
 * the grader): what the runner's test processes, each started afresh by
 * Criterion, tell the grader and each other. Student processes cannot open
 * files. */
void proxy_report_append(const char *suffix, const char *text);

/* The timing probe's controls: a CPU budget for the student process (0 for
 * none) checked while a call runs, and the student process's CPU time so
 * far, read from the kernel: all of it since the process started (its
 * constructors, every call, every thread), so a probe that wants all of a
 * question's cost starts a fresh process for it and reads this after the
 * answer, and a budget is a total since the start, not a delta. */
void proxy_set_cpu_budget(double seconds);
double proxy_student_cpu_seconds(void);

/* The student process's resident memory in bytes (the pages it has
 * touched: heap, static arrays, mappings alike, and any of them it pushed
 * out to swap), read from the kernel (/proc/PID/status: VmRSS + VmSwap),
 * or -1 before it starts or after it died: what the
 * growth and memo probes compare, as no code in the process can shrink it
 * without really giving memory back, nor hide a block in a static array
 * (its pages become resident when they are written). */
long long proxy_student_resident_bytes(void);

/* Ends the student process (asking it to exit first, so gcov and valgrind
 * write their data); also run at exit. */
void proxy_shutdown(void);

/* Ends the student process and forgets its positions: the next call starts
 * a fresh one, whose stack is limited to stack_bytes (0: no limit of ours).
 * For checks that judge the process itself (child_run, proxy_criterion.c). */
void proxy_restart(size_t stack_bytes);

/* How the last student process ended, when it died: the signal that killed
 * it (0 if none), for messages about a crash. */
int proxy_student_death_signal(void);

/* position_list_free of the trusted side, which the runners and probes are
 * linked to with -Wl,--wrap=position_list_free: one crossing frees a whole
 * list's positions (the given version makes one per position). */
void __wrap_position_list_free(position_list *list);

#endif /* GRADER_PROXY_H */
