/*
 * memo_solver.h - checks shared by the optional tasks' own memoized
 * solvers: grundy_reduced_is_p (Task 6) and grundy_stack_is_p (Task 8).
 *
 * Each keeps a memo of its own, with a size and a clear function, and is
 * held to the rules of Task 2: the right answer (from the oracle), at most
 * one expansion per reachable position (counted by expansion_counter.h),
 * and a memo that is its own, fills up and empties. A memo_solver names
 * the three functions, so that one check serves both tasks and its
 * messages name the student's functions.
 */
#ifndef MEMO_SOLVER_H
#define MEMO_SOLVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "grundy.h"

typedef struct {
    const char *name; /* "grundy_stack_is_p" */
    bool (*is_p)(const grundy_position *p);
    const char *size_name; /* "grundy_stack_memo_size" */
    size_t (*memo_size)(void);
    const char *clear_name; /* "grundy_stack_memo_clear" */
    void (*memo_clear)(void);
    const char *section; /* the handout section of the task */
    /* Whether the memo is keyed by the reduced position (Task 6): a key
     * with two equal heaps is then a mistake (memo_evidence.h). */
    bool reduced_keys;
} memo_solver;

/* Asks the solver about the position with these heaps (built in this
 * order), fails the test unless it agrees with the oracle, and returns
 * the calls of grundy_get_moves it made. */
uint64_t memo_solver_ask(const memo_solver *s, const int *heaps, size_t n);

/* Asks `s` about the position and fails the test on a wrong answer, like
 * memo_solver_ask, without counting the expansions: a test of answers
 * alone reads no count only the student process reports (under the
 * grader such a test earns nothing). */
void memo_solver_answer(const memo_solver *s, const int *heaps, size_t n);

/* memo_solver_ask, also failing the test when (bound > 0) the solver
 * called grundy_get_moves more than `bound` times. `how` follows the
 * position in messages, e.g. " from an empty memo" (or ""). */
uint64_t memo_solver_ask_within(const memo_solver *s, const int *heaps, size_t n, uint64_t bound,
                                const char *how);

/* The solver as the memo's record asks it (memo_evidence.h), for
 * LAB_EXPECT_MEMO: a check that failed in a child process (a timing test,
 * whose memo is gone with it) still names the memo mistake, found by
 * asking small positions in this process. */
const lab_memo_solver *memo_solver_evidence(const memo_solver *s);

/* The memo's own life: from an empty memo one question about {heap}
 * leaves between 1 and `bound` positions in the solver's memo and none in
 * the Task 2 memo; clearing empties it; the next question starts cold. */
void memo_solver_expect_own_memo(const memo_solver *s, int heap, uint64_t bound);

#endif /* MEMO_SOLVER_H */
