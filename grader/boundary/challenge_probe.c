/*
 * challenge_probe.c - the challenge leaderboard: the largest single heap a
 * solver answers from an empty memo within a fixed CPU budget. Not part of
 * the points; a figure for the leaderboard and the class report.
 *
 * usage: challenge_probe SERVER BUDGET_SECONDS FIRST_HEAP LAST_HEAP
 *
 * Starts SERVER as a student process and, for heap = FIRST_HEAP, FIRST_HEAP
 * + 1, ..., clears the memo and asks grundy_is_p_position({heap}) and then
 * grundy_is_n_position({heap}), with a budget of BUDGET_SECONDS of the
 * student process's CPU time (read from the kernel) for each heap. A
 * heap's time is all the CPU the process used since the previous heap's
 * answers (since its start, constructors included, for the first): the
 * clear, building the position and freeing the last one count, so work
 * moved out of the questions is still paid for. Both
 * answers must be right: a constant answer (most single heaps are N) gets
 * nowhere. It stops at the first heap that is
 * not answered right within its budget (or at LAST_HEAP, a cap that keeps
 * a solver far faster than a search, one using nimbers say, from running
 * on forever). Prints one line of JSON: {"largest": the largest heap
 * answered (FIRST_HEAP - 1 if none), "cpu": its CPU seconds, "stopped_by":
 * "budget" | "wrong answer" | "crashed" | ... | "cap", "message"}.
 * Trusted: every answer is checked against the oracle here, and the times
 * are the kernel's.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "grundy.h"
#include "oracle.h"
#include "probe.h"

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: %s SERVER BUDGET_SECONDS FIRST_HEAP LAST_HEAP\n", argv[0]);
        return 2;
    }
    setenv("GRADER_SERVER", argv[1], 1);
    double budget = strtod(argv[2], NULL);
    int first = atoi(argv[3]), last = atoi(argv[4]);

    volatile int largest = first - 1;
    volatile double largest_cpu = 0;
    const char *volatile stopped_by = "cap";
    probe_failure = PROXY_OK;
    if (setjmp(probe_failed) == 0) {
        double answered_at = 0; /* the process's CPU clock starts at 0 */
        for (int heap = first; heap <= last; heap++) {
            proxy_set_cpu_budget(answered_at + budget);
            grundy_memo_clear();
            grundy_position *p = grundy_new(heap);
            bool answer_p = grundy_is_p_position(p);
            bool answer_n = grundy_is_n_position(p);
            grundy_free(p);
            double now = proxy_student_cpu_seconds();
            double cpu = now - answered_at;
            answered_at = now;
            proxy_set_cpu_budget(0);
            if (cpu > budget) {
                stopped_by = "budget";
                break;
            }
            bool is_p = oracle_is_p(&heap, 1);
            if (answer_p != is_p || answer_n == is_p) {
                stopped_by = "wrong answer";
                break;
            }
            largest = heap;
            largest_cpu = cpu;
        }
    } else {
        stopped_by = probe_failure == PROXY_OVER_BUDGET ? "budget" : probe_outcome_name(probe_failure);
    }
    proxy_shutdown();
    printf("{\"largest\": %d, \"cpu\": %.6f, \"stopped_by\": \"%s\", \"message\": ", largest, largest_cpu,
           stopped_by);
    probe_print_json_string(probe_failure_message);
    printf("}\n");
    return 0;
}
