/*
 * proxy_criterion.c - the proxy's failures and figures in the grader's test
 * runners (see proxy.h), and child_run.h for them.
 *
 * A failed call fails the test with the proxy's sentence, unless child_run
 * is judging it. A figure that only the student process can count is a line
 * "SUITE::TEST FIGURE" of $GRADER_REPORT.figures, so the grader can make the
 * test's points depend on a check made from outside (Criterion's
 * --full-stats would send every passing assertion to the runner: seconds).
 *
 * child_run: in `make test` a job runs in a forked child with a CPU budget
 * and a small stack (tests/public/support/child_run.c). Here the student's
 * code is in no test process at all, so the job runs in the test and the
 * limits go on a fresh student process of its own (RLIMIT_STACK set before
 * its program runs; stopped once its kernel CPU time passes the budget). A
 * crash or a spent budget becomes the job's outcome, as a dead child's would.
 */
#include <criterion/criterion.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "child_run.h"
#include "proxy.h"

/* While not NULL, a failed call jumps here (once), leaving its kind. */
static jmp_buf *failure_catcher;
static proxy_failure caught_failure;

_Noreturn void proxy_report_failure(proxy_failure kind, const char *message)
{
    if (failure_catcher != NULL) {
        jmp_buf *catcher = failure_catcher;
        failure_catcher = NULL;
        caught_failure = kind;
        longjmp(*catcher, 1);
    }
    cr_assert_fail("%s", message);
    abort(); /* cr_assert_fail does not return */
}

void proxy_note_figure(const char *figure)
{
    static const char *noted[8];
    for (size_t i = 0; i < 8 && noted[i] != NULL; i++)
        if (strcmp(noted[i], figure) == 0)
            return;
    for (size_t i = 0; i < 8; i++)
        if (noted[i] == NULL) {
            noted[i] = figure;
            break;
        }
    if (criterion_current_test == NULL)
        return;
    char line[512];
    int length = snprintf(line, sizeof line, "%s::%s %s\n", criterion_current_test->category,
                          criterion_current_test->name, figure);
    if (length > 0 && (size_t)length < sizeof line)
        proxy_report_append("figures", line);
}

child_result child_run(child_job job, const void *input, size_t stack_bytes, double cpu_budget)
{
    static child_result r; /* static: it must survive the longjmp back */
    memset(&r, 0, sizeof r);
    proxy_restart(stack_bytes > 0 ? child_stack_size(stack_bytes) : 0);
    proxy_set_cpu_budget(cpu_budget > 0 ? cpu_budget : 0);
    jmp_buf catcher;
    if (setjmp(catcher) == 0) {
        failure_catcher = &catcher;
        r.result_size = job(input, r.result);
        failure_catcher = NULL;
        if (r.result_size > CHILD_RESULT_MAX)
            r.result_size = CHILD_RESULT_MAX;
        r.outcome = CHILD_FINISHED;
        r.cpu_seconds = proxy_student_cpu_seconds();
    } else {
        /* The budget counts from the fresh process's start, as a child's does. */
        r.cpu_seconds = cpu_budget;
        if (caught_failure == PROXY_OVER_BUDGET || caught_failure == PROXY_TIMED_OUT) {
            r.outcome = CHILD_OVER_BUDGET;
        } else {
            r.outcome = CHILD_CRASHED;
            r.signal = proxy_student_death_signal();
            r.exit_status = r.signal == 0 ? 1 : 0;
        }
    }
    proxy_set_cpu_budget(0);
    proxy_restart(0);
    return r;
}
