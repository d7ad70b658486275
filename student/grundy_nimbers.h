/*
 * grundy_nimbers.h - Task 6 (optional, Part 2): pairs cancel, and nimbers.
 *
 * Two facts about Grundy's game make the Task 2 search smaller, and then
 * unnecessary:
 *   - two equal heaps cancel: adding a pair of equal heaps to a position
 *     never changes whether it is P or N, so the solver may drop pairs
 *     before it looks a position up, and one memo entry then serves every
 *     position that differs only by pairs;
 *   - every single heap n has a nimber (Sprague-Grundy value) g(n), and a
 *     position is P exactly when the XOR of its heaps' nimbers is 0: no
 *     search over positions at all.
 * The handout's section "Task 6" (#task-6) explains both from scratch and
 * asks you to measure what each one buys. The functions may use the Task
 * 0-2 API and the given memo_table.h.
 *
 * Like grundy.h, this header is the contract: do not change it.
 */
#ifndef GRUNDY_NIMBERS_H
#define GRUNDY_NIMBERS_H

#include <stdbool.h>
#include <stddef.h>

#include "grundy.h"

/* ---- the reduction: equal heaps cancel ---- */

/* A new position holding p's heaps with every pair of equal heaps removed:
 * each height keeps count % 2 heaps, so it has count 1 or no entry at all
 * (the invariant of grundy.h holds: no entry with count 0). p is not
 * changed; the caller frees the result with grundy_free(). Returns NULL
 * only when memory runs out. One pass over the entries of p. */
grundy_position *grundy_cancel_pairs(const grundy_position *p);

/* True iff p is a P-position, by the Task 2 search with the reduction
 * applied to every position before anything else: reduce it with
 * grundy_cancel_pairs(), answer {} at once (it is P), look the reduced
 * position up in this file's own memo, and otherwise expand the *reduced*
 * position with grundy_get_moves() and store its answer under the reduced
 * key. No nimbers are used. From a cold memo each reduced position
 * reachable from reduce(p) is expanded at most once; a position with
 * extra pairs costs exactly what the position without them costs. The
 * memo is this file's, not the Task 2 one: grundy_memo_clear() does not
 * empty it, grundy_nimbers_clear() does. */
bool grundy_reduced_is_p(const grundy_position *p);

/* How many positions the memo of grundy_reduced_is_p() holds (0 before
 * the first query and after grundy_nimbers_clear()). */
size_t grundy_reduced_memo_size(void);

/* ---- nimbers ---- */

/* g(n), the nimber of a single heap of n: g(0) = g(1) = g(2) = 0, and for
 * n >= 3 the mex (the smallest natural number not in the set) of
 * g(a) XOR g(n - a) over the splits 1 <= a < n - a. Returns -1 for n < 0.
 * Memoized: every value worked out is kept in a table that grows as
 * needed, so g(0..n) from a cold table takes O(n^2) steps in all and a
 * second call for the same n is a table lookup. Makes no call to
 * grundy_get_moves(): the options of a single heap are pairs of heaps,
 * whose nimber is the XOR of theirs. */
int grundy_nim_value(int n);

/* True iff p is a P-position, decided by the Sprague-Grundy theorem: the
 * XOR of g(h) over every heap of p (a height with count c contributes
 * g(h) c times, so only the parity of c matters) is 0. No search: it never
 * calls grundy_get_moves() and does not touch any memo of positions. */
bool grundy_nim_is_p(const grundy_position *p);

/* Frees the nimber table and the memo of grundy_reduced_is_p(); the next
 * call of either starts cold. Safe to call at any time, also twice. */
void grundy_nimbers_clear(void);

#endif /* GRUNDY_NIMBERS_H */
