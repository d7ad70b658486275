/*
 * measure_main.c - `make measure`: what each idea of Task 6 buys (given
 * code, Task 6).
 *
 * For each heap, three ways to answer "is {heap} a P-position?", each from
 * a cold start, in a child process of its own:
 *   - the Task 2 solver (grundy_is_p_position), memo keyed by positions;
 *   - the reduced search (grundy_reduced_is_p), pairs cancelled first;
 *   - the nimbers (grundy_nim_is_p), no search at all.
 * Each row gives the answer, the calls of grundy_get_moves (counted by
 * wrapping it, as the tests do), the memo's size, the CPU time of the
 * question alone, and the child's peak memory. A method that needs more
 * than the cap (MEASURE_CAP seconds of CPU, default 60) is stopped and
 * skipped for the larger heaps: each 10 tokens more cost it several times
 * as much.
 *
 * usage: measure H...            (make measure MEASURE_HEAPS="40 50 60")
 */
#define _GNU_SOURCE /* getrusage's ru_maxrss */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "child_run.h"
#include "expansion_counter.h"
#include "grundy.h"
#include "grundy_nimbers.h"
#include "lab_todo.h"

typedef enum { TASK2_MEMO, PAIRS_CANCELLED, NIMBERS, METHODS } method;

static const char *const NAMES[METHODS] = {
    "Task 2 memo",
    "pairs cancelled",
    "nimbers",
};

typedef struct {
    method how;
    int heap;
} question;

typedef struct {
    char stub[64]; /* the first NOT_IMPLEMENTED_YET() stub reached, or "" */
    bool is_p;
    unsigned long long expansions;
    size_t memo_size;
    double cpu_seconds;
    long peak_kib;
} measurement;

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Runs in the child: one question from a cold start. */
static size_t measure_job(const void *input, void *result)
{
    const question *q = input;
    measurement m = {0};
    /* A new child of a process that never asked anything: every memo is
     * empty, so the start is cold without clearing. */
    grundy_position *p = grundy_new(q->heap);
    if (p != NULL) {
        expansions_reset();
        double start = cpu_now();
        if (q->how == TASK2_MEMO)
            m.is_p = grundy_is_p_position(p);
        else if (q->how == PAIRS_CANCELLED)
            m.is_p = grundy_reduced_is_p(p);
        else
            m.is_p = grundy_nim_is_p(p);
        m.cpu_seconds = cpu_now() - start;
        m.expansions = (unsigned long long)expansions();
        m.memo_size = q->how == TASK2_MEMO ? grundy_memo_size()
                      : q->how == PAIRS_CANCELLED ? grundy_reduced_memo_size()
                                                  : 0;
        grundy_free(p);
    }
    if (lab_stub_reached(0) != NULL)
        snprintf(m.stub, sizeof m.stub, "%s", lab_stub_reached(0));
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    m.peak_kib = usage.ru_maxrss;
    memcpy(result, &m, sizeof m);
    return sizeof m;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs("usage: measure H...   (make measure MEASURE_HEAPS=\"40 50 60 70 80\")\n", stderr);
        return 2;
    }
    const char *cap_text = getenv("MEASURE_CAP");
    double cap = cap_text != NULL ? atof(cap_text) : 60;
    if (cap <= 0)
        cap = 60;
    bool over_cap[METHODS] = {false};
    printf("Each question from a cold start, in its own process; CPU cap %.0f s.\n\n", cap);
    printf("%5s  %-16s %6s %12s %12s %10s %10s\n", "heap", "method", "answer", "expansions", "memo size",
           "CPU s", "peak MiB");
    for (int i = 1; i < argc; i++) {
        int heap = atoi(argv[i]);
        for (method how = 0; how < METHODS; how++) {
            printf("%5d  %-16s ", heap, NAMES[how]);
            fflush(stdout);
            if (over_cap[how]) {
                puts("skipped: over the cap at a smaller heap");
                continue;
            }
            question q = {how, heap};
            child_result r = child_run(measure_job, &q, 0, cap);
            measurement m;
            memcpy(&m, r.result, sizeof m);
            if (r.outcome == CHILD_OVER_BUDGET) {
                printf("stopped after %.1f s of CPU (the cap)\n", r.cpu_seconds);
                over_cap[how] = true;
            } else if (r.outcome == CHILD_CRASHED) {
                printf("%s\n", child_crash_text(&r));
            } else if (m.stub[0] != '\0') {
                printf("not implemented yet: %s (see the TODOs in your code)\n", m.stub);
            } else {
                printf("%6s %12llu %12zu %10.3f %10.1f\n", m.is_p ? "P" : "N", m.expansions, m.memo_size,
                       m.cpu_seconds, (double)m.peak_kib / 1024);
            }
        }
    }
    return 0;
}
