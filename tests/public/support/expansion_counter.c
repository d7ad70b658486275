/*
 * expansion_counter.c - the grundy_get_moves wrapper behind
 * expansion_counter.h.
 */
#include "expansion_counter.h"
#include "grundy.h"

position_list *__real_grundy_get_moves(const grundy_position *p);
position_list *__wrap_grundy_get_moves(const grundy_position *p);

static uint64_t count;

position_list *__wrap_grundy_get_moves(const grundy_position *p)
{
    count++;
    return __real_grundy_get_moves(p);
}

uint64_t expansions(void)
{
    return count;
}

void expansions_reset(void)
{
    count = 0;
}
