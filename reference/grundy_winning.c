/*
 * grundy_winning.c - model solution of Task 5: the winning move.
 *
 * A move wins exactly when it leads to a P-position (the definition of an
 * N-position, read as a recipe), so the search is the Task 1 loop over
 * p's moves, asking the memoized solver about each one and keeping the
 * first P-position it finds. Everything expensive is the solver's, and
 * its memo makes a second question about the same position cheap.
 */
#include "grundy_winning.h"

grundy_position *grundy_winning_move(const grundy_position *p)
{
    position_list *moves = grundy_get_moves(p);
    grundy_position *winning = NULL;
    for (size_t i = 0; moves != NULL && i < moves->size && winning == NULL; i++) {
        if (grundy_is_p_position(moves->items[i]))
            winning = grundy_copy(moves->items[i]); /* the list frees its own */
    }
    position_list_free(moves);
    return winning;
}
