/*
 * grundy_stack.h - Task 8 (optional, Part 2): the solver without recursion.
 *
 * Your Task 2 solver keeps its unfinished work on the C call stack: each
 * recursive call is a frame holding a position, its list of moves and how
 * far the loop over them has got. The call stack of a thread is small (a
 * few megabytes at most, sometimes kilobytes), and a position whose line
 * of play is tens of thousands of moves long needs that many frames at
 * once. This task keeps the same frames in an array you allocate and grow
 * yourself, and runs the search with a loop. The handout's section
 * "Task 8" (#task-8) explains how.
 *
 * Like grundy.h, this header is the contract: do not change it.
 */
#ifndef GRUNDY_STACK_H
#define GRUNDY_STACK_H

#include <stdbool.h>
#include <stddef.h>

#include "grundy.h"

/* True iff p is a P-position: the same answer as grundy_is_p_position(),
 * by a depth-first search that makes no recursive call, directly or
 * through another function: the pending positions sit in an explicit
 * stack of frames on the heap, which grows (by doubling) as deep as the
 * game needs. Its C stack use does not depend on p: it must answer
 * positions whose every game lasts tens of thousands of moves on a thread
 * whose stack is a few tens of kilobytes deep.
 *
 * Memo: answers are remembered in this file's own memo table (the given
 * memo_table.h; grundy_memo_clear() does not empty it, and the Task 2
 * memo is not used). From a cold memo each position reachable from p is
 * expanded (grundy_get_moves) at most once, and a question whose answer
 * is known costs at most one expansion. Every frame and move list is
 * freed before the function returns; p is not changed. */
bool grundy_stack_is_p(const grundy_position *p);

/* Frees this file's memo; the next query starts cold. Safe at any time. */
void grundy_stack_memo_clear(void);

/* How many positions this file's memo holds (0 before the first query). */
size_t grundy_stack_memo_size(void);

#endif /* GRUNDY_STACK_H */
