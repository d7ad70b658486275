/*
 * grundy_nimbers.c - Task 6 (optional): pairs cancel, and nimbers.
 *
 * Your work goes where the TODO(Task 6) markers are. The handout's section
 * "Task 6" (#task-6) explains both ideas and what to measure with them;
 * the contract of every function is in grundy_nimbers.h. You need working
 * Tasks 0-2: the reduced search is your Task 2 solver with one change.
 *
 * Each stub calls NOT_IMPLEMENTED_YET() so the tests can tell you which
 * function to write next; delete that line when you write the function.
 */
#include <stdlib.h>

#include "grundy_nimbers.h"
#include "lab_todo.h"
#include "memo_table.h"

/* TODO(Task 6): this file's state, both created on first use, e.g.
 *     static memo_table *reduced_memo;    (the reduced search's answers)
 *     static int *nim;                    (nim[h] = g(h), or -1: unknown)
 *     static size_t nim_capacity;
 */

grundy_position *grundy_cancel_pairs(const grundy_position *p)
{
    /* TODO(Task 6): a new position holding, for each entry of p, one heap
     * of its height when its count is odd and none when it is even. */
    (void)p;
    NOT_IMPLEMENTED_YET();
    return NULL;
}

bool grundy_reduced_is_p(const grundy_position *p)
{
    /* TODO(Task 6): your Task 2 search, with every position reduced
     * (grundy_cancel_pairs) before it is looked up, expanded or stored;
     * the answers go to this file's own memo. Free the reduced copy. */
    (void)p;
    NOT_IMPLEMENTED_YET();
    return false;
}

size_t grundy_reduced_memo_size(void)
{
    /* TODO(Task 6): how many positions the reduced search's memo holds
     * (0 with no table). */
    NOT_IMPLEMENTED_YET();
    return 0;
}

int grundy_nim_value(int n)
{
    /* TODO(Task 6): -1 for n < 0, 0 for n < 3; otherwise look g(n) up in
     * the table, and if it is unknown compute the mex of
     * grundy_nim_value(a) ^ grundy_nim_value(n - a) over 1 <= a < n - a,
     * store it, and return it. */
    (void)n;
    NOT_IMPLEMENTED_YET();
    return -1;
}

bool grundy_nim_is_p(const grundy_position *p)
{
    /* TODO(Task 6): XOR the nimbers of all heaps (a height whose count is
     * even adds nothing); P exactly when the result is 0. */
    (void)p;
    NOT_IMPLEMENTED_YET();
    return false;
}

void grundy_nimbers_clear(void)
{
    /* TODO(Task 6): free the nimber table and the reduced search's memo,
     * and set both back to "not created yet". */
    NOT_IMPLEMENTED_YET();
}
