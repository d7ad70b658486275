/*
 * timed_run.c - runs a solver in a child process under a CPU budget
 * (timed_run.h).
 */
#define _GNU_SOURCE /* wait4 */
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "grundy.h"
#include "timed_run.h"

enum { EXIT_IS_P = 40, EXIT_IS_N = 41 };

static double seconds_of(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void run_child(const int *heaps, size_t n, double budget)
{
    /* The test's own handler (lab_test_begin) would catch SIGPROF: here it
     * must end the child. */
    signal(SIGPROF, SIG_DFL);
    struct itimerval limit = {0};
    limit.it_value.tv_sec = (time_t)budget;
    limit.it_value.tv_usec = (suseconds_t)((budget - (double)(time_t)budget) * 1e6) + 1;
    setitimer(ITIMER_PROF, &limit, NULL); /* SIGPROF's default action ends the child */

    grundy_memo_clear();
    grundy_position *p = grundy_new(0);
    if (p == NULL)
        _exit(2);
    for (size_t i = 0; i < n; i++)
        grundy_add_heap(p, heaps[i]);
    bool is_p = grundy_is_p_position(p);
    _exit(is_p ? EXIT_IS_P : EXIT_IS_N);
}

timed_result timed_is_p(const int *heaps, size_t n, double budget)
{
    timed_result result = {.outcome = TIMED_CRASHED};
    pid_t child = fork();
    if (child < 0)
        return result;
    if (child == 0)
        run_child(heaps, n, budget);

    /* The wall-clock limit only matters for a child that dodges SIGPROF;
     * it is generous so that a loaded machine never trips it first. */
    double deadline = now() + 4 * budget + 2.0;
    int status = 0;
    struct rusage usage = {0};
    for (;;) {
        pid_t done = wait4(child, &status, WNOHANG, &usage);
        if (done == child)
            break;
        if (now() > deadline) {
            kill(child, SIGKILL);
            wait4(child, &status, 0, &usage);
            break;
        }
        struct timespec pause = {.tv_sec = 0, .tv_nsec = 2000000};
        nanosleep(&pause, NULL);
    }
    result.cpu_seconds = seconds_of(usage.ru_utime) + seconds_of(usage.ru_stime);
    if (WIFEXITED(status) && (WEXITSTATUS(status) == EXIT_IS_P || WEXITSTATUS(status) == EXIT_IS_N)) {
        result.outcome = TIMED_ANSWERED;
        result.is_p = WEXITSTATUS(status) == EXIT_IS_P;
    } else if (WIFSIGNALED(status) && (WTERMSIG(status) == SIGPROF || WTERMSIG(status) == SIGKILL)) {
        result.outcome = TIMED_OVER_BUDGET;
    } else {
        result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    }
    return result;
}
