/*
 * memo_evidence.h - a memo mistake named from the memo's own calls
 * (memo_record.h) and the oracle: the solver is asked a few questions about
 * small positions from an empty memo, and what it asked the table, in
 * which order, under which key, with which flag, tells the cause.
 */
#ifndef MEMO_EVIDENCE_H
#define MEMO_EVIDENCE_H

#include <stdbool.h>

#include "grundy.h"
#include "memo_record.h"

/* A memoized solver as the evidence asks it. */
typedef struct {
    const char *is_p_name; /* "grundy_is_p_position" */
    const char *is_n_name; /* "grundy_is_n_position", or NULL: the solver answers "is P?" only */
    bool (*ask)(const grundy_position *p, bool ask_p);
    void (*clear)(void);    /* empties the solver's memo */
    const char *clear_name; /* "grundy_memo_clear" */
    /* The handout section a cause points at: the task's own (Task 2's
     * common mistakes, Task 6's pairs, Task 8's solver), never another's. */
    const char *section;
    /* Whether the memo is keyed by the reduced position (pairs cancelled,
     * Task 6): a key with two equal heaps is then a mistake. */
    bool reduced_keys;
} lab_memo_solver;

/* A recorded key's heaps, one element per heap (at most `max`); their
 * count, or (size_t)-1 when the key was not readable. */
size_t memo_event_heaps(const memo_event *e, int *heaps, size_t max);

/* "CAUSE. EVIDENCE" for the first mistake the record shows, or NULL when
 * it shows none or is not kept in this program. Each cause opens with a
 * sentence of its own, the same for every test that shows it. Clears the
 * solver's memo. */
const char *lab_memo_evidence(const lab_memo_solver *solver);

/* After lab_memo_evidence() found no cause: whether its record showed the
 * solver never calling the given memo_table (a memo of its own, whose
 * entries no test can see). */
bool lab_memo_evidence_saw_own_memo(void);

/* For a solver keyed by reduced positions, the reduced-key cause when the
 * record since the last memo_record_reset() holds a key with two equal
 * heaps (a question about `text`), else NULL. */
const char *lab_memo_unreduced_key(const lab_memo_solver *s, const char *text);

/* The Task 1-2 solver: grundy_is_p_position, grundy_is_n_position and
 * grundy_memo_clear. */
extern const lab_memo_solver lab_grundy_solver;

/* lab_first_wrong_step (lab_support.h) for another solver that searches
 * the moves and keeps a memo of its own (Tasks 6 and 8, memo_solver.h):
 * each question is asked from an empty memo (solver->clear). */
const char *lab_first_wrong_step_of(const lab_memo_solver *solver, const int *heaps, size_t n,
                                    bool asked_p);

/* Turns the forgetful memo (memo_record.h) on or off where it is kept. */
void lab_memo_forgetful(bool on);
/* lab_memo_forgetful(true), as a suite's .init: Task 1's suites. */
void lab_memo_forgotten(void);
/* Whether the given table is forgetful in this test (Task 1's suites). */
bool lab_memo_is_forgotten(void);

#endif /* MEMO_EVIDENCE_H */
