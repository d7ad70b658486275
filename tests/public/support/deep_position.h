/*
 * deep_position.h - positions whose every game is long, for the "no
 * recursion" checks of Task 8.
 *
 * `threes` heaps of 3 and a few other heaps: every move kills at most one
 * heap of 3 and creates none that would shorten the game, so every game
 * from it lasts at least `threes` + (other heaps) moves, and any
 * depth-first search holds that many unfinished positions at once. Yet
 * the positions reachable are few (the counts of 3s and what the other
 * heaps become), so a memoized search answers in a fraction of a second.
 */
#ifndef DEEP_POSITION_H
#define DEEP_POSITION_H

#include <stdbool.h>
#include <stddef.h>

#include "grundy.h"

typedef struct {
    int threes;
    int others[4]; /* distinct heights from 4 up */
    size_t n_others;
    bool (*is_p)(const grundy_position *p); /* the solver under test */
    void (*memo_clear)(void);               /* and its memo's clear */
} deep_position;

/* The job for child_run (child_run.h): builds the position with the
 * lab's API, asks d->is_p, frees the position and clears the memo (the
 * child is checked for leaks too), and hands back the answer as a bool. */
size_t deep_position_job(const void *d, void *result);

/* The answer, from the oracle (pairs of 3s cancel, so it asks about at
 * most one 3 and the other heaps). */
bool deep_position_is_p(const deep_position *d);

/* "{3=12000, 5=1}" (one static buffer, valid until the next call). */
const char *deep_position_text(const deep_position *d);

/* The fewest moves a game from it lasts. */
int deep_position_moves(const deep_position *d);

/* Why the job crashed on a small stack, in a sentence for the message
 * (one static buffer, valid until the next call). A crash there is not
 * always recursion: a frame array on the heap that never grows overflows
 * too, on any stack. So the job is run again on a large stack
 * (DEEP_LARGE_STACK, with the same CPU budget): crashing again there, it
 * names an invalid memory access such as a write past the end of the
 * frame array; not crashing, a C stack that the search outgrew. */
enum { DEEP_LARGE_STACK = 64 * 1024 * 1024 };
const char *deep_position_crash_cause(const deep_position *d, double budget);

#endif /* DEEP_POSITION_H */
