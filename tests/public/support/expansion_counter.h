/*
 * expansion_counter.h - counts how often the solver asks for the moves of a
 * position.
 *
 * In a program linked with expansion_counter.c and
 * -Wl,--wrap=grundy_get_moves (the Task 2 test program, the grader's
 * student programs), every call that crosses from one object file to
 * grundy_get_moves (the solver's calls do) is counted. Unlike a
 * stopwatch this count does not depend on the machine or its load, so it
 * checks memoization exactly: a memoized solver expands each position at
 * most once.
 */
#ifndef EXPANSION_COUNTER_H
#define EXPANSION_COUNTER_H

#include <stdint.h>

/* Calls to grundy_get_moves since the last reset. */
uint64_t expansions(void);
void expansions_reset(void);

#endif /* EXPANSION_COUNTER_H */
