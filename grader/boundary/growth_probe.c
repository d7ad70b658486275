/*
 * growth_probe.c - does a submission give its memory back? The outside
 * check behind the grader's memory points.
 *
 * usage: growth_probe SERVER position|solver SEED
 *
 * Valgrind runs inside the student process, where code can silence it
 * (client requests that declare a leaked block freed, or turn error
 * reporting off), and the allocation counts the suites read are kept there
 * too. This probe measures what no code in the student process can fake:
 * the size of its data segment (heap included), read from the kernel by
 * this trusted process. It repeats one workload many times in one student
 * process, through the proxy, and compares the data segment after a
 * warm-up with its size at the end. Memory that is freed is reused, so a
 * program that frees what it allocates stays flat; one that leaks grows
 * with every round.
 *
 * Workloads (positions drawn from SEED, so they cannot be prepared for):
 *   position  build four positions, copy one, change the copy, expand the
 *             original and free everything, ROUNDS times (Task 0's code);
 *   solver    clear the memo, ask both questions on a position, free it,
 *             ROUNDS times, cycling through four positions (Tasks 1 and 2's code; a solver whose memo is
 *             not cleared answers from it and stays flat as well).
 * Prints one line of JSON: {"outcome", "rounds", "warm_bytes",
 * "final_bytes", "growth_bytes", "message"}; the grader decides.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grundy.h"
#include "probe.h"

enum { POSITIONS = 4, HEAPS = 4, WARM_ROUNDS = 20 };
enum { POSITION_ROUNDS = 300, SOLVER_ROUNDS = 40 };

/* A small generator of our own: the positions depend only on the seed. */
static unsigned long next_random(unsigned long *state)
{
    *state = *state * 6364136223846793005UL + 1442695040888963407UL;
    return *state >> 33;
}

typedef struct {
    int heaps[HEAPS];
    int count;
} drawn_position;

static grundy_position *build(const drawn_position *d)
{
    grundy_position *p = grundy_new(0);
    for (int i = 0; i < d->count; i++)
        grundy_add_heap(p, d->heaps[i]);
    return p;
}

static void position_round(const drawn_position *drawn)
{
    for (int i = 0; i < POSITIONS; i++) {
        grundy_position *p = build(&drawn[i]);
        grundy_position *copy = grundy_copy(p);
        grundy_remove_heap(copy, drawn[i].heaps[0]);
        grundy_add_heap(copy, drawn[i].heaps[0] + 3);
        position_list_free(grundy_get_moves(p));
        grundy_free(copy);
        grundy_free(p);
    }
}

static void solver_round(const drawn_position *d)
{
    grundy_memo_clear();
    grundy_position *p = build(d);
    (void)grundy_is_p_position(p);
    (void)grundy_is_n_position(p);
    grundy_free(p);
}

/* Position workload: four heaps of 3 to 24. Solver workload: two or three
 * heaps of 3 to 9 tokens each, small enough for an unmemoized solver. */
static void draw(unsigned long seed, bool solver, drawn_position *drawn)
{
    unsigned long state = seed * 2 + 1;
    for (int i = 0; i < POSITIONS; i++) {
        drawn[i].count = solver ? 2 + (int)(next_random(&state) % 2) : HEAPS;
        for (int h = 0; h < drawn[i].count; h++)
            drawn[i].heaps[h] = solver ? 3 + (int)(next_random(&state) % 7)
                                       : 3 + (int)(next_random(&state) % 22);
    }
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[2], "position") != 0 && strcmp(argv[2], "solver") != 0)) {
        fprintf(stderr, "usage: %s SERVER position|solver SEED\n", argv[0]);
        return 2;
    }
    setenv("GRADER_SERVER", argv[1], 1);
    bool solver = strcmp(argv[2], "solver") == 0;
    drawn_position drawn[POSITIONS];
    draw(strtoul(argv[3], NULL, 10), solver, drawn);
    int rounds = solver ? SOLVER_ROUNDS : POSITION_ROUNDS;

    volatile long long warm = -1, final = -1;
    volatile int done = 0;
    probe_failure = PROXY_OK;
    if (setjmp(probe_failed) == 0) {
        for (int round = 0; round < rounds; round++) {
            if (solver)
                solver_round(&drawn[round % POSITIONS]);
            else
                position_round(drawn);
            done = round + 1;
            if (done == WARM_ROUNDS)
                warm = proxy_student_data_bytes();
        }
        final = proxy_student_data_bytes();
    }
    proxy_shutdown();
    const char *outcome = probe_failure != PROXY_OK ? probe_outcome_name(probe_failure)
                          : warm < 0 || final < 0   ? "unmeasured"
                                                    : "measured";
    printf("{\"outcome\": \"%s\", \"rounds\": %d, \"warm_rounds\": %d, \"warm_bytes\": %lld, "
           "\"final_bytes\": %lld, \"growth_bytes\": %lld, \"message\": ",
           outcome, done, WARM_ROUNDS, warm, final, warm >= 0 && final >= 0 ? final - warm : -1);
    probe_print_json_string(probe_failure_message);
    printf("}\n");
    return 0;
}
