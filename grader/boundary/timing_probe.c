/*
 * timing_probe.c - times one solver on one position, for the grader's
 * timing phase. Trusted: it never runs the submission's code itself; the
 * solver runs in a student process (proxy.h), whose CPU time this program
 * reads from the kernel.
 *
 * usage: timing_probe SERVER BUDGET_SECONDS HEAP...
 *        timing_probe --classify HEAP...
 *        timing_probe --calibrate RUNS HEAP...
 *
 * Starts SERVER as a fresh student process for this one position, clears
 * the memo, builds the position, and asks grundy_is_p_position, then
 * grundy_is_n_position. The time it is judged by is ALL the CPU time the
 * student process used, read from the kernel after the second answer:
 * from its start (its constructors), through the clear and the build (a
 * grundy_add_heap that solves the position into the memo pays for it
 * here) to both answers. A student process runs only while a call is in
 * progress (its server loop waits on its pipe between calls, and it
 * cannot start a thread or a process), so this is every CPU second it
 * spent on the question, and nothing it did can be left out. Prints one
 * line of JSON on stdout (the student process's printing goes to stderr,
 * never here):
 *   {"outcome": "answered" | "over budget" | "crashed" | "timed out" |
 *               "malformed" | "not started" | "internal error",
 *    "cpu": CPU seconds of the student process, start to both answers,
 *    "expected_p": the oracle's answer,
 *    "answer_p": ..., "answer_n": ..., "correct": both answers right,
 *    "expansions": the student process's own count of grundy_get_moves
 *                  calls during the P question (a figure it could forge:
 *                  reported, never a verdict), "message": "..."}
 * With BUDGET_SECONDS > 0 the student process is stopped once its CPU time
 * since its start passes the budget, whichever call it is in (the build
 * included). --classify prints P or N, from the oracle.
 * --calibrate prints the yardstick of the budget: the CPU seconds the
 * calibration solver (tests/public/support/calibration_solver.c, the same
 * yardstick as the students' own timing tests) takes on the position, in
 * this trusted process, as {"cpu": ..., "agrees": true if its answer is
 * the oracle's}; the fastest of RUNS measurements, each from an empty
 * memo, so one busy moment on the machine does not set the budget (and one
 * process does it: a sandbox per run cost more than the runs).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibration_solver.h"
#include "expansion_counter.h"
#include "grundy.h"
#include "oracle.h"
#include "probe.h"

int main(int argc, char **argv)
{
    int heaps[64];
    size_t n = 0;
    bool classify = argc >= 2 && strcmp(argv[1], "--classify") == 0;
    bool calibrate = argc >= 2 && strcmp(argv[1], "--calibrate") == 0;
    int first = classify ? 2 : 3;
    if (argc < first || argc - first > 64) {
        fprintf(stderr, "usage: %s SERVER BUDGET_SECONDS HEAP... | --classify HEAP... | "
                        "--calibrate RUNS HEAP...\n", argv[0]);
        return 2;
    }
    for (int i = first; i < argc; i++)
        heaps[n++] = atoi(argv[i]);
    bool expected_p = oracle_is_p(heaps, n);
    if (classify) {
        printf("%c\n", expected_p ? 'P' : 'N');
        return 0;
    }
    if (calibrate) {
        int runs = atoi(argv[2]);
        bool agrees = runs > 0;
        double fastest = -1;
        for (int k = 0; k < runs; k++) {
            bool is_p;
            double cpu = calibration_seconds(heaps, n, &is_p);
            agrees = agrees && is_p == expected_p;
            if (fastest < 0 || cpu < fastest)
                fastest = cpu;
        }
        printf("{\"cpu\": %.6f, \"agrees\": %s}\n", fastest, agrees ? "true" : "false");
        return 0;
    }
    setenv("GRADER_SERVER", argv[1], 1);
    double budget = strtod(argv[2], NULL);

    volatile double cpu = -1;
    volatile bool answer_p = false, answer_n = false;
    volatile unsigned long long counted = 0;
    probe_failure = PROXY_OK;
    /* Set before the first call: the budget is the process's whole CPU
     * time, and it holds in every call, the build's as well. */
    proxy_set_cpu_budget(budget > 0 ? budget : 0);
    if (setjmp(probe_failed) == 0) {
        grundy_memo_clear();
        grundy_position *p = grundy_new(0);
        for (size_t i = 0; i < n; i++)
            grundy_add_heap(p, heaps[i]);
        expansions_reset();
        answer_p = grundy_is_p_position(p);
        counted = expansions(); /* of the P question (a figure, not a verdict) */
        answer_n = grundy_is_n_position(p);
        cpu = proxy_student_cpu_seconds();
        proxy_set_cpu_budget(0);
    }
    if (probe_failure != PROXY_OK && cpu < 0)
        cpu = budget; /* stopped before both answers: at least its budget */
    proxy_shutdown();
    bool correct = probe_failure == PROXY_OK && answer_p == expected_p && answer_n == !expected_p;
    printf("{\"outcome\": \"%s\", \"cpu\": %.6f, \"expected_p\": %s, \"answer_p\": %s, "
           "\"answer_n\": %s, \"correct\": %s, \"expansions\": %llu, \"message\": ",
           probe_outcome_name(probe_failure), cpu, expected_p ? "true" : "false", answer_p ? "true" : "false",
           answer_n ? "true" : "false", correct ? "true" : "false", counted);
    probe_print_json_string(probe_failure_message);
    printf("}\n");
    return 0;
}
