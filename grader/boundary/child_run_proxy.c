/*
 * child_run_proxy.c - child_run.h for the grader's test runners.
 *
 * In `make test` a job runs in a forked child of the test, where a CPU
 * budget and a small stack judge the student's code (tests/public/support/
 * child_run.c). In a runner the student's code is not in the test's
 * process at all: every call crosses to a student process. So here the
 * job runs in the test, and the limits are put on a student process of
 * its own: the current one is ended, a fresh one starts with RLIMIT_STACK
 * set before its program runs, and the proxy stops it once its CPU time
 * (read from the kernel) passes the budget. A crash or a spent budget is
 * caught (proxy_failure_catcher) and becomes the job's outcome, as a dead
 * child would; then the test goes on with another fresh student process.
 * Jobs build what they need from plain data, so a fresh process is all
 * they need, as a fresh child is.
 */
#include <setjmp.h>
#include <string.h>

#include "child_run.h"
#include "child_run_proxy.h"
#include "proxy.h"

child_result child_run(child_job job, const void *input, size_t stack_bytes, double cpu_budget)
{
    static child_result r; /* static: it must survive the longjmp back */
    memset(&r, 0, sizeof r);
    proxy_restart(stack_bytes > 0 ? child_stack_size(stack_bytes) : 0);
    proxy_set_cpu_budget(cpu_budget > 0 ? cpu_budget : 0);
    jmp_buf catcher;
    if (setjmp(catcher) == 0) {
        proxy_failure_catcher = &catcher;
        r.result_size = job(input, r.result);
        proxy_failure_catcher = NULL;
        if (r.result_size > CHILD_RESULT_MAX)
            r.result_size = CHILD_RESULT_MAX;
        r.outcome = CHILD_FINISHED;
        r.cpu_seconds = proxy_student_cpu_seconds();
    } else {
        /* The budget counts from the fresh process's start, as a child's does. */
        r.cpu_seconds = cpu_budget;
        if (proxy_caught_failure == PROXY_OVER_BUDGET || proxy_caught_failure == PROXY_TIMED_OUT) {
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
