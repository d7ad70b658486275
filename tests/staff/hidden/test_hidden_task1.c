/*
 * test_hidden_task1.c - Task 1, hidden suite (grader only; never given to
 * students): the recursive solver on randomized positions drawn from the
 * seed (see hidden_seed.h and README.md).
 *
 * Linked into the same runner as tests/public/suites/test_task1.c, so every helper
 * here is static and no test name repeats one of the public suite.
 *
 * Every position has a total of at most 20 tokens and at least two live
 * heaps: an unmemoized solver needs about 0.2 s for a single heap of 20 but
 * at most about 0.03 s for several heaps of the same total, so a correct
 * Task 1 solution passes this suite quickly, under valgrind too (the
 * grader's memory pass reruns the passing tests there).
 * Expected answers come from the oracle's nim-values (oracle_is_p), which
 * share nothing with a recursive solver; the hand-derived rule "pairs of
 * equal heaps cancel" is cross-checked against the oracle before use.
 *
 * Points: the tests of this suite share their rubric line's points
 * (grader/rubric.txt) equally, so a test added here takes a share from
 * the others; see each one's: grader/rubric --explain 'task1_hidden::*'.
 */
#include <stdio.h>
#include <string.h>

#include "hidden_seed.h"
#include "lab_support.h"
#include "oracle.h"

/* The largest total of any position asked here: the README's rule, checked
 * on every question as it is asked (hidden_rule.h). */
#define HIDDEN_RULE_MAX_TOTAL 20
#include "hidden_rule.h"

/* The memo forgotten, as in the public suite (memo_record.h). */
TestSuite(task1_hidden, .description = "Task 1, hidden: the recursive solver", .timeout = 60,
          .init = lab_memo_forgotten);

#define RNG(name) hidden_rng("task1_hidden::" #name)

enum { MAX_TOTAL = HIDDEN_RULE_MAX_TOTAL };

/* " (built by adding 5, 1, 3)" for messages (one static buffer). */
static const char *built_by(const int *heaps, size_t n)
{
    static char text[512];
    size_t used = (size_t)snprintf(text, sizeof text, " (built by adding ");
    for (size_t i = 0; i < n && used < sizeof text - 16; i++)
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%d", i ? ", " : "", heaps[i]);
    if (used < sizeof text - 2)
        snprintf(text + used, sizeof text - used, ")");
    return text;
}

LAB_TEST(task1_hidden, random_multi_heap_positions)
{
    /* 2 to 6 heaps, total 6 to 20; P or N asked first at random, so the N
     * question is also answered without the P question's help. */
    unsigned rng = RNG(random_multi_heap_positions);
    for (int round = 0; round < 40; round++) {
        int heaps[8];
        size_t n = hidden_draw_heaps(&rng, heaps, 2, 6, 6, MAX_TOTAL);
        lab_check_outcome_asked(heaps, n, lab_random(&rng) % 2, "", SECTION_SOLVER);
    }
}

LAB_TEST(task1_hidden, random_p_positions)
{
    /* Random positions are mostly N; these are the P ones, where the
     * solver must look at every move and find each of them an N-position
     * (a solver that stops at the first N move, or that mixes up "every"
     * and "some", answers them wrong). */
    unsigned rng = RNG(random_p_positions);
    int found = 0;
    for (int attempt = 0; attempt < 5000 && found < 15; attempt++) {
        int heaps[8];
        size_t n = hidden_draw_heaps(&rng, heaps, 2, 6, 8, MAX_TOTAL);
        if (!oracle_is_p(heaps, n))
            continue;
        found++;
        lab_check_outcome_asked(heaps, n, lab_random(&rng) % 2, "", SECTION_SOLVER);
    }
    cr_assert(found >= 5, "internal error: only %d P-positions drawn (seed %llu)", found, hidden_seed());
}

LAB_TEST(task1_hidden, many_small_heaps)
{
    /* 4 to 6 heaps of 3 to 5 tokens, so heights repeat ({3=4, 4=2}):
     * counts above 1 must survive every move and every recursive call.
     * Four heaps of at most 5 always fit in MAX_TOTAL; a fifth or sixth
     * heap is a 3 when its draw does not fit, and left out when no heap
     * fits. */
    unsigned rng = RNG(many_small_heaps);
    for (int round = 0; round < 30; round++) {
        int heaps[8];
        size_t n = (size_t)hidden_between(&rng, 4, 6);
        int total = 0;
        for (size_t i = 0; i < n; i++) {
            heaps[i] = hidden_between(&rng, 3, 5);
            if (total + heaps[i] > MAX_TOTAL)
                heaps[i] = 3;
            if (total + heaps[i] > MAX_TOTAL) {
                n = i;
                break;
            }
            total += heaps[i];
        }
        lab_check_outcome_asked(heaps, n, lab_random(&rng) % 2, "", SECTION_SOLVER);
    }
}

LAB_TEST(task1_hidden, dead_heaps_mixed_in)
{
    /* Heaps of 0, 1 and 2 added among the live ones change nothing about
     * the game (they are not stored), so the answer is that of the live
     * heaps alone. */
    unsigned rng = RNG(dead_heaps_mixed_in);
    for (int round = 0; round < 30; round++) {
        int live[8], heaps[16];
        size_t live_n = hidden_draw_heaps(&rng, live, 2, 5, 6, MAX_TOTAL);
        size_t dead_n = (size_t)hidden_between(&rng, 1, 6);
        size_t n = 0;
        for (size_t i = 0; i < live_n; i++)
            heaps[n++] = live[i];
        for (size_t i = 0; i < dead_n; i++)
            heaps[n++] = hidden_between(&rng, 0, 2);
        hidden_shuffle(heaps, n, &rng);
        lab_check_outcome_asked(heaps, n, lab_random(&rng) % 2, built_by(heaps, n), SECTION_SOLVER);
    }
}

LAB_TEST(task1_hidden, terminal_exactly_when_no_live_heap)
{
    /* Only dead heaps: terminal, and a P-position (the player to move
     * cannot move and loses). Any live heap, however large: not terminal
     * (grundy_is_terminal must not search, so heights up to 200 are fine). */
    unsigned rng = RNG(terminal_exactly_when_no_live_heap);
    for (int round = 0; round < 40; round++) {
        int heaps[16];
        size_t n = (size_t)hidden_between(&rng, 0, 10);
        for (size_t i = 0; i < n; i++)
            heaps[i] = hidden_between(&rng, 0, 2);
        bool live = round % 2 == 1;
        if (live) {
            size_t live_n = (size_t)hidden_between(&rng, 1, 4);
            for (size_t i = 0; i < live_n; i++)
                heaps[n++] = hidden_between(&rng, 3, 200);
            hidden_shuffle(heaps, n, &rng);
        }
        grundy_position *p = lab_build(heaps, n);
        bool terminal = grundy_is_terminal(p);
        LAB_EXPECT(terminal == !live, SECTION_SOLVER, "grundy_is_terminal(%s)%s returned %s; %s",
                   lab_heaps_text(heaps, n), built_by(heaps, n), terminal ? "true" : "false",
                   live ? "a heap of 3 or more can always be split into 1 and the rest"
                        : "heaps of 1 and 2 cannot be split, so no move is possible");
        grundy_free(p);
        if (!live)
            lab_check_outcome_asked(heaps, n, lab_random(&rng) % 2, built_by(heaps, n), SECTION_SOLVER);
    }
}

LAB_TEST(task1_hidden, pairs_plus_one_heap)
{
    /* Derived by hand: in a pair of equal heaps the second player copies
     * every move of the first in the other heap, so pairs cancel and a
     * position of pairs plus a heap s has the outcome of {s} alone. (The
     * oracle agrees; checked below before the rule is used.) */
    unsigned rng = RNG(pairs_plus_one_heap);
    for (int round = 0; round < 25; round++) {
        int heaps[16];
        size_t n = 0;
        int used = 0;
        for (int k = hidden_between(&rng, 1, 3); k > 0; k--) {
            int h = hidden_between(&rng, 3, 6);
            if (used + 2 * h > MAX_TOTAL - 3)
                break;
            heaps[n++] = h;
            heaps[n++] = h;
            used += 2 * h;
        }
        if (n == 0) {
            heaps[n++] = 3;
            heaps[n++] = 3;
            used = 6;
        }
        int single = hidden_between(&rng, 3, MAX_TOTAL - used);
        heaps[n++] = single;
        hidden_shuffle(heaps, n, &rng);
        cr_assert(oracle_is_p(heaps, n) == oracle_is_p(&single, 1),
                  "internal error: pairs do not cancel in %s (seed %llu)", lab_heaps_text(heaps, n),
                  hidden_seed());
        char how[96];
        snprintf(how, sizeof how, " (the pairs cancel, so it is what {%d=1} is)", single);
        lab_check_outcome_asked(heaps, n, lab_random(&rng) % 2, how, SECTION_SOLVER);
    }
}

LAB_TEST(task1_hidden, pairs_only_are_p)
{
    /* Derived by hand (see pairs_plus_one_heap): a position made only of
     * pairs is P, the second player mirrors every move. */
    unsigned rng = RNG(pairs_only_are_p);
    for (int round = 0; round < 20; round++) {
        int heaps[16];
        size_t n = 0;
        int used = 0;
        int pairs = hidden_between(&rng, 1, 3);
        for (int k = 0; k < pairs; k++) {
            int h = hidden_between(&rng, 3, 10);
            if (used + 2 * h > MAX_TOTAL)
                h = 3;
            if (used + 2 * h > MAX_TOTAL)
                break;
            heaps[n++] = h;
            heaps[n++] = h;
            used += 2 * h;
        }
        hidden_shuffle(heaps, n, &rng);
        cr_assert(oracle_is_p(heaps, n), "internal error: the oracle says %s is N (seed %llu)",
                  lab_heaps_text(heaps, n), hidden_seed());
        lab_check_outcome_asked(heaps, n, lab_random(&rng) % 2, " (pairs only: the second player mirrors)",
                                SECTION_SOLVER);
    }
}

LAB_TEST(task1_hidden, solver_leaves_random_positions_unchanged)
{
    /* Both questions on random positions (dead heaps mixed in): afterwards
     * the position must hold exactly the heaps it held before, with the
     * invariant intact (and the answers must be right). */
    unsigned rng = RNG(solver_leaves_random_positions_unchanged);
    for (int round = 0; round < 25; round++) {
        int heaps[16];
        size_t n = hidden_draw_heaps(&rng, heaps, 2, 6, 6, MAX_TOTAL);
        for (int k = hidden_between(&rng, 0, 3); k > 0; k--)
            heaps[n++] = hidden_between(&rng, 1, 2);
        hidden_shuffle(heaps, n, &rng);
        const char *text = lab_heaps_text(heaps, n);
        grundy_position *p = lab_build(heaps, n);
        int before[64], after[64];
        size_t before_n = lab_expand_at_most(p, before, 64, "the position before solving");
        bool n_first = lab_random(&rng) % 2;
        bool is_n = n_first ? grundy_is_n_position(p) : false;
        bool is_p = grundy_is_p_position(p);
        if (!n_first)
            is_n = grundy_is_n_position(p);
        char what[160];
        snprintf(what, sizeof what, "%s after grundy_is_p_position and grundy_is_n_position", text);
        size_t after_n = lab_expand_at_most(p, after, 64, what);
        LAB_EXPECT(after_n == before_n && memcmp(after, before, after_n * sizeof *after) == 0,
                   SECTION_SOLVER, "the solver changed its argument: %s became %s", text,
                   lab_heaps_text(after, after_n));
        bool expected_p = oracle_is_p(heaps, n);
        LAB_EXPECT(is_p == expected_p && is_n == !expected_p, SECTION_SOLVER,
                   "%s is %s; grundy_is_p_position returned %s and grundy_is_n_position %s",
                   text, lab_outcome_text(expected_p), is_p ? "true" : "false", is_n ? "true" : "false");
        grundy_free(p);
    }
}

LAB_TEST(task1_hidden, repeated_questions_agree)
{
    /* The same 12 positions asked three times: in order with P first, in
     * reverse order with N first on newly built positions, and three times
     * more on one object. Answers that depend on what was asked before
     * (a stale global, a flag never reset) show up. */
    unsigned rng = RNG(repeated_questions_agree);
    int heaps[12][8];
    size_t n[12];
    for (int i = 0; i < 12; i++)
        n[i] = hidden_draw_heaps(&rng, heaps[i], 2, 5, 6, MAX_TOTAL);
    for (int i = 0; i < 12; i++)
        lab_check_outcome_asked(heaps[i], n[i], false, " (first time asked)", SECTION_SOLVER);
    for (int i = 11; i >= 0; i--)
        lab_check_outcome_asked(heaps[i], n[i], true, " (asked again, N first)", SECTION_SOLVER);
    for (int i = 0; i < 12; i++) {
        grundy_position *p = lab_build(heaps[i], n[i]);
        bool expected_p = oracle_is_p(heaps[i], n[i]);
        for (int k = 0; k < 3; k++) {
            bool is_p = grundy_is_p_position(p), is_n = grundy_is_n_position(p);
            LAB_EXPECT(is_p == expected_p && is_n == !expected_p, SECTION_SOLVER,
                       "asked about the same %s object again (time %d): grundy_is_p_position "
                       "returned %s and grundy_is_n_position %s; it is %s",
                       lab_heaps_text(heaps[i], n[i]), k + 3, is_p ? "true" : "false",
                       is_n ? "true" : "false", lab_outcome_text(expected_p));
        }
        grundy_free(p);
    }
}
