/*
 * grundy_stack.c - Task 8 (optional): the solver without recursion.
 *
 * Your work goes where the TODO(Task 8) markers are. The handout's section
 * "Task 8" (#task-8) explains how a recursive search becomes a loop over
 * an explicit stack of frames; the contract is in grundy_stack.h. You need
 * working Tasks 0-2 (this file calls grundy_get_moves and uses the given
 * memo_table.h), and your Task 2 solver is the model to translate.
 *
 * Each stub calls NOT_IMPLEMENTED_YET() so the tests can tell you which
 * function to write next; delete that line when you write the function.
 */
#include <stdlib.h>

#include "grundy_stack.h"
#include "lab_todo.h"
#include "memo_table.h"

/* TODO(Task 8): a frame holds what one recursive call kept in its local
 * variables, e.g.
 *     typedef struct {
 *         const grundy_position *position;
 *         position_list *moves;    (NULL until expanded)
 *         size_t next;             (the move being tried)
 *     } frame;
 * and this file's own memo table, created on first use:
 *     static memo_table *memo;
 */

bool grundy_stack_is_p(const grundy_position *p)
{
    /* TODO(Task 8): push a frame for p, then loop while the stack is not
     * empty: look at the top frame; answer it from the memo or expand it;
     * push a frame for its next move, or pop it when its answer is known
     * and hand that answer to the frame below. No recursive calls. */
    (void)p;
    NOT_IMPLEMENTED_YET();
    return false;
}

void grundy_stack_memo_clear(void)
{
    /* TODO(Task 8): free this file's memo table; the next query starts
     * cold. */
    NOT_IMPLEMENTED_YET();
}

size_t grundy_stack_memo_size(void)
{
    /* TODO(Task 8): how many positions this file's memo holds (0 with no
     * table yet). */
    NOT_IMPLEMENTED_YET();
    return 0;
}
