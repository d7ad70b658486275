/*
 * timing_probe.c - times one solver on one position, for the grader's
 * timing phase.
 *
 * usage: timing_probe BUDGET_SECONDS HEAP...
 * Prints "P|N CPU_SECONDS EXPANSIONS" as its last line and exits 0; the
 * line starts on a line of its own, after whatever the solver printed
 * (printing is allowed, even without a final newline). The probe arms a CPU
 * timer (ITIMER_PROF) before it calls the solver, so a solver over budget
 * dies of SIGPROF; the grader's wall-clock kill covers the rest. Linked
 * with -Wl,--wrap=grundy_get_moves, it also counts expansions.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

#include "expansion_counter.h"
#include "grundy.h"

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s BUDGET_SECONDS HEAP...\n", argv[0]);
        return 2;
    }
    double budget = strtod(argv[1], NULL);
    if (budget > 0) {
        struct itimerval limit = {0};
        limit.it_value.tv_sec = (time_t)budget;
        limit.it_value.tv_usec = (suseconds_t)((budget - (double)(time_t)budget) * 1e6) + 1;
        setitimer(ITIMER_PROF, &limit, NULL);
    }
    double start = cpu_now();
    grundy_memo_clear();
    grundy_position *p = grundy_new(0);
    if (p == NULL)
        return 3;
    for (int i = 2; i < argc; i++)
        grundy_add_heap(p, atoi(argv[i]));
    expansions_reset();
    bool is_p = grundy_is_p_position(p);
    double used = cpu_now() - start;
    printf("\n%c %.6f %llu\n", is_p ? 'P' : 'N', used, (unsigned long long)expansions());
    return 0;
}
