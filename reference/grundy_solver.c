/*
 * grundy_solver.c - model solution of Tasks 1 and 2: the recursive P/N
 * solver, memoized with one global table.
 *
 * The two questions recurse into each other, exactly as the definitions
 * do: a position is P when every move leads to an N-position, and N when
 * some move leads to a P-position. Both store their answer in the same
 * memo table (as "is this P?"), so whichever question reaches a position
 * first saves the work for the other.
 */
#include "grundy.h"
#include "memo_table.h"

/* Created on first use; NULL again after grundy_memo_clear(). */
static memo_table *memo;

static bool recall(const grundy_position *p, bool *is_p)
{
    return memo != NULL && memo_table_get(memo, p, is_p);
}

static void remember(const grundy_position *p, bool is_p)
{
    if (memo == NULL)
        memo = memo_table_new();
    if (memo != NULL)
        memo_table_put(memo, p, is_p);
}

bool grundy_is_terminal(const grundy_position *p)
{
    /* By the invariant every stored heap is at least 3 high and can be
     * split (into 1 and height - 1), so only the empty position is stuck. */
    return p->size == 0;
}

bool grundy_is_p_position(const grundy_position *p)
{
    if (grundy_is_terminal(p))
        return true;
    bool is_p;
    if (recall(p, &is_p))
        return is_p;
    position_list *moves = grundy_get_moves(p);
    is_p = true;
    for (size_t i = 0; moves != NULL && i < moves->size && is_p; i++) {
        if (!grundy_is_n_position(moves->items[i]))
            is_p = false; /* a move to a P-position: the player to move wins */
    }
    position_list_free(moves);
    remember(p, is_p);
    return is_p;
}

bool grundy_is_n_position(const grundy_position *p)
{
    if (grundy_is_terminal(p))
        return false;
    bool is_p;
    if (recall(p, &is_p))
        return !is_p;
    position_list *moves = grundy_get_moves(p);
    bool is_n = false;
    for (size_t i = 0; moves != NULL && i < moves->size && !is_n; i++) {
        if (grundy_is_p_position(moves->items[i]))
            is_n = true;
    }
    position_list_free(moves);
    remember(p, !is_n);
    return is_n;
}

void grundy_memo_clear(void)
{
    memo_table_free(memo);
    memo = NULL;
}

size_t grundy_memo_size(void)
{
    return memo == NULL ? 0 : memo_table_size(memo);
}
