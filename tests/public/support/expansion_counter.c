/*
 * expansion_counter.c - the grundy_get_moves wrapper behind
 * expansion_counter.h.
 */
#include "expansion_counter.h"
#include "grundy.h"
#include "memo_record.h"

position_list *__real_grundy_get_moves(const grundy_position *p);
position_list *__wrap_grundy_get_moves(const grundy_position *p);

static uint64_t count;
static unsigned running; /* calls under way (one, unless moves are made by moves) */

position_list *__wrap_grundy_get_moves(const grundy_position *p)
{
    count++;
    if (memo_record_expansion != NULL)
        memo_record_expansion(p); /* the memo's record (memo_record.h), where it is kept */
    running++;
    position_list *moves = __real_grundy_get_moves(p);
    running--;
    return moves;
}

bool expansion_running(void)
{
    return running > 0;
}

uint64_t expansions(void)
{
    return count;
}

void expansions_reset(void)
{
    count = 0;
}
