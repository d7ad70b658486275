/*
 * grundy_nimbers.c - model solution of Task 6: pairs cancel, and nimbers.
 *
 * Two independent answers to "is p a P-position?", each faster than the
 * Task 2 search for its own reason:
 *   - grundy_reduced_is_p() is that search over reduced positions (pairs
 *     of equal heaps dropped): fewer distinct positions, so fewer
 *     expansions and a smaller memo;
 *   - grundy_nim_is_p() XORs the nimbers of the heaps: a table of one int
 *     per height replaces the memo of positions, and nothing is searched.
 * The nimbers are memoized top-down (recursion that remembers); Task 7
 * fills the same table bottom-up.
 */
#include <stdlib.h>

#include "grundy_nimbers.h"
#include "memo_table.h"

/* ---- the reduction ---- */

grundy_position *grundy_cancel_pairs(const grundy_position *p)
{
    grundy_position *reduced = grundy_new(0);
    if (reduced == NULL)
        return NULL;
    /* Entries come out in p's ascending order, so each add appends. */
    for (size_t i = 0; i < p->size; i++) {
        if (p->entries[i].count % 2 == 1)
            grundy_add_heap(reduced, p->entries[i].height);
    }
    return reduced;
}

/* Created on first use; NULL again after grundy_nimbers_clear(). */
static memo_table *reduced_memo;

/* The search proper, on a position that is already reduced. */
static bool reduced_search(const grundy_position *reduced)
{
    if (grundy_is_terminal(reduced))
        return true;
    bool is_p;
    if (reduced_memo != NULL && memo_table_get(reduced_memo, reduced, &is_p))
        return is_p;
    position_list *moves = grundy_get_moves(reduced);
    is_p = true;
    for (size_t i = 0; moves != NULL && i < moves->size && is_p; i++) {
        if (grundy_reduced_is_p(moves->items[i]))
            is_p = false; /* a move to a P-position: the player to move wins */
    }
    position_list_free(moves);
    if (reduced_memo == NULL)
        reduced_memo = memo_table_new();
    if (reduced_memo != NULL)
        memo_table_put(reduced_memo, reduced, is_p);
    return is_p;
}

bool grundy_reduced_is_p(const grundy_position *p)
{
    /* A move can make a pair ({4, 7} -> {3, 4, 4}), so every position is
     * reduced on entry, not only the first one. */
    grundy_position *reduced = grundy_cancel_pairs(p);
    if (reduced == NULL)
        return reduced_search(p); /* out of memory: unreduced keys are slower, still right */
    bool is_p = reduced_search(reduced);
    grundy_free(reduced);
    return is_p;
}

size_t grundy_reduced_memo_size(void)
{
    return reduced_memo == NULL ? 0 : memo_table_size(reduced_memo);
}

/* ---- nimbers ---- */

/* nim[h] = g(h) for h < nim_capacity, or -1 while still unknown. */
static int *nim;
static size_t nim_capacity;

/* Makes room for g(0 .. n); false when memory runs out. */
static bool reserve_heights(int n)
{
    size_t needed = (size_t)n + 1;
    if (needed <= nim_capacity)
        return true;
    size_t capacity = nim_capacity ? nim_capacity : 64;
    while (capacity < needed)
        capacity *= 2;
    int *bigger = realloc(nim, capacity * sizeof *bigger);
    if (bigger == NULL)
        return false;
    for (size_t h = nim_capacity; h < capacity; h++)
        bigger[h] = -1;
    nim = bigger;
    nim_capacity = capacity;
    return true;
}

int grundy_nim_value(int n)
{
    if (n < 0)
        return -1;
    if (n < 3)
        return 0; /* no split at all: the mex of nothing */
    if (!reserve_heights(n))
        return -1;
    if (nim[n] >= 0)
        return nim[n];
    /* A heap of n has (n-1)/2 splits, so at most that many options, and
     * the mex of k values is at most k: larger XORs cannot matter. */
    size_t options = (size_t)(n - 1) / 2;
    bool *reached = calloc(options + 1, sizeof *reached);
    if (reached == NULL)
        return -1;
    for (int a = 1; a < n - a; a++) {
        unsigned option = (unsigned)grundy_nim_value(a) ^ (unsigned)grundy_nim_value(n - a);
        if (option <= options)
            reached[option] = true;
    }
    int mex = 0;
    while (reached[mex])
        mex++;
    free(reached);
    nim[n] = mex; /* after the loop: the recursion may have moved the table */
    return mex;
}

bool grundy_nim_is_p(const grundy_position *p)
{
    unsigned sum = 0;
    for (size_t i = 0; i < p->size; i++) {
        if (p->entries[i].count % 2 == 1) /* g XOR g is 0: pairs cancel here too */
            sum ^= (unsigned)grundy_nim_value(p->entries[i].height);
    }
    return sum == 0;
}

void grundy_nimbers_clear(void)
{
    memo_table_free(reduced_memo);
    reduced_memo = NULL;
    free(nim);
    nim = NULL;
    nim_capacity = 0;
}
