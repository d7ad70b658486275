/*
 * move_check.h - is a position one legal move away from another, and a
 * winning one? For the Task 5 suites, which must accept any winning move
 * a student returns, reject every other answer, and say why.
 *
 * Both answers come from the oracle's move generator (oracle_moves), which
 * shares no code with any solution. Nothing here asserts: each suite
 * states the failure in its own words (the hidden suites add the seed).
 */
#ifndef MOVE_CHECK_H
#define MOVE_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/* True iff the position with heaps got[0 .. got_n-1] is one move away
 * from the position with heaps[0 .. n-1] (both in any order, dead heaps
 * allowed). */
bool move_is_legal(const int *heaps, size_t n, const int *got, size_t got_n);

/* The legal moves from heaps[0 .. n-1] as text, "{9=1}, {8=1}, {3=1, 7=1},
 * {4=1, 6=1}" (at most 8 of them, then "and N more"), or "none". In one
 * of 4 rotating buffers: valid until 4 more texts have been made. */
const char *legal_moves_text(const int *heaps, size_t n);

/* Why the position got[0 .. got_n-1] is not a move from heaps[0 .. n-1],
 * in a few words a student can act on: "it splits 10 into two equal
 * heaps of 5", "it changes more than one heap", ... (a static string). */
const char *why_not_a_move(const int *heaps, size_t n, const int *got, size_t got_n);

/* What is wrong with an answer of grundy_winning_move(heaps[0 .. n-1]):
 * `returned` says whether it returned a position, got[0 .. got_n-1] holds
 * its heaps. NULL when the answer is right (NULL from a P-position; from
 * an N-position a legal move to a P-position, whichever one); otherwise a
 * whole sentence saying what it returned, what was expected and why (a
 * static buffer, valid until the next call). */
const char *winning_move_problem(const int *heaps, size_t n, bool returned, const int *got,
                                 size_t got_n);

#endif /* MOVE_CHECK_H */
