/*
 * expansion_counter.h - counts how often the solver asks for the moves of a
 * position.
 *
 * In a program linked with expansion_counter.c and
 * -Wl,--wrap=grundy_get_moves (the Task 1 and Task 2 test programs, the
 * grader's student programs), every call that crosses from one object file to
 * grundy_get_moves (the solver's calls do) is counted. Unlike a
 * stopwatch this count does not depend on the machine or its load, so it
 * checks memoization exactly: a memoized solver expands each position at
 * most once.
 */
#ifndef EXPANSION_COUNTER_H
#define EXPANSION_COUNTER_H

#include <stdbool.h>
#include <stdint.h>

/* Calls to grundy_get_moves since the last reset. */
uint64_t expansions(void);
void expansions_reset(void);

/* Whether a call of grundy_get_moves is running: the allocation tracker
 * (alloc_tracker.h) then files each block as a move list's. */
bool expansion_running(void);

#endif /* EXPANSION_COUNTER_H */
