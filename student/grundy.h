/*
 * grundy.h - the contract of the Grundy's game lab.
 *
 * Everything a submission must provide, and the helpers it is given, is
 * declared here. Tests, grader and reference solution all compile against
 * this one header, so do not change it: your two files, grundy_position.c
 * (Task 0) and grundy_solver.c (Tasks 1-2), are graded against a pristine
 * copy.
 *
 * The game: a position is a multiset of heaps; a move splits one heap into
 * two heaps of different sizes. Heaps of 1 and 2 can never be split, so
 * they are dead and are not stored at all (see "the invariant" below). The
 * player who cannot move loses.
 */
#ifndef GRUNDY_H
#define GRUNDY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One row of the heap-count map: `count` heaps of height `height`.
 * Invariant: height >= 3 and count >= 1 (an entry with count 0 is removed). */
typedef struct {
    int height;
    int count;
} heap_count;

/* A position: the heap-count map, stored as a sorted array.
 * Invariants:
 *   - entries[0 .. size-1] are in strictly ascending order of height, so
 *     each distinct height appears once;
 *   - every entry satisfies the heap_count invariant above;
 *   - size <= capacity, and entries holds `capacity` slots.
 * Because dead heaps are never stored and the order is fixed, two positions
 * that are the same game have exactly the same entries: equality, hashing
 * and memoization all rely on that. */
typedef struct {
    heap_count *entries;
    size_t size;
    size_t capacity;
} grundy_position;

/* A growable list of positions. The list owns its positions: freeing the
 * list frees them. */
typedef struct {
    grundy_position **items;
    size_t size;
    size_t capacity;
} position_list;

/* ---- Task 0: the heap-count map and the moves (grundy_position.c) ---- */

/* A new position with one heap of `heap_height`; heights < 3 (0 and
 * negative ones too) give the empty position {}. The caller owns it and
 * frees it with grundy_free(). Returns NULL only when memory runs out. */
grundy_position *grundy_new(int heap_height);

/* A new position equal to `p` that shares no memory with it (its own
 * entries array): changing or freeing either leaves the other as it was.
 * The caller owns it. */
grundy_position *grundy_copy(const grundy_position *p);

/* Frees `p` and its entries. NULL is a no-op. */
void grundy_free(grundy_position *p);

/* How many heaps of `height` the position has (0 if none). */
int grundy_count(const grundy_position *p, int height);

/* Adds one heap of `height`, keeping the invariant (sorted, each height
 * once; the array grows when full). Heights < 3 are dropped: they are
 * dead heaps, and the invariant says we never store them. */
void grundy_add_heap(grundy_position *p, int height);

/* Removes one heap of `height`, if there is one; the entry disappears when
 * its count reaches 0. */
void grundy_remove_heap(grundy_position *p, int height);

/* True iff `a` and `b` hold the same heaps: the same size and the same
 * entries[0 .. size-1]. Capacity and the slots past size do not count, so
 * positions built in different orders (or with dead heaps added) are
 * equal. */
bool grundy_equals(const grundy_position *a, const grundy_position *b);

/* A hash of the heaps, for the memo table. Equal positions must hash
 * equal, however they were built: read only the height and count of
 * entries[0 .. size-1], never capacity, the slots past size or the
 * entries pointer. Different positions should rarely collide: mix in
 * every height and every count, in order (the tests ask that positions
 * differing in one height or in one count mostly hash differently). */
uint64_t grundy_hash(const grundy_position *p);

/* Every position reachable from `p` in one move, each distinct result
 * exactly once, in any order, in a new list the caller owns and frees
 * with position_list_free() (which frees its positions too). From a
 * terminal position the list is empty, never NULL. `p` itself is not
 * changed, and no position of the list shares memory with it. Write it
 * with two nested loops: over the distinct heights in `p`, then over the
 * ways to split one heap of that height into two different sizes. */
position_list *grundy_get_moves(const grundy_position *p);

/* ---- Task 1: the solver (grundy_solver.c) ---- */

/* True iff no move is possible from `p`. */
bool grundy_is_terminal(const grundy_position *p);

/* True iff the previous player wins from `p` (a P-position): `p` is
 * terminal, or every move from `p` leads to an N-position.
 * For both questions: `p` is not changed; the moves come from calls of
 * grundy_get_moves() (the tests count them, Task 2), and every list it
 * returns is freed before the function returns, on every path (the tests
 * count the blocks grundy_get_moves allocated that are still live). */
bool grundy_is_p_position(const grundy_position *p);

/* True iff the next player wins from `p` (an N-position): some move from
 * `p` leads to a P-position. */
bool grundy_is_n_position(const grundy_position *p);

/* ---- Task 2: memoization (grundy_solver.c) ----
 * One global memo table remembers every answer, and both P and N queries
 * share it: it stores "is this P?" for a position and is keyed by the
 * position's heaps (grundy_hash and grundy_equals, on a copy the table
 * owns), never by its address, which a later position may reuse. What the
 * tests check: from an empty memo, one question calls grundy_get_moves()
 * at most once per distinct position reachable from it; asked again, the
 * P or the N question about the same position calls it at most once; the
 * answers stay right with the earlier ones in the memo; and the answer
 * stored is the answer returned (stored after the moves are searched). */

/* Empties the memo and frees all of it: every entry and the table itself,
 * so that after it the memo holds no heap block (the tests count the
 * blocks still allocated; a table kept for reuse, as memo_table_clear
 * keeps one, fails them). The next query starts cold, and
 * grundy_memo_size() is 0. Safe to call at any time: before the first
 * query, and twice in a row. */
void grundy_memo_clear(void);

/* How many positions the memo table holds right now; 0 before the first
 * query and right after grundy_memo_clear(). */
size_t grundy_memo_size(void);

/* ---- Given helpers (grundy_given.c): already written for you ---- */

/* An empty list. Returns NULL only when memory runs out. */
position_list *position_list_new(void);

/* Appends `p`; the list takes ownership of it. */
void position_list_push(position_list *list, grundy_position *p);

/* Frees the list and every position in it. NULL is a no-op. */
void position_list_free(position_list *list);

/* The heaps as text, "{3=1, 4=1}" for one heap of 3 and one of 4, "{}" for
 * the empty position. The caller frees the string. */
char *grundy_to_string(const grundy_position *p);

#endif /* GRUNDY_H */
