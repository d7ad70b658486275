/*
 * move_check.c - legality of a move, from the oracle (see move_check.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab_support.h"
#include "move_check.h"
#include "oracle.h"

enum { MOST_HEAPS = 512 };

/* heaps[0 .. n-1] in canonical form, in `into` (room for MOST_HEAPS). */
static size_t canonical(const int *heaps, size_t n, int *into)
{
    if (n > MOST_HEAPS)
        n = MOST_HEAPS; /* the suites never build positions this large */
    if (n > 0)
        memcpy(into, heaps, n * sizeof *heaps);
    return oracle_canonicalize(into, n);
}

bool move_is_legal(const int *heaps, size_t n, const int *got, size_t got_n)
{
    int want[MOST_HEAPS];
    size_t want_n = canonical(got, got_n, want);
    oracle_move_list *moves = oracle_moves(heaps, n);
    bool found = false;
    for (size_t i = 0; i < moves->count && !found; i++)
        found = oracle_compare(moves->positions[i], moves->lengths[i], want, want_n) == 0;
    oracle_move_list_free(moves);
    return found;
}

const char *legal_moves_text(const int *heaps, size_t n)
{
    static char ring[4][1024];
    static size_t next;
    char *text = ring[next++ % 4];
    oracle_move_list *moves = oracle_moves(heaps, n);
    size_t used = (size_t)snprintf(text, sizeof ring[0], "%s", moves->count ? "" : "none");
    for (size_t i = 0; i < moves->count && i < 8; i++) {
        char *one = oracle_format(moves->positions[i], moves->lengths[i]);
        used += (size_t)snprintf(text + used, used < sizeof ring[0] ? sizeof ring[0] - used : 0, "%s%s",
                                 i ? ", " : "", one);
        free(one);
    }
    if (moves->count > 8 && used < sizeof ring[0])
        snprintf(text + used, sizeof ring[0] - used, " and %zu more", moves->count - 8);
    oracle_move_list_free(moves);
    return text;
}

const char *why_not_a_move(const int *heaps, size_t n, const int *got, size_t got_n)
{
    static char why[160];
    int from[MOST_HEAPS], to[MOST_HEAPS];
    size_t from_n = canonical(heaps, n, from), to_n = canonical(got, got_n, to);
    /* What disappeared and what appeared: one merge of the sorted heaps. */
    int gone[4], came[4];
    size_t n_gone = 0, n_came = 0;
    for (size_t i = 0, j = 0; i < from_n || j < to_n;) {
        if (j == to_n || (i < from_n && from[i] < to[j])) {
            if (n_gone < 4)
                gone[n_gone] = from[i];
            n_gone++;
            i++;
        } else if (i == from_n || to[j] < from[i]) {
            if (n_came < 4)
                came[n_came] = to[j];
            n_came++;
            j++;
        } else {
            i++;
            j++;
        }
    }
    if (n_gone == 0 && n_came == 0)
        return "it is the position itself: a move must split a heap";
    if (n_gone == 0)
        return "it only adds heaps: a move replaces one heap by two smaller ones";
    if (n_gone > 1)
        return "it changes more than one heap: a move splits exactly one";
    int h = gone[0];
    bool halves = h % 2 == 0 && ((n_came == 2 && came[0] == h / 2 && came[1] == h / 2) ||
                                 (n_came == 0 && h / 2 < 3));
    if (halves) {
        snprintf(why, sizeof why, "it splits %d into two equal heaps of %d, which the rules forbid", h,
                 h / 2);
        return why;
    }
    snprintf(why, sizeof why, "no split of one heap of %d into two unequal parts gives it", h);
    return why;
}

const char *winning_move_problem(const int *heaps, size_t n, bool returned, const int *got,
                                 size_t got_n)
{
    static char problem[4096];
    /* lab_heaps_text: bounded, for `got` is the student's (lab_support.h). */
    char text[512], move[512] = "";
    snprintf(text, sizeof text, "%s", lab_heaps_text(heaps, n));
    if (returned)
        snprintf(move, sizeof move, "%s", lab_heaps_text(got, got_n));
    bool is_p = oracle_is_p(heaps, n);
    const char *verdict = NULL;
    /* An illegal move is named as such first: "it splits 10 into two
     * equal heaps" says more than "10 is a P-position". */
    if (returned && !move_is_legal(heaps, n, got, got_n)) {
        snprintf(problem, sizeof problem,
                 "grundy_winning_move(%s) returned %s, which is not a legal move: %s (the legal "
                 "moves: %s)",
                 text, move, why_not_a_move(heaps, n, got, got_n), legal_moves_text(heaps, n));
        verdict = problem;
    } else if (is_p && returned) {
        snprintf(problem, sizeof problem,
                 "grundy_winning_move(%s) returned %s; %s is a P-position, so every move leads to "
                 "an N-position and no move wins: return NULL",
                 text, move, text);
        verdict = problem;
    } else if (!is_p && !returned) {
        snprintf(problem, sizeof problem,
                 "grundy_winning_move(%s) returned NULL; %s is an N-position, so some move leads to "
                 "a P-position (the legal moves: %s)",
                 text, text, legal_moves_text(heaps, n));
        verdict = problem;
    } else if (returned && !oracle_is_p(got, got_n)) {
        snprintf(problem, sizeof problem,
                 "grundy_winning_move(%s) returned %s, a legal move to an N-position: the "
                 "opponent, who moves next, wins from there. A winning move leads to a P-position",
                 text, move);
        verdict = problem;
    }
    return verdict;
}
