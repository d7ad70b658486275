/*
 * grundy_winning.c - Task 5 (optional): the winning move.
 *
 * Your work goes where the TODO(Task 5) marker is. The handout's section
 * "Task 5" (#task-5) explains the idea; the contract (what to return,
 * who frees it) is in grundy_winning.h. You need working Tasks 0-2 first:
 * this function is built from grundy_get_moves and grundy_is_p_position.
 *
 * The stub calls NOT_IMPLEMENTED_YET() so the tests can tell you which
 * function to write next; delete that line when you write the function.
 */
#include "grundy_winning.h"
#include "lab_todo.h"

grundy_position *grundy_winning_move(const grundy_position *p)
{
    /* TODO(Task 5): look through the moves of p for one that leads to a
     * P-position and return a copy of it (the move list owns, and frees,
     * its positions). No such move: return NULL. */
    (void)p;
    NOT_IMPLEMENTED_YET();
    return NULL;
}
