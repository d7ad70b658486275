/*
 * oracle.h - the test oracle for the Grundy's game lab.
 *
 * Tests ask this code for expected answers, so it is written to be
 * independent of the lab's student-facing code (it does not include
 * grundy.h and shares no data structures with it) and to be cross-checked
 * two ways: oracle_is_p() uses Sprague-Grundy values, oracle_search_is_p()
 * plays the game out by brute force without them.
 *
 * Positions are plain int arrays of heap heights. A "canonical" position
 * keeps only heights >= 3 (heaps of 1 and 2 can never be split, so they do
 * not change the game) in ascending order; two arrays describe the same game
 * exactly when their canonical forms are equal.
 *
 * Memory failures print a message to stderr and abort(): this is test
 * infrastructure and has no caller that could recover. The only global
 * state is two caches (nim values, search memo); each has a function that
 * frees it so that test programs can exit valgrind-clean. The oracle is not
 * thread-safe: call it from one thread at a time.
 */
#ifndef ORACLE_H
#define ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- canonical positions (canonical.c) ---- */

/* Canonical position: heap heights >= 3 in ascending order (a multiset).
 * Rewrites heaps[0 .. n-1] in place: drops heights < 3, sorts the rest
 * ascending. Returns the new length. */
size_t oracle_canonicalize(int *heaps, size_t n);

/* Every distinct canonical position reachable in one move. */
typedef struct {
    int **positions;  /* positions[i] holds lengths[i] heights (NULL if 0) */
    size_t *lengths;
    size_t count;
} oracle_move_list;

/* Every distinct canonical position reachable from heaps[0 .. n-1] in one
 * move, each exactly once, sorted lexicographically on the canonical arrays
 * (a proper prefix sorts first, so {} < {3} < {3, 4} < {4}). The input may
 * be in any order and may hold heights < 3; it is not changed. Free the
 * result with oracle_move_list_free(). */
oracle_move_list *oracle_moves(const int *heaps, size_t n);

/* Frees a move list and every position in it. NULL is a no-op. */
void oracle_move_list_free(oracle_move_list *m);

/* The position as "{3=1, 4=1}": "height=count" for each distinct height
 * >= 3 in ascending order, ", " separated, in braces; "{}" when nothing is
 * left. Input in any order. The string is malloc'd; the caller frees it. */
char *oracle_format(const int *heaps, size_t n);

/* Lexicographic order on canonical arrays (as used by oracle_moves):
 * negative, zero or positive like strcmp. */
int oracle_compare(const int *a, size_t na, const int *b, size_t nb);

/* ---- Sprague-Grundy values (nim_values.c) ---- */

/* g(n) for n >= 0 (g(0) = g(1) = g(2) = 0). Values come from a cached
 * table that grows on demand, so the first call for a large n pays for
 * every smaller n (about 2 microseconds each: a million heights take a
 * second or two, 2^24 under a minute, see nim_values.c and `make bench`);
 * after that a call is a table lookup. The table holds 4 bytes per height.
 * Aborts on n < 0. */
int oracle_nim_value(int n);

/* g(n) straight from the definition (mex over every split), using the same
 * cached table for smaller heights. Slower than oracle_nim_value(); it
 * exists so tests can check the fast path of the table against it. */
int oracle_nim_value_by_definition(int n);

/* Frees the cached table. The next oracle_nim_value() call rebuilds it. */
void oracle_nim_table_free(void);

/* Allows (the default) or forbids the AVX2 code of the table's split scan,
 * for tests and measurements: the values are the same either way, and the
 * portable code runs where the CPU has no AVX2. Affects tables built
 * after the call. */
void oracle_nim_allow_avx2(bool allow);

/* True iff the position is a P-position (the previous player wins), by the
 * Sprague-Grundy rule: the XOR of g over the heaps is 0. Heaps in any
 * order, heights < 3 allowed (they contribute 0). */
bool oracle_is_p(const int *heaps, size_t n);

/* ---- game-tree search (search.c) ---- */

/* True iff the position is a P-position, decided by memoized recursive
 * search over canonical positions that uses no nim values at all: a
 * position is P iff every move leads to an N-position (so a terminal
 * position is P). Pairs of equal heaps are cancelled before searching,
 * which keeps the state space small, and positions are bitsets with
 * incremental hashes (see search.c). A single heap of 80 takes about a
 * tenth of a second, 100 about a second and 32 MB; the cost grows about
 * 2.75-fold per 10 of total height. The memo is kept between calls. */
bool oracle_search_is_p(const int *heaps, size_t n);

/* Frees the search memo; the next search starts cold. */
void oracle_search_reset(void);

/* How many positions the search memo holds (for tests and measurements). */
size_t oracle_search_memo_size(void);

/* How many positions the search has expanded (generated the moves of)
 * since the last oracle_search_reset(), for measurements. Each expanded
 * position is then in the memo, so this equals the memo size. */
uint64_t oracle_search_expanded(void);

/* ---- the plain search and counting (plain_search.c) ---- */

/* The same answer as oracle_search_is_p(), by the plainest memoized
 * search: canonical positions with repeats kept (no pair cancellation),
 * moves from oracle_moves(), a fresh memo per call. It exists to
 * cross-check the fast search; it is slow beyond a total height of 50. */
bool oracle_plain_search_is_p(const int *heaps, size_t n);

/* How many positions the memo of the last oracle_plain_search_is_p() call
 * held (each was expanded exactly once), for measurements. */
size_t oracle_plain_search_last_memo_size(void);

/* The number of distinct canonical positions reachable from this one in
 * zero or more moves (the start included) that still have a move, i.e.
 * that are not empty. Pairs are NOT cancelled here: it counts the real
 * positions a memoizing solver meets, to bound how many times such a
 * solver may need to generate moves. Uses its own temporary table. */
size_t oracle_count_reachable_nonterminal(const int *heaps, size_t n);

/* The same count over reduced positions: each position has every pair of
 * equal heaps removed (a height kept once when its count is odd, not at
 * all when even) before it is counted or expanded, starting with this
 * one. It counts the positions a memoizing search that reduces every
 * position before looking it up meets, so it bounds how many times such
 * a search may generate moves. The empty position is not counted. */
size_t oracle_count_reachable_reduced(const int *heaps, size_t n);

/* ---- shared by the oracle's files ---- */

/* Prints "oracle: out of memory (<what>)" to stderr and aborts. */
void oracle_out_of_memory(const char *what);

#endif /* ORACLE_H */
