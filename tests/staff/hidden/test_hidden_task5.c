/*
 * test_hidden_task5.c - Task 5, hidden suite (grader only; never given to
 * students): the winning move on randomized positions drawn from the seed
 * (see hidden_seed.h and README.md), and whole games against a random
 * opponent.
 *
 * Linked into the same runner as tests/public/suites/test_task5.c, so every helper
 * here is static and no test name repeats one of the public suite.
 * Expected answers: any legal move to a P-position is right, NULL is right
 * exactly from a P-position, both judged by move_check.h from the oracle.
 * Positions have at most 30 tokens: milliseconds for a memoized solver.
 *
 * Points: the tests of this suite share their rubric line's points
 * (grader/rubric.txt) equally, so a test added here takes a share from
 * the others; see each one's: grader/rubric --explain 'task5_hidden::*'.
 */
#include <stdio.h>
#include <string.h>

#include "alloc_tracker.h"
#include "expansion_counter.h"
#include "grundy_winning.h"
#include "hidden_seed.h"
#include "lab_support.h"
#include "move_check.h"
#include "oracle.h"

TestSuite(task5_hidden, .description = "Task 5, hidden: the winning move", .timeout = 60);

#define RNG(name) hidden_rng("task5_hidden::" #name)

enum { MAX_TOTAL = 30, MAX_HEAPS = 64 };

/* Checks grundy_winning_move on the position built by adding `heaps` in
 * this order: NULL exactly from a P-position, else a legal move to a
 * P-position, and the argument unchanged. Returns the move's heaps in
 * move[] (canonical) and their count, 0 for NULL. */
static size_t expect_winning(const int *heaps, size_t n, const char *how, int *move)
{
    grundy_position *p = lab_build(heaps, n);
    int before[MAX_HEAPS], after[MAX_HEAPS];
    size_t before_n = lab_expand_at_most(p, before, MAX_HEAPS, "the position before grundy_winning_move");
    const char *call = lab_format("grundy_winning_move(%s)", lab_heaps_text(heaps, n));
    lab_trace("%s", call);
    grundy_position *w = grundy_winning_move(p);
    lab_expect_owned_result(w, call, SECTION_WINNING);
    size_t got_n =
        w == NULL ? 0 : lab_expand_at_most(w, move, MAX_HEAPS, "the position grundy_winning_move returned");
    const char *problem = winning_move_problem(heaps, n, w != NULL, move, got_n);
    LAB_EXPECT(problem == NULL, SECTION_WINNING, "%s%s", problem, how);
    size_t after_n = lab_expand_at_most(p, after, MAX_HEAPS, "the position after grundy_winning_move");
    LAB_EXPECT(after_n == before_n && memcmp(after, before, after_n * sizeof *after) == 0,
               SECTION_WINNING, "grundy_winning_move changed its argument: %s became %s",
               lab_heaps_text(before, before_n), lab_heaps_text(after, after_n));
    grundy_free(w);
    grundy_free(p);
    return got_n;
}

LAB_TEST(task5_hidden, random_positions)
{
    /* 1 to 5 heaps, dead heaps mixed in, built in a random order. */
    unsigned rng = RNG(random_positions);
    for (int round = 0; round < 40; round++) {
        int heaps[16], move[MAX_HEAPS];
        size_t n = hidden_draw_heaps(&rng, heaps, 1, 5, 3, MAX_TOTAL);
        for (int k = hidden_between(&rng, 0, 3); k > 0; k--)
            heaps[n++] = hidden_between(&rng, 0, 2);
        hidden_shuffle(heaps, n, &rng);
        (void)expect_winning(heaps, n, "", move);
    }
}

LAB_TEST(task5_hidden, p_positions_have_no_winning_move)
{
    /* Random positions are mostly N; these are the P ones (and an N one
     * first, so that always returning NULL fails). */
    unsigned rng = RNG(p_positions_have_no_winning_move);
    int move[MAX_HEAPS];
    (void)expect_winning(LAB_HEAPS(3, 5), "", move);
    int found = 0;
    for (int attempt = 0; attempt < 5000 && found < 15; attempt++) {
        int heaps[8];
        size_t n = hidden_draw_heaps(&rng, heaps, 2, 5, 8, MAX_TOTAL);
        if (!oracle_is_p(heaps, n))
            continue;
        found++;
        (void)expect_winning(heaps, n, "", move);
    }
    cr_assert(found >= 5, "internal error: only %d P-positions drawn (seed %llu)", found, hidden_seed());
}

LAB_TEST(task5_hidden, whole_games_against_a_random_opponent)
{
    /* From a random N-position, grundy_winning_move plays against an
     * opponent who picks any legal move at random (from the oracle). A
     * winning move always leaves a P-position, from which every reply is
     * an N-position again, so the solver must move every time and the
     * opponent must be the one left without a move. */
    unsigned rng = RNG(whole_games_against_a_random_opponent);
    for (int game = 0; game < 12; game++) {
        int heaps[MAX_HEAPS];
        size_t n = hidden_draw_heaps(&rng, heaps, 1, 4, 10, 26);
        if (oracle_is_p(heaps, n))
            heaps[n++] = 3; /* g(3) = 1 and every P-position has XOR 0: now it is N */
        char start[512];
        snprintf(start, sizeof start, " (in a game from %s)", lab_heaps_text(heaps, n));
        for (;;) {
            int move[MAX_HEAPS];
            size_t move_n = expect_winning(heaps, n, start, move);
            oracle_move_list *replies = oracle_moves(move, move_n);
            bool stuck = replies->count == 0; /* the opponent cannot move: the solver won */
            if (!stuck) {
                size_t pick = lab_random(&rng) % replies->count;
                n = replies->lengths[pick];
                if (n > 0)
                    memcpy(heaps, replies->positions[pick], n * sizeof *heaps);
            }
            oracle_move_list_free(replies);
            if (stuck)
                break;
        }
    }
}

LAB_TEST(task5_hidden, warm_memo_answers_and_bound)
{
    /* 25 questions without clearing the memo: each must be right, and
     * expand only positions reachable from its own start, each at most
     * once, whatever earlier questions left in the memo. */
    unsigned rng = RNG(warm_memo_answers_and_bound);
    grundy_memo_clear();
    for (int round = 0; round < 25; round++) {
        int heaps[8], move[MAX_HEAPS];
        size_t n = hidden_draw_heaps(&rng, heaps, 1, 4, 6, 22);
        uint64_t bound = oracle_count_reachable_nonterminal(heaps, n) + 1; /* + {} */
        expansions_reset();
        (void)expect_winning(heaps, n, " (with a warm memo)", move);
        uint64_t used = expansions();
        LAB_EXPECT(used <= bound, SECTION_WINNING,
                   "grundy_winning_move(%s) called grundy_get_moves %llu times, but only %llu "
                   "distinct positions are reachable from it (counting {}); ask the memoized "
                   "solver about each move",
                   lab_heaps_text(heaps, n), (unsigned long long)used, (unsigned long long)bound);
    }
    grundy_memo_clear();
}

LAB_TEST(task5_hidden, nothing_leaks_on_either_answer)
{
    /* Both answers, NULL and a move, on random positions: after freeing
     * every result and clearing the memo, nothing is left. */
    unsigned rng = RNG(nothing_leaks_on_either_answer);
    int probe = 20;
    (void)oracle_is_p(&probe, 1); /* the oracle's table: allocated before counting */
    (void)legal_moves_text(&probe, 1);
    grundy_memo_clear();
    size_t before = alloc_live_blocks();
    for (int round = 0; round < 20; round++) {
        int heaps[8], move[MAX_HEAPS];
        size_t n = hidden_draw_heaps(&rng, heaps, 1, 4, 6, 24);
        (void)expect_winning(heaps, n, "", move);
    }
    grundy_memo_clear();
    size_t after = alloc_live_blocks();
    LAB_EXPECT(after == before, SECTION_WINNING,
               "%zu heap block(s) are still allocated after 20 winning-move questions, freeing "
               "every result and calling grundy_memo_clear(); free the move list on every path",
               after - before);
}
