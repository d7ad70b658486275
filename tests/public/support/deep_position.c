/*
 * deep_position.c - long-game positions for Task 8 (see deep_position.h).
 */
#include <stdio.h>
#include <string.h>

#include "child_run.h"
#include "deep_position.h"
#include "oracle.h"

size_t deep_position_job(const void *input, void *result)
{
    const deep_position *d = input;
    grundy_position *p = grundy_new(0);
    if (p == NULL)
        return 0; /* no answer: the parent reports the child as crashed */
    for (int i = 0; i < d->threes; i++)
        grundy_add_heap(p, 3);
    for (size_t i = 0; i < d->n_others; i++)
        grundy_add_heap(p, d->others[i]);
    bool answer = d->is_p(p);
    grundy_free(p);
    d->memo_clear();
    memcpy(result, &answer, sizeof answer);
    return sizeof answer;
}

bool deep_position_is_p(const deep_position *d)
{
    int heaps[5];
    size_t n = 0;
    if (d->threes % 2 == 1)
        heaps[n++] = 3;
    for (size_t i = 0; i < d->n_others; i++)
        heaps[n++] = d->others[i];
    return oracle_is_p(heaps, n);
}

const char *deep_position_text(const deep_position *d)
{
    static char text[128];
    size_t used = (size_t)snprintf(text, sizeof text, "{3=%d", d->threes);
    for (size_t i = 0; i < d->n_others && used < sizeof text; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, ", %d=1", d->others[i]);
    if (used < sizeof text)
        snprintf(text + used, sizeof text - used, "}");
    return text;
}

int deep_position_moves(const deep_position *d)
{
    return d->threes + (int)d->n_others;
}

const char *deep_position_crash_cause(const deep_position *d, double budget)
{
    static char text[768];
    child_result again = child_run(deep_position_job, d, DEEP_LARGE_STACK, budget);
    int moves = deep_position_moves(d);
    if (again.outcome == CHILD_CRASHED)
        snprintf(text, sizeof text,
                 "It crashes on a %d MiB stack too (%s), so the stack's size is not the cause: "
                 "an invalid memory access is, most likely a write past the end of the frame array "
                 "(a heap overflow: the search holds %d positions open at once, so the array must "
                 "grow with realloc whenever it is full, and a pointer into it is stale after it "
                 "grows). Run `make memcheck`: valgrind names the line of the invalid write",
                 DEEP_LARGE_STACK >> 20, child_crash_text(&again), moves);
    else
        snprintf(text, sizeof text,
                 "On a %d MiB stack it does not crash, so it outgrew the small C stack: every game "
                 "from this position lasts at least %d moves, so the search holds that many "
                 "positions open at once, and a recursive solver needs a C stack frame for each. "
                 "Keep the frames in an array on the heap, and make no recursive call",
                 DEEP_LARGE_STACK >> 20, moves);
    return text;
}
