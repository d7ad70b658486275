/*
 * grundy_table.h - Task 7 (optional, Part 2): the nimbers, bottom-up.
 *
 * Task 6 works out g(n) from the top: asked for g(n), it asks for the
 * smaller values it needs, remembering each. This task turns the order
 * round: start at g(0) and fill a table upwards, so that every value a
 * height needs is already in the table when its turn comes. A plain loop,
 * no recursion, no memo lookups, and a cost you can state in advance. The
 * handout's section "Task 7" (#task-7) explains it.
 *
 * Like grundy.h, this header is the contract: do not change it.
 */
#ifndef GRUNDY_TABLE_H
#define GRUNDY_TABLE_H

#include <stddef.h>

/* The nimbers g(0), g(1), ..., g(n) of single heaps, in a new array.
 *
 * Result: an array g of n + 1 ints with g[h] the nimber of one heap of h
 * (g[0] = g[1] = g[2] = 0, and for h >= 3 the mex of g[a] XOR g[h - a]
 * over the splits 1 <= a < h - a); *length is set to n + 1. For n < 0, or
 * when memory runs out, the result is NULL and *length is 0.
 *
 * Ownership: the caller frees the array with free(). Nothing else stays
 * allocated after the call: no global table, no cache.
 *
 * How: iteratively, heights in increasing order, so that g[a] and g[h - a]
 * are known when g[h] is computed. No recursion at all: the function must
 * also work on a thread whose stack is a few tens of kilobytes deep.
 *
 * Bounds: time O(n^2), about n^2/4 XORs (height h has (h-1)/2 splits);
 * memory O(n): the result plus one scratch array of at most n/2 + 1
 * flags for the mex (the mex of k options is at most k). */
int *grundy_nim_table(int n, size_t *length);

#endif /* GRUNDY_TABLE_H */
